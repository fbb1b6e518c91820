"""A progress line whose error is longer than it shows ends "…" at a word boundary: it was cut
mid-sentence at 160 characters with nothing to say so ('… thank you for your'), which read as
the whole message, the "is not on screen" lost."""

from __future__ import annotations

import io

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult

WANTED = ("The quick brown fox jumps over the lazy dog while the checkout total shows forty two "
          "dollars and the confirmation banner reads thank you for your order number")


def test_a_long_error_is_cut_with_an_ellipsis_at_a_word():
    out = io.StringIO()
    result = CaseResult(run_id="r", case_id="s/long", name="long", file="long.yaml",
                        platform="web", device="browser-1", status="failed", duration=0.2,
                        error=CaseError(kind="AssertionFailed", step=1,
                                        message=f'expected text "{WANTED}" is not on screen'))
    PlainProgress(0, 1, stream=out).case_finished("browser-1", result, final=True)
    line = out.getvalue().rstrip("\n")
    assert line.endswith(' reads thank you for your…')
    assert line.startswith('[1/1] [browser-1] FAILED s/long 0.2s — step 1: expected text "The')
