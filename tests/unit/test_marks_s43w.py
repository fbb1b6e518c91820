"""What a user sees of a scroll in the report: its step's name, and its arrow inside the
screenshot (a scroll to a list's end is recorded with its whole distance, many screens)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from farm.report.marks import marks_svg
from farm.results import Mark
from farm.suite.model import Step
from tests.unit.test_marks import NS, jpeg, num, svg_of


def _arrow(root: ET.Element, kind: str) -> tuple[list[float], list[float]]:
    g = root.find(f"s:g[@class='{kind}']", NS)
    tip = [float(v) for v in g.find("s:polygon", NS).get("points").split()[0].split(",")]
    return num(g.find("s:line", NS), "x1", "y1", "x2", "y2"), tip


def test_a_scroll_to_the_bottom_ends_its_arrow_at_the_screenshot_s_edge():
    """untilBottom on a 1080x2400 phone: recorded as (540,1200) -> (540,25200); its arrow
    ran off the image (y2="25164"), no head to see. Now the head sits on the bottom edge."""
    marks = [Mark(kind="scroll", points=[[540, 1200], [540, 25200]]),
             Mark(kind="scroll", points=[[540, 1200], [540, -22800]]),
             Mark(kind="swipe", points=[[540, 1200], [30540, 2400 + 30000 * 1.2]])]
    root = svg_of(marks_svg(jpeg((540, 1200)), marks, None, None, [1080, 2400]))
    groups = root.findall("s:g", NS)
    lines = [num(g.find("s:line", NS), "x1", "y1", "x2", "y2") for g in groups]
    tips = [[float(v) for v in g.find("s:polygon", NS).get("points").split()[0].split(",")]
            for g in groups]
    assert tips[0] == [540, 2400] and lines[0][:2] == [540, 1200] and lines[0][3] < 2400
    assert tips[1] == [540, 0] and lines[1][3] > 0          # scrollToTop: up to the top edge
    assert tips[2][0] == 1080 and 0 < tips[2][1] < 2400     # a slant: where it leaves the side
    for g in groups:
        for x, y in (p.split(",") for p in g.find("s:polygon", NS).get("points").split()):
            assert -60 <= float(x) <= 1140 and -60 <= float(y) <= 2460


def test_a_path_wholly_outside_the_screenshot_draws_no_arrow():
    root = svg_of(marks_svg(jpeg((100, 100)), [Mark(kind="swipe", points=[[-50, -50], [-10, -90]])],
                            None, None, [100, 100]))
    assert root.find("s:g[@class='swipe']", NS) is None


def test_a_short_scroll_is_drawn_as_it_was():
    root = svg_of(marks_svg(jpeg((360, 400)), [Mark(kind="scroll", points=[[50, 50], [50, 90]])],
                            None, None, [360, 400]))
    line, tip = _arrow(root, "scroll")
    assert line[:2] == [50, 50] and tip == [50, 90]


def test_a_scroll_step_is_named_by_its_direction_kind_and_target():
    def label(**options) -> str:
        target = options.pop("target", None)
        return Step(kind="aiScroll", target=target, options=options, line=23).label

    assert label(direction="down", scrollType="untilBottom") == "aiScroll down, untilBottom"
    assert label(direction="up", scrollType="scrollToTop", target="Results") == \
        'aiScroll up, scrollToTop on "Results"'
    assert label(direction="left", scrollType="singleAction", distance=300) == \
        "aiScroll left, distance 300"
    assert label() == "aiScroll down"
