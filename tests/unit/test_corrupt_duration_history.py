"""A damaged case-durations history (.farm/history.sqlite) is set aside and a new one started,
saying so once, as results.sqlite and cache.db are: it stayed there, every run warned 'case
durations not recorded ... file is not a database' and no case was ever ordered by its time
again."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.history import DurationHistory
from farm.results import CaseResult
from tests.support.farm_cli import run_main as farm

CASE = """\
name: One
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


def _result(seconds: float) -> CaseResult:
    return CaseResult(run_id="r", case_id="s/a", name="a", file="a.yaml", platform="web",
                      status="passed", duration=seconds)


def _damaged(path: Path, how: str) -> bytes:
    """A durations history that held samples, then ``garbled`` (every page after the first
    overwritten), ``cut`` (truncated to 100 bytes) or ``none`` (no SQLite at all)."""
    DurationHistory(path.parent).record([_result(n) for n in range(1, 200)])
    data = bytearray(path.read_bytes())
    if how == "garbled":
        data = data[:4096] + b"\x5a" * (len(data) - 4096)
    data = data[:100] if how == "cut" else b"not a database " * 300 if how == "none" else data
    path.write_bytes(bytes(data))
    return bytes(data)


@pytest.mark.parametrize("how", ["garbled", "cut", "none"])
def test_a_corrupt_durations_history_is_set_aside_and_a_new_one_kept(tmp_path, capsys, how):
    history = DurationHistory(tmp_path)
    damaged = _damaged(history.path, how)
    history.record([_result(2.0)])
    err = capsys.readouterr().err
    [aside] = tmp_path.glob("history.sqlite.corrupt-*[0-9]")
    assert err.startswith(f"farm: warning: case durations history {history.path} was corrupt (")
    assert err.endswith(f"): moved it to {aside}; started a new one\n")
    assert "not recorded" not in err
    assert aside.read_bytes() == damaged        # moved aside as it was, never deleted
    history.record([_result(3.0)])
    assert history.load() == {"web:s/a": [2.0, 3.0]}
    assert capsys.readouterr().err == ""        # said once


def test_reading_a_corrupt_durations_history_sets_it_aside(tmp_path, capsys):
    history = DurationHistory(tmp_path)
    _damaged(history.path, "none")
    assert history.load() == {}
    assert "was corrupt (file is not a database)" in capsys.readouterr().err
    history.record([_result(2.0)])
    assert history.load() == {"web:s/a": [2.0]}
    assert capsys.readouterr().err == ""
    assert len(list(tmp_path.glob("history.sqlite.corrupt-*"))) == 1


def test_runs_after_a_corrupt_durations_history_say_so_once(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path))
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / ".farm").mkdir()
    (tmp_path / ".farm" / "history.sqlite").write_bytes(b"\x00garbage" * 1000)
    said = []
    for _ in range(2):
        code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--cache", "off")
        assert code == 0, out + err
        said.append(err)
    [aside] = (tmp_path / ".farm").glob("history.sqlite.corrupt-*")
    assert said == [f"farm: warning: case durations history .farm/history.sqlite was corrupt "
                    f"(file is not a database): moved it to .farm/{aside.name}; started a new "
                    "one\n", ""]
    assert len(DurationHistory(tmp_path / ".farm").load()["web:s/one"]) == 2
