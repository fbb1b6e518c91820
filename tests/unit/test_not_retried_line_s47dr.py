"""The end of a run's line for a case whose retry never ran: its "not retried: …" was cut at
120 characters ("…which is not a usable device of…"); it is shortened as the rest of the
console's messages are: whole up to 400 characters, else its start, " … " and its last words."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import failure_lines

PINNED = ("not retried: the case is pinned to emulator-5556 (Midscene deviceId / "
          "wdaHost:wdaPort), which is not a usable device of this run any more")


def _line(reason: str) -> str:
    case = CaseResult(run_id="r", case_id="slowpin/s1", name="s1", file="slowpin/s1.yaml",
                      line=11, platform="android", status="error", reason=reason)
    case.error = CaseError(kind="DeviceLost", message="emulator-5556 lost (uiautomator dump)",
                           step=3)
    [line] = failure_lines(RunSummary(run_id="r1", started="", cases=[case]))
    return line


def test_a_not_retried_reason_up_to_400_characters_is_said_whole() -> None:
    assert _line(PINNED).endswith(f"— step 3: emulator-5556 lost (uiautomator dump); {PINNED}")


def test_a_longer_one_keeps_its_start_and_its_last_words() -> None:
    long = PINNED.replace("(Midscene", "(" + "an aside, " * 40 + "Midscene")
    said = _line(long).split("(uiautomator dump); ", 1)[1]
    head, tail = said.split(" … ")
    assert long.startswith(head) and head.startswith("not retried: the case is pinned to ")
    assert tail.endswith("which is not a usable device of this run any more")
    assert len(said) <= 401
