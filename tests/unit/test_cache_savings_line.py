"""The run's last line says what the plan cache saved: the plans replayed whole and what
solving them had cost (every attempt's; the cost only when each one's was known); nothing when
no plan was replayed."""

from __future__ import annotations

from farm.results import CacheUse, CaseResult, RunSummary, StepRecord, cache_savings
from farm.run_console import summary_line


def _case(cid: str, *caches: CacheUse, previous: list[CaseResult] = ()) -> CaseResult:
    steps = [StepRecord(task="t", index=i, kind="ai", label="ai", status="passed", cache=c)
             for i, c in enumerate(caches, 1)]
    return CaseResult(run_id="r", case_id=cid, name=cid, file="c.yaml", platform="web",
                      device="browser-1", status="passed", duration=1.0, steps=steps,
                      previous=list(previous))


def test_replayed_plans_and_what_they_saved_are_summed_over_attempts():
    hit = CacheUse(plan="hit", saved={"calls": 8, "tokens": 13345, "cost_usd": 0.0361})
    again = CacheUse(plan="hit", saved={"calls": 2, "tokens": 1000, "cost_usd": 0.01})
    first_try = _case("s/a", again)
    summary = RunSummary(run_id="r", started="", duration=3.0, cases=[
        _case("s/a", hit, previous=[first_try]), _case("s/b", CacheUse(plan="miss"))])
    assert cache_savings(summary) == \
        "2 plan(s) replayed (saved 10 model call(s), 14,345 tokens, $0.0461)"
    assert summary_line(summary).endswith(
        " in 3.0s; cache: 2 plan(s) replayed (saved 10 model call(s), 14,345 tokens, $0.0461) "
        "(run r)")


def test_an_unknown_price_or_an_old_entry_says_less_and_no_replay_says_nothing():
    unpriced = CacheUse(plan="hit", saved={"calls": 3, "tokens": 900, "cost_usd": None})
    old = CacheUse(plan="hit")
    assert cache_savings(RunSummary(run_id="r", started="", cases=[_case("s/a", unpriced)])) \
        == "1 plan(s) replayed (saved 3 model call(s), 900 tokens)"
    assert cache_savings(RunSummary(run_id="r", started="", cases=[_case("s/a", old)])) == \
        "1 plan(s) replayed"
    none = RunSummary(run_id="r", started="", cases=[_case("s/a", CacheUse(plan="replanned"))])
    assert cache_savings(none) == "" and "cache:" not in summary_line(none)


def test_the_report_header_says_it_too(tmp_path):
    from farm.report.html import write_html
    hit = CacheUse(plan="hit", saved={"calls": 8, "tokens": 13345, "cost_usd": 0.0361})
    summary = RunSummary(run_id="r", started="2026-12-04T00:00:00+00:00", duration=3.0,
                         cases=[_case("s/a", hit)])
    html = write_html(summary, tmp_path).read_text()
    assert ("<dt>Cache</dt><dd>1 plan(s) replayed (saved 8 model call(s), 13,345 tokens, "
            "$0.0361)</dd>") in html
    none = RunSummary(run_id="r", started="2026-12-04T00:00:00+00:00", cases=[_case("s/b")])
    assert "<dt>Cache</dt>" not in write_html(none, tmp_path / "none").read_text()


def test_targets_a_model_had_found_taken_from_the_cache_are_counted_too():
    """A suite of descriptive aiTaps the model located on the first night: the warm run's last
    line says what the cache saved there too (an entry found before farm counted the tokens
    it cost: its calls only)."""
    found = CacheUse(saved={"calls": 1, "tokens": 819, "cost_usd": None, "locates": 1})
    older = CacheUse(saved={"calls": 1, "tokens": None, "cost_usd": None, "locates": 1})
    text_tier = CacheUse()           # (an entry the text tier wrote saves no model call)
    plan = CacheUse(plan="hit", saved={"calls": 2, "tokens": 1000, "cost_usd": 0.01})
    summary = RunSummary(run_id="r", started="", cases=[
        _case("s/a", found, text_tier), _case("s/b", found, plan)])
    assert cache_savings(summary) == ("1 plan(s) replayed (saved 2 model call(s), 1,000 "
                                      "tokens, $0.0100); 2 locate(s) from the cache (saved 2 "
                                      "model call(s), 1,638 tokens)")
    summary.cases.append(_case("s/c", older))
    assert cache_savings(summary).endswith(
        "; 3 locate(s) from the cache (saved 3 model call(s))")
