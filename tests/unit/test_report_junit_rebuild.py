"""CI ran `farm run ... --junit-xml reports/junit.xml` and the job was killed: reports/junit.xml
says the run has not finished (`unfinished_junit`), and `farm report RUN_DIR` rebuilt only the
run directory's junit.xml: the file CI publishes kept saying "not finished" however the run
was rebuilt. `farm report RUN_DIR --junit-xml PATH` writes it there too."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from farm.cli import cli
from farm.config import Settings
from farm.results import CaseResult
from farm.run_outputs import output_dirs
from tests.support.farm_cli import run_main as farm

RUN_ID = "20261203-020000-ab12"


def _killed_run(tmp_path: Path, junit: Path) -> Path:
    """A run killed after its first case passed, its second never started."""
    run_dir = output_dirs(Settings(state_dir=tmp_path / "state",
                                   report_dir=tmp_path / "run"), RUN_ID, False, junit_xml=junit)
    journal = run_dir / "results.jsonl"
    head = json.loads(journal.read_text().splitlines()[0])
    head["pid"] = int(Path("/proc/sys/kernel/pid_max").read_text())     # no such process
    head["planned"] = [{"case_id": f"s/{c}", "name": c, "file": f"s/{c}.yaml",
                        "platform": "web"} for c in "ab"]
    done = CaseResult(run_id=RUN_ID, case_id="s/a", name="a", file="s/a.yaml", platform="web",
                      device="browser-1", status="passed",
                      started="2026-12-03T02:00:01.000+00:00", duration=1.5)
    journal.write_text(json.dumps(head) + "\n" + done.model_dump_json() + "\n")
    return run_dir


def test_farm_report_rewrites_the_junit_xml_ci_publishes(tmp_path, monkeypatch):
    junit = tmp_path / "reports" / "junit.xml"
    junit.parent.mkdir()
    run_dir = _killed_run(tmp_path, junit)
    assert "RunNotFinished" in junit.read_text()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    out = CliRunner().invoke(cli, ["report", str(run_dir), "--junit-xml", str(junit)])
    assert out.exit_code == 0, out.output
    assert junit.read_text() == (run_dir / "junit.xml").read_text()
    cases = {c.get("name"): [e.tag for e in c if e.tag != "system-out"]
             for c in ET.parse(junit).iter("testcase")}
    # (and the run's own error: b never ran, `farm.report.junit._run_cut_short`)
    assert cases == {"a": [], "b": ["skipped"], "run": ["error"]}, cases


def test_junit_xml_is_not_taken_with_history(tmp_path, monkeypatch, capsys):
    code, _, err = farm(monkeypatch, capsys, "report", "--history", "--junit-xml",
                        str(tmp_path / "j.xml"))
    assert code == 4
    assert err.startswith("farm: error: --junit-xml: not with --history"), err


def test_a_run_that_ends_before_it_plans_a_case_says_so_in_its_junit_xml(tmp_path,
                                                                          monkeypatch):
    """A --metrics-port in use, a setup error (exit 4): the run ends before it plans a case,
    and its journal goes with it. Its --junit-xml kept the placeholder telling CI to rebuild
    the run with `farm report`, which found no journal ("results.json does not exist")."""
    import atexit
    at_exit: list = []
    monkeypatch.setattr(atexit, "register", lambda fn, *args: at_exit.append((fn, args)))
    junit = tmp_path / "junit.xml"
    started = output_dirs(Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "run"),
                          RUN_ID, False, junit_xml=junit)
    # a run that planned its cases (stopped in them: its journal is there to rebuild from)
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    other_junit = tmp_path / "other.xml"
    other = output_dirs(Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "other"),
                        "20261203-020000-cd34", False, junit_xml=other_junit)
    JournalEvents(NullEvents(), other, "20261203-020000-cd34", [("s/a", "a", "a.yaml", "web")])
    for fn, args in reversed(at_exit):          # the processes end (atexit: last first)
        fn(*args)
    error = ET.parse(junit).find(".//error")
    assert error.get("type") == "RunNotStarted", error.attrib
    assert "ended before it ran any case" in error.get("message")
    assert not (started / "results.jsonl").exists()       # (its claim given back)
    assert ET.parse(other_junit).find(".//error").get("type") == "RunNotFinished"
