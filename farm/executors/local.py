"""LocalExecutor: the embedded default. One thread per device slot, all pulling from one
longest-first queue; a watchdog in the calling thread kills devices that overstay a case's
timeout; Ctrl-C marks in-flight cases interrupted."""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from farm.devices.base import Device
from farm.executors.base import NullEvents, RunEvents
from farm.results import CaseError, CaseResult, final_result, now_iso
from farm.runner import Services, run_case
from farm.schedule import Job, RetryPolicy, next_attempt, order_jobs, pick_job
from farm.suite.loader import display_path
from farm.suite.model import Case

log = logging.getLogger("farm.executor")

QUARANTINE_AFTER = 3       # consecutive infra errors before a device takes no more work
WATCHDOG_GRACE_S = 10.0    # past a case's timeout before the device is killed


def outcome(result: CaseResult) -> str:
    """What the retry policy needs to know about an attempt."""
    if result.status == "error" and result.error and result.error.kind not in (
            "CaseTimeout", "InternalError"):
        return "infra"
    return result.status


class LocalExecutor:
    def __init__(self, devices: list[Device], cases: dict[str, Case], services: Services,
                 policy: RetryPolicy, events: RunEvents | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.devices = devices
        self.cases = cases
        self.services = services
        self.policy = policy
        self.events = events or NullEvents()
        self.clock = clock
        self._cond = threading.Condition()
        self._queue: list[Job] = []
        self._inflight: dict[str, tuple[Job, float, bool]] = {}   # device → (job, start, killed)
        self._attempts: dict[str, list[CaseResult]] = {}
        self._final: dict[str, CaseResult] = {}
        self._live: dict[str, Device] = {}
        self._infra_streak: dict[str, int] = {}
        self._stopping = False
        self.quarantined: list[str] = []
        self.launch_seconds: dict[str, float] = {}    # device → time its open() took
        self.first_start: float | None = None
        self.last_end: float | None = None

    # ---- public -------------------------------------------------------------------------
    def run(self, jobs: list[Job]) -> list[CaseResult]:
        self._queue = order_jobs(jobs)
        self._expected = {j.case_id for j in jobs}
        self._live = {d.name: d for d in self.devices}
        previous = self.services.on_step
        self.services.on_step = self.events.step_finished
        threads = [threading.Thread(target=self._device_loop, args=(d,), name=d.name,
                                    daemon=True) for d in self.devices]
        for t in threads:
            t.start()
        try:
            while True:
                with self._cond:
                    if len(self._final) == len(self._expected) or self._stopping:
                        break
                    self._fail_orphans()
                    self._watchdog()
                    if not any(t.is_alive() for t in threads) and not self._queue:
                        break
                    self._cond.wait(0.25)
        except KeyboardInterrupt:
            self.interrupt()
        finally:
            self.services.on_step = previous
        if not self._stopping:
            for t in threads:
                t.join(timeout=30)
        return [self._final[c] for c in sorted(self._final)]

    def interrupt(self) -> None:
        with self._cond:
            self._stopping = True
            self.services.cancel.set()
            for name, (job, _, _) in list(self._inflight.items()):
                self._final[job.case_id] = self._synthetic(job, "interrupted", name,
                                                           reason="interrupted by user")
            for job in self._queue:
                self._final.setdefault(job.case_id, self._synthetic(
                    job, "skipped", None, reason="not run: the run was interrupted"))
            self._queue.clear()
            self._cond.notify_all()
        for device in self.devices:
            try:
                device.kill()
            except Exception:
                pass

    # ---- device threads -------------------------------------------------------------------
    def _device_loop(self, device: Device) -> None:
        name = device.name
        self.events.device_state(name, "starting")
        t0 = self.clock()
        try:
            device.open()
        except Exception as exc:
            self._retire(device, "dead", f"could not start: {exc}")
            return
        self.launch_seconds[name] = self.clock() - t0
        self.events.device_state(name, "idle")
        try:
            while True:
                job = self._take(device)
                if job is None:
                    break
                if not self._ensure_healthy(device, job):
                    break
                case = self.cases[job.case_id]
                self.events.case_started(name, case.id, case.name, job.attempt)
                result = run_case(job, case, device, self.services)
                if not self._record(device, job, result):
                    break
                self.events.device_state(name, "idle")
        finally:
            try:
                device.close()
            except Exception:
                pass
            self.events.device_state(name, "done")

    def _take(self, device: Device) -> Job | None:
        with self._cond:
            while not self._stopping:
                if device.name in self.quarantined:
                    return None
                others = sum(1 for n, d in self._live.items()
                             if n != device.name and d.platform == device.platform)
                i = pick_job(self._queue, device.name, device.platform, others)
                if i is not None:
                    job = self._queue.pop(i)
                    self._inflight[device.name] = (job, self.clock(), False)
                    if self.first_start is None:
                        self.first_start = self.clock()
                    self.events.device_state(device.name, "busy", job.case_id)
                    return job
                if len(self._final) == len(self._expected):
                    return None
                self._cond.wait(0.25)
            return None

    def _ensure_healthy(self, device: Device, job: Job) -> bool:
        """Check the device before every case; restart it once if it is not answering."""
        try:
            if device.healthy():
                return True
        except Exception:
            pass
        self.events.device_state(device.name, "restarting")
        try:
            device.close()
        except Exception:
            pass
        try:
            device.open()
            return True
        except Exception as exc:
            with self._cond:
                self._inflight.pop(device.name, None)
                self._queue = order_jobs(self._queue + [job])   # not its fault: no attempt used
            self._retire(device, "dead", f"could not restart: {exc}")
            return False

    def _record(self, device: Device, job: Job, result: CaseResult) -> bool:
        """Store an attempt, queue a retry if due. False when the device must stop."""
        with self._cond:
            self._inflight.pop(device.name, None)
            self.last_end = self.clock()
            if self._stopping:
                return False
            kind = outcome(result)
            self._infra_streak[device.name] = (
                self._infra_streak.get(device.name, 0) + 1 if kind == "infra" else 0)
            retry = next_attempt(job, kind, device.name, self.policy)
            self._attempts.setdefault(job.case_id, []).append(result)
            self.events.case_finished(device.name, result, final=retry is None)
            if retry is not None:
                self._queue = order_jobs(self._queue + [retry])
            else:
                self._final[job.case_id] = self._finalise(job.case_id)
            self._cond.notify_all()
            quarantine = self._infra_streak[device.name] >= QUARANTINE_AFTER
        if quarantine:
            self._retire(device, "quarantined",
                         f"{QUARANTINE_AFTER} infrastructure errors in a row")
            return False
        return True

    def _finalise(self, case_id: str) -> CaseResult:
        return final_result(self._attempts[case_id])

    def _retire(self, device: Device, state: str, detail: str) -> None:
        with self._cond:
            self._live.pop(device.name, None)
            if state == "quarantined":
                self.quarantined.append(device.name)
            self._cond.notify_all()
        log.warning("device %s %s: %s", device.name, state, detail)
        self.events.device_state(device.name, state, detail)

    # ---- main-thread duties (called with the lock held) ------------------------------------
    def _fail_orphans(self) -> None:
        """Jobs whose platform has no live device left can never run: end them as errors."""
        live_platforms = {d.platform for d in self._live.values()}
        stuck = [j for j in self._queue if j.platform not in live_platforms]
        for job in stuck:
            self._queue.remove(job)
            self._attempts.setdefault(job.case_id, []).append(self._synthetic(
                job, "error", None, error=CaseError(
                    kind="DeviceLost", message=f"no usable {job.platform} device left")))
            self._final[job.case_id] = self._finalise(job.case_id)

    def _watchdog(self) -> None:
        now = self.clock()
        for name, (job, start, killed) in list(self._inflight.items()):
            limit = self.cases[job.case_id].timeout + WATCHDOG_GRACE_S
            if not killed and now - start > limit:
                log.warning("case %s overstayed its timeout on %s: killing the device",
                            job.case_id, name)
                self._inflight[name] = (job, start, True)
                device = next((d for d in self.devices if d.name == name), None)
                if device is not None:
                    threading.Thread(target=device.kill, daemon=True).start()

    def _synthetic(self, job: Job, status: str, device: str | None, reason: str | None = None,
                   error: CaseError | None = None) -> CaseResult:
        case = self.cases[job.case_id]
        return CaseResult(run_id=self.services.run_id, case_id=case.id, name=case.name,
                          file=display_path(case.file), platform=case.platform, device=device,
                          attempt=job.attempt, status=status, reason=reason, error=error,
                          started=now_iso(), tags=case.tags)
