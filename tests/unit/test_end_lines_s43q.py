"""An end-of-run FAILED line cut off the fix: it ended "…or set android: imeStrategy:
yadb-for-non-ascii with…", so where yadb must be pushed was only in results.json. A message
up to 400 characters is said whole; a longer one keeps its start and its end."""

from __future__ import annotations

from farm.results import CaseError, CaseResult, RunSummary
from farm.run_console import failure_lines, note_lines, skipped_lines

YADB = ("cannot type non-ASCII text on emulator-5556: `input text` only takes ASCII; install "
        "ADBKeyBoard and make it the input method (adb shell ime set "
        "com.android.adbkeyboard/.AdbIME), or set android: imeStrategy: yadb-for-non-ascii "
        "with yadb pushed to /data/local/tmp/yadb; current IME: "
        "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME")


def _summary(message: str, status: str = "failed") -> RunSummary:
    case = CaseResult(run_id="r", case_id="suite/bad/a_cjk", name="a_cjk",
                      file="suite/bad/a_cjk.yaml", line=9, platform="android", status=status)
    if status == "skipped":
        case.reason = message
    else:
        case.error = CaseError(kind="StepFailed", message=message)
    return RunSummary(run_id="r1", started="", cases=[case])


def test_the_ime_hint_is_said_whole_with_where_yadb_goes():
    assert failure_lines(_summary(YADB)) == [
        f"FAILED suite/bad/a_cjk (suite/bad/a_cjk.yaml:9) — {YADB}"]


def test_a_longer_message_keeps_its_start_and_its_fix():
    long = YADB.replace("; current IME", " (" + "a long aside, " * 20 + "); current IME") + \
        "; give --devices android:N for more"
    [line] = failure_lines(_summary(long))
    said = line.split(" — ", 1)[1]
    assert said.startswith("cannot type non-ASCII text on emulator-5556: ")
    head, tail = said.split(" … ")
    assert long.endswith(" " + tail) and long.startswith(head)
    assert tail.endswith("com.android.inputmethod.latin.LatinIME; give --devices android:N "
                         "for more")
    assert len(said) <= 401
    [skipped] = skipped_lines(_summary(long, "skipped"))
    assert skipped.endswith("give --devices android:N for more")
