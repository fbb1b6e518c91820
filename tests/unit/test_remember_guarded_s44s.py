"""What a finished run remembers for later runs (the results history, --last-failed) runs
before its outputs are written: an error there that its own handling misses is said in one
line, and the run still writes results.json, junit.xml and report.html, where it lost them."""

from __future__ import annotations

import json

from farm import run_outputs
from tests.support.farm_cli import run_main as farm
from tests.unit.test_corrupt_results_history import here  # noqa: F401  (fixture)


def _broken(*args: object, **kwargs: object) -> None:
    raise RuntimeError("a bug in the history")


def test_an_error_remembering_the_run_costs_none_of_its_outputs(
        here, monkeypatch, capsys):  # noqa: F811
    monkeypatch.setattr(run_outputs, "remember_run", _broken)
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--cache", "off", "--report-dir", "out",
                          "--junit-xml", "j.xml")
    assert code == 0, out + err
    assert ("farm: warning: results history not updated: RuntimeError: a bug in the history "
            "(the run's results are written still; farm.log has the traceback)") in err
    assert "Traceback" not in err
    results = json.loads((here / "out" / "results.json").read_text())
    assert [c["status"] for c in results["cases"]] == ["passed"]
    assert (here / "out" / "report.html").is_file()
    assert 'failures="0"' in (here / "j.xml").read_text()
    assert json.loads((here / ".farm" / "lastfailed.json").read_text()) == {"failed": []}
