"""What Allure's report makes of farm's retries. Its RetryPlugin takes the results of one
historyId as one test, the newest the verdict, and calls it flaky when any older one failed or
broke, whatever the results' statusDetails say. So a case that passed after its device broke
(retried on another device: passed, not flaky, in farm, junit.xml and on the console) must not
reach Allure as a broken result beside a passed one."""

from __future__ import annotations

import json
from pathlib import Path

from farm.report.allure import write_allure
from farm.results import CaseError, CaseResult, RunSummary

T0 = "2024-05-01T10:00:00+00:00"
T1 = "2024-05-01T10:00:05+00:00"


def _case(cid: str, status: str, started: str, attempt: int = 1, **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id=cid, name=cid, file=f"{cid}.yaml", platform="web",
                      device=f"browser-{attempt}", status=status, started=started,
                      attempt=attempt, duration=1.0, **kw)


def _as_allure_shows(out: Path) -> tuple[dict[str, tuple[str, bool, int]], dict[str, dict]]:
    """(status, flaky, retries) per test, by Allure's RetryPlugin rule; each test's newest
    result."""
    by_history: dict[str, list[dict]] = {}
    for path in out.glob("*-result.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        by_history.setdefault(result["historyId"], []).append(result)
    shown = {}
    for results in by_history.values():
        results.sort(key=lambda r: r["start"], reverse=True)
        latest, retries = results[0], results[1:]
        flaky = (any(r["status"] not in ("passed", "skipped") for r in retries) if retries
                 else bool(latest.get("statusDetails", {}).get("flaky")))
        shown[latest["fullName"]] = (latest["status"], flaky, len(retries))
    return shown, {rs[0]["fullName"]: rs[0] for rs in by_history.values()}


def test_a_case_that_passed_after_its_device_broke_is_passed_not_flaky_in_allure(tmp_path):
    """Allure showed it flaky (a broken retry), where junit.xml lists the broken attempt as an
    `earlier_attempt:` fact so that CI does not call it flaky."""
    broke = _case("s/a", "error", T0, error=CaseError(kind="DeviceLost",
                                                      message="browser-1 crashed"))
    passed = _case("s/a", "passed", T1, attempt=2, previous=[broke])
    failed_once = _case("s/b", "failed", T0, error=CaseError(kind="AssertionFailed",
                                                             message="no Total"))
    flaky = _case("s/b", "flaky", T1, attempt=2, previous=[failed_once],
                  reason="passed on attempt 2 after failing")
    summary = RunSummary(run_id="r1", started=T0, duration=9.0, cases=[passed, flaky])
    summary.recount()
    shown, latest = _as_allure_shows(write_allure(summary, tmp_path, tmp_path / "allure"))
    assert shown == {"s/a": ("passed", False, 0), "s/b": ("passed", True, 1)}
    assert latest["s/a"]["statusDetails"]["message"] == (
        "earlier attempt 1 error on browser-1 (a device error, not the case's): DeviceLost: "
        "browser-1 crashed")
