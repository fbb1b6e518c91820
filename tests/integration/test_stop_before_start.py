"""A stop signal in the moment between a run setting up its outputs and its first case starting
(apps being served, the devices being asked for): the run still ends with results.json, the
report and --junit-xml saying every case was not run, exit 2. It used to end in a bare
"interrupted" with no results, and --junit-xml kept saying the run had been killed."""

from __future__ import annotations

import io
import json
import os
import signal

import pytest

import farm.session
from farm.config import load_settings
from farm.session import run
from tests.support.suites import demo_copy

pytestmark = pytest.mark.integration


class _NotHandled(Exception):
    """The signal reached the handler of before the run: farm did not take it."""


@pytest.fixture
def hup_noted():
    """SIGHUP (one of the signals that stop a run) raises _NotHandled where farm does not
    handle it: this test process must not end, whatever farm does."""
    def before(*_):
        raise _NotHandled
    previous = signal.signal(signal.SIGHUP, before)
    yield
    signal.signal(signal.SIGHUP, previous)


@pytest.mark.parametrize("where", ["_executor", "_execute"])
def test_a_stop_before_the_first_case_still_leaves_every_output(tmp_path, monkeypatch,
                                                                 hup_noted, where):
    suite = demo_copy(tmp_path / "demo", "login_success.yaml", "add_to_cart.yaml")
    real = getattr(farm.session, where)

    def signalled(*args, **kwargs):         # the signal comes as farm reaches this point
        os.kill(os.getpid(), signal.SIGHUP)
        return real(*args, **kwargs)
    monkeypatch.setattr(farm.session, where, signalled)
    run_dir, junit = tmp_path / "run", tmp_path / "junit.xml"
    out = io.StringIO()
    settings = load_settings(report_dir=run_dir, state_dir=tmp_path / "state")
    code = run([suite], "browser:1", settings, junit_xml=junit, progress=False, out=out)
    assert code == 2, out.getvalue()
    summary = json.loads((run_dir / "results.json").read_text())
    assert summary["interrupted"] is True
    assert {(c["case_id"], c["status"], c["reason"]) for c in summary["cases"]} == {
        (case, "skipped", "not run: the run was interrupted")
        for case in ("demo/login_success", "demo/add_to_cart")}
    assert summary["devices"] == []                     # no device was started
    report = (run_dir / "report.html").read_text()
    assert "2 case(s) not run" in report
    xml = junit.read_text()
    assert xml.count("<skipped") == 2 and "has not written its results" not in xml
    assert "interrupted: 2 case(s) not run" in out.getvalue()
