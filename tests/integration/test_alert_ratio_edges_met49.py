"""The ratio alerts of deploy/prometheus/alerts.yml at their threshold exactly (`promtool test
rules`): exactly 90% passed is not "fewer than 90%", exactly 5% errors or lost attempts is not
"more than 5%". Prometheus scrapes at its own times, not the rule evaluation's: increase()
extrapolates numerator and denominator by the same factor and 27/30 comes out
0.8999999999999999 at some evaluations; here the gateway is scraped every 7 s, rules evaluated
every 15 s, and every evaluation of the first hour is checked."""

from __future__ import annotations

import pytest

from tests.integration.test_alert_rules_h1 import rule, run_promtool

pytestmark = pytest.mark.integration

SCRAPE = "7s"       # not a divisor of the 15 s evaluation interval: extrapolated increase()s


def _pushed(metric: str, labels: str, first: float, second: float) -> dict[str, str]:
    """Running totals of two runs pushed by one host (farm/pushgateway.py): the baseline 0,
    the first run's end, then the second's."""
    return {"series": f'{metric}{{job="farm_run",instance="ci",{labels}}}',
            "values": f"0x10 {first:g}x10 {second:g}x1000"}


def _cases(platform: str, first: dict[str, int], second: dict[str, int]) -> list[dict]:
    return [_pushed("farm_cases_total", f'platform="{platform}",status="{s}"',
                    first.get(s, 0), first.get(s, 0) + second.get(s, 0))
            for s in ("passed", "failed", "error", "flaky", "skipped", "interrupted")]


def _silent(alertname: str) -> list[dict]:
    return [{"eval_time": f"{15 * n}s", "alertname": alertname, "exp_alerts": []}
            for n in range(12, 240)]


def _fired(alertname: str, summary: str) -> dict:
    return {"exp_labels": {"severity": "warning", "platform": "web"},
            "exp_annotations": {"summary": summary,
                                "description": rule(alertname)["annotations"]["description"]}}


def test_pass_rate_of_exactly_90_percent_does_not_alert_met49(tmp_path):
    """Runs of 13/14 and 14/16 passed: 27 of 30, 90.0%, never fires; 89 of 100 fires (89%)."""
    run_promtool(tmp_path, [
        {"interval": SCRAPE,
         "input_series": _cases("web", {"passed": 13, "failed": 1}, {"passed": 14, "failed": 2}),
         "alert_rule_test": _silent("FarmPassRateDrop")},
        {"interval": SCRAPE,
         "input_series": _cases("web", {"passed": 40, "failed": 5}, {"passed": 49, "failed": 6}),
         "alert_rule_test": [{"eval_time": "30m", "alertname": "FarmPassRateDrop", "exp_alerts": [
             {"exp_labels": {"severity": "warning", "platform": "web"},
              "exp_annotations": {
                  "summary": "farm pass rate on web is 89% over 6h",
                  "description": "Fewer than 90% of the cases that ran passed. Open the last "
                                 "run's report.html."}}]}]}])


def test_infra_errors_of_exactly_5_percent_do_not_alert_met49(tmp_path):
    """3 errors of 60 cases (5.0%) never fire FarmInfraErrorRate; 4 of 60 (6.67%, as the summary rounds it) fires."""
    run_promtool(tmp_path, [
        {"interval": SCRAPE,
         "input_series": _cases("web", {"passed": 27, "error": 1}, {"passed": 30, "error": 2}),
         "alert_rule_test": _silent("FarmInfraErrorRate")},
        {"interval": SCRAPE,
         "input_series": _cases("web", {"passed": 27, "error": 2}, {"passed": 29, "error": 2}),
         "alert_rule_test": [{"eval_time": "30m", "alertname": "FarmInfraErrorRate",
                              "exp_alerts": [_fired("FarmInfraErrorRate", "6.67% of web cases "
                                                    "ended in an infrastructure error (1h)")]}]}])


def test_attempts_lost_of_exactly_5_percent_do_not_alert_met49(tmp_path):
    """3 attempts lost of 60 (57 final cases + 3 retried) never fire FarmAttemptsLost; 4 lost
    of 60 fires."""
    def night(lost: int) -> list[dict]:
        retried = _pushed("farm_attempts_retried_total", 'platform="web"', 1, 3)
        lost_s = _pushed("farm_attempts_lost_total", 'platform="web"', 1, lost)
        return _cases("web", {"passed": 27}, {"passed": 30}) + [retried, lost_s]
    run_promtool(tmp_path, [
        {"interval": SCRAPE, "input_series": night(3),
         "alert_rule_test": _silent("FarmAttemptsLost")},
        {"interval": SCRAPE, "input_series": night(4),
         "alert_rule_test": [{"eval_time": "30m", "alertname": "FarmAttemptsLost",
                              "exp_alerts": [_fired("FarmAttemptsLost", "6.67% of web attempts "
                                                    "were lost with their device or worker (1h)")]}]}])
