"""`farm` imports its command's modules with the garbage collector off (with it on, `farm run`
spent ~40 ms of CPU in ~75 collections over objects that live until exit), and turns it on
again before the command's own work: a run's cases, and every other command (`farm worker`
and `farm sim` run for days and must collect). A command that ends early leaves it on."""

from __future__ import annotations

import gc
import os

import pytest

import farm.cli as cli
import farm.session


@pytest.fixture(autouse=True)
def own_process(tmp_path, monkeypatch):
    """`farm.cli.main` in this process, as tests.support.farm_cli.run_main calls it."""
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "_OWN_PROCESS", False)
    assert gc.isenabled()
    yield
    gc.enable()         # (a failing test must not leave the test process without it)


def _main(monkeypatch, *args: str) -> object:
    monkeypatch.setattr("sys.argv", ["farm", *args])
    try:
        cli.main()
    except SystemExit as exc:
        return exc.code
    return 0


def test_a_run_imports_with_the_collector_off_and_runs_its_cases_with_it_on(monkeypatch,
                                                                              tmp_path):
    seen = {}
    # `_quiet_gc` is where the run has imported its modules (it freezes them)
    monkeypatch.setattr(cli, "_quiet_gc", lambda: seen.setdefault("imports", gc.isenabled()))
    monkeypatch.setattr(farm.session, "run",
                        lambda *a, **k: seen.setdefault("cases", gc.isenabled()) and 0)
    assert _main(monkeypatch, "run", str(tmp_path)) == 0
    assert seen == {"imports": False, "cases": True}
    assert gc.isenabled()


def test_other_commands_run_with_the_collector_on(monkeypatch):
    seen = []
    monkeypatch.setattr(cli.worker, "callback", lambda **_: seen.append(gc.isenabled()))
    monkeypatch.setattr(cli.config_show, "callback", lambda **_: seen.append(gc.isenabled()))
    assert _main(monkeypatch, "worker") == 0
    assert _main(monkeypatch, "config", "show") == 0
    assert seen == [True, True]


def test_a_run_ended_by_a_usage_error_leaves_the_collector_on(monkeypatch, tmp_path):
    assert _main(monkeypatch, "run", str(tmp_path / "no-such-suite")) == cli.EXIT_USAGE
    assert gc.isenabled()
