"""Simulated Android phones (their adb server in the test's process) or iPhones (their
WebDriverAgent endpoints) with one web page installed as an app, served from a folder of the
test's own: the fixture several phone tests shared as copies.

    with phones_with_page(tmp_path, 2, "com.qa.lab", PAGE, "lab") as sim: ...
    with iphones_with_page(tmp_path, 1, "com.qa.lab", PAGE, "lab") as sim: ...
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator


@contextmanager
def phones_with_page(tmp_path: Path, count: int, package: str, page: str,
                     name: str) -> Iterator:
    from farm.devices.sim import AndroidSimulator
    with _with_page(tmp_path, AndroidSimulator, count, package, page, name) as sim:
        yield sim


@contextmanager
def iphones_with_page(tmp_path: Path, count: int, bundle: str, page: str,
                      name: str) -> Iterator:
    from farm.devices.sim import IosSimulator
    with _with_page(tmp_path, IosSimulator, count, bundle, page, name) as sim:
        yield sim


@contextmanager
def _with_page(tmp_path: Path, simulator: type, count: int, app_id: str, page: str,
               name: str) -> Iterator:
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(page)
    with AppServer() as served:
        served.serve([AppSpec(name=name, serve=app)])
        with simulator(count, {app_id: served.urls[app.resolve()] + "/"}) as sim:
            yield sim
