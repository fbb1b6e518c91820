"""Simulated Android phones (their adb server in the test's process) with one web page
installed as an app, served from a folder of the test's own: the fixture several phone tests
shared as copies.

    with phones_with_page(tmp_path, 2, "com.qa.lab", PAGE, "lab") as sim: ...
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def phones_with_page(tmp_path: Path, count: int, package: str, page: str,
                     name: str) -> Iterator:
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(page)
    with AppServer() as served:
        served.serve([AppSpec(name=name, serve=app)])
        with AndroidSimulator(count, {package: served.urls[app.resolve()] + "/"}) as sim:
            yield sim
