"""Coordinate maps: every answer on the image lands on the screen, in order (one with no pixel
on it is no location); round trips stay close."""

import pytest
from hypothesis import given, strategies as st

from farm.devices.base import Rect
from farm.llm.families import FAMILIES, OffImage, family_for, from_rect, to_rect

fams = st.sampled_from(sorted(FAMILIES))
sizes = st.tuples(st.integers(2, 4000), st.integers(2, 4000))
nums = st.floats(-5000, 5000, allow_nan=False)


def pixels(values, family, size):
    """The model's numbers as (xs, ys) in image pixels, unclipped: round(v·(size−1)/N)."""
    def px(v, n):
        return round(v if family.scale is None else v * (n - 1) / family.scale)
    pairs = [values[i:i + 2] for i in range(0, len(values), 2)]
    if family.order == "yx":
        pairs = [p[::-1] for p in pairs]
    return [px(x, size[0]) for x, _ in pairs], [px(y, size[1]) for _, y in pairs]


def overlaps(values, family, size):
    xs, ys = pixels(values, family, size)
    return max(xs) >= 0 and min(xs) <= size[0] - 1 and max(ys) >= 0 and min(ys) <= size[1] - 1


def middle_on(values, family, size):
    xs, ys = pixels(values, family, size)
    return 0 <= min(xs) + max(xs) <= 2 * (size[0] - 1) and \
        0 <= min(ys) + max(ys) <= 2 * (size[1] - 1)


@given(fams, sizes, st.lists(nums, min_size=4, max_size=4))
def test_any_box_maps_inside_the_image_or_is_no_location(name, size, box):
    """A box whose middle is on the image is clipped to it; one with no pixel on it, or with
    its middle off it, is no location (it used to be clamped onto the edge, and the edge pixel
    was tapped)."""
    if not overlaps(box, FAMILIES[name], size):
        with pytest.raises(OffImage, match="is outside the"):
            to_rect(box, FAMILIES[name], size)
        return
    if not middle_on(box, FAMILIES[name], size):
        with pytest.raises(OffImage, match="is mostly outside the .*: its middle is off it"):
            to_rect(box, FAMILIES[name], size)
        return
    r = to_rect(box, FAMILIES[name], size)
    assert 0 <= r.x and 0 <= r.y and r.width >= 1 and r.height >= 1
    assert r.x + r.width <= size[0] and r.y + r.height <= size[1]


@given(fams, sizes, st.lists(nums, min_size=2, max_size=2))
def test_a_point_becomes_a_small_box_on_screen(name, size, pt):
    if not overlaps(pt, FAMILIES[name], size):
        with pytest.raises(OffImage, match="point"):
            to_rect(pt, FAMILIES[name], size)
        return
    r = to_rect(pt, FAMILIES[name], size)
    assert r.width <= 9 and r.height <= 9 and r.x + r.width <= size[0]


@pytest.mark.parametrize("box", [[5000, 5000, 5100, 5100], [-300, -300, -200, -200],
                                 [1280, 10, 1300, 20], [10, 800, 20, 900]])
def test_a_box_entirely_off_the_screenshot_is_no_location(box):
    with pytest.raises(OffImage) as off:
        to_rect(box, FAMILIES["gpt"], (1280, 800))
    assert str(off.value) == (f"the model's box [{','.join(map(str, box))}] is outside the "
                              "1280×800 screen")


def test_a_box_partly_off_the_screenshot_is_clipped_to_the_overlap():
    assert to_rect([1200, 700, 1300, 850], FAMILIES["gpt"], (1280, 800)) == Rect(
        x=1200, y=700, width=80, height=100)
    assert to_rect([-10, -10, 50, 40], FAMILIES["gpt"], (1280, 800)) == Rect(
        x=0, y=0, width=51, height=41)
    # normalised: 1050 of 1000 is past the right edge; [900..1050] keeps 900..1000
    assert to_rect([900, 0, 1050, 1000], FAMILIES["qwen3-vl"], (1001, 1001)) == Rect(
        x=900, y=0, width=101, height=1001)


@pytest.mark.parametrize("box", [[100, 780, 200, 1180], [1270, 10, 1470, 20],
                                 [-400, 10, 20, 20]])
def test_a_box_mostly_off_the_screenshot_is_no_location(box):
    """95% of [100, 780, 200, 1180] is below an 800 px screenshot: clipped, the tap went to
    the 20 px strip on its edge, a point the model did not mean."""
    with pytest.raises(OffImage) as off:
        to_rect(box, FAMILIES["gpt"], (1280, 800))
    assert str(off.value) == (f"the model's box [{','.join(map(str, box))}] is mostly outside "
                              "the 1280×800 screen: its middle is off it")
    with pytest.raises(OffImage):
        to_rect([1100, 0, 1200, 1000], FAMILIES["qwen3-vl"], (1001, 1001))


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


@pytest.mark.parametrize("model", ["openai/qwen2-vl-72b-instruct", "dashscope/Qwen2-VL-7B",
                                   "hosted_vllm/qwen2vl-2b"])
def test_a_qwen2_vl_box_is_read_on_its_0_to_1000_scale_not_as_pixels(model):
    """Qwen2-VL answers on 0-1000 (only its 2.5 answers in pixels): the middle of its scale
    is the middle of a 1280x800 screen, not the pixel (500, 500)."""
    family = family_for(None, model)
    assert family.name == "qwen2-vl"
    r = to_rect([490, 490, 510, 510], family, (1280, 800))
    assert abs(r.x + r.width / 2 - 640) <= 2 and abs(r.y + r.height / 2 - 400) <= 2
    assert family_for(None, "openai/qwen2.5-vl-72b-instruct").name == "qwen2.5-vl"
