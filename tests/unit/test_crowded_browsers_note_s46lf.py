"""`farm run --devices browser:8` on a 2-core machine said nothing, and every case ran 1.3 to
3.4 times slower (5.7 GB of Chromium, waits near their timeouts). A local run with more than
two browsers per core now says so once on stderr, with a count that is faster there; it is a
note, the run goes on."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import farm.devices.specs as specs
from tests.support.devices import build
from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
NOTE = ("farm: note: 5 browsers on 2 cores: cases will be slower (waits may time out); "
        "--devices browser:4 or fewer is faster here")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    for name in "abcdef":
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL",
                 "FARM_RESULTS_HISTORY_URL", "FARM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # this machine has 2 cores; browser devices are the fake ones (no Chromium started)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    monkeypatch.setattr(specs, "check_browser", lambda *_a: None)
    monkeypatch.setattr(specs, "make_devices", lambda wanted, settings, **_kw: [
        build(f"browser-{i + 1}", settings, i)
        for spec in wanted for i in range(spec.count)])
    return tmp_path


def test_more_than_two_browsers_a_core_is_said_once(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "browser:5")
    assert code == 0, out + err
    assert err.splitlines().count(NOTE) == 1, err
    assert "6 passed" in out


def test_two_a_core_or_fewer_says_nothing(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "browser:4")
    assert code == 0, out + err
    assert "farm: note:" not in err


def test_browsers_the_cases_do_not_need_are_not_counted(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "-k", "a or b",
                          "--devices", "browser:8")
    assert code == 0, out + err
    assert "farm: note:" not in err
