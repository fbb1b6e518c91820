"""Tokens and cost nobody reported are unknown, not zero, and every output says so in the same
words (farm.usage `tokens_text` / `cost_text`): the console line, report.html's header and case
rows, junit.xml's facts and the history page's totals, per run and per case. "cost unknown"
when no call was priced (a model missing from litellm's cost map), "$X (partly unknown)" when
some was, "$X" when all were; tokens likewise. A 429 is not billed (0 tokens, $0); a request
that timed out may have been processed, so its tokens and cost are unknown."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from farm.report.history_page import render_history
from farm.report.html import render_html
from farm.report.junit import build_junit
from farm.results import CaseResult, RunSummary, StepRecord
from farm.results_history import RunRecord, SqliteResults, record_for
from farm.run_console import summary_line
from farm.usage import Usage, cost_text, tokens_text
from tests.support.model_server import NEVER_ANSWERS, Reply, serve

STARTED = "2026-01-05T02:00:00+00:00"
UNPRICED = Usage(prompt_tokens=1000, completion_tokens=50, cost_unknown=True, latency_s=1.0,
                 calls=1)                                   # openai/scripted: not in the map
NO_USAGE = Usage(cost_unknown=True, tokens_unknown=True, latency_s=1.0, calls=1)
PRICED = Usage(prompt_tokens=1000, completion_tokens=50, cost_usd=0.003, latency_s=1.0,
               calls=1)


# ---- the wording -------------------------------------------------------------------------------
@pytest.mark.parametrize("usd, unknown, said", [
    (0.03, False, "$0.0300"),
    (0.0, False, "$0.0000"),                # known to be free: a 429, a cached replay
    (0.03, True, "$0.0300 (partly unknown)"),
    (0.0, True, "cost unknown"),            # not "$0.0000 (partly unknown)": none is known
])
def test_the_cost_wording(usd, unknown, said):
    assert cost_text(usd, unknown) == said


@pytest.mark.parametrize("total, unknown, said", [
    (3150, False, "3,150 tokens"),
    (0, False, "0 tokens"),
    (3150, True, "3,150 tokens (partly unknown)"),
    (0, True, "tokens unknown"),
])
def test_the_token_wording(total, unknown, said):
    assert tokens_text(total, unknown) == said


def test_the_model_line_of_the_console_and_junit():
    assert UNPRICED.summary() == "1 call(s), 1,050 tokens, cost unknown"
    assert NO_USAGE.summary() == "1 call(s), tokens unknown, cost unknown"
    both = PRICED.copy()
    both.add(UNPRICED)
    assert both.summary() == "2 call(s), 2,100 tokens, $0.0030 (partly unknown)"


def test_a_priced_step_after_an_unpriced_one_is_known():
    """The case's running total stays "partly unknown" once a call was; the step of the later
    priced call alone is not (a step's usage is the total minus a snapshot)."""
    total = Usage()
    total.add(UNPRICED)
    before = total.copy()
    total.add(PRICED)
    step = total.minus(before)
    assert step.cost_text() == "$0.0030" and step.tokens_text() == "1,050 tokens"
    assert total.cost_text() == "$0.0030 (partly unknown)"
    assert Usage().minus(Usage()).cost_text() == "$0.0000"
    unpriced_step = total.copy()
    unpriced_step.add(UNPRICED)
    assert unpriced_step.minus(total).cost_text() == "cost unknown"


# ---- every output of a run ----------------------------------------------------------------------
def case(cid: str, usage: Usage) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"demo/{cid}", name=cid, file=f"demo/{cid}.yaml",
                      platform="web", device="browser-1", status="passed", started=STARTED,
                      duration=2.0, usage=usage.copy(),
                      tokens={"prompt": usage.prompt_tokens,
                              "completion": usage.completion_tokens},
                      steps=[StepRecord(task="t", index=1, kind="aiString", label="aiString",
                                        usage=usage.copy())])


def run(*cases: CaseResult) -> RunSummary:
    summary = RunSummary(run_id="r1", started=STARTED, duration=4.0, cases=list(cases))
    summary.recount()
    return summary


