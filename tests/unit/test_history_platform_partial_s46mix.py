"""A run whose --devices left a platform's cases out (``farm run suite --devices browser:1`` of a
web + android + ios suite) took part of a night: `farm report --history` marks it partial, says
which platforms it had no device for, and keeps it off the pass-rate line, as it does a -k or
--tag run. A farm whose every night is browser-only has whole nights."""

from __future__ import annotations

import re
from pathlib import Path

from farm.report.history_page import render_history
from farm.report.trends import analyse
from farm.results import CaseResult, DeselectedCase, RunSummary
from farm.results_history import record_for, selection_of


def _night(day: int, run: tuple[str, ...] = ("web", "android", "ios"),
           devices: str = "browser:1,android:1,ios:1", failed: str = "") -> RunSummary:
    """Day ``day``'s run of a suite with one case per platform: the platforms in ``run``
    ran (the one in ``failed`` failed); the others were deselected as farm.select says."""
    run_id = f"r{day}"
    cases = [CaseResult(run_id=run_id, case_id=f"s/{p}", name=p, file=f"{p}.yaml", platform=p,
                        status="failed" if p == failed else "passed", duration=1.0)
             for p in run]
    left = [DeselectedCase(case_id=f"s/{p}", name=p, file=f"{p}.yaml", platform=p,
                           reason=f"no {p} device in --devices {devices}")
            for p in ("web", "android", "ios") if p not in run]
    summary = RunSummary(run_id=run_id, started=f"2026-01-{day:02d}T02:00:00+00:00",
                         cases=cases, deselected=left)
    summary.recount()
    return summary


def test_a_browser_only_run_says_which_platforms_it_had_no_device_for():
    assert selection_of(_night(1, ("web",), "browser:1")) == ["no android, ios devices"]
    assert selection_of(_night(1, ("web", "android"), "browser:1,android:1")) == [
        "no ios device"]
    assert selection_of(_night(1)) == []


def test_a_browser_only_run_among_three_platform_nights_is_partial(tmp_path: Path):
    """Three nights on every platform (one with ios red: 2 of 3), then a --devices browser:1
    run whose one web case passed (100 %): it is partial, named so in the runs table, and
    off the line (which joins the three nights)."""
    nights = [_night(1), _night(2, failed="ios"), _night(3),
              _night(4, ("web",), "browser:1")]
    records = [record_for(n) for n in nights]
    assert [r.partial for r in analyse(records).rows] == [False, False, False, True]
    html = render_history(records, tmp_path)
    line = re.search(r'<polyline[^>]*points="([^"]*)"', html).group(1).split()
    assert len(line) == 3
    assert re.findall(r'<rect class="partial" data-run="([^"]+)"', html) == ["r4"]
    runs = html[html.index('id="runs"'):]
    assert re.search(r'<tr data-run="r4" class="partial">.*?partial</span> '
                     r'<code class="selection">no android, ios devices<', runs)


def test_a_run_missing_one_more_platform_than_the_usual_is_partial_and_the_usual_is_whole():
    """A farm with no iPhone runs web + android every night: those nights are whole; the
    night the phone was out (--devices browser:1) took less, partial; a run on every
    platform took more than the usual: whole."""
    usual = ("web", "android")
    nights = [_night(1, usual, "browser:1,android:1"), _night(2, usual, "browser:1,android:1"),
              _night(3, ("web",), "browser:1"), _night(4, usual, "browser:1,android:1"),
              _night(5)]
    rows = analyse([record_for(n) for n in nights]).rows
    assert [r.partial for r in rows] == [False, False, True, False, False]


def test_a_farm_whose_every_night_is_browser_only_has_whole_nights():
    nights = [_night(d, ("web",), "browser:1") for d in (1, 2, 3)]
    assert [r.partial for r in analyse([record_for(n) for n in nights]).rows] == [
        False, False, False]
