"""A device call is given up only when it lasted a whole grace since the kill: the watchdog's
look at the device's thread, a grace after kill(), found it in a call that had begun a moment
before (farm's own wait, a model request or the step's report, had just ended), and gave a
healthy device up: under load, a case's timeout lost its device to the run."""

from __future__ import annotations

from farm.devices.base import OwnThread


class _Frames:
    """``what`` of a work whose device call is the frame ``now`` (None: farm's own code)."""

    def __init__(self, own: OwnThread) -> None:
        self.own, self.now = own, None

    def __call__(self) -> str | None:
        self.own.stuck_frame = self.now
        return None if self.now is None else "tv-1: tap()"


def test_a_call_first_seen_at_a_look_has_its_grace_and_one_seen_twice_is_given_up():
    own = OwnThread("tv-1")
    what = _Frames(own)
    first, second = object(), object()
    what.now = first
    assert own._looked(what, seen=None) == ("tv-1: tap()", first, False)    # began since
    assert own._looked(what, seen=first) == ("tv-1: tap()", first, True)    # a grace on
    what.now = second
    assert own._looked(what, seen=first) == ("tv-1: tap()", second, False)  # another call
    what.now = None
    assert own._looked(what, seen=second) == (None, None, False)            # farm's own


def test_a_call_that_cannot_be_told_apart_is_the_same_call():
    """A device plugin's every call is the device's (its ``what`` names no frame)."""
    own = OwnThread("tv-1")
    assert own._looked(lambda: "tv-1: tap() of plug", seen=None) == (
        "tv-1: tap() of plug", None, True)
