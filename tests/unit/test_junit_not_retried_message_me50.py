"""A case whose retry could not run (its device lost, none left) says so in junit's `message=`
too, the attribute CI summaries show, as the console line and results.json's reason do; the
device's error cut to leave room; other errors' messages as before."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary

WHY = "not retried: no usable ios device left (could not restart: iphone-1 is gone)"


def _message(tmp_path, error: str, reason: str | None) -> str:
    case = CaseResult(run_id="r", case_id="s/cart_2", name="cart 2", file="s/cart_2.yaml",
                      platform="ios", device="iphone-1", status="error", reason=reason,
                      error=CaseError(kind="DeviceError", message=error))
    path = write_junit(RunSummary(run_id="r", started="", cases=[case]), tmp_path / "j.xml")
    return ET.parse(path).find(".//testcase/error").get("message")


def test_an_error_not_retried_says_why_in_its_message_me50(tmp_path):
    said = _message(tmp_path, "iphone-1 stopped answering (WDA at :8101 refused)", WHY)
    assert said == f"iphone-1 stopped answering (WDA at :8101 refused); {WHY}"


def test_a_long_error_is_cut_to_leave_room_for_why_me50(tmp_path):
    said = _message(tmp_path, "x" * 900, WHY)
    assert said.endswith(f"…; {WHY}") and len(said) <= 500


def test_other_reasons_leave_the_message_alone_me50(tmp_path):
    assert _message(tmp_path, "case timed out after 60s", None) == "case timed out after 60s"
