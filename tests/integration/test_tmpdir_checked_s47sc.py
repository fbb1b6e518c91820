"""A TMPDIR that is no folder farm can write (missing, a file, read-only) is a setting's
mistake said before any device starts (exit 4, naming TMPDIR, its value and why): Python
falls back to another folder without a word, but Playwright's driver does not, and every
case of the run was recorded as a lost device ("ENOENT ... mkdtemp", exit 3). A `farm worker`
says it before it serves."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli

CASE = "web: {url: 'about:blank'}\ntasks:\n  - name: t\n    flow:\n      - javascript: '1'\n"
MISSING = ("farm: error: TMPDIR {0}: temporary files cannot be made there (no such folder; "
           "the browser's driver makes its own there): create that folder, or set TMPDIR to a "
           "folder that can be written, or unset it\n")
A_FILE = ("farm: error: TMPDIR {0}: temporary files cannot be made there (is a file, not a "
          "folder; the browser's driver makes its own there): set TMPDIR to a folder that can "
          "be written, or unset it\n")


def _bad(tmp_path: Path, kind: str) -> tuple[Path, str]:
    if kind == "missing":
        return tmp_path / "x" / "nope", MISSING
    (tmp_path / "afile").write_text("")
    return tmp_path / "afile", A_FILE


@pytest.mark.parametrize("kind", ["missing", "a file"])
def test_a_run_with_an_unusable_tmpdir_ends_before_any_browser_starts(
        farm: FarmCli, tmp_path: Path, kind: str) -> None:
    (tmp_path / "case.yaml").write_text(CASE)
    tmpdir, said = _bad(tmp_path, kind)
    done = farm.run("run", tmp_path / "case.yaml", "--devices", "browser:1", "--no-progress",
                    TMPDIR=str(tmpdir))
    assert (done.returncode, done.stderr) == (4, said.format(tmpdir)), done.stdout
    assert not (tmp_path / "state" / "runs").exists()      # nothing run, nothing recorded
    again = farm.run("run", tmp_path / "case.yaml", "--devices", "browser:1", "--no-progress")
    assert again.returncode == 0, again.stdout + again.stderr     # (the same run, TMPDIR unset)


def test_a_worker_with_an_unusable_tmpdir_says_so_before_it_serves(farm: FarmCli,
                                                                   tmp_path: Path) -> None:
    tmpdir, said = _bad(tmp_path, "missing")
    done = farm.run("worker", "--broker", "redis://127.0.0.1:9/0", "--devices", "browser:1",
                    TMPDIR=str(tmpdir), timeout=120)
    assert (done.returncode, done.stderr) == (4, said.format(tmpdir)), done.stdout
