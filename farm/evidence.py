"""Screenshots for the report, kept off a case's critical path.

Policy (``farm run --screenshots``, FARM_SCREENSHOTS): ``all`` (default) gives every step an
"after" image (and the first step a "before"); ``on-failure`` keeps only the failing step's
image and a timeout's; ``off`` takes none. Whatever the policy, a logScreenshot /
recordToReport step gets its image: the case asks for it.

With ``all``, a step's image costs the case almost nothing: Chromium encodes the JPEG itself
and the capture runs in the background while the next steps read the page (the next action
waits for it, so the image is from before that action; a step that only looks does not);
an unchanged screen (same change token) is not captured again (its path then stands for the
previous capture's image, or for none when that capture failed); the file is written by the
ArtifactStore's thread.

A step left without its "after" image says why in ``StepRecord.no_image`` (results.json, the
report's step row): the policy (``--screenshots off``), the device's error as the run's end
says it (`ArtifactStore.not_taken`, secrets masked), the disk's (`explain_unwritten`: what
`ArtifactStore.not_written` noted), or that the step never ran.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Literal

from farm.devices.grabber import ready
from farm.errors import DeviceLost

if TYPE_CHECKING:
    from farm.devices.grabber import ScreenshotGrabber
    from farm.results import ArtifactStore, CaseResult, StepRecord

log = logging.getLogger("farm.evidence")

Policy = Literal["all", "on-failure", "off"]
IN_FLIGHT = 2      # captures a case may have pending before the next one waits for the oldest
POLICIES: tuple[str, ...] = ("all", "on-failure", "off")
# why a step has no image (`StepRecord.no_image`) when the policy kept it from one: the
# report says these once for the run, not on each step (farm.report.html)
BY_POLICY = {"off": "--screenshots off", "on-failure": "--screenshots on-failure: it passed"}
NOT_RUN = "not run"
ENDED = "the case ended in this step"   # (its error, or its timeout's image, tells the rest)
NOT_WRITTEN = "not written: "
UNCHANGED = "the screen had not changed since an earlier case's image"


@dataclass
class CaseEvidence:
    """One case attempt's screenshots: paths are handed out at once, images stored later."""

    policy: str
    grabber: "ScreenshotGrabber"
    artifacts: "ArtifactStore"
    case_id: str
    attempt: int
    mask: Callable[[str], str] | None = None  # the case's secrets (a device error may hold one)
    last: str | None = None                   # the newest image's path
    count: int = 0
    _pending: list[tuple[str, Callable[[], bytes]]] = field(default_factory=list)
    # paths never written → what stands in for them: the previous capture's image (the screen
    # had not changed), or None (the capture failed)
    _gone: dict[str, str | None] = field(default_factory=dict)
    _previous: str | None = None              # the image of the last capture handed over
    _stored: set[str] = field(default_factory=set)     # paths handed to the store
    _why: dict[str | None, str] = field(default_factory=dict)  # a path gone to None → why
    _failed: str = ""                         # why the last capture asked for failed

    def start(self) -> str | None:
        """The case's first image (the first step's "before"), captured in the background."""
        return self._take("start") if self.policy == "all" else None

    def after_step(self, rec: "StepRecord", looks_only: bool, shows: bool = False
                   ) -> str | None:
        """The image after a step: a new one when the screen may have changed, else the last.
        A step that ``shows`` the screen (logScreenshot / recordToReport: the image is what it
        is for) gets one of the screen as it is at that step whatever the policy."""
        failed = rec.status != "passed"
        if not shows and (self.policy == "off" or (self.policy == "on-failure" and not failed)):
            rec.no_image = BY_POLICY[self.policy]
            return None
        if not shows and self.policy == "all" and looks_only and not failed \
                and self.last is not None:
            return self.last
        path = self._take(f"step{rec.index}")
        rec.no_image = None if path is not None else self._failed
        return path

    def now(self, name: str) -> str | None:
        """A fresh image now (a timed-out case's evidence), unless the policy is ``off``."""
        if self.policy == "off":
            return None
        self.grabber.invalidate()
        return self._take(name)

    def _take(self, name: str) -> str | None:
        try:
            capture = self.grabber.capture_evidence()
        except Exception as exc:  # evidence is best effort; the verdict comes from the step
            log.debug("screenshot failed: %s", exc)
            self._failed = self._not_taken(exc)
            return None
        self._store(keep=IN_FLIGHT)   # earlier captures that are in: to the store
        self.count += 1
        path = self.artifacts.path_for(self.case_id, self.attempt, f"{self.count:03d}-{name}")
        self._pending.append((path, capture))
        self.last = path
        return path

    def _store(self, keep: int) -> None:
        """Hand the captures that are in to the artifact store, oldest first; wait for one
        still being taken only while more than ``keep`` are pending (a step that only looked
        at the page does not wait for the image of the step before it)."""
        while self._pending:
            path, capture = self._pending[0]
            if len(self._pending) <= keep and not ready(capture):
                return
            self._pending.pop(0)
            try:
                image = capture()
            except Exception as exc:  # best effort, as above
                log.debug("screenshot %s failed: %s", path, exc)
                # (and a capture that then found the screen unchanged shows none either)
                self._why[None] = self._why[path] = self._not_taken(exc)
                self._gone[path] = self._previous = None
                self.artifacts.stands_for(path, None)
                continue
            if image is None:         # the screen had not changed: the previous image stands
                self._gone[path] = self._previous
                if self._previous is None:      # (no image of this case stands for it)
                    self._why[path] = self._why.get(None, UNCHANGED)
                self.artifacts.stands_for(path, self._previous)
                continue
            self.artifacts.store(path, image)
            self._stored.add(path)
            self._previous = path

    def _not_taken(self, exc: Exception) -> str:
        """A capture that failed, for the run's end (`ArtifactStore.not_taken`; not a device
        that died: the run's end names it already, as lost); returns why, for the step left
        without it: the device's words as the run's end says them, secrets masked."""
        said, device = _first_line(exc, self.mask), str(getattr(self.grabber.device, "name",
                                                                "") or "")
        if not isinstance(exc, DeviceLost):
            said = self.artifacts.not_taken(device, exc, self.mask)
        said = said.removeprefix(f"{device}: ") if device else said   # (the case names it)
        if isinstance(exc, TimeoutError) or type(exc).__name__.endswith("TimeoutError"):
            return f"the device did not answer the capture ({type(exc).__name__}: {said})"
        return f"not taken: {said}"

    def store_ready(self) -> None:
        """Hand the captures that are in to the artifact store, waiting for none: as a step
        starts a long wait (a farm killed outright meanwhile keeps the images its case showed
        before it)."""
        self._store(keep=len(self._pending))

    def kept(self, path: str | None) -> str | None:
        """The image ``path`` shows so far (any thread: for a case stopped where nothing will
        finish its captures): itself once handed to the store, the image it stands for, or
        None while its capture is not in."""
        if path in self._gone:
            return self._gone[path]
        return path if path in self._stored else None

    def finish(self, records: list["StepRecord"], result: "CaseResult") -> None:
        """Hand every captured image to the artifact store. A path whose capture found the
        screen unchanged becomes the previous image's; one whose capture failed, none."""
        self._store(keep=0)
        gone = self._gone
        for rec in records:
            if rec.after in gone and gone[rec.after] is None:
                rec.no_image = self._why.get(rec.after) or rec.no_image
            rec.before = gone.get(rec.before, rec.before) if rec.before else None
            rec.after = gone.get(rec.after, rec.after) if rec.after else None
            if rec.after is None and rec.no_image is None:
                rec.no_image = NOT_RUN if rec.status == "skipped" else ENDED
        if not gone:
            return
        if result.screenshot in gone:
            result.screenshot = gone[result.screenshot] or next(
                (r.after for r in reversed(records) if r.after), None)
        if self.last in gone:
            self.last = gone[self.last]


def _first_line(exc: BaseException, mask: Callable[[str], str] | None) -> str:
    said = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    return mask(said) if mask is not None else said


def explain_unwritten(results: "list[CaseResult]", artifacts: "ArtifactStore") -> None:
    """After `ArtifactStore.flush`: each step whose after image did not reach the disk (what
    the run's end counts) has none, and says why (``not written: No space left on device``),
    in every attempt of every case; a before image not written is none either (the step
    before says why)."""
    unwritten = artifacts.unwritten
    if not unwritten:
        return
    for result in results:
        explain_unwritten([*result.previous, *result.parts], artifacts)
        for rec in result.steps:
            if rec.after is not None and rec.after in unwritten:
                rec.no_image = NOT_WRITTEN + unwritten[rec.after]
                rec.after = None
            if rec.before is not None and rec.before in unwritten:
                rec.before = rec.marked = None


def flush_images(results: "list[CaseResult]", artifacts: "ArtifactStore") -> None:
    """Every image of ``results`` on disk or known not to be (`ArtifactStore.flush`: the run's
    end says how many were not), each step that lost its own saying why."""
    artifacts.flush()
    explain_unwritten(results, artifacts)
