"""Standard output that fails for another reason than its reader leaving: a full disk under
``farm run --collect-only > cases.txt``. It was taken for a reader that left: the list was cut
short, nothing was said and the exit code was 0, so CI trusted the half list. Now stderr says
it and the command exits 3 (an output not written), as for report files."""

from __future__ import annotations

import errno
import io
import json
import sys
from pathlib import Path

import pytest

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"
SAID = ("farm: error: standard output could not be written (No space left on device): what "
        "farm printed after that is lost")


class _DiskFills(io.StringIO):
    """A file on a disk that fills up after ``room`` characters."""

    def __init__(self, room: int, why: int = errno.ENOSPC) -> None:
        super().__init__()
        self.room, self.why = room, why

    def write(self, text: str) -> int:
        if len(self.getvalue()) + len(text) > self.room:
            raise OSError(self.why, "No space left on device" if self.why == errno.ENOSPC
                          else "Broken pipe")
        return super().write(text)


@pytest.fixture
def suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("a", "b", "c"):
        (tmp_path / "s").mkdir(exist_ok=True)
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_listing_cut_short_by_a_full_disk_says_so_and_fails(suite, monkeypatch, capsys):
    out = _DiskFills(room=40)
    monkeypatch.setattr(sys, "stdout", out)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert out.getvalue() == "s/a  [web]  a  (s/a.yaml)\n"
    assert (code, err.splitlines()) == (3, [SAID, counted(3).rstrip()])


def test_a_reader_that_left_is_still_no_error(suite, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdout", _DiskFills(room=40, why=errno.EPIPE))
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert (code, err) == (0, counted(3))


def test_a_command_that_failed_keeps_its_own_exit_code(suite, monkeypatch, capsys):
    (suite / "s" / "b.yaml").write_text(CASE.replace("sleep", "slep"))
    monkeypatch.setattr(sys, "stdout", _DiskFills(room=0))
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    # (a suite that did not load says all of it on stderr: nothing for stdout to lose)
    assert code == 4 and SAID not in err and problems(err) == [
        "farm: 1 problem in suite files:",
        "  s/b.yaml:6:9: unknown step kind 'slep' (did you mean 'sleep'?)"]
    # a selection of none (exit 5) says so on stdout, which the full disk lost
    (suite / "s" / "b.yaml").write_text(CASE)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "-k", "nomatch", "--no-progress",
                            "--report-dir", "r")
    assert (code, err.splitlines()) == (5, [SAID])


def test_a_run_whose_end_was_lost_says_exit_code_3_in_results_json(suite, monkeypatch, capsys):
    """`farm run … > /dev/full`: the process exits 3, and results.json said 0 (it was written
    before the lines that were lost); a rebuild from the journal says 3 too."""
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    (suite / "s" / "b.yaml").unlink()
    (suite / "s" / "c.yaml").unlink()
    monkeypatch.setattr(sys, "stdout", _DiskFills(room=0))
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                            "--no-progress", "--report-dir", "r")
    results = json.loads((suite / "r" / "results.json").read_text())
    assert (code, results["exit_code"], err.splitlines()) == (3, 3, [SAID])
    assert [c["status"] for c in results["cases"]] == ["passed"]
    (suite / "r" / "results.json").unlink()
    monkeypatch.setattr(sys, "stdout", io.StringIO())
    assert run_main(monkeypatch, capsys, "report", "r")[0] == 0
    assert json.loads((suite / "r" / "results.json").read_text())["exit_code"] == 3
