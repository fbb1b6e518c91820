"""A run that skipped cases and exits 0 says, once, that --fail-on-skip would make a skip fail
it: a newcomer's mistyped target ended "SKIPPED … needs a model", exit 0, and nothing said the
flag existed. Not when nothing was skipped, not under --fail-on-skip, not when the code is
not 0 anyway; the report's path stays the last line."""

from __future__ import annotations

import io
from pathlib import Path

from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import print_end

HINT = "farm: {n} case(s) skipped (exit 0): --fail-on-skip makes a skip fail the run"
NO_MATCH = 'needs a model (set FARM_MODEL): no zero-token match for "Shopping basket icon"'


def _case(cid: str, status: str, reason: str | None = None, **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml", line=3,
                      platform="web", device="browser-1", status=status, reason=reason, **kw)


def _end(*cases: CaseResult, tmp_path: Path, fail_on_skip: bool = False,
         exit_code: int = 0) -> list[str]:
    summary = RunSummary(run_id="r1", started="", duration=1.0, cases=list(cases))
    summary.recount()
    summary.exit_code = exit_code
    (tmp_path / "report.html").write_text("<html></html>", encoding="utf-8")
    out = io.StringIO()
    print_end(summary, tmp_path, out, fail_on_skip=fail_on_skip)
    return out.getvalue().splitlines()


def test_skipped_cases_with_exit_0_end_with_one_fail_on_skip_hint(tmp_path: Path) -> None:
    lines = _end(_case("a", "passed"), _case("typo", "skipped", NO_MATCH),
                 _case("other", "skipped", "needs a model (set FARM_MODEL): ai at line 7"),
                 _case("more", "skipped", NO_MATCH), tmp_path=tmp_path)
    assert lines[-2:] == [HINT.format(n=3), str((tmp_path / "report.html").resolve())]
    assert sum("--fail-on-skip" in line for line in lines) == 1
    assert lines[-3].startswith("farm: 1 passed, 3 skipped in ")


def test_no_hint_when_nothing_was_skipped(tmp_path: Path) -> None:
    lines = _end(_case("a", "passed"), tmp_path=tmp_path)
    assert not any("--fail-on-skip" in line for line in lines)


def test_no_hint_under_fail_on_skip(tmp_path: Path) -> None:
    lines = _end(_case("typo", "skipped", NO_MATCH), tmp_path=tmp_path, fail_on_skip=True,
                 exit_code=1)
    assert HINT.format(n=1) not in lines
    assert "farm: 1 skipped case(s) fail this run (--fail-on-skip): exit 1" in lines


def test_no_hint_when_a_failure_already_makes_the_code_1(tmp_path: Path) -> None:
    bad = _case("bad", "failed", error=CaseError(kind="AssertionFailed", step=1,
                                                 message="Total is not on screen"))
    lines = _end(bad, _case("typo", "skipped", NO_MATCH), tmp_path=tmp_path, exit_code=1)
    assert not any("--fail-on-skip" in line for line in lines)


def test_no_hint_under_collect_only(tmp_path: Path, monkeypatch, capsys) -> None:
    """--collect-only runs nothing: its "would be skipped" count is the whole story."""
    from tests.support.farm_cli import run_main
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "typo.yaml").write_text(
        "web:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n"
        "      - aiTap: Shopping basket icon\n", encoding="utf-8")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 0, out + err
    assert "farm: 1 case(s) collected" in err
    assert "--fail-on-skip makes" not in out + err
