"""Screenshots for the report, kept off a case's critical path.

Policy (``farm run --screenshots``, FARM_SCREENSHOTS): ``all`` (default) gives every step an
"after" image (and the first step a "before"); ``on-failure`` keeps only the failing step's
image and a timeout's; ``off`` takes none.

With ``all``, a step's image costs the case almost nothing: Chromium encodes the JPEG itself
and the capture runs in the background while the next step reads the page (the next action
waits for it, so the image is from before that action); an unchanged screen (same change
token) is not captured again; the file is written by the ArtifactStore's thread.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Literal

if TYPE_CHECKING:
    from farm.devices.grabber import ScreenshotGrabber
    from farm.results import ArtifactStore, CaseResult, StepRecord

log = logging.getLogger("farm.evidence")

Policy = Literal["all", "on-failure", "off"]
POLICIES: tuple[str, ...] = ("all", "on-failure", "off")


@dataclass
class CaseEvidence:
    """One case attempt's screenshots: paths are handed out at once, images stored later."""

    policy: str
    grabber: "ScreenshotGrabber"
    artifacts: "ArtifactStore"
    case_id: str
    attempt: int
    last: str | None = None                   # the newest image's path
    count: int = 0
    _token: str | None = None                 # change token of the screen ``last`` shows
    _pending: list[tuple[str, Callable[[], bytes]]] = field(default_factory=list)
    _failed: set[str] = field(default_factory=set)

    def start(self) -> str | None:
        """The case's first image (the first step's "before"), captured in the background."""
        return self._take("start") if self.policy == "all" else None

    def after_step(self, rec: "StepRecord", looks_only: bool) -> str | None:
        """The image after a step: a new one when the screen may have changed, else the last."""
        failed = rec.status != "passed"
        if self.policy == "off" or (self.policy == "on-failure" and not failed):
            return None
        if self.policy == "on-failure":
            return self._take(f"step{rec.index}", reuse=False)
        if looks_only and not failed and self.last is not None:
            return self.last
        return self._take(f"step{rec.index}")

    def now(self, name: str) -> str | None:
        """A fresh image now (a timed-out case's evidence), unless the policy is ``off``."""
        if self.policy == "off":
            return None
        self.grabber.invalidate()
        return self._take(name, reuse=False)

    def _take(self, name: str, reuse: bool = True) -> str | None:
        try:
            token = self.grabber.frame_token()
            if reuse and token is not None and token == self._token and self.last:
                return self.last       # the screen has not changed since the last image
            capture = self.grabber.capture_evidence()
        except Exception as exc:  # evidence is best effort; the verdict comes from the step
            log.debug("screenshot failed: %s", exc)
            return None
        self._store(keep=0)    # the previous capture has had a step's time: store it
        self.count += 1
        path = self.artifacts.path_for(self.case_id, self.attempt, f"{self.count:03d}-{name}")
        self._pending.append((path, capture))
        self.last, self._token = path, token
        return path

    def _store(self, keep: int) -> None:
        while len(self._pending) > keep:
            path, capture = self._pending.pop(0)
            try:
                self.artifacts.store(path, capture())
            except Exception as exc:  # best effort, as above
                log.debug("screenshot %s failed: %s", path, exc)
                self._failed.add(path)

    def finish(self, records: list["StepRecord"], result: "CaseResult") -> None:
        """Hand every captured image to the artifact store; a capture that failed leaves no
        path behind in the records."""
        self._store(keep=0)
        failed = self._failed
        if not failed:
            return
        for rec in records:
            rec.before = None if rec.before in failed else rec.before
            rec.after = None if rec.after in failed else rec.after
        if result.screenshot in failed:
            result.screenshot = next((r.after for r in reversed(records) if r.after), None)
