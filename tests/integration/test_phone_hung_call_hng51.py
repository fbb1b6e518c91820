"""A simulated phone whose screencap stops answering mid-case (the simulator's ``slow`` fault,
switched on by the case's own first step): `farm run` on one phone (`android-sim:1`).

What a user sees now: the farm call that waited its whole adb timeout (30 s) with no answer
gives the phone up there: the step whose after-image it was carries that wait and ends the
case as the phone's loss (its later calls fail at once: before, the next step's UI dump and
the case's force-stop waited 30 s each, past the case's timeout, belonging to no step), and
the phone is named lost in results.json `lost`, on the summary line and in farm.log as it
happens. A step that had already failed keeps its own failure (the verdict), the loss its note.
A suite's runAdbShell stopped at its own short timeout on a slow phone is that step's failure
only: the phone is not given up, and the next case runs on it.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PHONE = "android-sim-1"
# from this step on every screencap of the phone sleeps 40 s (past farm's 30 s adb timeout)
HANG = "runAdbShell: farm-sim fault slow_seconds 40 && farm-sim fault slow -1"
HUNG_CASE = (f"android:\ntasks:\n  - name: steps\n    flow:\n      - {HANG}\n"
             "      - assertText: Anything at all\n      - runAdbShell: echo never\n")
# a failed assertion whose after-image (the only one: --screenshots on-failure) hangs
FAILED_CASE = (f"android:\ntasks:\n  - name: steps\n    flow:\n      - {HANG}\n"
               "      - assertText: Words this screen never shows\n")
# the suite's own command waits 20 s behind a slowed screencap: its step's 2 s timeout ends it
SLOW = "farm-sim fault slow_seconds 20 && farm-sim fault slow 1 && screencap -p /sdcard/x.png"
SLOW_CASE = (f"android:\ntasks:\n  - name: slow\n    flow:\n      - runAdbShell: {SLOW}\n"
             "        timeout: 2000\n")
NEXT_CASE = "android:\ntasks:\n  - name: next\n    flow:\n      - runAdbShell: echo still here\n"


def _run(farm: FarmCli, cases: dict[str, str], *args: str) -> tuple[Any, dict[str, Any], str]:
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("timeout: 90\nretries: 0\n")
    for name, text in cases.items():
        (suite / f"{name}.yaml").write_text(text)
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run", *args, timeout=400)
    return done, results(farm.tmp / "run"), (farm.tmp / "run" / "farm.log").read_text()


def test_a_hung_screencap_ends_its_case_as_the_phone_lost_everywhere(farm: FarmCli) -> None:
    done, summary, log = _run(farm, {"hung": HUNG_CASE})
    out = done.stdout + done.stderr
    case = by_name(summary)["hung"]
    assert (case["status"], case["device"]) == ("error", PHONE), out
    assert case["error"]["kind"] == "DeviceLost", case["error"]
    said = case["error"]["message"]
    assert said.startswith(f"{PHONE} lost (screencap): no answer in 30s"), said
    assert "farm gave the phone up" in said, said
    # the step whose after-image hung carries it (not the next one, for a call it never made)
    assert case["error"]["step"] == 1, case["error"]
    assert [s["status"] for s in case["steps"]] == ["error", "skipped", "skipped"], case
    assert case["steps"][0]["error"] == said, case["steps"][0]
    assert list(summary["lost"]) == [PHONE], summary["lost"]
    assert summary["lost"][PHONE].startswith(f"{PHONE} lost (screencap)"), summary["lost"]
    assert f"lost: {PHONE}" in out, out
    assert f"{PHONE}: its screencap got no answer in 30s: farm gives the phone up" in log, log
    # its later calls failed at once: no step, force-stop or health check waited on it again
    assert "health check failed" not in log, log
    assert done.returncode == 3, out


def test_a_failed_step_keeps_its_failure_when_its_screenshot_hangs(farm: FarmCli) -> None:
    done, summary, log = _run(farm, {"failed": FAILED_CASE}, "--screenshots", "on-failure")
    out = done.stdout + done.stderr
    case = by_name(summary)["failed"]
    assert case["status"] == "failed", (case, out)
    assert case["error"]["step"] == 2, case["error"]
    assert "Words this screen never shows" in case["error"]["message"], case["error"]
    assert "lost" not in case["error"]["message"], case["error"]
    step = case["steps"][1]
    assert (step["status"], step["error"]) == ("failed", case["error"]["message"]), step
    assert any(n.startswith(f"the device was lost after the step: {PHONE} lost (screencap)")
               for n in step["notes"]), step
    assert f"{PHONE} lost (screencap)" in (case["reason"] or ""), case
    assert list(summary["lost"]) == [PHONE], summary["lost"]
    assert f"lost: {PHONE}" in out, out
    assert f"{PHONE}: its screencap got no answer in 30s" in log, log


def test_a_suite_command_past_its_short_timeout_spares_the_slow_phone(farm: FarmCli) -> None:
    done, summary, log = _run(farm, {"a_slow": SLOW_CASE, "b_next": NEXT_CASE})
    out = done.stdout + done.stderr
    cases = by_name(summary)
    slow, after = cases["a_slow"], cases["b_next"]
    assert slow["status"] == "failed", (slow, out)
    assert slow["error"]["message"].startswith("the shell command was still running after 2s"), \
        slow["error"]
    assert (after["status"], after["device"]) == ("passed", PHONE), (after, out)
    assert summary["lost"] == {}, summary["lost"]
    assert "farm gives the phone up" not in log, log
