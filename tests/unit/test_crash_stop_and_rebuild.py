"""What a stopped, killed or disk-starved run leaves behind, as a user reads it afterwards:
the devices it names as lost, the verdicts a rebuilt report gives, the timeout message."""

import threading
from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

SCREEN = UITree(source="dom", page_text="Welcome", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])


def _case(cid, steps, timeout=30.0):
    return Case(id=f"s/{cid}", name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=timeout)


def _services(tmp_path):
    return Services(settings=Settings(watchdog_grace_seconds=0.3),
                    artifacts=ArtifactStore(tmp_path), run_id="r1", env={})


class SlowToOpen(FakeDevice):
    """A browser still starting when Ctrl-C comes: its launch fails once farm kills it."""

    def __init__(self, *args, opening, **kw):
        super().__init__(*args, **kw)
        self.opening = opening

    def open(self):
        self.opening.set()
        if self._killed.wait(60):
            raise DeviceLost(f"browser {self.name} crashed or was closed: killed")
        super().open()


def test_a_device_stopped_by_ctrl_c_while_it_started_is_not_lost(tmp_path):
    """Ctrl-C (SIGTERM) in the first second of a run, while the browsers launch: the run said
    'lost: browser-2' (results.json's lost, the summary line, the report's Lost line), as if
    the device had broken, where farm itself had stopped it."""
    opening = threading.Event()
    dev = SlowToOpen(SCREEN, name="browser-2", opening=opening)
    case = _case("a", [Step(kind="aiTap", target="Sign in")])
    ex = LocalExecutor([dev], {case.id: case}, _services(tmp_path), RetryPolicy())
    threading.Thread(target=lambda: opening.wait(60) and ex.interrupt(), daemon=True).start()
    outcome = ex.run([Job(case.id, "web", 1.0)])
    assert outcome.interrupted
    assert outcome.lost == {}
    assert [(r.status, r.reason) for r in outcome.results] == [
        ("skipped", "not run: the run was interrupted")]


def test_a_device_that_dies_while_starting_is_still_lost(tmp_path):
    class Dead(FakeDevice):
        def open(self):
            raise DeviceLost("browser d2 crashed or was closed: no such binary")
    case = _case("a", [Step(kind="aiTap", target="Sign in")])
    ex = LocalExecutor([FakeDevice(SCREEN, name="d1"), Dead(SCREEN, name="d2")],
                       {case.id: case}, _services(tmp_path), RetryPolicy())
    outcome = ex.run([Job(case.id, "web", 1.0)])
    assert outcome.lost == {"d2": "could not start: browser d2 crashed or was closed: "
                                  "no such binary"}


class NeverLoads(FakeDevice):
    """A page that never finishes loading: the session's open waits until farm kills it."""

    def start_session(self, target):
        self._killed.wait(30)
        raise DeviceLost(f"browser {self.name} crashed or was closed: Playwright connection "
                         "closed")


def test_a_case_timing_out_while_its_page_loads_says_which_page(tmp_path):
    """A page that never finished loading (a server trickling its body) timed out saying
    only 'device stopped answering: browser crashed or was closed': nothing said the case
    never got past opening its url."""
    case = _case("slow", [Step(kind="aiTap", target="Sign in")], timeout=1)
    case.web = WebTarget(url="http://127.0.0.1:1/slow?token=${TOKEN}")
    case.secrets, case.vars = ["TOKEN"], {"TOKEN": "s3cr3t-value"}
    ex = LocalExecutor([NeverLoads(SCREEN, name="browser-1")], {case.id: case},
                       _services(tmp_path), RetryPolicy(infra_retries=1))
    [res] = ex.run([Job(case.id, "web", 1.0)]).results
    assert (res.status, res.attempt, res.error.kind) == ("error", 1, "CaseTimeout")
    assert res.error.message == (
        "case timed out after 1s opening http://127.0.0.1:1/slow?token=*** (device stopped "
        "answering: browser browser-1 crashed or was closed: Playwright connection closed)")
    assert [s.status for s in res.steps] == ["skipped"]


