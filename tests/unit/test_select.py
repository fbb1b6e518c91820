"""Case selection (farm/select.py): -k expressions, tags, --last-failed, platforms and Flank-style
shards, balanced on what every CI job reads from the suite (steps), never on one machine's
remembered durations."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from farm.config import Settings
from farm.errors import ConfigError
from farm.history import DurationHistory
from farm.results import CaseResult, final_result
from farm.report.junit import build_junit
from farm.results import RunSummary
from farm.select import (Choice, KeywordExpr, SelectOptions, parse_shard, read_timings,
                         select_cases, shard_plan, shard_weight, update_last_failed)
from farm.session import run
from farm.suite.loader import load_suites
from farm.suite.model import Case, InOrder, Shared, Step, Task, WebTarget

ROOT = Path(__file__).resolve().parents[2]
# Durations of every demo case from a real `farm run suites/demo --devices
# browser:2,android-sim:1,ios-sim:1` (the history farm keeps under .farm/).
DEMO_HISTORY = json.loads((Path(__file__).parent / "demo_history.json").read_text())


@pytest.fixture(scope="module")
def demo_cases():
    return [c for s in load_suites([ROOT / "suites" / "demo"], env={}) for c in s.cases]


def _select(cases, **kw):
    return select_cases(cases, SelectOptions(**kw))


@pytest.mark.parametrize("expr, text, expected", [
    ("login", "Log in / demo/login_success", True),
    ("LOGIN", "demo/login_success", True),
    ("login and not failure", "demo/login_failure", False),
    ("login and not failure", "demo/login_success", True),
    ("cart or search", "demo/search_filters", True),
    ("not (cart or search)", "demo/search_filters", False),
    ("mobile/ and (ios or android) and not login", "demo/mobile/ios_add_to_cart", True),
])
def test_keyword_expressions(expr, text, expected):
    assert KeywordExpr(expr).matches(text) is expected


@pytest.mark.parametrize("bad, phrase", [
    ("", "expected a word"), ("login and", "at the end"), ("(login", "missing ')'"),
    ("login cart", "unexpected 'cart'"), ("or login", "got 'or'"),
])
def test_bad_keyword_expressions_name_the_column(bad, phrase):
    with pytest.raises(ConfigError, match="column"):
        KeywordExpr(bad)
    with pytest.raises(ConfigError, match=phrase.replace("(", r"\(").replace(")", r"\)")):
        KeywordExpr(bad)


def test_selection_says_why_each_case_was_left_out(demo_cases):
    sel = _select(demo_cases, keyword="login", exclude_tags=[], platforms={"web"},
                  devices="browser:1")
    assert sorted(c.id for c in sel.selected) == ["demo/login_failure", "demo/login_success"]
    reasons = {d.case.id: d.reason for d in sel.deselected}
    assert reasons["demo/mobile/android_login"] == "no android device in --devices browser:1"
    assert reasons["demo/cart_remove"] == "-k login"
    assert len(sel.selected) + len(sel.deselected) == len(demo_cases)
    assert sel.notes == []


def test_when_nothing_is_left_a_note_says_what_took_the_cases_out(demo_cases):
    """`farm run -k nomatch` said only "nothing ran" (exit 5), not why."""
    sel = _select(demo_cases, keyword="login", tags=["nosuch"], platforms={"web"},
                  devices="browser:1")
    assert sel.selected == []
    assert sel.notes == ["--tag nosuch: no case has a tag (a case file's or farm.yaml's "
                         "`tags: [smoke]` sets them)",
                         "no case selected: 12 deselected by -k login, "
                         "4 deselected by --tag nosuch"]


def test_tags_include_any_and_exclude_wins(demo_cases):
    a, b, c = (demo_cases[0].model_copy(update={"id": i, "tags": t})
               for i, t in (("a", ["smoke"]), ("b", ["smoke", "slow"]), ("c", [])))
    assert [x.id for x in _select([a, b, c], tags=["smoke"]).selected] == ["a", "b"]
    sel = _select([a, b, c], tags=["smoke"], exclude_tags=["slow"])
    assert [x.id for x in sel.selected] == ["a"]
    assert {d.case.id: d.reason for d in sel.deselected}["b"] == "--exclude-tag slow"


def test_a_blank_tag_filters_nothing_as_a_blank_k_does(demo_cases):
    """CI's `--tag "$TAG"` with TAG unset: every case was deselected (exit 5)."""
    a, b = (demo_cases[0].model_copy(update={"id": i, "tags": t})
            for i, t in (("a", ["smoke"]), ("b", [])))
    assert [x.id for x in _select([a, b], tags=[""], exclude_tags=[" "]).selected] == ["a", "b"]
    assert [x.id for x in _select([a, b], tags=["", " smoke "]).selected] == ["a"]


