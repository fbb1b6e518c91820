"""farm with stdout or stderr closed (`farm run … 2>&-`, a supervisor's closed descriptor):
Python has None there, and a run that passed ended "farm: internal error: AttributeError:
'NoneType' object has no attribute 'flush'", exit 3. What farm says there now goes nowhere
and the exit code is the run's."""

from __future__ import annotations

import sys

import pytest

from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.mark.parametrize("closed", ["stdout", "stderr"])
def test_a_closed_stream_leaves_the_exit_code_the_runs(tmp_path, monkeypatch, capsys, closed):
    (tmp_path / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, closed, None)
    code, _, _ = run_main(monkeypatch, capsys, "run", "c.yaml", "--collect-only")
    stand_in = getattr(sys, closed)
    assert code == 0
    assert stand_in is not None and not stand_in.closed
    stand_in.close()
    monkeypatch.setattr(sys, closed, None)
    code, _, _ = run_main(monkeypatch, capsys, "run", "nothing.yaml")     # an error still 4
    getattr(sys, closed).close()
    assert code == 4