def text(html: str) -> str:
    """What a reader sees: tags dropped, spaces folded."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def header(html: str, name: str) -> str:
    found = re.search(rf"<dt>{name}</dt><dd>(.*?)</dd>", html, re.S)
    assert found, html[:3000]
    return found.group(1)


def history(summary: RunSummary, tmp_path: Path) -> str:
    store = SqliteResults(tmp_path / "results.sqlite")
    store.add(record_for(summary))
    return render_history(store.runs(), tmp_path)


def cells(html: str, pattern: str) -> str:
    found = re.search(pattern, html, re.S)
    assert found, html
    return text(found.group(0))


def test_an_unpriced_model_reads_cost_unknown_everywhere(tmp_path):
    summary = run(case("query", UNPRICED))
    assert summary_line(summary).endswith(" in 4.0s; model: 1 call(s), 1,050 tokens, cost "
                                          "unknown (run r1)")
    report = render_html(summary)
    assert header(report, "Model cost") == "cost unknown"          # not "$0.0000 (partly…)"
    assert header(report, "Tokens") == "1,050 tokens: completion 50 · prompt 1,000"
    row = cells(report, r'<span class="chips">.*?</summary>')
    assert "1,050 tokens" in row and "cost unknown" in row and "$" not in row
    junit = build_junit(summary)
    assert "model: 1 call(s), 1,050 tokens, cost unknown" in junit
    assert "tokens.prompt: 1000" in junit
    page = history(summary, tmp_path)
    assert header(page, "Cost") == "cost unknown" and header(page, "Tokens") == "1,050 tokens"
    run_row = cells(page, r'<tr data-run="r1">.*?(?=<tr|</tbody>)')
    assert "1,050 tokens cost unknown" in run_row, run_row
    spend = cells(page, r'id="spend">.*?</table>')
    assert "1,050 tokens cost unknown 1,050 tokens" in spend, spend
    assert "$0.0000" not in text(report) + junit + text(page)


def test_a_reply_without_usage_reads_tokens_unknown_everywhere(tmp_path):
    summary = run(case("query", NO_USAGE))
    assert "; model: 1 call(s), tokens unknown, cost unknown (run " in summary_line(summary)
    report = render_html(summary)
    assert header(report, "Tokens") == "tokens unknown"
    assert header(report, "Model cost") == "cost unknown"
    body = text(report)
    assert "tokens unknown cost unknown" in body
    assert "0 tokens" not in body and "prompt tokens 0" not in body
    junit = build_junit(summary)
    assert "model: 1 call(s), tokens unknown, cost unknown" in junit
    assert "tokens.prompt" not in junit and "tokens.completion" not in junit    # not 0
    page = history(summary, tmp_path)
    assert header(page, "Tokens") == "tokens unknown"
    assert "tokens unknown cost unknown" in cells(page, r'<tr data-run="r1">.*?(?=<tr|</tbody>)')
    spend = cells(page, r'id="spend">.*?</table>')     # listed, not "No model calls"
    assert "tokens unknown cost unknown tokens unknown" in spend and "free" not in spend


def test_a_run_partly_priced_reads_partly_unknown_everywhere(tmp_path):
    summary = run(case("priced", PRICED), case("unpriced", UNPRICED))
    assert summary_line(summary).endswith(
        " in 4.0s; model: 2 call(s), 2,100 tokens, $0.0030 (partly unknown) (run r1)")
    report = render_html(summary)
    assert header(report, "Model cost") == "$0.0030 (partly unknown)"
    page = history(summary, tmp_path)
    assert header(page, "Cost") == "$0.0030 (partly unknown)"
    assert "2,100 tokens $0.0030 (partly unknown)" in cells(
        page, r'<tr data-run="r1">.*?(?=<tr|</tbody>)')
    spend = cells(page, r'id="spend">.*?</table>')
    assert "$0.0030" in spend and "cost unknown" in spend


def test_history_records_written_before_the_unknown_flags_load_as_before(tmp_path):
    """An older farm's record (SQLite or Redis: the same JSON) has no flags: it loads, and its
    cost reads as it did; a new record of a priced run is written as before (no new keys)."""
    old = ('{"run_id": "r0", "started": "2026-01-04T02:00:00+00:00", "at": 1767492000.0, '
           '"tokens": 1050, "cost": 0.003, "cases": [{"case_id": "demo/q", "status": '
           '"passed", "tokens": 1050, "cost": 0.003}]}')
    path = tmp_path / "results.sqlite"
    store = SqliteResults(path)
    store.add(record_for(run(case("priced", PRICED))))
    with sqlite3.connect(path) as con:
        con.execute("INSERT INTO runs(run_id, at, record) VALUES ('r0', 1767492000.0, ?)",
                    (old,))
        written = con.execute("SELECT record FROM runs WHERE run_id = 'r1'").fetchone()[0]
    con.close()
    assert "unknown" not in written
    loaded = {r.run_id: r for r in store.runs()}
    assert not loaded["r0"].cost_unknown and not loaded["r0"].cases[0].tokens_unknown
    assert RunRecord.model_validate_json(old).cost == 0.003
    page = render_history(store.runs(), tmp_path)
    assert "$0.0030" in cells(page, r'<tr data-run="r0">.*?(?=<tr|</tbody>)')


# ---- failed requests: what was billed -----------------------------------------------------------
MSGS = [{"role": "user", "content": "hi"}]


def client(base_url: str, model: str = "openai/scripted", **kw: object) -> object:
    from farm.llm.litellm_client import LiteLLMClient
    return LiteLLMClient(model, base_url=base_url, api_key="sk-test-0000000000", **kw)


def test_a_rate_limited_call_cost_nothing(server):
    from farm.errors import ModelUnavailable
    srv = serve(server, [Reply(status=429)])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, retries=1, backoff=0.01).complete(MSGS)
    assert raised.value.usage.summary() == "1 call(s) (2 requests: 1 retried), 0 tokens, $0.0000"


def test_a_timed_out_call_has_unknown_tokens_and_cost(server):
    from farm.errors import ModelUnavailable
    srv = serve(server, [NEVER_ANSWERS])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, timeout=0.5, retries=0).complete(MSGS)
    # its prompt was read (perhaps billed): counted as litellm's token counter makes it
    assert raised.value.usage.summary() == ("1 call(s) (its request timed out), 8 tokens "
                                            "(partly estimated, partly unknown), cost unknown")


def test_a_retry_that_answers_after_a_timeout_is_partly_unknown(server):
    srv = serve(server, [NEVER_ANSWERS, '{"data": "ok"}'])
    reply = client(srv.base_url, "openai/gpt-4o", timeout=0.5, retries=1,
                   backoff=0.01).complete(MSGS)
    usage = reply.usage
    assert usage.prompt_tokens + usage.completion_tokens > 0 and usage.cost_usd > 0
    assert usage.tokens_text().endswith(" tokens (partly estimated, partly unknown)")
    assert usage.cost_text().endswith(" (partly estimated, partly unknown)")


@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings")   # litellm's, of choices: 5
@pytest.mark.parametrize("answer, billed", [
    (Reply(raw=b"this is not json"), "unknown"),            # a 200 whose body is no JSON
    (Reply(raw=b'{"choices": 5}'), "unknown"),              # a 200 with no completion in it
    (Reply(stream_bytes=3_000_000), "unknown"),             # over the size cap
    (Reply(status=500), "nothing"),                         # an HTTP error: not processed
    (Reply(status=429), "nothing"),
])
def test_an_answer_that_came_and_could_not_be_used_may_have_been_billed(server, answer, billed):
    """litellm calls a broken 200 an InternalServerError, as it does a real 500: only the
    second is known not to be billed."""
    from farm.errors import ModelUnavailable
    srv = serve(server, [answer])
    with pytest.raises(ModelUnavailable) as raised:
        client(srv.base_url, retries=0).complete(MSGS)
    assert raised.value.usage.summary() == {
        "unknown": "1 call(s), 8 tokens (partly estimated, partly unknown), cost unknown",
        "nothing": "1 call(s), 0 tokens, $0.0000"}[billed]


def test_a_request_cut_short_by_ctrl_c_may_have_been_billed(server):
    import threading

    from farm.errors import Interrupted
    stop = threading.Event()

    def received(body: dict, index: int) -> Reply:      # the request is in: Ctrl-C now
        stop.set()
        return NEVER_ANSWERS
    srv = serve(server, received)
    from farm import metrics
    def counted(metric: object, *labels: str) -> float:
        return metric.labels("gpt", *labels)._value.get()
    before = (counted(metrics.MODEL_REQUESTS, "interrupted"),
              counted(metrics.MODEL_UNPRICED, "unknown"))
    with pytest.raises(Interrupted) as raised:
        client(srv.base_url, timeout=60, retries=0).complete(MSGS, cancel=stop)
    assert raised.value.usage.summary() == "1 call(s), tokens unknown, cost unknown"
    # and so do the metrics: a dashboard must not read the run as "no model request made"
    assert (counted(metrics.MODEL_REQUESTS, "interrupted"),
            counted(metrics.MODEL_UNPRICED, "unknown")) == (before[0] + 1, before[1] + 1)