def test_last_failed_runs_failures_only_or_everything(demo_cases):
    sel = _select(demo_cases, last_failed=["demo/logout", "demo/gone"])
    assert [c.id for c in sel.selected] == ["demo/logout"]
    sel = _select(demo_cases, last_failed=[])
    assert len(sel.selected) == len(demo_cases) and "no failures recorded" in sel.notes[0]


def test_last_failed_with_a_keyword_runs_the_selection_when_its_failures_are_elsewhere(
        demo_cases):
    """pytest's rule: known failures outside -k do not empty the run."""
    alone = _select(demo_cases, keyword="login").selected
    sel = _select(demo_cases, keyword="login", last_failed=["demo/logout"])
    assert "demo/logout" not in {c.id for c in alone}
    assert [c.id for c in sel.selected] == [c.id for c in alone] and len(alone) >= 2
    assert "none of the 1 recorded failure(s)" in sel.notes[-1]


def test_shards_split_one_list_whatever_each_job_remembers_as_failed(demo_cases):
    """Three CI jobs, each runner with its own lastfailed.json: every case that failed
    anywhere runs in exactly one shard, and no job runs a case of another's shard."""
    ids = sorted(c.id for c in demo_cases)
    memories = [ids[0::3], ids[1::3], ids[2::3]]
    plain = [{c.id for c in _select(demo_cases, shard=(i, 3)).selected} for i in (1, 2, 3)]
    for i, memory in enumerate(memories, start=1):
        ran = {c.id for c in _select(demo_cases, shard=(i, 3), last_failed=memory).selected}
        assert ran <= plain[i - 1], (i, ran - plain[i - 1])
        assert ran >= set(memory) & plain[i - 1]


def test_last_failed_bookkeeping_is_pytests():
    assert update_last_failed(["a", "b"], {"a": "passed", "c": "failed", "d": "error",
                                           "e": "skipped"}) == ["b", "c", "d"]


def test_shards_partition_the_demo_and_balance_its_steps(demo_cases):
    shards = [_select(demo_cases, shard=(i, 3)) for i in (1, 2, 3)]
    ids = [c.id for s in shards for c in s.selected]
    assert sorted(ids) == sorted(c.id for c in demo_cases)      # each case exactly once
    loads = [sum(shard_weight(c) for c in s.selected) for s in shards]
    assert max(loads) - min(loads) <= max(shard_weight(c) for c in demo_cases), loads
    again = [c.id for c in _select(list(reversed(demo_cases)), shard=(2, 3)).selected]
    assert sorted(again) == sorted(c.id for c in shards[1].selected)   # order-independent


def _earlier_run(seconds: dict[str, float]) -> RunSummary:
    """A finished run whose final attempts took ``seconds`` (case id -> s); one case passed on
    its second attempt after a first of 1 s."""
    cases = [CaseResult(run_id="nightly", case_id=cid, name=f"title of {cid}", file=f"{cid}.yaml",
                        platform="web", status="passed", duration=secs)
             for cid, secs in seconds.items()]
    first = cases[0].model_copy(update={"status": "failed", "duration": 1.0})
    cases[0] = cases[0].model_copy(update={"status": "flaky", "attempt": 2, "previous": [first]})
    return RunSummary(run_id="nightly", started="2026-12-01T00:00:00+00:00", cases=cases)


def test_shard_timings_read_from_results_json_its_run_dir_or_junit(tmp_path, demo_cases):
    seconds = {c.id: float(i + 1) for i, c in enumerate(demo_cases)}
    run = _earlier_run(seconds)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.json").write_text(run.model_dump_json())
    (tmp_path / "junit.xml").write_text(build_junit(run))
    want = dict(seconds, **{demo_cases[0].id: seconds[demo_cases[0].id] + 1.0})
    assert read_timings(tmp_path / "run" / "results.json") == want     # attempts together
    assert read_timings(tmp_path / "run") == want
    junit = read_timings(tmp_path / "junit.xml")          # the final attempt's time only
    assert junit == pytest.approx(seconds)


def test_a_retried_case_s_time_from_farm_s_results_json_is_counted_once(tmp_path):
    """results.json gives a retried case's duration as every attempt's (a 1 s failure, then
    2 s): --shard-timings reads 3 s, not the earlier attempt's second over again."""
    first = CaseResult(run_id="r", case_id="a", name="a", file="a.yaml", platform="web",
                       status="failed", duration=1.0)
    case = final_result([first, first.model_copy(update={"status": "passed", "attempt": 2,
                                                         "duration": 2.0})])
    run = RunSummary(run_id="r", started="2026-12-01T00:00:00+00:00", cases=[case])
    (tmp_path / "results.json").write_text(run.model_dump_json())
    assert read_timings(tmp_path / "results.json") == {"a": 3.0}
    assert read_timings(tmp_path / "results.json") == pytest.approx(
        read_timings(_written(tmp_path / "junit.xml", build_junit(run))))


