"""Simulated Android phones showing a one-screen notes app, for cluster tests of a phone that
dies: ``notes_phones(tmp_path_factory, n)`` serves the app and yields an in-process
`AndroidSimulator` of ``n`` phones; ``CASE`` launches it and checks its button."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

PACKAGE = "com.example.notes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Notes</title></head><body><h1>Notes</h1><button>New note</button></body></html>"""
CASE = (f"android:\n  launch: {PACKAGE}\ntasks:\n  - name: steps\n    flow:\n"
        "      - assertText: New note\n")


@contextmanager
def notes_phones(tmp_path_factory: Any, count: int) -> Iterator[Any]:
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path_factory.mktemp("app")
    (app / "index.html").write_text(PAGE)
    with AppServer() as served:
        served.serve([AppSpec(name="notes", serve=app)])
        with AndroidSimulator(count, {PACKAGE: served.urls[app.resolve()] + "/"}) as sim:
            yield sim
