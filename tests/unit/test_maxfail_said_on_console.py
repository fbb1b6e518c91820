"""A run that --maxfail (or -x) stopped says so on the terminal, as pytest's "stopping after N
failures": it ended "1 failed, 2 skipped" with nothing saying why the other cases did not run
(the reason was only in results.json and the report). Through the command, in-process, on
in-memory `fake` devices (no browser)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - {step}\n"
FAILS = "assertText: not on the empty page"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    for stem in ("a", "b", "c"):
        (tmp_path / "s" / f"{stem}.yaml").write_text(CASE.format(step=FAILS))
    return tmp_path


@pytest.mark.parametrize("flags, limit", [(["-x"], 1), (["--maxfail", "1"], 1)])
def test_a_maxfail_stop_is_said_with_the_cases_it_left(here, monkeypatch, capsys, flags,
                                                       limit):
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", *flags, "--report-dir", "out")
    assert code == 1, out + err
    assert (f"farm: stopped after {limit} failed case(s) (--maxfail {limit}): 2 case(s) not "
            "run (counted as skipped)") in out.splitlines(), out


def test_a_run_no_limit_stopped_says_nothing_of_it(here, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--maxfail", "5", "--report-dir", "out")
    assert code == 1, out + err
    assert "--maxfail" not in out
