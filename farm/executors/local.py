"""LocalExecutor: the embedded default. One thread per device, each driving a `DeviceSlot`,
all pulling from one longest-first queue; Ctrl-C marks in-flight cases interrupted.

Ctrl-C (SIGTERM) sets the run's cancel: a case in flight ends on it (a sleep, a model wait, the
next step) as its device finishes the screenshots it took; a device whose case has not ended
within KILL_AFTER_S (a call the cancel does not reach) is killed, which ends that call."""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable, Collection

from farm import metrics
from farm.attempts import RetryPolicy, synthetic
from farm.devices.base import Device, unsettled
from farm.errors import ConfigError, DeviceLost, FarmError, InternalError
from farm.executors.base import DEVICE_THREAD, Ledger, NullEvents, RunEvents, RunOutcome
from farm.results import CaseResult
from farm.run_console import clipped
from farm.runner import INTERRUPTED, Services
from farm.schedule import Job, enqueue, order_jobs, pick_job
from farm.slot import DeviceSlot, so_far
from farm.suite.model import Case


log = logging.getLogger("farm.executor")

KILL_AFTER_S = 1.0            # after Ctrl-C, a case still running this long: kill its device
COMING_BACK_S = 1.0           # a case ended at the interrupt: its result this long on its way


def unsettled_devices() -> list[str]:
    """Devices whose thread is still alive and may be in a device call (left mid-call after a
    second Ctrl-C, or given up after kill(): `farm.slot`); a device's own thread idle between
    calls is not one (`farm.devices.base.unsettled`): a run that has it ends through Python's
    exit, its exit handlers run."""
    return [t.name[len(DEVICE_THREAD):] for t in threading.enumerate()
            if t.name.startswith(DEVICE_THREAD) and t.is_alive() and unsettled(t)]


