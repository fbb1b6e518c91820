"""The results history across runs and what the history page and a run's report make of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.report.history_page import render_history, write_history
from farm.report.trends import analyse, parse_since
from farm.results import CaseError, CaseResult, RunSummary
from farm.results_history import SqliteResults, record_for, since_last


def summary(run_id: str, day: int, statuses: dict[str, str], durations: dict | None = None
            ) -> RunSummary:
    cases = []
    for case_id, status in statuses.items():
        error = CaseError(kind="AssertionFailed", message=f"{case_id} broke in {run_id}") \
            if status == "failed" else None
        cases.append(CaseResult(run_id=run_id, case_id=case_id, name=case_id.title(),
                                file=f"suites/{case_id}.yaml", platform="web",
                                device="browser-1", status=status, error=error,
                                duration=(durations or {}).get(case_id, 1.0),
                                started=f"2026-01-{day:02d}T02:00:00+00:00"))
    s = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00", cases=cases)
    s.recount()
    return s


THREE_NIGHTS = [("r1", 1, {"demo/flip": "failed", "demo/turns": "passed", "demo/ok": "passed"}),
                ("r2", 2, {"demo/flip": "passed", "demo/turns": "passed", "demo/ok": "passed"}),
                ("r3", 3, {"demo/flip": "failed", "demo/turns": "failed", "demo/ok": "passed"})]


def report_of(folder: Path) -> Path:
    """A run's report.html on disk (the history page links a report only while it is there)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "report.html").write_text("<!doctype html>")
    return folder / "report.html"


@pytest.fixture
def store(tmp_path) -> SqliteResults:
    store = SqliteResults(tmp_path / "results.sqlite")
    for run_id, day, statuses in THREE_NIGHTS:
        store.add(record_for(summary(run_id, day, statuses), report_of(tmp_path / run_id)))
    return store


def test_runs_come_back_oldest_first_and_by_window(store):
    assert [r.run_id for r in store.runs()] == ["r1", "r2", "r3"]
    day2 = record_for(summary("x", 2, {})).at
    assert [r.run_id for r in store.runs(day2)] == ["r2", "r3"]
    assert [r.run_id for r in store.recent(2)] == ["r2", "r3"]


def test_a_runs_red_cases_are_new_still_failing_or_flaky(store):
    fourth = summary("r4", 4, {"demo/flip": "failed", "demo/turns": "failed",
                               "demo/ok": "failed", "demo/new": "error"})
    assert since_last(store.runs(), fourth) == {
        "demo/flip": "still failing", "demo/turns": "still failing", "demo/ok": "new failure",
        "demo/new": "new failure"}
    third = summary("r3", 3, THREE_NIGHTS[2][2])
    assert since_last(store.runs()[:2], third) == {"demo/flip": "unstable",
                                                   "demo/turns": "new failure"}


def test_trends_rank_flaky_cases_and_name_new_failures(store):
    t = analyse(store.runs())
    assert [(c.case_id, c.verdict) for c in t.latest] == [("demo/turns", "new failure"),
                                                         ("demo/flip", "unstable")]
    assert [f.case_id for f in t.flaky] == ["demo/flip"]
    flip = t.flaky[0]
    assert (flip.runs, flip.fails, flip.flips, flip.last_fail_run) == (3, 2, 2, "r3")
    assert flip.last_error == "AssertionFailed: demo/flip broke in r3"
    assert [round(r.rate, 3) for r in t.rows] == [0.667, 1.0, 0.333]
    assert [r.new for r in t.rows] == [["demo/flip"], [], ["demo/turns"]]
    assert [r.fixed for r in t.rows] == [[], ["demo/flip"], []]


def test_suite_filter_and_since(store, tmp_path):
    other = summary("r5", 5, {"shop/pay": "failed"})
    store.add(record_for(other))
    assert [r.run.run_id for r in analyse(store.runs(), "shop").rows] == ["r5"]
    assert len(analyse(store.runs(), "demo").rows) == 3
    assert parse_since("7d") == 7 * 86400 and parse_since("12h") == 43200
    with pytest.raises(ValueError, match="7d"):
        parse_since("last week")


def test_history_page_links_each_run_and_escapes(store, tmp_path):
    hostile = summary("r9", 9, {"demo/<script>x</script>": "failed"})
    store.add(record_for(hostile, report_of(tmp_path / "r9")))
    page = write_history(store, tmp_path / "history.html")
    html = page.read_text()
    assert 'href="r1/report.html"' in html and 'href="r3/report.html"' in html
    assert "<script>x" not in html and "&lt;script&gt;x" in html
    assert 'data-case="demo/flip"' in html