def _result(cid, status, error=None):
    from farm.results import CaseError, CaseResult
    return CaseResult(run_id="20261203-020000-ab12", case_id=f"s/{cid}", name=cid,
                      file=f"s/{cid}.yaml", platform="web", device="browser-1", status=status,
                      started="2026-12-03T02:00:01.000+00:00", duration=1.5,
                      error=CaseError(kind="AssertionFailed", message="no 'Total' on the page",
                                      step=2) if error else None)


def test_a_journal_cut_short_by_a_full_disk_takes_the_runs_end_from_the_history(
        tmp_path, monkeypatch):
    """The report dir's disk filled up during the run: the journal stopped after case a, and
    results.json was not written, while the results history (on another disk) got the run's
    end. `farm report` rebuilt it as a run cut short — b interrupted, c not run, exit code 2 —
    for a run whose every case had ended (b failed, c passed)."""
    import json

    from click.testing import CliRunner

    from farm.cli import cli
    from farm.results import RunSummary
    from farm.results_history import SqliteResults, record_for
    run_id, run_dir, state = "20261203-020000-ab12", tmp_path / "run", tmp_path / "state"
    run_dir.mkdir()
    state.mkdir()
    ended = RunSummary(run_id=run_id, started="2026-12-03T02:00:00.000+00:00", duration=9.0,
                       cases=[_result("a", "passed"), _result("b", "failed", error=True),
                              _result("c", "passed")])
    ended.recount()
    SqliteResults(state / "results.sqlite").add(record_for(ended, run_dir / "report.html"))
    planned = [{"case_id": f"s/{c}", "name": c, "file": f"s/{c}.yaml", "platform": "web"}
               for c in "abc"]
    lines = [json.dumps({"journal": "run", "run_id": run_id, "started": ended.started,
                         "planned": planned}),
             _result("a", "passed").model_dump_json(),
             json.dumps({"journal": "start", "case_id": "s/b", "attempt": 1,
                         "device": "browser-1", "started": "2026-12-03T02:00:03.000+00:00"}),
             '{"run_id": "20261203-020000-ab12", "case_id": "s/b", "na']     # torn: disk full
    (run_dir / "results.jsonl").write_text("\n".join(lines))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(state))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    out = CliRunner().invoke(cli, ["report", str(run_dir)])
    assert out.exit_code == 0, out.stderr
    assert ("the results history has the run's end: 2 case(s) take their verdict from it "
            "(without steps or images): 1 failed, 2 passed") in out.stderr
    data = json.loads((run_dir / "results.json").read_text())
    assert (data["exit_code"], data["interrupted"], data["duration"]) == (1, False, 9.0)
    by_id = {c["case_id"]: c for c in data["cases"]}
    assert [by_id[f"s/{c}"]["status"] for c in "abc"] == ["passed", "failed", "passed"]
    assert by_id["s/b"]["error"] == {"kind": "AssertionFailed", "step": 2,
                                     "message": "no 'Total' on the page"}
    assert "not saved" in by_id["s/c"]["reason"] and by_id["s/a"]["reason"] is None
    # the history keeps the one record of the run it had
    assert [r.run_id for r in SqliteResults(state / "results.sqlite").runs()] == [run_id]


def test_an_empty_results_history_left_by_a_full_disk_takes_the_next_runs(tmp_path, capsys):
    """A state dir that filled up while SQLite made results.sqlite left it empty (0 bytes):
    every later run said 'results history not updated: a SQLite file, not farm's: no such
    table: runs', once the disk had room again too, and recorded nothing, for good."""
    from farm.config import Settings as _Settings
    from farm.results import RunSummary
    from farm.results_history import open_results, remember_run
    state = tmp_path / "state"
    state.mkdir()
    (state / "results.sqlite").write_bytes(b"")
    settings = _Settings(state_dir=state)
    summary = RunSummary(run_id="20261203-030000-cd34", started="2026-12-03T03:00:00+00:00",
                         cases=[_result("a", "passed")])
    summary.recount()
    assert open_results(settings).recent(5) == []
    remember_run(settings, summary, tmp_path / "report.html")
    assert "not updated" not in capsys.readouterr().err
    assert [r.run_id for r in open_results(settings).recent(5)] == ["20261203-030000-cd34"]


