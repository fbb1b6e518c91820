"""Case selection (farm/select.py): -k expressions, tags, --last-failed, platforms and Flank-style
shards balanced on the demo suite's recorded durations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from farm.errors import ConfigError
from farm.schedule import expected_duration
from farm.select import (KeywordExpr, SelectOptions, parse_shard, select_cases, shard_plan,
                         update_last_failed)
from farm.suite.loader import load_suites

ROOT = Path(__file__).resolve().parents[2]
# Durations of every demo case from a real `farm run suites/demo --devices
# browser:2,android-sim:1,ios-sim:1` (the history farm keeps under .farm/).
DEMO_HISTORY = json.loads((Path(__file__).parent / "demo_history.json").read_text())


@pytest.fixture(scope="module")
def demo_cases():
    return [c for s in load_suites([ROOT / "suites" / "demo"], env={}) for c in s.cases]


def _select(cases, **kw):
    return select_cases(cases, SelectOptions(**kw), lambda c: expected_duration(
        DEMO_HISTORY, c.id, c.platform, 30.0), lambda c: str(c.file))


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


def test_tags_include_any_and_exclude_wins(demo_cases):
    a, b, c = (demo_cases[0].model_copy(update={"id": i, "tags": t})
               for i, t in (("a", ["smoke"]), ("b", ["smoke", "slow"]), ("c", [])))
    assert [x.id for x in _select([a, b, c], tags=["smoke"]).selected] == ["a", "b"]
    sel = _select([a, b, c], tags=["smoke"], exclude_tags=["slow"])
    assert [x.id for x in sel.selected] == ["a"]
    assert {d.case.id: d.reason for d in sel.deselected}["b"] == "--exclude-tag slow"


def test_last_failed_runs_failures_only_or_everything(demo_cases):
    sel = _select(demo_cases, last_failed=["demo/logout", "demo/gone"])
    assert [c.id for c in sel.selected] == ["demo/logout"]
    sel = _select(demo_cases, last_failed=[])
    assert len(sel.selected) == len(demo_cases) and "no failures recorded" in sel.notes[0]


def test_last_failed_bookkeeping_is_pytests():
    assert update_last_failed(["a", "b"], {"a": "passed", "c": "failed", "d": "error",
                                           "e": "skipped"}) == ["b", "c", "d"]


def test_shards_partition_the_demo_and_balance_its_history(demo_cases):
    shards = [_select(demo_cases, shard=(i, 3)) for i in (1, 2, 3)]
    ids = [c.id for s in shards for c in s.selected]
    assert sorted(ids) == sorted(c.id for c in demo_cases)      # each case exactly once
    loads = [sum(expected_duration(DEMO_HISTORY, c.id, c.platform, 30.0) for c in s.selected)
             for s in shards]
    assert max(loads) <= 1.10 * min(loads), loads
    again = [c.id for c in _select(list(reversed(demo_cases)), shard=(2, 3)).selected]
    assert sorted(again) == sorted(c.id for c in shards[1].selected)   # order-independent


@given(st.dictionaries(st.text(min_size=1, max_size=4), st.floats(0, 1000), max_size=40),
       st.integers(1, 6))
def test_shard_plan_covers_every_case_once(expected, total):
    plan = shard_plan(expected, total)
    assert set(plan) == set(expected) and set(plan.values()) <= set(range(1, total + 1))
    # longest-first greedy: no shard exceeds the least loaded by more than the longest case
    loads = [sum(v for k, v in expected.items() if plan[k] == i) for i in range(1, total + 1)]
    assert max(loads) - min(loads) <= max(expected.values(), default=0) + 1e-6


@pytest.mark.parametrize("bad", ["0/3", "4/3", "1/0", "a/b", "2", ""])
def test_bad_shards(bad):
    with pytest.raises(ConfigError, match="--shard"):
        parse_shard(bad)


def test_a_shard_takes_a_concurrent_1_batch_whole():
    """create → use → cleanup of one batch cannot be split across CI jobs: the order a
    `concurrent: 1` batch keeps holds only inside one run."""
    from farm.suite.model import Case, InOrder, Step, Task, WebTarget

    def case(cid: str, place: int | None = None) -> Case:
        return Case(id=cid, name=cid, file=Path(f"/tmp/{cid}.yaml"), suite_root=Path("/tmp"),
                    platform="web", web=WebTarget(url="about:blank"),
                    tasks=[Task(name="t", steps=[Step(kind="sleep", value="1")])],
                    in_order=InOrder(batch="b/index.yaml", place=place)
                    if place is not None else None)
    cases = [case(f"b/0{i}", i) for i in range(3)] + [case(f"x/{i}") for i in range(6)]
    shards = [select_cases(cases, SelectOptions(shard=(i, 3)), lambda c: 10.0,
                           lambda c: str(c.file)).selected for i in (1, 2, 3)]
    assert sorted(c.id for s in shards for c in s) == sorted(c.id for c in cases)
    assert [sum(c.id.startswith("b/") for c in s) for s in shards].count(3) == 1