def test_slowest_cases_show_their_trend(tmp_path):
    store = SqliteResults(tmp_path / "results.sqlite")
    for day, seconds in enumerate([10.0, 10.0, 20.0], 1):
        store.add(record_for(summary(f"r{day}", day, {"demo/slow": "passed", "demo/fast":
                                                       "passed"}, {"demo/slow": seconds})))
    slow = analyse(store.runs()).slowest[0]
    assert (slow.case_id, slow.median, slow.last, slow.change) == ("demo/slow", 10.0, 20.0, 1.0)
    assert "+100%" in render_history(store.runs(), tmp_path)


def test_a_missing_history_is_empty_not_an_error(tmp_path):
    assert SqliteResults(tmp_path / "none.sqlite").runs() == []
    assert "No runs recorded" in render_history([], Path(tmp_path))


def test_the_page_s_stylesheet_is_not_escaped(tmp_path):
    html = render_history([], Path(tmp_path))
    assert '"Segoe UI"' in html and "&#34;Segoe UI&#34;" not in html


def test_the_device_table_says_what_a_failing_device_was(tmp_path):
    """Each run keeps what its devices were; the history page's device errors name the last."""
    store = SqliteResults(tmp_path / "results.sqlite")
    for day, android in ((1, "Pixel 7, Android 13 (API 33)"), (2, "Pixel 7, Android 14 (API 34)")):
        s = summary(f"r{day}", day, {"demo/a": "error"})
        s.cases[0].device = "emulator-5554"
        s.device_info = {"emulator-5554": android, "browser-1": "Chromium 156.0.8078.114"}
        store.add(record_for(s))
    assert store.runs()[0].device_info["emulator-5554"] == "Pixel 7, Android 13 (API 33)"
    [device] = analyse(store.runs()).devices
    assert (device.device, device.errors, device.about) == (
        "emulator-5554", 2, "Pixel 7, Android 14 (API 34)")
    html = render_history(store.runs(), tmp_path)
    assert "<code>emulator-5554</code><br><small>Pixel 7, Android 14 (API 34)</small>" in html


def _verdicts(html: str) -> dict[str, str]:
    """The history page's "newest run" table: case id → verdict, as shown."""
    import re
    return dict(re.findall(r'<tr data-case="([^"]+)"><td>.*?<td class="verdict[^"]*">([^<]+)',
                           html))


def test_a_window_s_verdicts_agree_with_each_run_s_own_report(tmp_path):
    """--since 1d covers only the last of three runs: its verdicts are still decided against
    the two before, as its own report decided them (not "new failure" for every red case)."""
    from datetime import datetime, timedelta, timezone
    store = SqliteResults(tmp_path / "results.sqlite")
    nights = [{"demo/still": "failed", "demo/new": "passed", "demo/flip": "failed",
               "demo/fixed": "failed"},
              {"demo/still": "failed", "demo/new": "passed", "demo/flip": "passed",
               "demo/fixed": "failed"},
              {"demo/still": "failed", "demo/new": "failed", "demo/flip": "failed",
               "demo/fixed": "passed"}]
    now = datetime.now(timezone.utc)
    summaries = []
    for n, (hours_ago, statuses) in enumerate(zip((72, 48, 1), nights), 1):
        s = summary(f"r{n}", 1, statuses)
        s.started = (now - timedelta(hours=hours_ago)).isoformat(timespec="seconds")
        summaries.append(s)
    for s in summaries:
        own = since_last(store.runs(), s)        # what each run's report said, as it ran
        store.add(record_for(s, report_of(tmp_path / s.run_id)))
    assert own == {"demo/still": "still failing", "demo/new": "new failure",
                   "demo/flip": "unstable", "demo/fixed": "fixed"}
    html = write_history(store, tmp_path / "history.html", since="1d").read_text()
    assert 'href="r3/report.html"' in html and 'href="r2/report.html"' not in html
    # (the run's own "flaky" of a red case is "unstable across runs" on the page)
    assert _verdicts(html) == {**own, "demo/flip": "failed (unstable across runs: 2 of last 3 "
                                                   "failed)", "demo/fixed": "fixed"}
    first, second, third = store.runs()
    [row] = analyse([third], earlier=[first, second]).rows
    assert (row.new, row.fixed) == (["demo/new"], ["demo/fixed"])


