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


def jpeg(n: int) -> bytes:
    """A small JPEG, a different one for each ``n``."""
    import io

    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (16, 8), (40 * n, 0, 0)).save(out, "JPEG")
    return out.getvalue()


class Captures:
    """A device taking evidence in the background (as the browser does): each capture is in
    only once the test says so; asking for one that is not in yet is recorded."""

    def __init__(self, dev: FakeDevice) -> None:
        self.images: list[bytes | None] = []
        self.done: list[bool] = []
        self.asked_early: list[int] = []
        dev.capture_evidence = self.start  # type: ignore[attr-defined]

    def start(self):
        from farm.devices.grabber import Later

        n = len(self.done)
        self.done.append(False)
        self.images.append(jpeg(n))

        def get() -> bytes | None:
            if not self.done[n]:
                self.asked_early.append(n)
            return self.images[n]
        return Later(get, lambda: self.done[n], lambda: 0.04)


def look(index: int, after: str | None = None):
    from farm.results import StepRecord

    return StepRecord(task="t", index=index, kind="waitForText", label="look", after=after)


def evidence(tmp_path, dev: FakeDevice):
    from farm.evidence import CaseEvidence
    from farm.results import ArtifactStore

    store = ArtifactStore(tmp_path)
    return store, CaseEvidence("all", ScreenshotGrabber(dev), store, "case", 1)


def test_a_step_does_not_wait_for_the_image_of_the_step_before(tmp_path) -> None:
    """Looking steps follow an action: each takes its image while the earlier ones are still
    being taken, none waits for them; the case's end waits for them all and stores them in
    order, and an unchanged screen's path stands for the image before it."""
    from farm.results import CaseResult

    dev, _grabber, _clock = make()
    captures = Captures(dev)
    store, ev = evidence(tmp_path, dev)
    paths = [ev.start()]
    for i in range(2):
        paths.append(ev.after_step(look(i + 1), looks_only=False))
    assert captures.asked_early == [] and len(captures.done) == 3
    captures.images[2] = None                  # the last look found the screen unchanged
    captures.done[:2] = [True] * 2             # ... and is not in yet when the case ends
    records = [look(i + 1, after=p) for i, p in enumerate(paths)]
    result = CaseResult(run_id="r", case_id="case", name="case", file="c.yaml",
                        platform="web", status="passed")
    ev.finish(records, result)                 # waits for every image
    store.flush()
    assert captures.asked_early == [2]
    assert [(tmp_path / p).read_bytes() for p in paths[:2]] == [jpeg(0), jpeg(1)]
    assert records[2].after == paths[1] and not (tmp_path / paths[2]).exists()


def test_at_most_a_few_images_wait_to_be_stored(tmp_path) -> None:
    """A long run of looking steps with captures that never seem to come in: the oldest is
    waited for once IN_FLIGHT are pending, so nothing piles up."""
    from farm.evidence import IN_FLIGHT

    dev, _grabber, _clock = make()
    captures = Captures(dev)
    _store, ev = evidence(tmp_path, dev)
    ev.start()
    for i in range(5):
        ev.after_step(look(i + 1), looks_only=False)
    assert captures.asked_early == list(range(5 - IN_FLIGHT))
