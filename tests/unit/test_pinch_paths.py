"""iOS pinches keep both fingers on the glass, wherever the pinch is centred, and still move
them apart (zoom in) or together (zoom out)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from farm.devices.ios import pinch_paths

W, H = 390, 844


def _gap(a: tuple[int, int], b: tuple[int, int]) -> float:
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


@given(st.integers(0, W - 1), st.integers(0, H - 1), st.integers(10, 200), st.booleans())
def test_fingers_stay_on_the_screen_and_still_pinch(x, y, reach, spread):
    (a0, a1), (b0, b1) = pinch_paths(x, y, reach, spread, (W, H))
    for px, py in (a0, a1, b0, b1):
        assert 0 < px < W - 1 and 0 < py < H - 1
    start, end = _gap(a0, b0), _gap(a1, b1)
    assert (end > start) if spread else (end < start)


def test_by_the_top_edge_the_upper_finger_rests_on_the_edge():
    upper, lower = pinch_paths(195, 10, 97, True, (W, H))
    assert upper == ((195, 1), (195, 1))
    assert lower == ((195, 50), (195, 147))
