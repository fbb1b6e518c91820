"""`farm run --collect-only`'s stderr: every line that is not a case's, the count last (its
stdout holds the case lines alone)."""

from __future__ import annotations


def counted(n: int, deselected: int = 0, seconds: float = 30) -> str:
    """The count line of ``n`` cases that never ran here (``seconds`` each assumed), with its
    newline: a listing's whole stderr when nothing else is said."""
    guessed = f"; {n} never ran here, {seconds:g}s each assumed" if n else ""
    return (f"farm: {n} case(s) collected (expected {n * seconds:.1f}s of device time, summed "
            f"over the cases{guessed}), {deselected} deselected\n")
