"""ScreenshotGrabber: cache by age and invalidation, with a fake clock."""

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def make() -> tuple[FakeDevice, ScreenshotGrabber, Clock]:
    tree = UITree(source="dom", nodes=[UINode(id=0, role="button", text="Go",
                                              rect=Rect(x=10, y=10, width=50, height=20))])
    dev = FakeDevice(tree, size=(64, 48))
    clock = Clock()
    return dev, ScreenshotGrabber(dev, ttl=0.3, clock=clock), clock


def test_fresh_screenshot_is_served_from_cache() -> None:
    dev, grabber, clock = make()
    first = grabber.grab()
    clock.now += 0.1
    assert grabber.grab() is first
    assert (grabber.captures, grabber.hits, dev.screenshots) == (1, 1, 1)


def test_expired_screenshot_is_retaken() -> None:
    dev, grabber, clock = make()
    grabber.grab()
    clock.now += 0.31
    grabber.grab()
    assert (grabber.captures, grabber.hits, dev.screenshots) == (2, 0, 2)


def test_invalidate_forces_a_new_capture() -> None:
    dev, grabber, clock = make()
    grabber.grab()
    grabber.invalidate()
    assert grabber.cached is None
    grabber.grab()
    assert grabber.captures == 2 and grabber.hits == 0


def test_capture_duration_is_recorded() -> None:
    dev, grabber, clock = make()
    real = dev.screenshot

    def slow() -> bytes:
        clock.now += 0.05
        return real()

    dev.screenshot = slow  # type: ignore[method-assign]
    assert grabber.last_capture_seconds is None
    grabber.grab()
    assert abs(grabber.last_capture_seconds - 0.05) < 1e-9
    # the window runs ttl past the capture's arrival: a slow phone's one capture serves the
    # whole loop iteration (0.05 capturing + 0.26 later is still fresh, 0.31 is not)
    clock.now += 0.26
    grabber.grab()
    assert grabber.captures == 1
    clock.now += 0.05
    grabber.grab()
    assert grabber.captures == 2
