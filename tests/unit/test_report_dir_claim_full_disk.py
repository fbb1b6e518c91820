"""A --report-dir on a disk with no room left: the run still starts (its cases still run and
are told on the console, each output that cannot be written is named), as before the report
dir was claimed for the run at its start."""

from __future__ import annotations

import errno
import os

from farm.config import Settings


def test_a_report_dir_on_a_full_disk_does_not_stop_the_run_at_its_start(tmp_path, monkeypatch):
    """The claim of the folder (a first journal line) could not be written: `farm run` ended
    at once with 'farm: internal error: OSError: [Errno 28] No space left on device'."""
    import farm.journal
    from farm.run_outputs import output_dirs
    real = os.fdopen

    def full(fd, *args, **kw):
        f = real(fd, *args, **kw)
        f.write = lambda _text: (_ for _ in ()).throw(
            OSError(errno.ENOSPC, "No space left on device"))
        return f
    monkeypatch.setattr(farm.journal.os, "fdopen", full)
    report = tmp_path / "report"
    run_dir = output_dirs(Settings(state_dir=tmp_path / "state", report_dir=report),
                          "20261204-020000-aaaa", False)
    monkeypatch.undo()
    assert run_dir == report
    assert (report / "results.jsonl").exists()      # taken all the same


def test_farm_report_of_a_journal_a_full_disk_left_empty_says_so(tmp_path):
    """The disk was full from the run's start: not one journal line, no results.json.
    `farm report` said the run 'was stopped while it set up', of a run that had ended."""
    from click.testing import CliRunner

    from farm.cli import cli
    from farm.errors import UserError
    (tmp_path / "results.jsonl").write_bytes(b"")
    out = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert isinstance(out.exception, UserError)
    assert str(out.exception) == (f"{tmp_path / 'results.jsonl'}: empty (its disk was full "
                                  "from the run's start?): there is no report to rebuild")
    assert not (tmp_path / "report.html").exists()
