"""A retried case's model spend in junit.xml: every attempt's, as the console's summary line
and results.json's run totals count it, so a CI dashboard summing junit's facts gets the run's
spend."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from farm.report.junit import build_junit
from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import summary_line
from farm.usage import Usage


def _attempt(status: str, attempt: int, cost: float, **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id="shop/cart", name="Cart", file="cart.yaml",
                      platform="web", device="browser-1", status=status, attempt=attempt,
                      tokens={"prompt": 1000, "completion": 50},
                      usage=Usage(prompt_tokens=1000, completion_tokens=50, cost_usd=cost,
                                  calls=1), **kw)


def test_a_flaky_case_s_model_fact_counts_every_attempt(tmp_path):
    """It said the last attempt's "1 call(s), 1,050 tokens, $0.0100" where the console's line
    said 2 calls, 2,100 tokens, $0.0300: the failed attempt was paid for too."""
    failed = _attempt("failed", 1, 0.02, error=CaseError(kind="AssertionFailed", message="x"))
    flaky = _attempt("flaky", 2, 0.01, previous=[failed])
    summary = RunSummary(run_id="r1", started="", duration=5.0, cases=[flaky])
    summary.recount()
    out = ET.fromstring(build_junit(summary)).find(".//system-out").text
    facts = dict(re.findall(r"^(model|tokens\.\w+): (.+)$", out, re.M))
    assert facts == {"model": "2 call(s), 2,100 tokens, $0.0300 (2 attempts)",
                     "tokens.completion": "100", "tokens.prompt": "2000"}
    assert "; model: 2 call(s), 2,100 tokens, $0.0300 (run " in summary_line(summary)