def test_the_device_table_s_last_error_is_the_latest_by_time(tmp_path):
    """Cases come in id order; the "Last" column is the error that happened last."""
    store = SqliteResults(tmp_path / "results.sqlite")
    s = summary("r1", 1, {"demo/a": "error", "demo/b": "error"})
    for case, minute, what in ((s.cases[0], 5, "late"), (s.cases[1], 0, "early")):
        case.started = f"2026-01-01T02:{minute:02d}:00+00:00"
        case.error = CaseError(kind="DeviceLost", message=f"{what}: browser closed")
    s.cases[1].previous = [s.cases[1].model_copy(update={
        "started": "2026-01-01T01:59:00+00:00", "previous": []})]
    store.add(record_for(s))
    [device] = analyse(store.runs()).devices
    assert (device.device, device.errors, device.last_error) == (
        "browser-1", 3, "DeviceLost: late: browser closed")
    html = render_history(store.runs(), tmp_path)
    assert '<div class="err">DeviceLost: late: browser closed</div>' in html


def test_model_spend_per_run_counts_the_nights_the_cache_replayed_for_nothing(tmp_path):
    """An AI case that cost 13,682 tokens once, then replayed from the cache twice for free:
    3 runs, 4,560 tokens a run (not 13,682: the cache's saving shows); a skipped night (no
    model) is not a run of it."""
    store = SqliteResults(tmp_path / "results.sqlite")
    for day, (status, tokens) in enumerate([("passed", 13682), ("passed", 0), ("skipped", 0),
                                            ("passed", 0)], 1):
        s = summary(f"r{day}", day, {"demo/ai": status, "demo/plain": "passed"})
        s.cases[0].tokens = {"prompt": tokens} if tokens else {}
        store.add(record_for(s))
    spend = analyse(store.runs()).spend
    assert [(x.case_id, x.runs, x.free, x.tokens) for x in spend] == [("demo/ai", 3, 2, 13682)]
    html = render_history(store.runs(), tmp_path)
    assert "4,560 tokens" in html and "(2 free)" in html


def _interrupted(run_id: str, day: int, statuses: dict[str, str],
                 durations: dict | None = None) -> RunSummary:
    s = summary(run_id, day, statuses, durations)
    s.interrupted = True
    return s


def test_an_interrupted_run_is_on_the_page_marked_and_counted_by_its_finished_cases(tmp_path):
    """A run stopped with 1 passed, 1 failed, 1 interrupted: a row of its own (marked
    interrupted), its rate over the two that finished (50%, as the dashboard says), its
    failure a new failure."""
    store = SqliteResults(tmp_path / "results.sqlite")
    stopped = _interrupted("r1", 1, {"demo/ok": "passed", "demo/bad": "failed",
                                     "demo/long": "interrupted"})
    store.add(record_for(stopped, report_of(tmp_path / "r1")))
    assert store.runs()[0].interrupted
    [row] = analyse(store.runs()).rows
    assert (row.passed, row.finished, row.rate, row.new) == (1, 2, 0.5, ["demo/bad"])
    html = render_history(store.runs(), tmp_path)
    assert "No runs recorded" not in html and '<dd id="run-count">1</dd>' in html
    assert '<tr data-run="r1" class="interrupted">' in html and ">interrupted</span>" in html
    assert "50.0%" in html and "1 / 2" in html and "Passed / finished" in html
    assert "skipped and interrupted cases left out" in html
    assert '<circle class="interrupted"' in html           # circled on the chart too


def test_a_failure_in_an_interrupted_run_is_not_new_the_next_night(tmp_path):
    """The run's own report (since_last) and the history page agree: the case failed in the
    interrupted run, so failing again is "still failing"; the case the interruption cut
    short is no verdict either way."""
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(_interrupted("r1", 1, {"demo/bad": "failed", "demo/long":
                                                "interrupted", "demo/later": "skipped"})))
    next_night = summary("r2", 2, {"demo/bad": "failed", "demo/long": "failed",
                                   "demo/later": "failed"})
    own = since_last(store.runs(), next_night)
    assert own == {"demo/bad": "still failing", "demo/long": "new failure",
                   "demo/later": "new failure"}
    store.add(record_for(next_night))
    t = analyse(store.runs())
    assert {c.case_id: c.verdict for c in t.latest} == own
    assert [sorted(r.new) for r in t.rows] == [["demo/bad"], ["demo/later", "demo/long"]]
    # --since leaving the interrupted run before the window: the same verdicts
    t = analyse(store.runs()[1:], earlier=store.runs()[:1])
    assert {c.case_id: c.verdict for c in t.latest} == own


