"""Allure's Suites tab, as its reader nests results: parentSuite → suite → subSuite."""

from __future__ import annotations

import json

from farm.report.allure import write_allure
from farm.results import CaseResult, RunSummary

STARTED = "2024-05-01T10:00:00+00:00"


def test_suites_nest_as_the_folders_do(tmp_path):
    """A case at the top of suite demo sat under farm → demo → demo (its suite again), and
    one in demo/checkout under farm → demo → demo/checkout."""
    cases = [CaseResult(run_id="r1", case_id=cid, name=cid, file="x.yaml", platform="web",
                        device="browser-1", status="passed", started=STARTED)
             for cid in ("demo/login", "demo/checkout/pay", "demo/checkout/card/3ds")]
    summary = RunSummary(run_id="r1", started=STARTED, duration=1.0, cases=cases)
    out = write_allure(summary, tmp_path, tmp_path / "allure")
    nested = {}
    for path in out.glob("*-result.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        labels = {x["name"]: x["value"] for x in result["labels"]}
        nested[result["fullName"]] = tuple(labels.get(k) for k in ("parentSuite", "suite",
                                                                     "subSuite"))
    assert nested == {"demo/login": ("farm", "demo", None),
                      "demo/checkout/pay": ("farm", "demo", "checkout"),
                      "demo/checkout/card/3ds": ("farm", "demo", "checkout/card")}


def test_the_timeline_has_a_lane_per_device_under_its_machine(tmp_path):
    """host was the device and there was no thread: Allure's Timeline (host → thread) had no
    lane level of its own, and a cluster's two machines were not told apart."""
    import socket
    cases = [CaseResult(run_id="r1", case_id=f"demo/{n}", name=n, file="x.yaml",
                        platform="web", device=device, status="passed", started=STARTED)
             for n, device in (("a", "browser-1"), ("b", "browser-2@worker-7"), ("c", None))]
    summary = RunSummary(run_id="r1", started=STARTED, duration=1.0, cases=cases)
    out = write_allure(summary, tmp_path, tmp_path / "allure")
    lanes = {}
    for path in out.glob("*-result.json"):
        result = json.loads(path.read_text(encoding="utf-8"))
        labels = {x["name"]: x["value"] for x in result["labels"]}
        lanes[result["fullName"]] = (labels.get("host"), labels.get("thread"))
    assert lanes == {"demo/a": (socket.gethostname(), "browser-1"),
                     "demo/b": ("worker-7", "browser-2@worker-7"), "demo/c": (None, None)}
