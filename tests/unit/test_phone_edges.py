"""A phone's tap on a target that shows only a strip at the screen's edge (`farm.devices.
phone_edges.tap_point`, what Android's and iOS's `tap_point` do before every located tap)."""

from __future__ import annotations

from farm.devices.base import Rect, UINode, UITree
from farm.devices.phone_edges import tap_point


def tree(*rects: tuple[int, int, int, int]) -> UITree:
    return UITree(source="uiautomator", nodes=[
        UINode(id=i, role="Button", text="Pay now", rect=Rect(x=x, y=y, width=w, height=h))
        for i, (x, y, w, h) in enumerate(rects)])


class Phone:
    name, platform = "p1", "android"

    def __init__(self, after: UITree | None) -> None:
        self.after, self.swipes = after, []

    def size(self) -> tuple[int, int]:
        return 1000, 2000

    def swipe(self, *finger: int) -> None:
        self.swipes.append(finger)

    def hierarchy(self) -> UITree | None:
        return self.after


def test_a_whole_target_is_tapped_where_it_is_without_a_swipe():
    phone = Phone(None)
    assert tap_point(phone, tree((0, 1800, 200, 150)), 0, 100, 1875) == (100, 1875, "")
    assert phone.swipes == []


def test_a_strip_at_the_bottom_is_swiped_in_and_tapped_where_it_came():
    phone = Phone(tree((0, 1000, 200, 150)))
    assert tap_point(phone, tree((0, 1996, 200, 4)), 0, 100, 1998) == (100, 1075, "")
    assert phone.swipes == [(100, 1498, 100, 502, 600)]      # the strip's top to the middle


def test_a_strip_that_does_not_come_in_is_what_the_tap_would_hit():
    phone = Phone(tree((0, 1996, 200, 150)))     # (a tree that does not clip)
    assert tap_point(phone, tree((0, 1996, 200, 4)), 0, 100, 1998)[2] == (
        "the system's bar: it shows 4 of its 150 px at the bottom edge of the screen, and a "
        "swipe does not bring it in")
    gone = Phone(tree())
    assert tap_point(gone, tree((0, 0, 200, 3)), 0, 100, 1)[2] == \
        "nothing: it went from the screen when swiped in from its top edge"


def test_a_node_the_last_read_does_not_hold_there_is_not_checked():
    phone = Phone(None)
    assert tap_point(phone, tree((0, 1996, 200, 4)), 0, 50, 50) == (50, 50, "")
    assert tap_point(phone, None, 0, 100, 1998) == (100, 1998, "")
    assert phone.swipes == []
