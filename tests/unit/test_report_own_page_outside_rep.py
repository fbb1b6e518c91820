"""`farm report RUN_DIR` rebuilds the report from results.json, which may come from anywhere
(a CI artifact, an edited file): a case's ``report_file`` there of ``../x.html`` or an
absolute path had its page written over that file, outside the run dir. Only a plain
``*.html`` name, as the loader takes a reportFileName, gets a page."""

from __future__ import annotations

from pathlib import Path

from farm.report.html import write_html
from farm.results import CaseResult, RunSummary


def _case(cid: str, page: str) -> CaseResult:
    return CaseResult(run_id="r", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      status="passed", report_file=page)


def test_a_report_file_naming_a_path_outside_the_run_dir_is_not_written(tmp_path: Path
                                                                          ) -> None:
    victim = tmp_path / "notes.html"
    victim.write_text("keep me", encoding="utf-8")
    run_dir = tmp_path / "run"
    summary = RunSummary(run_id="r", started="", cases=[
        _case("s/a", "../outside.html"), _case("s/b", str(victim)),
        _case("s/c", "sub/page.html"), _case("s/d", "report.html"),
        _case("s/e", "checkout.html"), _case("s/f", ".team.html")])
    summary.recount()
    write_html(summary, run_dir)
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.html", "run"]
    assert sorted(p.name for p in run_dir.iterdir()) == [".team.html", "checkout.html",
                                                       "report.css", "report.html"]
    assert "s/a" in (run_dir / "report.html").read_text(encoding="utf-8")   # the run's all
