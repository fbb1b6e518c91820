"""A case with Midscene's agent.reportFileName in a --matrix run runs once per device group
(``case@group``), each run naming the same page: each group's page was written over the one
before, so login.html showed only the last group's pass and the other group's failure was
not on it. The page now holds every run of its name."""

from __future__ import annotations

from pathlib import Path

from farm.report.html import write_html
from farm.results import CaseError, CaseResult, RunSummary


def _run(group: str, status: str) -> CaseResult:
    error = CaseError(kind="TestFailure", message="no 'Welcome' on the page", step=2) \
        if status == "failed" else None
    return CaseResult(run_id="r", case_id=f"demo/login@{group}", name=f"Login [{group}]",
                      file="demo/login.yaml", platform="android", status=status,
                      error=error, report_file="login.html")


def test_a_matrix_case_s_own_page_shows_every_device_group_s_run(tmp_path: Path) -> None:
    summary = RunSummary(run_id="r", started="", cases=[
        _run("os13", "failed"), _run("os14", "passed"),
        CaseResult(run_id="r", case_id="demo/cart", name="Cart", file="demo/cart.yaml",
                   platform="android", status="passed")])
    summary.recount()
    write_html(summary, tmp_path)
    own = (tmp_path / "login.html").read_text(encoding="utf-8")
    assert "Login [os13]" in own and "Login [os14]" in own
    assert "no &#x27;Welcome&#x27; on the page" in own
    assert "<b>1</b> failed" in own and "<b>1</b> passed" in own
    assert "Cart" not in own
    assert sorted(p.name for p in tmp_path.iterdir()) == ["login.html", "report.css", "report.html"]
