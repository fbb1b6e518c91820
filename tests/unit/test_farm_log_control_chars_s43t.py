"""farm.log shows control characters escaped, as the console, junit.xml and results.json do: a
step `assertText: "Cart \\e[31m(9)\\e[0m\\a"` wrote a raw ESC and BEL into farm.log, and a
`cat farm.log` (or a CI job printing it) turned the rest of the line red and beeped."""

from __future__ import annotations

import logging

from farm.executors.base import NullEvents
from farm.results import CaseError, CaseResult, StepRecord
from farm.run_log import CaseLog, drop_handler, setup_logging


def test_a_failed_step_s_escape_sequence_shows_escaped_in_farm_log(tmp_path) -> None:
    handler = setup_logging(tmp_path, lambda text: text.replace("hunter2", "${TOKEN}"))
    text = "Cart \x1b[31m(9)\x1b[0m\x07"
    try:
        step = StepRecord(task="t", index=1, kind="assertText", label=f'assertText "{text}"',
                          line=7, status="failed")
        CaseLog(NullEvents()).case_finished("browser-1", CaseResult(
            run_id="r", case_id="suite/esc", name="esc", file="suite/esc.yaml",
            platform="web", device="browser-1", status="failed", duration=0.3, steps=[step],
            error=CaseError(kind="AssertionFailed", step=1,
                            message=f'expected text "{text}" is not on screen')), final=True)
        try:
            raise ValueError("page said \x1b]0;owned\x07 with hunter2")
        except ValueError:
            logging.getLogger("farm").exception("step crashed\r\nfake line")
    finally:
        drop_handler(handler)
    logged = (tmp_path / "farm.log").read_text(encoding="utf-8")
    assert ('at step 1 assertText "Cart \\x1b[31m(9)\\x1b[0m\\x07" (suite/esc.yaml:7): '
            'AssertionFailed: expected text "Cart \\x1b[31m(9)\\x1b[0m\\x07" is not on '
            'screen') in logged
    assert "step crashed\\x0d\nfake line" in logged        # (a CR cannot rewrite the line)
    assert "ValueError: page said \\x1b]0;owned\\x07 with ${TOKEN}" in logged
    assert not any(ch in logged for ch in "\x1b\x07\r")
    assert "Traceback (most recent call last):\n" in logged   # (newlines stay text)
