"""Coordinate maps: every answer lands on the screen, in order; round trips stay close."""

from hypothesis import given, strategies as st

from farm.devices.base import Rect
from farm.llm.families import FAMILIES, family_for, from_rect, to_rect

fams = st.sampled_from(sorted(FAMILIES))
sizes = st.tuples(st.integers(2, 4000), st.integers(2, 4000))
nums = st.floats(-5000, 5000, allow_nan=False)


@given(fams, sizes, st.lists(nums, min_size=4, max_size=4))
def test_any_box_maps_inside_the_image(name, size, box):
    r = to_rect(box, FAMILIES[name], size)
    assert 0 <= r.x and 0 <= r.y and r.width >= 1 and r.height >= 1
    assert r.x + r.width <= size[0] and r.y + r.height <= size[1]


@given(fams, sizes, st.lists(nums, min_size=2, max_size=2))
def test_a_point_becomes_a_small_box_on_screen(name, size, pt):
    r = to_rect(pt, FAMILIES[name], size)
    assert r.width <= 9 and r.height <= 9 and r.x + r.width <= size[0]


@given(fams, st.tuples(st.integers(100, 3000), st.integers(100, 3000)), st.data())
def test_round_trip_is_within_a_few_pixels(name, size, data):
    x = data.draw(st.integers(0, size[0] - 2))
    y = data.draw(st.integers(0, size[1] - 2))
    w = data.draw(st.integers(1, size[0] - x))
    h = data.draw(st.integers(1, size[1] - y))
    rect = Rect(x=x, y=y, width=w, height=h)
    back = to_rect(from_rect(rect, FAMILIES[name], size), FAMILIES[name], size)
    slack = 1 if FAMILIES[name].scale is None else size[0] // FAMILIES[name].scale + 2
    assert abs(back.x - rect.x) <= slack and abs(back.width - rect.width) <= 2 * slack


def test_gemini_reads_y_first_and_swapped_corners_are_ordered():
    r = to_rect([100, 200, 300, 400], FAMILIES["gemini"], (1001, 1001))
    assert (r.x, r.y) == (200, 100)
    r = to_rect([50, 60, 10, 20], FAMILIES["gpt"], (100, 100))
    assert (r.x, r.y, r.width, r.height) == (10, 20, 41, 41)


def test_family_guess_and_caps():
    assert family_for(None, "openai/ui-tars-1.5").loop_cap == 40
    assert family_for("autoglm").loop_cap == 100
    assert family_for(None, "openai/gpt-4o").name == "gpt"
