"""DeviceSlot: one device's life, in one place.

Open → (health check, restart once if it does not answer → run the case under a watchdog →
count the infra-error streak)* → quarantine or close. LocalExecutor runs one slot per device
thread; a `farm worker` process runs one slot for its device: the executors are thin loops
around this class, so a case behaves the same whichever ran it.

The thread that opens the slot owns the device: it alone calls the device (health checks wake
the screen, restarts, the case). Any thread may call :meth:`DeviceSlot.kill`. Farm's own kinds
run that work on a thread of the device's own (`OwnThread`, as a device plugin's every method
does): a call still running the watchdog grace after ``kill()`` is given up, the attempt ends
(a timeout naming the method, or interrupted) and the device is lost, as a plugin's is.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Protocol, TypeVar

from farm import metrics
from farm.attempts import (QUARANTINE_REASON, WATCHDOG_GRACE_S, Outcome, error_kind, next_streak,
                           outcome, quarantine_due, synthetic)
from farm.devices import base as devices_base
from farm.devices.base import Device, OwnThread, PluginDevice
from farm.errors import CaseTimeout, DeviceLost, InternalError
from farm.executors.base import DEVICE_THREAD, NullEvents, RunEvents
from farm.results import CaseError, CaseResult
from farm.runner import INTERRUPTED, Services, run_case
from farm.schedule import Job
from farm.suite.model import Case
from farm.text import clean, first_line

log = logging.getLogger("farm.slot")

T = TypeVar("T")
# farm/devices: a call in there is the device's (`OwnThread.stuck_in`), a screen capture too
DEVICE_CODE = os.path.dirname(os.path.abspath(devices_base.__file__))


def so_far(running: Any) -> CaseResult:
    """What the attempt ``running`` (`farm.runner`'s case run, in ``Services.in_flight``) did
    until now (its ``so_far``), the model calls it made included: they were paid for (a
    stopped run's attempt whose device did not come back, one whose device call was given up
    after kill())."""
    result = running.so_far()
    spent = running.agent.usage.copy()
    if spent.spent:
        result.usage = spent
        result.tokens = {"prompt": spent.prompt_tokens, "completion": spent.completion_tokens}
    return result


class Streak(Protocol):
    """Where a device's consecutive infra errors are counted (memory, or Redis for workers)."""

    def bump(self, result: Outcome) -> int:
        """Count this attempt; return the streak after it."""


class MemoryStreak:
    def __init__(self) -> None:
        self.value = 0

    def bump(self, result: Outcome) -> int:
        self.value = next_streak(self.value, result)
        return self.value


class DeviceSlot:
    """One device: open it, keep it healthy, run attempts on it, decide when it must stop."""

    def __init__(self, device: Device, services: Services, events: RunEvents | None = None,
                 streak: Streak | None = None, grace: float | None = None) -> None:
        self.device = device
        self.services = services
        self.events = events or NullEvents()
        self.streak = streak or MemoryStreak()
        self.grace = grace
        self.state = "new"      # starting | idle | busy | restarting | dead | quarantined | done
        self.detail = ""
        self.launch_seconds: float | None = None
        self.quarantine_due = False
        self._owner: int | None = None
        self._checked: tuple[str, int] | None = None   # the attempt `ready` checked it for
        # farm's own kinds: their work on a thread of its own (a plugin's device has one per
        # call already: `PluginDevice`)
        self._own = None if isinstance(device, PluginDevice) else OwnThread(
            f"{DEVICE_THREAD}{device.name} (its calls)", self._grace())

    @property
    def name(self) -> str:
        return self.device.name

    @property
    def platform(self) -> str:
        return self.device.platform

    @property
    def about(self) -> str | None:
        """What the device says it is (``about``, see `Device`), cleaned; None if it does not."""
        return clean(str(getattr(self.device, "about", "") or "")) or None

    @property
    def usable(self) -> bool:
        return self.state not in ("dead", "quarantined", "done")

    def _set(self, state: str, detail: str = "") -> None:
        self.state, self.detail = state, detail
        metrics.device_state(self.platform, self.name, state)
        self.events.device_state(self.name, state, detail)

    # ---- life ----------------------------------------------------------------------------------
    def open(self) -> bool:
        """Start the device; the calling thread owns it from now on. False: it is dead."""
        self._owner = threading.get_ident()
        if self.services.settings.model:    # (a zero-token run imports nothing of the model)
            from farm.llm.models import configured_families
            for family in configured_families(self.services.settings):
                metrics.model_family(family)    # its outcomes at 0 before the first request
        self._set("starting")
        t0 = time.monotonic()
        try:
            self._on_device(self.device.open, opening=True)
        except Exception as exc:
            if self._own is not None:   # (no close() follows: its thread ends here)
                self._own.stop()
            if self.services.cancel.is_set():   # the run was stopped while it started: not
                log.info("device %s stopped while it started: %s", self.name, exc)   # dead
                self._set("done")
                return False
            self.retire("dead", f"could not start: {exc}")
            return False
        self.launch_seconds = time.monotonic() - t0
        self._set("idle", self.about or "")      # opened: what it is (the journal keeps it)
        return True

    def retire(self, state: str, detail: str) -> None:
        """Take the device out of service (``dead`` or ``quarantined``)."""
        log.warning("device %s %s: %s", self.name, state, detail)
        self._set(state, detail)

    def kill(self) -> None:
        """Any thread: make every later device call fail at once (interrupt, watchdog); one
        still running the grace after it is given up (`abandoned`)."""
        try:
            self.device.kill()
        except Exception as exc:
            log.debug("kill %s: %s", self.name, exc)
        if self._own is not None:
            self._own.kill()

    @property
    def abandoned(self) -> str | None:
        """Why farm gave up on the device (a call that went on after kill()), or None."""
        own = self._own.gone if self._own is not None else None
        return own or getattr(self.device, "abandoned", None)

    def close(self) -> None:
        """The device's close(); one that raised or hung (a plugin's, killed after its close
        timeout) is said at the run's end, once: it fails no case (only farm.log said it)."""
        said, plugin = None, isinstance(self.device, PluginDevice)
        usable = self.usable    # (a device lost before: said then)
        try:
            self._on_device(self.device.close)
        except Exception as exc:
            log.debug("close %s: %s", self.name, exc)
            if plugin and usable and not self.services.cancel.is_set():   # (a stop's kill)
                said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        said = (self.device.close_overdue if plugin else None) or said
        if said:
            said = self.services.mask(said) if self.services.mask else said
            self.services.artifacts.device_warning(
                self.name, "close", f"{said} (closing the device at the end of its cases)")
        if self._own is not None:
            self._own.stop()
        if self.usable:
            self._set("done")

    def _grace(self) -> float:
        """How long past its timeout a case may run before its device is killed, and a call
        may go on after that kill before it is given up (FARM_WATCHDOG_GRACE_SECONDS)."""
        if self.grace is not None:
            return self.grace
        return float(getattr(self.services.settings, "watchdog_grace_seconds", WATCHDOG_GRACE_S))

    def _on_device(self, fn: Callable[..., T], *args: Any, opening: bool = False) -> T:
        """``fn(*args)``, the device's work, on the device's own thread (farm's own kinds);
        raises DeviceLost when given up: in a device call the grace after kill(), named (farm's
        own waits, as a model request's, end by themselves). ``opening``: the device starts
        again (its time is its own, not the grace alone)."""
        own = self._own
        if own is None:
            return fn(*args)
        if opening:
            own.opened()
        own.grace = self._grace()
        call = own.run(lambda: f"{self.name}: {stuck}()" if (
            stuck := own.stuck_in(self.device, DEVICE_CODE)) else None, fn, *args)
        if call.error is not None:
            raise call.error
        return call.value

    # ---- one attempt ---------------------------------------------------------------------------
    def run(self, job: Job, case: Case, services: Services | None = None) -> CaseResult:
        """Run one attempt of ``case``; never raises for the case's or the device's problems.

        A device that does not answer is restarted once; if that fails, the attempt is an
        infrastructure error (retried elsewhere) and the slot is dead. ``services`` replaces
        the slot's for this attempt (a worker gets a run's services with each task).
        """
        if services is not None:
            self.services = services
        if self._owner is not None and threading.get_ident() != self._owner:
            log.warning("device %s driven from a thread that does not own it", self.name)
        checked, self._checked = self._checked == (job.case_id, job.attempt), None
        self._set("busy", job.case_id)
        self.events.case_started(self.name, case.id, case.name, job.attempt)
        if checked or self._healthy_now():
            with self._watchdog(case):
                result = self._attempt(job, case)
        else:
            result = synthetic(case, self.services.run_id, job.attempt, "error", self.name,
                               error=DeviceLost(f"device {self.name} unusable: {self.detail}"))
        about = self.about
        for told in (result, *result.parts):     # a shared-context unit's files too
            if told.device == self.name:
                told.device_info = about
        # a case a worker skipped before its session (its first step needs a model, it has
        # none) proved nothing of the device: it ended the streak of one whose every session
        # failed, which then never reached quarantine
        if metrics.ran_on_device(result):
            self.quarantine_due = quarantine_due(self.streak.bump(outcome(result)))
        if gone := self.abandoned:          # a call that outlived kill()
            self.retire("dead", gone)
        if self.state == "busy":
            self._set("idle")
        return result

    def _attempt(self, job: Job, case: Case) -> CaseResult:
        """The attempt, on the device's own thread; one given up after kill() ends with what
        it did so far: a timeout naming the device's call (interrupted after a stop)."""
        try:
            return self._on_device(self._run_case, job, case)
        except DeviceLost as exc:
            if self._own is None or self._own.gone is None:
                raise
            return self._given_up(job, case, exc)

    def _given_up(self, job: Job, case: Case, exc: DeviceLost) -> CaseResult:
        """The result of an attempt whose device call never returned after kill(): its steps
        so far (the one it was in ends with the timeout), as run_case ends a plugin's."""
        stopped = self.services.cancel.is_set()
        error = None if stopped else CaseTimeout(
            f"case timed out after {case.timeout:g}s (device stopped answering: {exc})")
        running = self.services.in_flight.get(self.name)
        if running is None or running.case.id != case.id:
            return synthetic(case, self.services.run_id, job.attempt,
                             "interrupted" if stopped else "error", self.name,
                             reason=INTERRUPTED if stopped else None, error=error)
        result = so_far(running)
        if error is not None:
            said = running.mask(str(error))
            step = next((r for r in result.steps if r.status == "interrupted"), None)
            if step is not None:
                step.status, step.error = "error", said
            result.status, result.reason = "error", None
            result.error = CaseError(kind=error_kind(error), message=said,
                                     step=step.index if step else None)
        return result

    def _run_case(self, job: Job, case: Case) -> CaseResult:
        try:
            return run_case(job, case, self.device, self.services)
        except Exception as exc:    # run_case catches a case's problems; this is farm's own
            log.exception("run_case failed on %s for %s", self.name, case.id)
            return synthetic(case, self.services.run_id, job.attempt, "error", self.name,
                             error=InternalError(f"internal error: {exc}"))

    def quarantine(self) -> None:
        self.retire("quarantined", QUARANTINE_REASON)

    def ready(self, job: Job) -> bool:
        """Before ``job``'s attempt is started here: is the device healthy, restarted once if
        not? False: it could not be restarted, and is dead. `run` of that attempt does not
        check again (of another one, as after a worker dropped this one: it does).
        (A local run asks before it starts an attempt, so a device that broke between cases
        gives the case back to the queue: before, the case started on it, ended "device …
        unusable" at once, and its retry on another device was spent on a device that never
        ran it.)"""
        healthy = self._healthy_now()
        self._checked = (job.case_id, job.attempt) if healthy else None
        if healthy and self.state != "idle":      # (restarted)
            self._set("idle")
        return healthy

    def _healthy_now(self) -> bool:
        """`_ensure_healthy` on the device's own thread: False too when given up there."""
        try:
            return self._on_device(self._ensure_healthy, opening=True)
        except DeviceLost as exc:
            self.retire("dead", str(exc))
            return False

    def _ensure_healthy(self) -> bool:
        why = "its health check said no"
        try:
            if self.device.healthy():
                return True
        except Exception as exc:
            log.info("health check of %s failed: %s", self.name, exc)
            why = f"its health check failed: {first_line(exc)}"
        self._set("restarting", why)
        try:
            self.device.close()
        except Exception:
            pass
        try:
            self.device.open()
        except Exception as exc:
            if self.services.cancel.is_set():   # killed by the stop as it restarted: not lost
                log.info("device %s stopped while it restarted: %s", self.name, exc)
                self._set("done")
                return False
            self.retire("dead", f"could not restart: {exc}")
            return False
        self._set("busy")
        return True

    @contextmanager
    def _watchdog(self, case: Case) -> Iterator[None]:
        """Kill the device if the case overstays its timeout (a hung driver call cannot see
        the deadline); run_case then reports the case as timed out. A device that run_case
        told the case's end (``deadline``: its own waits stop there, saying what they waited
        for, and it is not killed) has no end after it."""
        done = threading.Event()
        grace = self._grace()

        def watch() -> None:
            if not done.wait(case.timeout + grace):
                log.warning("case %s overstayed its timeout on %s: killing the device",
                            case.id, self.name)
                self.kill()

        threading.Thread(target=watch, name=f"watchdog-{self.name}", daemon=True).start()
        try:
            yield
        finally:
            done.set()
            if hasattr(self.device, "deadline"):
                self.device.deadline = None
