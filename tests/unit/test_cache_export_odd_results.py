"""`farm cache export DIR` where DIR/results.json is JSON but not a run's results (another
program's, or hand-edited: a list, 'cases' a string, a case that is not an object): it ended
in "farm: internal error: AttributeError" (exit 3, a traceback file); it now names the file and
what is wrong with it, or that the run has no passed case (exit 4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm


@pytest.mark.parametrize("text, said", [
    ('{"cases": "demo/login"}', "{run}/results.json: cannot read it as a run's results "
                                "(its 'cases' is not a list)"),
    ("[]", "{run}: no passed case to export"),
    ('{"cases": [1, null, "x"]}', "{run}: no passed case to export"),
])
def test_a_results_json_that_is_no_run_s_is_named(tmp_path: Path, monkeypatch, capsys,
                                                   text: str, said: str):
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.json").write_text(text)
    monkeypatch.chdir(tmp_path)
    code, out, err = farm(monkeypatch, capsys, "cache", "export", str(run))
    assert (code, out, err) == (4, "", "farm: error: " + said.format(run=run) + "\n")
    assert not (tmp_path / ".farm").exists()        # no last-error.log: no internal error