def test_a_run_killed_while_it_wrote_its_report_is_rebuilt_as_finished(tmp_path, monkeypatch):
    """kill -9 (a CI timeout) while a big run wrote report.html: every case was in the journal
    and the results history had the run's end, but not the journal's end line, so
    `farm report` rebuilt a run that had finished as interrupted, exit code 2."""
    import json

    from click.testing import CliRunner

    from farm.cli import cli
    from farm.results import RunSummary
    from farm.results_history import SqliteResults, record_for
    run_id, run_dir, state = "20261203-020000-ab12", tmp_path / "run", tmp_path / "state"
    run_dir.mkdir()
    state.mkdir()
    ended = RunSummary(run_id=run_id, started="2026-12-03T02:00:00.000+00:00", duration=9.0,
                       cases=[_result("a", "passed"), _result("b", "failed", error=True)])
    ended.recount()
    SqliteResults(state / "results.sqlite").add(record_for(ended, run_dir / "report.html"))
    head = {"journal": "run", "run_id": run_id, "started": ended.started,
            "planned": [{"case_id": f"s/{c}", "name": c, "file": f"s/{c}.yaml",
                         "platform": "web"} for c in "ab"]}
    (run_dir / "results.jsonl").write_text("\n".join(
        [json.dumps(head)] + [c.model_dump_json() for c in ended.cases]) + "\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(state))
    monkeypatch.delenv("FARM_RESULTS_HISTORY_URL", raising=False)
    monkeypatch.delenv("FARM_BROKER_URL", raising=False)
    out = CliRunner().invoke(cli, ["report", str(run_dir)])
    assert out.exit_code == 0, out.stderr
    assert ("the results history has the run's end (farm was stopped while it wrote the "
            "run's files): it had finished: 1 failed, 1 passed") in out.stderr
    data = json.loads((run_dir / "results.json").read_text())
    assert (data["exit_code"], data["interrupted"], data["duration"]) == (1, False, 9.0)
    assert [c["status"] for c in data["cases"]] == ["passed", "failed"]


def test_a_killed_runs_junit_xml_is_not_the_last_runs(tmp_path):
    """CI runs `farm run … --junit-xml reports/junit.xml`, the job times out and farm is
    killed: reports/junit.xml was still the previous run's, every case passed, and CI
    published that as this build's result. From the run's start it says the run has not
    finished, until the run's end writes the real one."""
    import xmlschema

    from farm.run_outputs import output_dirs
    junit = tmp_path / "reports" / "junit.xml"
    junit.parent.mkdir()
    junit.write_text('<testsuites tests="1" failures="0" errors="0"><testsuite name="s" '
                     'tests="1"><testcase name="a" classname="s"/></testsuite></testsuites>')
    settings = Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "run")
    run_dir = output_dirs(settings, "20261203-040000-ef56", False, junit_xml=junit)
    text = junit.read_text()
    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "schemas" / "junit-10.xsd")).validate(
        str(junit))
    assert 'errors="1"' in text and 'name="a"' not in text
    assert ("farm run 20261203-040000-ef56 (started " in text and "has not written its "
            "results: it is still running, or it was stopped before its end (killed: a CI "
            f"timeout?); `farm report {run_dir} --junit-xml {junit}` rebuilds them from its "
            "journal") in text


def test_room_for_the_results_is_kept_until_the_runs_end(tmp_path):
    """A report dir on a disk the screenshots fill up during the run lost results.json,
    junit.xml and report.html at the end (No space left on device), what CI reads: room for
    them is set aside when the run starts and given back just before they are written."""
    from farm.results import RunSummary
    from farm.run_outputs import ROOM, ROOM_PER_CASE, output_dirs, write_outputs
    settings = Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "run")
    run_dir = output_dirs(settings, "20261203-050000-aa11", False, cases=40)
    assert (run_dir / ROOM).stat().st_size >= 40 * ROOM_PER_CASE
    summary = RunSummary(run_id="20261203-050000-aa11", started="2026-12-03T05:00:00+00:00",
                         cases=[_result("a", "passed")])
    summary.recount()
    assert write_outputs(summary, run_dir) == []
    assert not (run_dir / ROOM).exists()
    assert sorted(p.name for p in run_dir.iterdir()) == ["junit.xml", "report.css", "report.html",
                                                         "results.json", "results.jsonl"]