class LocalExecutor:
    def __init__(self, devices: list[Device], cases: dict[str, Case], services: Services,
                 policy: RetryPolicy, clock: Callable[[], float] = time.monotonic) -> None:
        self.devices = devices
        self.cases = cases
        self.services = services
        self.policy = policy
        self.clock = clock
        self._cond = threading.Condition()
        self._queue: list[Job] = []
        self._platforms: list[str] = []            # the run's queues (farm_queue_depth)
        self._inflight: dict[str, Job] = {}        # device → job
        self._slots: dict[str, DeviceSlot] = {}
        self._stopping = False
        self._hurry = threading.Event()
        self._stopped: set[str] = set()     # devices the interrupt killed while they started
        self.ledger = Ledger(cases, services.run_id, policy, NullEvents())
        self.outcome = RunOutcome(results=[])

    # ---- public -------------------------------------------------------------------------
    def run(self, jobs: list[Job], events: RunEvents | None = None) -> RunOutcome:
        events = events or NullEvents()
        self.ledger.events = events
        self.ledger.expected = {j.case_id for j in jobs}
        self._queue = order_jobs(jobs)
        self._platforms = sorted({j.platform for j in jobs})
        self._slots = {d.name: DeviceSlot(d, self.services, events) for d in self.devices}
        events.run_started(list(self._slots), len(jobs))
        previous = self.services.on_step, self.services.on_file
        self.services.on_step = events.step_finished
        self.services.on_file = getattr(events, "file_started", None)
        threads = [threading.Thread(target=self._device_loop, args=(slot,),
                                    name=DEVICE_THREAD + name, daemon=True)
                   for name, slot in self._slots.items()]
        for t in threads:
            t.start()
        try:
            self._wait(threads)
        except KeyboardInterrupt:
            self.interrupt()
        finally:
            self.services.on_step, self.services.on_file = previous
        self._join(threads)
        with self._cond:
            self._unreturned()
        out = self.outcome
        out.results = self.ledger.results()
        out.launch_seconds = {n: s.launch_seconds for n, s in self._slots.items()
                              if s.launch_seconds is not None}
        out.interrupted = self._stopping
        # (a device the interrupt killed while it started was stopped, not lost)
        out.lost = {n: s.detail for n, s in self._slots.items()
                    if s.state == "dead" and n not in self._stopped}
        return out

    def interrupt(self) -> None:
        """Stop the run (any thread; returns within KILL_AFTER_S): queued cases end not run,
        cases in flight when their device comes back (`_record`), their devices killed if
        they have not come back by then (or at once after `hurry`)."""
        with self._cond:
            self._stopping = True
            self.services.cancel.set()
            unrun = [job for job in self._queue if job.case_id not in self.ledger.final]
            for job in unrun:
                self.ledger.end(job, "skipped", reason="not run: the run was interrupted")
            if unrun:
                log.warning("interrupted: %d queued case(s) not run: %s", len(unrun),
                            clipped(", ".join(job.case_id for job in unrun), 400))
            self._queue.clear()
            self._cond.notify_all()
            limit = time.monotonic() + KILL_AFTER_S
            while self._inflight and not self._hurry.is_set() and time.monotonic() < limit:
                self._cond.wait(min(0.1, max(limit - time.monotonic(), 0)))
            stuck = [slot for name, slot in self._slots.items()
                     if name in self._inflight or slot.state == "starting"]
            self._stopped.update(slot.name for slot in stuck if slot.state == "starting")
        for slot in stuck:
            log.warning("device %s: %s: killing it", slot.name,
                        "still starting at the interrupt" if slot.name in self._stopped
                        else "its case did not stop on the interrupt")
            slot.kill()

    def hurry(self) -> None:
        self._hurry.set()

    def stop_taking(self, reason: str, only: Collection[str] | None = None) -> None:
        """Start no more queued cases (--maxfail), or none of those ``only`` names (a batch's
        files after one failed); cases in flight finish normally (their retries are not
        started either)."""
        with self._cond:
            self.ledger.stop(reason, only, self._queue)
            self._cond.notify_all()

    def queued(self) -> dict[str, int]:
        depth = dict.fromkeys(self._platforms, 0)
        for job in list(self._queue):
            depth[job.platform] = depth.get(job.platform, 0) + 1
        return depth

    # ---- the main thread ----------------------------------------------------------------------
    def _join(self, threads: list[threading.Thread], patience: float = 30.0) -> None:
        """Let device threads close their devices (after an interrupt the devices are already
        killed, so this is quick): a browser torn down by its own thread cannot crash the
        interpreter's exit later."""
        deadline = time.monotonic() + patience
        for t in threads:
            while t.is_alive() and not self._hurry.is_set() and time.monotonic() < deadline:
                t.join(timeout=0.2)

    def _unreturned(self) -> None:
        """The cases of devices that did not come back from the interrupt in time end with
        what they did so far. Called holding ``_cond``."""
        until = time.monotonic() + COMING_BACK_S
        for name, job in list(self._inflight.items()):
            running = self.services.in_flight.get(name)   # (read once: it may end now)
            if running is not None and running.job is job:
                self.ledger.keep(job, self._so_far(name, job, running), name)
            elif not self._came_back(name, job, until):
                self.ledger.keep(job, self._so_far(name, job, None), name)

    def _came_back(self, device: str, job: Job, until: float) -> bool:
        """``device``'s attempt of ``job`` is no longer in its case (killed by the interrupt,
        it came back just now): has its thread handed in its result (by ``until``, monotonic)?
        That result has the attempt's steps and model spend; a second Ctrl-C that came as the
        killed device came back left a blank one instead (no step, no spend, 0 s). Called
        holding ``_cond`` (which the wait lets go of)."""
        return self._cond.wait_for(lambda: self._inflight.get(device) is not job,
                                   max(until - time.monotonic(), 0.0))

    def _so_far(self, device: str, job: Job, running: Any) -> CaseResult:
        """The result of a case whose device did not come back from the interrupt (a second
        Ctrl-C, or a call not even killing the device ended): what the attempt did until now
        (`so_far` of farm.runner's case run ``running``), as it would have said had it come
        back, the model calls it made included (they were paid for)."""
        log.warning("device %s did not come back from %s: reporting what it did so far",
                    device, job.case_id)
        if running is not None and running.case.id == job.case_id:
            result = so_far(running)
        else:       # (not begun yet, or a shared-context unit: the file in flight is a part)
            result = synthetic(self.cases[job.case_id], self.services.run_id, job.attempt,
                               "interrupted", device, reason=INTERRUPTED)
        result.device_info = self._slots[device].about
        return result

    def _wait(self, threads: list[threading.Thread]) -> None:
        while True:
            with self._cond:
                if self.ledger.done or self._stopping:
                    return
                self._fail_orphans()
                if not any(t.is_alive() for t in threads) and not self._queue:
                    return
                self._cond.wait(0.25)

    def _fail_orphans(self) -> None:
        """Jobs whose platform has no usable device left can never run: end them as errors."""
        live = {s.platform for s in self._slots.values() if s.usable}
        names = {n for s in self._slots.values() if s.usable
                 for n in (s.name, *getattr(s.device, "aliases", ()))}
        for job in [j for j in self._queue if j.platform not in live]:
            if job not in self._queue:      # ended meanwhile: the error before reached
                continue                    # --maxfail, which ended every queued job
            self._queue.remove(job)
            why = _one_cause([s for s in self._slots.values()
                              if s.platform == job.platform and s.detail and not s.usable])
            self._end_unrunnable(job, DeviceLost(
                f"no usable {job.platform} device left" + (f" ({why})" if why else "")))
        for job in [j for j in self._queue if j.pin is not None and j.pin not in names]:
            if job not in self._queue:
                continue
            self._queue.remove(job)
            self._end_unrunnable(job, self._unpinned(job))

    def _end_unrunnable(self, job: Job, error: FarmError) -> None:
        """End a queued job no device can run. A retry keeps the verdict of the attempt it
        was for, saying why it was not retried (the case lost its device mid-case: that is
        what happened to it, where its line said only "no usable android device left");
        a case never started is an error naming why."""
        if job.attempt > 1:     # (a first attempt is given back untried: `_give_back`)
            self.ledger.end(job, "skipped", reason=f"not run: {error}")
        else:
            self.ledger.end(job, "error", error=error)

    def _unpinned(self, job: Job) -> FarmError:
        """Why ``job``'s pinned device cannot run it: lost during the run, or never one of the
        run's devices (a configuration mistake: say which devices the run took)."""
        taken = {s.name: {s.name, *getattr(s.device, "aliases", ())}
                 for s in self._slots.values() if s.platform == job.platform}
        pinned = f"the case is pinned to {job.pin} (Midscene deviceId / wdaHost:wdaPort)"
        if any(job.pin in known for known in taken.values()):
            return DeviceLost(f"{pinned}, which is not a usable device of this run any more")
        gone = self._no_such_phone(job) if job.platform == "android" else None
        if gone is not None:
            return gone
        how = ("ANDROID_SERIAL" if job.platform == "android" else "FARM_IOS_WDA_URLS"
               if job.platform == "ios" else "--devices")
        return ConfigError(f"{pinned}, which this run did not take: its {job.platform} "
                           f"devices are {', '.join(sorted(taken)) or 'none'}; give --devices "
                           f"{job.platform}:N for more, or choose them with {how}")

    def _no_such_phone(self, job: Job) -> DeviceLost | None:
        """A pinned serial the adb server does not list (now: a phone unplugged during the
        run), said as the run's start says it ("file:line: deviceId X: no such device: the
        adb server at ... lists ..."), not as one the run did not take; else None."""
        from farm.devices.specs import check_pins
        from farm.suite.loader import display_path
        case = self.cases.get(job.case_id)
        where = display_path(case.file) if case is not None else job.case_id
        try:
            missing = check_pins({where: (job.platform, job.pin)}, self.devices,
                                 missing_ok=True)
        except ConfigError:      # there, but not the run's: the advice below
            return None
        return DeviceLost(str(missing[where])) if where in missing else None

    # ---- device threads -------------------------------------------------------------------
    def _device_loop(self, slot: DeviceSlot) -> None:
        if not slot.open():
            self._wake()
            return
        try:
            while (job := self._take(slot)) is not None:
                if not slot.ready(job):     # broken since its last case: not restarted
                    self._give_back(slot, job)
                    break
                result = self._attempt(slot, job)
                if not self._record(slot, job, result) or not slot.usable:
                    break
                if slot.quarantine_due:
                    slot.quarantine()
                    self.outcome.quarantined.append(slot.name)
                    break
        finally:
            slot.close()
            self._wake()

    def _attempt(self, slot: DeviceSlot, job: Job) -> CaseResult:
        """One attempt; whatever goes wrong, the case ends with a result."""
        case = self.cases[job.case_id]
        try:
            return slot.run(job, case)
        except Exception as exc:
            log.exception("attempt of %s on %s failed outside the case", case.id, slot.name)
            return synthetic(case, self.services.run_id, job.attempt, "error", slot.name,
                             error=InternalError(f"internal error: {exc}"))

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()

    def _take(self, slot: DeviceSlot) -> Job | None:
        with self._cond:
            while not self._stopping:
                others = sum(1 for s in self._slots.values()
                             if s is not slot and s.usable and s.platform == slot.platform)
                i = pick_job(self._queue, slot.name, slot.platform, others,
                             getattr(slot.device, "aliases", ()), self._inflight.values())
                if i is not None:
                    job = self._queue.pop(i)
                    self._inflight[slot.name] = job
                    if self.outcome.first_start is None:
                        self.outcome.first_start = self.clock()
                    return job
                if self.ledger.done:
                    return None
                self._cond.wait(0.25)
            return None

    def _give_back(self, slot: DeviceSlot, job: Job) -> None:
        """``job`` was taken by a device that then could not be made ready: it goes back to
        the queue as it was (no attempt of it started; another device takes it, or it ends
        with the rest when none is left). After an interrupt, or once the run takes no more
        cases (--maxfail), it is not run, as any queued."""
        with self._cond:
            self._inflight.pop(slot.name, None)
            if self._stopping:
                self.ledger.end(job, "skipped", reason="not run: the run was interrupted")
            elif (why := self.ledger.stopped(job.case_id)) is not None:
                self.ledger.end(job, "skipped", reason=why)
            else:
                self._queue = enqueue(self._queue, job)
            self._cond.notify_all()

    def _record(self, slot: DeviceSlot, job: Job, result: CaseResult) -> bool:
        """Store an attempt, queue a retry if due. False when the run is stopping."""
        with self._cond:
            self._inflight.pop(slot.name, None)
            self.outcome.last_end = self.clock()
            if self._stopping:
                self.ledger.keep(job, result, slot.name)
                self._cond.notify_all()        # (`interrupt` waits for cases in flight)
                return False
            retry = self.ledger.record(job, result, slot.name)
            why = self.ledger.stopped(job.case_id)
            metrics.attempt_ended(job.platform, result, retry is not None and why is None)
            if retry is not None and why is not None:
                self.ledger.end(retry, "skipped", reason=why)
            elif retry is not None:
                self._queue = enqueue(self._queue, retry)
            self._cond.notify_all()
            return True


def _one_cause(dead: list) -> str:
    """Why the ``dead`` slots of a platform are out, for each case left unrun: each slot's
    detail joined, or, when they all died of one cause (the adb server stopped: "could not
    restart: emulator-5554 lost (connect): the adb server at … refuses connections"), that
    cause once, without the devices' names (the run's "lost:" line names them): it was said
    once a device, ~450 characters a case, cut mid-way."""
    said = [s.detail if s.name in s.detail else f"{s.name} is {s.state}: {s.detail}"
            for s in dead]
    if len(said) > 1:
        common = os.path.commonprefix([text[::-1] for text in said])[::-1]
        cause = common.partition(": ")[2].strip()
        if len(cause) > 20 and all(s.name not in cause for s in dead):
            return cause
    return "; ".join(said)
