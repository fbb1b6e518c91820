"""`farm run bad 2>/dev/null` showed only the closing line ("farm: no case ran: …") on stdout,
the problems it points at having gone to stderr: the closing line goes with them now, the
exit code (4) as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main


@pytest.mark.parametrize("collect_only", [False, True])
def test_a_suite_that_did_not_load_says_it_all_on_stderr_pip49(monkeypatch, capsys,
                                                               tmp_path: Path, collect_only):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "a.yaml").write_text("name: x\nsteps:\n  - bogus: 1\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "bad",
                              *(["--collect-only"] if collect_only else []))
    assert code == 4
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == "farm: 1 problem in suite files:"
    assert lines[-1].startswith("farm: no case is listed" if collect_only else
                                "farm: no case ran: a run starts only when every suite file")
