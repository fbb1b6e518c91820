"""A run stopped mid-case (Ctrl-C, SIGTERM) over fake devices: what the case in flight keeps —
its start, its steps, the images of the screens it saw, never another step's image."""

import threading
import time
from pathlib import Path

from farm.attempts import RetryPolicy
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import Later, ScreenshotGrabber
from farm.errors import DeviceLost, DeviceError
from farm.evidence import CaseEvidence
from farm.executors.local import LocalExecutor
from farm.results import ArtifactStore, CaseResult, StepRecord, timestamp
from farm.runner import Services
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget

SCREEN = UITree(source="dom", page_text="Welcome back, demo", nodes=[
    UINode(id=0, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30))])


class _Watched(threading.Event):
    """The run's cancel, saying when a step starts waiting on it (a sleep)."""

    def __init__(self) -> None:
        super().__init__()
        self.waiting = threading.Event()

    def wait(self, timeout: float | None = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def _case(steps: list[Step]) -> Case:
    return Case(id="s/stopped", name="stopped", file=Path("/tmp/stopped.yaml"),
                suite_root=Path("/tmp"), platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], timeout=120)


def _executor(tmp_path: Path, dev: FakeDevice, case: Case, cancel: threading.Event
              ) -> LocalExecutor:
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={}, cancel=cancel)
    return LocalExecutor([dev], {case.id: case}, services, RetryPolicy())


def test_a_case_that_stops_on_the_interrupt_keeps_its_device_and_its_images(tmp_path):
    """Ctrl-C during a sleep after a tap: the sleep ends on the stop, the device is not killed
    under the case, and the image taken after the tap is the one the later steps show."""
    cancel = _Watched()
    dev = FakeDevice(SCREEN)
    case = _case([Step(kind="aiTap", target="Sign in"), Step(kind="sleep", value="600000"),
                  Step(kind="assertText", value="Welcome back")])
    ex = _executor(tmp_path, dev, case, cancel)
    threading.Thread(target=lambda: cancel.waiting.wait(60) and ex.interrupt(),
                     daemon=True).start()
    outcome = ex.run([Job(case.id, "web", 1.0)])
    ex.services.artifacts.flush()
    res = outcome.results[0]
    assert not dev._killed.is_set()
    assert [(s.index, s.status) for s in res.steps] == [
        (1, "passed"), (2, "interrupted"), (3, "skipped")]
    tapped = res.steps[0].after
    assert tapped and (tmp_path / tapped).is_file()
    assert res.steps[1].before == tapped and res.screenshot == tapped


def test_a_device_that_never_comes_back_still_reports_what_its_case_did(tmp_path):
    """A call that not even killing the device ends, then a second Ctrl-C: the run does not
    wait for the device, and the case keeps its start, its time so far and its steps, the one
    it was in interrupted (not a blank result started when the run gave up on it)."""
    release, begun = threading.Event(), threading.Event()

    def stuck(dev: FakeDevice) -> None:
        begun.set()
        release.wait(60)
        raise DeviceLost("browser killed")
    dev = FakeDevice(SCREEN, scripts={"stuck": stuck})
    dev.about = "Fake 1.0"
    case = _case([Step(kind="aiTap", target="Sign in"), Step(kind="javascript", value="stuck"),
                  Step(kind="assertText", value="Welcome back")])
    ex = _executor(tmp_path, dev, case, threading.Event())
    stopped: list[float] = []

    def stop() -> None:
        begun.wait(60)
        stopped.append(time.time())
        ex.hurry()             # the second Ctrl-C, at once
        ex.interrupt()
    threading.Thread(target=stop, daemon=True).start()
    try:
        res = ex.run([Job(case.id, "web", 1.0)]).results[0]
    finally:
        release.set()
    assert res.status == "interrupted" and res.reason == "interrupted: the run was stopped"
    assert [(s.index, s.status) for s in res.steps] == [
        (1, "passed"), (2, "interrupted"), (3, "skipped")]
    assert timestamp(res.started) < stopped[0] and res.duration > 0
    assert res.device == dev.name and res.device_info == "Fake 1.0"
    ex.services.artifacts.flush()
    assert res.steps[0].before and (tmp_path / res.steps[0].before).is_file()
    # an image still on its way is left out, never replaced by another step's
    assert res.steps[0].after is None and res.steps[1].before is None


class _Shots:
    """Background captures with set outcomes: bytes, None (the screen had not changed since
    the last capture) or an exception (the capture failed)."""

    def __init__(self, dev: FakeDevice, outcomes: list[bytes | None | Exception]) -> None:
        self.outcomes = outcomes
        dev.capture_evidence = self.start  # type: ignore[attr-defined]

    def start(self) -> Later:
        outcome = self.outcomes.pop(0)

        def get() -> bytes | None:
            if isinstance(outcome, Exception):
                raise outcome
            return outcome
        return Later(get, lambda: True)


def _jpeg(n: int) -> bytes:
    import io

    from PIL import Image
    out = io.BytesIO()
    Image.new("RGB", (16, 8), (40 * n, 0, 0)).save(out, "JPEG")
    return out.getvalue()


def test_an_unchanged_screen_after_a_capture_that_failed_shows_no_image(tmp_path):
    """The capture after a tap failed (its browser was closed under it), and the next step
    found the screen unchanged since that capture: that step shows no image, not the one from
    before the tap."""
    dev = FakeDevice(SCREEN)
    _Shots(dev, [_jpeg(0), DeviceError("closed"), None])
    store = ArtifactStore(tmp_path)
    ev = CaseEvidence("all", ScreenshotGrabber(dev), store, "case", 1)
    paths = [ev.start()]
    records = []
    for index in (1, 2):
        rec = StepRecord(task="t", index=index, kind="aiTap", label="step", before=paths[-1])
        rec.after = ev.after_step(rec, looks_only=False)
        paths.append(rec.after)
        records.append(rec)
    result = CaseResult(run_id="r", case_id="case", name="case", file="c.yaml",
                        platform="web", status="interrupted")
    ev.finish(records, result)
    store.flush()
    assert records[0].before == paths[0] and (tmp_path / paths[0]).is_file()
    assert records[0].after is None and records[1].before is None
    assert records[1].after is None
