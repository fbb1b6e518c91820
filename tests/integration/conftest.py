"""Fixtures of the integration tests, as one ladder (pytest-playwright style: a module overrides
any rung by defining a fixture of the same name, e.g. ``page_target``).

    chromium ─► browser_settings ─► browser ─► page        farm's BrowserDevice under test;
                                     (module)   (session on page_target)
             └► viewer_browser ─► viewer_context ─► viewer_page (+ page_errors)
                (module)          (viewer_context_args)  a user's browser reading a report
    demo_app          suites/demo/app served for the whole session
    model_server      starts scripted OpenAI-compatible servers (tests/support/model_server.py)
    redis_server ─► redis_url      one redis-server per session; each test its own database
    private_redis     a redis-server of the test's own (a password, a restart)
    farm ─► workers   `farm …` / `farm worker` subprocesses with private state, killed after

Why these scopes: Chromium fixtures are module-scoped because Playwright's sync API is bound to
the thread that started it and the test thread can hold one at a time, so a module uses either
``browser`` or ``viewer_browser``, and each is closed before the next module starts. Servers
that are plain threads or processes (demo app, redis) are shared by the session.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli
from tests.support.model_server import ModelServer, Script
from tests.support.redis_server import RedisServer

DEMO_APP = ROOT / "suites" / "demo" / "app"


# ---- collection -------------------------------------------------------------------------------
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/integration is marked ``integration``: by its directory, so a new
    file needs no ``pytestmark`` to stay out of the fast run. (pytest passes this hook every
    collected item, not only this directory's.)"""
    here = Path(__file__).resolve().parent
    for item in items:
        if item.path.resolve().is_relative_to(here):
            item.add_marker(pytest.mark.integration)


# ---- Chromium ---------------------------------------------------------------------------------
@pytest.fixture(scope="session")
def chromium() -> Any:
    """The Chromium farm would drive (a ChromiumInfo); the test is skipped without one."""
    from farm.config import Settings
    from farm.devices.chromium import find_chromium
    found = find_chromium(Settings())
    if found is None:
        pytest.skip("no Chromium installed")
    return found


@pytest.fixture(scope="session")
def browser_settings(chromium: Any) -> Any:
    from farm.config import Settings
    return Settings(chromium_path=chromium.path)


@pytest.fixture(scope="module")
def browser(browser_settings: Any) -> Iterator[Any]:
    """An open BrowserDevice, driven from the test thread."""
    from farm.devices.browser import BrowserDevice
    device = BrowserDevice("itest-1", browser_settings)
    device.open()
    yield device
    device.close()


@pytest.fixture
def page_target(demo_app: str) -> Any:
    """What ``page`` opens: the demo shop at 1280x800 unless a module says otherwise."""
    from farm.suite.model import WebTarget
    return WebTarget(url=demo_app + "/index.html")


@pytest.fixture
def page(browser: Any, page_target: Any) -> Iterator[Any]:
    """``browser`` with a fresh session (its own context and page) on ``page_target``."""
    browser.start_session(page_target)
    yield browser
    browser.end_session()


@pytest.fixture(scope="module")
def viewer_browser(chromium: Any) -> Iterator[Any]:
    """Plain Playwright on the same Chromium: how a user's browser opens a report."""
    from playwright.sync_api import sync_playwright

    from farm.devices.chromium import BROWSER_FLAGS
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium.path, args=BROWSER_FLAGS)
        yield launched
        launched.close()


@pytest.fixture
def viewer_context_args() -> dict[str, Any]:
    """Keyword arguments of ``viewer_context`` (Browser.new_context)."""
    return {}


@pytest.fixture
def viewer_context(viewer_browser: Any, viewer_context_args: dict[str, Any]) -> Iterator[Any]:
    context = viewer_browser.new_context(**viewer_context_args)
    yield context
    context.close()


@pytest.fixture
def page_errors() -> list[str]:
    """Console errors, uncaught exceptions, failed requests and dialogs of ``viewer_page``."""
    return []


@pytest.fixture
def viewer_page(viewer_context: Any, page_errors: list[str]) -> Any:
    page = viewer_context.new_page()
    page.on("console", lambda m: page_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: page_errors.append(str(e)))
    page.on("requestfailed", lambda r: page_errors.append("failed " + r.url))
    page.on("dialog", lambda d: (page_errors.append("dialog: " + d.message), d.dismiss()))
    return page


# ---- apps and services ------------------------------------------------------------------------
@pytest.fixture(scope="session")
def demo_app() -> Iterator[str]:
    """Base URL of the demo shop (suites/demo/app), served by farm's own AppServer."""
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    with AppServer() as apps:
        apps.serve([AppSpec(name="shop", serve=DEMO_APP, env="FARM_DEMO_URL")])
        yield apps.env["FARM_DEMO_URL"]


@pytest.fixture
def model_server() -> Iterator[Callable[[Script], ModelServer]]:
    """``model_server(script)`` starts a scripted model server; all are stopped afterwards."""
    started: list[ModelServer] = []

    def start(script: Script) -> ModelServer:
        server = ModelServer(script).start()
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One private redis-server for the session (never the machine's shared one)."""
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """A database of the session's redis-server that no other test uses."""
    return redis_server.new_db()


@pytest.fixture
def private_redis() -> Iterator[Callable[..., RedisServer]]:
    """``private_redis(password=None)``: a started redis-server of this test's own."""
    started: list[RedisServer] = []

    def start(password: str | None = None) -> RedisServer:
        server = RedisServer(password=password).start()
        started.append(server)
        return server
    yield start
    for server in started:
        server.stop()


# ---- farm as a user runs it -------------------------------------------------------------------
@pytest.fixture
def farm(tmp_path: Path) -> Iterator[FarmCli]:
    """Runs `farm …` subprocesses with state under tmp_path; kills what it started."""
    cli = FarmCli(tmp_path)
    yield cli
    cli.close()


@pytest.fixture
def workers(farm: FarmCli, redis_url: str) -> Callable[..., Any]:
    """``workers("fake:2", **env)`` starts `farm worker` against ``redis_url`` (test device
    plugin loaded, test key prefix, no /metrics unless ``--metrics-port`` asks for it: tests
    never take the default ports 9464+); they are killed after the test."""
    def start(devices: str, *args: str, broker: str | None = None, **env: str) -> Any:
        return farm.worker(devices, *args, broker=broker or redis_url,
                           **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV,
                              "FARM_WORKER_METRICS_PORT": "0", **env})
    return start
