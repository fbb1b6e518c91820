"""An aiQuery (aiBoolean, aiNumber, aiString) or javascript step that answered null says so in
its step row ("→ null"), as a value does: a null shown as nothing read as "showed nothing"."""

from __future__ import annotations

import re
from html import unescape

from farm.report.html import render_html
from farm.results import CaseResult, RunSummary, StepRecord


def _rows(steps: list[StepRecord], data: dict | None = None) -> tuple[dict[int, str], str]:
    case = CaseResult(run_id="r", case_id="s/q", name="q", file="s/q.yaml", platform="web",
                      status="failed", steps=steps, data=data or {})
    summary = RunSummary(run_id="r", started="2026-12-04T10:00:00+00:00", cases=[case])
    summary.recount()
    page = render_html(summary)
    rows = re.findall(r"<tr[^>]*><td>(\d+)<td>(.*?)<td>", page)
    return {int(n): unescape(re.sub(r"<[^>]+>", " ", label)) for n, label in rows}, page


def _step(index: int, kind: str, output: object = None, status: str = "passed") -> StepRecord:
    return StepRecord(task="t", index=index, kind=kind, label=f"{kind} step {index}",
                      output=output, status=status, error="no" if status != "passed" else None)


def test_a_null_answer_shows_as_null_beside_a_value():
    rows, page = _rows([_step(1, "aiQuery", None), _step(2, "aiBoolean", None),
                        _step(3, "aiNumber", 3), _step(4, "aiString", None),
                        _step(5, "javascript", None)],
                       data={"total": None, "n": 3})
    for n in (1, 2, 4, 5):
        assert "→ null" in rows[n], rows[n]
    assert "→ 3" in rows[3]
    # the Data table says null too (not an empty cell)
    assert "<tr><td><code>total</code><td><code>null</code>" in page


def test_no_output_is_not_called_null():
    rows, _ = _rows([_step(1, "aiTap", None), _step(2, "sleep", None),
                     _step(3, "aiQuery", None, status="failed"),
                     _step(4, "aiNumber", None, status="skipped")])
    assert not any("→" in label for label in rows.values()), rows