def _written(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, says", [
    (None, "cannot read it"), ('{"runs": []}', "no 'cases' in it"), ("[1, 2", "not a farm"),
    ("<testsuites><testcase", "not a farm")])
def test_shard_timings_that_cannot_be_used_are_named(tmp_path, text, says):
    path = tmp_path / "timings.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ConfigError, match=f"--shard-timings {path}: .*{says}"):
        read_timings(path)


def test_shard_timings_balance_by_time_and_estimate_new_cases(demo_cases):
    """Timings give each shard about the same seconds where steps would not: the slow case
    (few steps, 600 s) gets a shard to itself; a case the file does not know is weighed by its
    steps at the known cases' seconds per step. Every case still runs once."""
    slow = min(demo_cases, key=shard_weight)
    known = {c.id: (600.0 if c is slow else 2.0 * shard_weight(c)) for c in demo_cases[1:]}
    shards = [_select(demo_cases, shard=(i, 3), shard_timings=known) for i in (1, 2, 3)]
    ids = sorted(c.id for s in shards for c in s.selected)
    assert ids == sorted(c.id for c in demo_cases)
    alone = next(s for s in shards if slow in s.selected)
    assert alone.selected == [slow] or slow is demo_cases[0], [c.id for c in alone.selected]
    assert f"timings of {len(known)} of {len(demo_cases)} case(s) (the rest by their steps)" \
        in shards[0].notes[0]
    by_steps = [{c.id for c in _select(demo_cases, shard=(i, 3)).selected} for i in (1, 2, 3)]
    assert {c.id for c in alone.selected} not in by_steps      # the timings changed the plan


def test_collect_only_previews_the_shard_the_run_takes(tmp_path):
    """Without --devices, `--collect-only --shard 1/3` planned the shard on every platform
    while the run (browser:1) plans it on the web cases: it listed other cases than ran."""
    def selected(collect_only: bool) -> list[str]:
        out = io.StringIO()
        code = run([ROOT / "suites" / "demo"], "browser:1",
                   Settings(state_dir=tmp_path / "state", report_dir=tmp_path / "r"), out=out,
                   choice=Choice(shard="1/3", collect_only=collect_only, devices_given=False))
        assert code in (0, 1, 3), out.getvalue()
        if collect_only:
            return sorted(m.group(1) for m in re.finditer(r"^(\S+)  \[[\w-]+\]  ",
                                                            out.getvalue(), re.M))
        return sorted(c["case_id"] for c in json.loads(
            (tmp_path / "r" / "results.json").read_text())["cases"])
    assert selected(True) == selected(False)


def _collected(state: Path, shard: str) -> list[str]:
    """The case ids `farm run suites/demo --collect-only --shard SHARD` lists as selected, run
    with FARM_STATE_DIR=state (as one CI job would)."""
    out = io.StringIO()
    code = run([ROOT / "suites" / "demo"], "browser:1", Settings(state_dir=state), out=out,
               choice=Choice(shard=shard, collect_only=True, devices_given=False))
    assert code == 0, out.getvalue()
    return [m.group(1) for m in re.finditer(r"^(\S+)  \[[\w-]+\]  ", out.getvalue(), re.M)]


def _remember(state: Path, seconds: dict[str, float]) -> None:
    """``state``'s history.sqlite as a run that took ``seconds`` ("platform:id") leaves it."""
    DurationHistory(state).record(
        CaseResult(run_id="earlier", case_id=key.split(":", 1)[1], name="x", file="x",
                   platform=key.split(":", 1)[0], status="passed", duration=value)
        for key, value in seconds.items())


def test_every_ci_job_gets_the_same_shard_whatever_its_runner_remembers(tmp_path, demo_cases):
    """Three parallel CI jobs on runners that remember different durations (none, the demo's
    real ones, the opposite) still split the suite one way: every case runs, once."""
    _remember(tmp_path / "real", {k: v[0] for k, v in DEMO_HISTORY.items()})
    _remember(tmp_path / "opposite", {k: 100.0 / v[0] for k, v in DEMO_HISTORY.items()})
    plans = {state: [_collected(tmp_path / state, f"{i}/3") for i in (1, 2, 3)]
             for state in ("fresh", "real", "opposite")}
    assert plans["real"] == plans["fresh"] and plans["opposite"] == plans["fresh"]
    # what a run without --devices takes (browser:1): the web cases, each in one shard
    assert sorted(c for shard in plans["fresh"] for c in shard) == sorted(
        c.id for c in demo_cases if c.platform == "web")


