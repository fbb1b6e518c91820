"""The results history keeps which step a red case failed at, so the history page says where a
flaky case fails most ("step 4 aiTap "Pay now": 5 of 7 failures"), and marks the runs that
took part of the usual run (--last-failed, --shard, an afternoon's -k) so their pass rate is
not drawn as a night's. A results.sqlite an older farm wrote stays readable and gets the
failing steps of the runs whose results.json is still there."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from types import SimpleNamespace

import pytest

from farm.report.history_page import render_history
from farm.report.trends import analyse
from farm.results import (CaseError, CaseResult, DeselectedCase, RunSummary, StepRecord,
                          final_result)
from farm.results_history import (SCHEMA_VERSION, SqliteResults, open_results, record_for,
                                  selection_of)
from farm.select import SelectOptions, select_cases
from farm.suite.model import Case, Step, Task, WebTarget

LABELS = ['aiTap "Shop"', 'aiInput "Card" = "${CARD}"', 'assertText "Basket"',
          'aiTap "Pay now"', 'assertText "Paid"']


def attempt(run_id: str, status: str, at: int | None = None, kind: str = "AssertionFailed",
            number: int = 1) -> CaseResult:
    """One attempt of nightly/pay: its steps up to ``at`` (the step it failed at, 0: before the
    first step; None: every step passed)."""
    last = len(LABELS) if at is None else at
    steps = [StepRecord(task="main", index=i, kind=label.split()[0], label=label,
                        status="failed" if i == at else "passed")
             for i, label in enumerate(LABELS[:last], 1)]
    error = None if at is None else CaseError(
        kind=kind, message=f"step {at} went wrong\nsecond line", step=at or None)
    return CaseResult(run_id=run_id, case_id="nightly/pay", name="Pays", file="pay.yaml",
                      platform="web", device="browser-1", status=status, error=error,
                      steps=steps, attempt=number, duration=2.0)


def night(day: int, *attempts: tuple[str, int | None], deselected: list[str] = (),
          kind: str = "AssertionFailed") -> RunSummary:
    """A run of day ``day``: nightly/pay's attempts (status, failing step), then a case that
    passes; ``deselected``: reasons farm.select gave for the cases left out."""
    run_id = f"r{day}"
    pay = final_result([attempt(run_id, s, at, kind, n)
                        for n, (s, at) in enumerate(attempts, 1)])
    ok = CaseResult(run_id=run_id, case_id="nightly/ok", name="OK", file="ok.yaml",
                    platform="web", status="passed", duration=1.0)
    summary = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00",
                         cases=[pay, ok], deselected=[
                             DeselectedCase(case_id=f"nightly/out{i}", name="x", file="x.yaml",
                                            platform="web", reason=reason)
                             for i, reason in enumerate(deselected)])
    summary.recount()
    return summary


FAIL_AT_4, FAIL_AT_2, PASS = ("failed", 4), ("failed", 2), ("passed", None)


def test_a_record_names_the_failing_step_of_a_failed_and_of_a_flaky_case():
    failed = record_for(night(1, FAIL_AT_4)).cases[0]
    assert failed.step.model_dump() == {"index": 4, "kind": "aiTap", "label": 'aiTap "Pay now"',
                                        "error": "AssertionFailed"}
    flaky = record_for(night(2, FAIL_AT_2, PASS)).cases[0]
    assert flaky.status == "flaky" and flaky.step is None
    assert flaky.attempts[0].step.label == 'aiInput "Card" = "${CARD}"'    # a placeholder
    assert flaky.last_failed_step().index == 2
    # failed at step 2, then its device broke (retried), then passed: the fail is at step 2
    retried = record_for(night(5, FAIL_AT_2, ("error", 0), PASS)).cases[0]
    assert retried.status == "flaky" and retried.last_failed_step().index == 2
    setup = record_for(night(3, ("error", 0), kind="DeviceLost")).cases[0]
    assert (setup.step.index, setup.step.error) == (0, "DeviceLost")
    assert record_for(night(4, PASS)).cases[0].step is None


def _flaky_row(html: str, case_id: str = "nightly/pay") -> str:
    section = html[html.index('id="flaky"'):html.index('id="slowest"')]
    row = re.search(rf'<tr data-case="{case_id}">(.*?)(?=<tr|</tbody>)', section, re.S).group(1)
    return re.sub(r"<[^>]+>", "", row).replace("&#34;", '"')


def test_the_flaky_ranking_says_which_step_fails_most(tmp_path: Path):
    """Seven red nights of nightly/pay (5 at step 4, one a flaky night whose first attempt
    failed there; 2 at step 2) between green ones: the ranking names step 4 first."""
    plan = [FAIL_AT_4, PASS, FAIL_AT_4, FAIL_AT_2, PASS, FAIL_AT_4, FAIL_AT_2, PASS,
            FAIL_AT_4, PASS]
    nights = [night(day, step) for day, step in enumerate(plan, 1)]
    nights.append(night(11, FAIL_AT_4, PASS))              # passed on a retry
    records = [record_for(n) for n in nights]
    [pay] = analyse(records).flaky
    assert (pay.fails, pay.flaky) == (6, 1)
    assert [(s.step.index, s.fails, s.errors) for s in pay.steps] == [
        (4, 5, ["AssertionFailed"]), (2, 2, ["AssertionFailed"])]
    row = _flaky_row(render_history(records, tmp_path))
    assert 'step 4 aiTap "Pay now": 5 of 7 failures' in row
    assert 'step 2 aiInput "Card" = "${CARD}": 2 of 7 failures' in row


def test_a_fail_before_the_first_step_and_the_newest_run_s_step_are_shown(tmp_path: Path):
    records = [record_for(n) for n in (night(1, ("error", 0)), night(2, PASS),
                                       night(3, FAIL_AT_4))]
    html = render_history(records, tmp_path)
    latest = html[html.index('id="latest"'):html.index('id="flaky"')]
    assert 'step 4 <code>aiTap &#34;Pay now&#34;</code>' in latest


# ---- an older results.sqlite --------------------------------------------------------------
def _old_record(summary: RunSummary, report: Path | None) -> str:
    """The record as a farm from before failing steps and selections wrote it."""
    data = json.loads(record_for(summary, report).model_dump_json(exclude_defaults=True))
    data.pop("selection", None)
    for case in data["cases"]:
        case.pop("step", None)
        for a in case.get("attempts", []):
            a.pop("step", None)
    return json.dumps(data)


def _old_history(state: Path, summaries: list[RunSummary], keep: set[str]) -> Path:
    """results.sqlite as the older farm made it (no user_version), and run folders under
    ``runs/`` for the runs in ``keep`` (FARM_KEEP_RUNS removed the others)."""
    path = state / "results.sqlite"
    state.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SqliteResults._SCHEMA)
    for s in summaries:
        run_dir = state / "runs" / s.run_id
        if s.run_id in keep:
            run_dir.mkdir(parents=True)
            (run_dir / "results.json").write_text(s.model_dump_json(indent=2))
            (run_dir / "report.html").write_text("<html></html>")
        con.execute("INSERT INTO runs VALUES (?, ?, ?)",
                    (s.run_id, record_for(s).at, _old_record(s, run_dir / "report.html")))
    con.commit()
    con.close()
    return path


def _settings(state: Path) -> SimpleNamespace:
    return SimpleNamespace(results_history_url=None, broker_url=None, state_dir=state,
                           cluster_prefix="farm")


def _version(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return con.execute("PRAGMA user_version").fetchone()[0]
    finally:
        con.close()


def test_an_older_history_keeps_its_runs_and_gets_the_steps_its_results_json_have(tmp_path):
    state = tmp_path / "state"
    summaries = [night(1, FAIL_AT_4), night(2, PASS), night(3, FAIL_AT_2),
                 night(4, FAIL_AT_4, deselected=["--last-failed: did not fail last time"])]
    path = _old_history(state, summaries, keep={"r3", "r4"})
    assert _version(path) == 0
    runs = open_results(_settings(state)).runs()
    assert [r.run_id for r in runs] == ["r1", "r2", "r3", "r4"]      # every older row is kept
    assert runs[0].cases[0].step is None                  # its results.json is gone
    assert runs[2].cases[0].step.label == 'aiInput "Card" = "${CARD}"'
    assert runs[3].cases[0].step.index == 4 and runs[3].selection == ["--last-failed"]
    assert _version(path) == SCHEMA_VERSION
    row = _flaky_row(render_history(runs, tmp_path))
    assert 'step 2 aiInput "Card" = "${CARD}": 1 of 3 failures' in row
    assert 'step 4 aiTap "Pay now": 1 of 3 failures' in row
    assert "1 of 3 from before farm recorded the step" in row


def test_the_upgrade_runs_once_and_a_new_history_needs_none(tmp_path):
    state = tmp_path / "state"
    path = _old_history(state, [night(1, FAIL_AT_4)], keep={"r1"})
    store = open_results(_settings(state))
    assert _version(path) == SCHEMA_VERSION
    assert store.upgrade(state / "runs") == 0              # done already
    fresh = SqliteResults(tmp_path / "new.sqlite")
    fresh.add(record_for(night(2, FAIL_AT_2)))
    assert _version(fresh.path) == SCHEMA_VERSION
    assert fresh.runs()[0].cases[0].step.index == 2


def test_a_history_that_cannot_be_written_is_still_read(tmp_path, capsys, monkeypatch):
    """A shared results.sqlite farm may not write (read-only for this user): the upgrade
    says so in one line and the runs are read as they are."""
    import farm.results_history as history
    state = tmp_path / "state"
    path = _old_history(state, [night(1, FAIL_AT_4)], keep={"r1"})

    def read_only(text, runs):
        raise sqlite3.OperationalError("attempt to write a readonly database")
    monkeypatch.setattr(history, "_backfilled", read_only)
    runs = open_results(_settings(state)).runs()
    assert [r.run_id for r in runs] == ["r1"] and runs[0].cases[0].step is None
    assert _version(path) == 0          # tried again next time
    err = capsys.readouterr().err.strip()
    assert err == (f"farm: warning: results history {path} not upgraded (older runs' failing "
                   "steps left unknown): attempt to write a readonly database")


def test_a_sqlite_file_that_is_not_farm_s_is_left_alone(tmp_path):
    other = tmp_path / "other.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE t (x)")
    con.close()
    assert SqliteResults(other).upgrade(tmp_path) == 0
    assert _version(other) == 0
    (tmp_path / "text.sqlite").write_text("not a database")
    assert SqliteResults(tmp_path / "text.sqlite").upgrade(tmp_path) == 0


def test_earlier_runs_imported_into_a_new_history_bring_their_steps(tmp_path):
    state = tmp_path / "state"
    for s in (night(1, FAIL_AT_4), night(2, FAIL_AT_2, PASS)):
        (state / "runs" / s.run_id).mkdir(parents=True)
        (state / "runs" / s.run_id / "results.json").write_text(s.model_dump_json())
    runs = open_results(_settings(state)).runs()
    assert runs[0].cases[0].step.index == 4
    assert runs[1].cases[0].attempts[0].step.index == 2


# ---- partial runs -----------------------------------------------------------------------
def _case(cid: str, tags: list[str] = ()) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"), tags=list(tags),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])])


@pytest.mark.parametrize("options, expected", [
    (dict(keyword="login"), ["-k login"]),
    (dict(tags=["smoke"]), ["--tag smoke"]),
    (dict(exclude_tags=["slow", "wip"]), ["--exclude-tag slow, wip"]),
    (dict(shard=(2, 3)), ["--shard 2/3"]),
    (dict(tags=["smoke"], last_failed=["s/login"]), ["--tag smoke", "--last-failed"]),
    (dict(platforms={"android"}, devices="android:1"), ["no web device"]),
    (dict(last_failed=[]), []),                     # nothing recorded: every case ran
])
def test_a_run_s_selection_is_read_from_what_farm_select_left_out(options, expected):
    cases = [_case("s/login", ["smoke"]), _case("s/pay", ["smoke", "slow"]),
             _case("s/wip", ["wip"]), _case("s/about")]
    sel = select_cases(cases, SelectOptions(**options))
    summary = RunSummary(run_id="r", started="", deselected=[
        DeselectedCase(case_id=d.case.id, name=d.case.name, file="f", platform="web",
                       reason=d.reason) for d in sel.deselected])
    assert selection_of(summary) == expected


def _chart_points(html: str) -> int:
    return len(re.search(r'<polyline[^>]*points="([^"]*)"', html).group(1).split())


def test_a_last_failed_rerun_and_a_shard_are_off_the_pass_rate_line(tmp_path: Path):
    """Nights at 50 % (pay fails, ok passes) and the morning's --last-failed rerun of pay
    alone that passes (100 %), and one shard: the line joins the nights only; the rerun and
    the shard are squares off it, and partial in the runs table."""
    nights = [night(1, FAIL_AT_4), night(2, PASS, deselected=["--last-failed: did not fail "
                                                               "last time"]),
              night(3, FAIL_AT_4), night(4, FAIL_AT_4, deselected=["--shard: in shard 1/2"])]
    records = [record_for(n) for n in nights]
    t = analyse(records)
    assert [r.partial for r in t.rows] == [False, True, False, True]
    html = render_history(records, tmp_path)
    assert _chart_points(html) == 2
    squares = re.findall(r'<rect class="partial" data-run="([^"]+)"', html)
    assert squares == ["r2", "r4"]
    assert re.search(r'id="partial-count"[^>]*>2<', html)
    runs = html[html.index('id="runs"'):]
    badge = r'class="partial">.*?partial</span> <code class="selection">'
    assert re.search(rf'<tr data-run="r2" {badge}--last-failed<', runs)
    assert re.search(rf'<tr data-run="r4" {badge}--shard 2/2<', runs)
    assert '<tr data-run="r3">' in runs


def test_the_usual_selection_is_whole_and_an_unusual_one_partial():
    """A farm that runs --tag nightly every night has whole nights (a night when every case
    was tagged left none out: whole too); an afternoon's -k login among them is partial."""
    tag = ["--tag nightly: not tagged so"]
    nights = [night(1, PASS, deselected=tag), night(2, PASS, deselected=tag), night(3, PASS),
              night(4, PASS, deselected=[*tag, "-k login"]), night(5, PASS, deselected=tag),
              night(6, PASS, deselected=["no android device in --devices browser:2"])]
    t = analyse([record_for(n) for n in nights])
    # (night 6 had no android device where the others ran their android cases: partial too)
    assert [r.partial for r in t.rows] == [False, False, False, True, False, True]