def test_the_end_line_after_a_line_a_full_disk_cut_reads_back(tmp_path):
    """The journal stopped mid-line on a full disk; the run's end (room given back) appended
    its end line to that torn line, where `farm report` could not read it."""
    import json

    from farm.journal import JOURNAL, conclude, recover
    from farm.results import RunSummary
    head = {"journal": "run", "run_id": "r9", "started": "2026-12-03T05:00:00+00:00",
            "planned": [{"case_id": "s/a", "name": "a", "file": "s/a.yaml",
                         "platform": "web"}]}
    (tmp_path / JOURNAL).write_text(json.dumps(head) + "\n" + _result("a", "passed")
                                    .model_dump_json()[:40])
    ended = RunSummary(run_id="r9", started=head["started"], finished="2026-12-03T05:00:09+00:00",
                       duration=9.0, exit_code=0, cases=[_result("a", "passed")])
    conclude(tmp_path, ended)
    summary = recover(tmp_path)
    assert (summary.interrupted, summary.exit_code, summary.duration) == (False, 0, 9.0)


def _journal_of(run_dir, pid):
    import json
    import socket
    run_dir.mkdir(parents=True)
    (run_dir / "results.jsonl").write_text(json.dumps(
        {"journal": "run", "run_id": run_dir.name, "started": "2026-12-03T06:00:00+00:00",
         "pid": pid, "host": socket.gethostname(), "planned": []}) + "\n")


def test_the_run_after_a_killed_one_says_how_to_get_its_report(tmp_path, capsys):
    """kill -9 (a CI timeout, a closed terminal) left .farm/runs/<id> with its journal and no
    results.json, and nothing ever said so: its cases never reached the results history
    unless the user knew to run `farm report` on it. The next run says it, once."""
    from farm.run_outputs import output_dirs
    try:        # no process has this pid: the kernel hands out pids below pid_max
        gone = int(Path("/proc/sys/kernel/pid_max").read_text())
    except OSError:
        gone = 2 ** 22 + 1
    state = tmp_path / "state"
    _journal_of(state / "runs" / "20261203-060000-aa11", gone)
    output_dirs(Settings(state_dir=state), "20261203-070000-bb22", False)
    assert capsys.readouterr().err == (
        "farm: the run before, 20261203-060000-aa11, ended without writing its results "
        f"(killed?): `farm report {state / 'runs' / '20261203-060000-aa11'}` rebuilds its "
        "report from its journal and puts its cases in the results history (--last-failed "
        "reads them from its journal until then)\n")
    output_dirs(Settings(state_dir=state), "20261203-080000-cc33", False)
    assert capsys.readouterr().err == ""     # the run before is the one that ended


def test_a_run_still_going_beside_this_one_is_not_called_killed(tmp_path, capsys):
    import os

    from farm.run_outputs import output_dirs
    state = tmp_path / "state"
    _journal_of(state / "runs" / "20261203-060000-aa11", os.getpid())
    output_dirs(Settings(state_dir=state), "20261203-070000-bb22", False)
    assert capsys.readouterr().err == ""


def test_the_room_is_given_back_before_the_state_dir_remembers_the_run(tmp_path):
    """.farm/runs/<id> and .farm/results.sqlite share a disk: the room kept for the run's
    results is given back before the results history and --last-failed are written too."""
    from farm.results import RunSummary
    from farm.run_outputs import ROOM, output_dirs, remember
    settings = Settings(state_dir=tmp_path / "state")
    run_dir = output_dirs(settings, "20261203-050000-aa11", False, cases=3)
    assert (run_dir / ROOM).exists()
    summary = RunSummary(run_id="20261203-050000-aa11", started="2026-12-03T05:00:00+00:00",
                         cases=[_result("a", "failed", error=True)])
    summary.recount()
    remember(settings, summary, run_dir)
    assert not (run_dir / ROOM).exists()
    assert (tmp_path / "state" / "lastfailed.json").read_text() == '{"failed": ["s/a"]}'