def test_sequential_shards_sharing_a_state_dir_run_every_case_once(tmp_path, demo_cases):
    """Shard jobs one after another on one runner: each learns durations the next one reads."""
    state, ran = tmp_path / "state", []
    for i in (1, 2, 3):
        ids = _collected(state, f"{i}/3")
        ran += ids
        _remember(state, {k: v[0] for k, v in DEMO_HISTORY.items() if k.split(":")[1] in ids})
    assert sorted(ran) == sorted(c.id for c in demo_cases if c.platform == "web")


def _case(cid: str, steps: int, shared: str | None = None, ordered: str | None = None,
          place: int = 0) -> Case:
    return Case(id=cid, name=cid, file=Path(f"/s/{cid}.yaml"), suite_root=Path("/s"),
                platform="web", web=WebTarget(url="about:blank"),
                tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")] * steps)],
                shared=Shared(batch=shared, unit_id=f"unit {shared}", order=place,
                              setup=place == 0) if shared else None,
                in_order=InOrder(batch=ordered, place=place) if ordered else None)


@st.composite
def _suites(draw) -> list[Case]:
    """Up to 25 cases of 0-6 steps, some in shared-context units, some in concurrent: 1
    batches, in any order."""
    cases, places = [], {}
    for i in range(draw(st.integers(1, 25))):
        group = draw(st.sampled_from([None, None, "shared a", "shared b", "ordered c"]))
        place = places[group] = places.get(group, -1) + 1
        cases.append(_case(f"s/c{i:02d}", draw(st.integers(0, 6)),
                           shared=group if group and group.startswith("shared") else None,
                           ordered=group if group and group.startswith("ordered") else None,
                           place=place))
    return draw(st.permutations(cases))


@given(_suites(), st.integers(1, 5))
def test_shards_partition_any_suite_and_keep_units_whole(cases, total):
    shards = [_select(cases, shard=(i, total)).selected for i in range(1, total + 1)]
    assert sorted(c.id for s in shards for c in s) == sorted(c.id for c in cases)
    for group in ("unit shared a", "unit shared b", "ordered c"):
        holding = {i for i, s in enumerate(shards) for c in s
                   if (c.shared and c.shared.unit_id == group)
                   or (c.in_order and c.in_order.batch == group)}
        assert len(holding) <= 1, (group, holding)
    again = [_select(sorted(cases, key=lambda c: c.id), shard=(i, total)).selected
             for i in range(1, total + 1)]
    assert [[c.id for c in s] for s in again] == [sorted(c.id for c in s) for s in shards]


@given(st.dictionaries(st.text(min_size=1, max_size=4), st.integers(1, 200), max_size=40),
       st.integers(1, 6))
def test_shard_plan_covers_every_case_once(weights, total):
    plan = shard_plan(weights, total)
    assert set(plan) == set(weights) and set(plan.values()) <= set(range(1, total + 1))
    # heaviest-first greedy: no shard exceeds the least loaded by more than the heaviest case
    loads = [sum(v for k, v in weights.items() if plan[k] == i) for i in range(1, total + 1)]
    assert max(loads) - min(loads) <= max(weights.values(), default=0)
    assert shard_plan(dict(reversed(list(weights.items()))), total) == plan   # order-free


@pytest.mark.parametrize("bad", ["0/3", "4/3", "1/0", "a/b", "2", ""])
def test_bad_shards(bad):
    with pytest.raises(ConfigError, match="--shard"):
        parse_shard(bad)


def test_a_shard_takes_a_concurrent_1_batch_whole():
    """create → use → cleanup of one batch cannot be split across CI jobs: the order a
    `concurrent: 1` batch keeps holds only inside one run."""
    def case(cid: str, place: int | None = None) -> Case:
        return Case(id=cid, name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                    platform="web", web=WebTarget(url="about:blank"),
                    tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])],
                    in_order=InOrder(batch="b/index.yaml", place=place)
                    if place is not None else None)
    cases = [case(f"b/0{i}", i) for i in range(3)] + [case(f"x/{i}") for i in range(6)]
    shards = [select_cases(cases, SelectOptions(shard=(i, 3))).selected
              for i in (1, 2, 3)]
    assert sorted(c.id for s in shards for c in s) == sorted(c.id for c in cases)
    assert [sum(c.id.startswith("b/") for c in s) for s in shards].count(3) == 1
