"""A progress line whose error is longer than it shows ends "…" at a word boundary: it was cut
mid-sentence at 160 characters with nothing to say so ('… thank you for your'), which read as
the whole message, the "is not on screen" lost."""

from __future__ import annotations

import io

from farm.progress import PlainProgress
from farm.results import CaseError, CaseResult

WANTED = ("The quick brown fox jumps over the lazy dog while the checkout total shows forty two "
          "dollars and the confirmation banner reads thank you for your order number")


def _line(message: str) -> str:
    out = io.StringIO()
    result = CaseResult(run_id="r", case_id="s/long", name="long", file="long.yaml",
                        platform="web", device="browser-1", status="failed", duration=0.2,
                        error=CaseError(kind="AssertionFailed", step=1, message=message))
    PlainProgress(0, 1, stream=out).case_finished("browser-1", result, final=True)
    return out.getvalue().rstrip("\n")


def test_a_long_error_is_cut_with_an_ellipsis_at_a_word():
    """Up to 400 characters an error is shown whole (it was cut at 160); longer, its start,
    " … " at a word and its last words, as the end of the run's lines show it."""
    head = '[1/1] [browser-1] FAILED s/long 0.2s — step 1: expected text "The'
    line = _line(f'expected text "{WANTED}" is not on screen')
    assert line == (f'[1/1] [browser-1] FAILED s/long 0.2s — step 1: expected text "{WANTED}" '
                    'is not on screen')
    line = _line(f'expected text "{WANTED} and then {WANTED} and then {WANTED}" is not on '
                 'screen')
    assert line.startswith(head)
    assert line.endswith(' and the … total shows forty two dollars and the confirmation banner '
                         'reads thank you for your order number" is not on screen')
    assert len(line.split(" — step 1: ", 1)[1]) <= 400