def test_durations_of_an_interrupted_run_count_for_the_cases_that_finished(tmp_path):
    """A case that ran to its end in an interrupted run took its real time: it is a sample
    of the duration trend. The case the interruption cut short is not (its time is only
    how long it ran before the stop)."""
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary("r1", 1, {"demo/slow": "passed", "demo/cut": "passed"},
                                 {"demo/slow": 10.0, "demo/cut": 10.0})))
    store.add(record_for(_interrupted("r2", 2, {"demo/slow": "passed", "demo/cut":
                                                "interrupted"},
                                      {"demo/slow": 20.0, "demo/cut": 0.5})))
    slow = {s.case_id: s for s in analyse(store.runs()).slowest}
    assert slow["demo/slow"].samples == [10.0, 20.0] and slow["demo/slow"].change == 1.0
    assert slow["demo/cut"].samples == [10.0]


def test_a_run_whose_report_dir_was_overwritten_links_no_report(tmp_path):
    """`farm run --report-dir r --overwrite` put a later run's report where an earlier run's
    was: only the later run links it (results.json, or while it runs its journal, says whose
    it is); a report that is gone is linked by nobody."""
    import json

    from farm.results import write_json
    store = SqliteResults(tmp_path / "results.sqlite")
    shared = report_of(tmp_path / "r")
    for run_id, day in (("old", 1), ("new", 2)):
        store.add(record_for(summary(run_id, day, {"demo/a": "passed"}), shared))
    store.add(record_for(summary("gone", 3, {"demo/a": "failed"}), tmp_path / "g" / "report.html"))

    def links() -> dict[str, str | None]:
        import re
        html = write_history(store, tmp_path / "history.html").read_text()
        rows = re.findall(r'<tr data-run="(\w+)"[^>]*><td>(?:<a href="([^"]+)">)?', html)
        return {run_id: href or None for run_id, href in rows}

    assert links() == {"old": "r/report.html", "new": "r/report.html", "gone": None}
    (shared.parent / "results.jsonl").write_text(json.dumps({"journal": "run", "run_id": "new"})
                                                 + "\n")
    assert links() == {"old": None, "new": "r/report.html", "gone": None}    # new still running
    write_json(shared.parent / "results.json", summary("new", 2, {"demo/a": "passed"}))
    assert links() == {"old": None, "new": "r/report.html", "gone": None}
    (shared.parent / "results.json").write_text('{"counts": {}, "run_id": "old"}')
    assert links() == {"old": "r/report.html", "new": None, "gone": None}  # laid out otherwise


def test_a_killed_run_rebuilt_later_does_not_undo_a_later_runs_last_failed(tmp_path):
    """`farm report` of a run killed on night 1, done after night 2 passed everything: the
    run joins the history, but --last-failed keeps night 2's word (nothing failing)."""
    from farm.config import Settings
    from farm.run_outputs import load_failures, remember_failures, remember_rebuilt
    settings = Settings(state_dir=tmp_path / "state")
    later = summary("r2", 2, {"demo/flip": "passed"})
    SqliteResults(tmp_path / "state" / "results.sqlite").add(record_for(later))
    remember_failures(tmp_path / "state", later.cases)
    killed = summary("r1", 1, {"demo/flip": "failed"})
    assert remember_rebuilt(settings, killed, tmp_path / "r1") is True
    assert load_failures(tmp_path / "state") == []
    runs = SqliteResults(tmp_path / "state" / "results.sqlite").recent(5)
    assert [r.run_id for r in runs] == ["r1", "r2"]
    assert remember_rebuilt(settings, killed, tmp_path / "r1") is False      # once
    newest = summary("r3", 3, {"demo/flip": "failed"})                       # the newest
    assert remember_rebuilt(settings, newest, tmp_path / "r3") is True
    assert load_failures(tmp_path / "state") == ["demo/flip"]


@pytest.mark.parametrize("folder", ["r#1", "100%41 off", "what?x", "we#ird %41/r#1 %41?x"])
def test_a_run_s_link_opens_its_report_whatever_its_folder_is_named(tmp_path, folder):
    """A report folder with '#', '%', '?' or a space in its name: the link a browser follows
    from the page is that report (it was cut at '#' or '?', or '%41' read as 'A')."""
    import re
    import urllib.parse
    import urllib.request
    store = SqliteResults(tmp_path / "results.sqlite")
    report = report_of(tmp_path / "out" / folder)
    store.add(record_for(summary("r1", 1, {"demo/a": "passed"}), report))
    page = write_history(store, tmp_path / "pages" / "history.html")
    [href] = re.findall(r'<tr data-run="r1"[^>]*><td><a href="([^"]+)">', page.read_text())
    followed = urllib.parse.urlsplit(urllib.parse.urljoin(page.as_uri(), href))
    assert (followed.query, followed.fragment) == ("", "")
    assert Path(urllib.request.url2pathname(followed.path)) == report
