"""CeleryExecutor: `farm run` against a cluster of `farm worker` processes.

Pull scheduling, client side: the run keeps its own longest-first queue per device pool and
hands a job to the broker only when a device of that pool is free (and within the run's fair
share when other runs compete), so the broker queue stays about empty, the order is kept, and
estimates that turn out wrong cost nothing — a free device simply gets the next-longest job.
Workers push events (started / step / finished, keyed run/case/attempt) to a Redis list the
client pops, which feeds the same RunEvents as a local run. The client decides retries and
numbers attempts; a worker whose lease expires mid-case loses its attempt (infra error, re-run
elsewhere), and a late result for an attempt no longer awaited is ignored.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Callable

from farm.cluster import store
from farm.cluster.fair import to_dispatch
from farm.cluster.store import key
from farm.executors.base import NullEvents, RunEvents
from farm.executors.local import outcome
from farm.results import CaseError, CaseResult, StepRecord, final_result, now_iso
from farm.runner import Services
from farm.schedule import DeviceSpec, Job, RetryPolicy, expected_duration, next_attempt, order_jobs
from farm.suite.loader import display_path
from farm.suite.model import Case

log = logging.getLogger("farm.cluster")

STARTUP_GRACE_S = 20.0      # an unstarted job while a device of its pool sat idle is lost
_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)")


@dataclass
class _Inflight:
    job: Job
    sent: float
    device: str | None = None       # who started it
    seen: float = 0.0               # last time a lease or event confirmed it running


class CeleryExecutor:
    def __init__(self, settings: Any, cases: dict[str, Case], services: Services,
                 policy: RetryPolicy, specs: list[DeviceSpec], events: RunEvents | None = None,
                 matrix: bool = False, clock: Callable[[], float] = time.monotonic) -> None:
        from worker.app import make_app
        self.url = settings.broker_url.get_secret_value()
        self.settings = settings
        self.r = store.connect(self.url)
        self.app = make_app(self.url)
        self.cases = cases
        self.services = services
        self.policy = replace(policy, infra_retries=settings.cluster_infra_retries)
        self.limit = {s.platform: 0 for s in specs}
        for s in specs:
            self.limit[s.platform] += s.count
        self.events = events or NullEvents()
        self.matrix = matrix
        self.clock = clock
        self.run_id = services.run_id
        self._case_of: dict[str, tuple[str, str]] = {}    # job case id → (case id, pool)
        self._queue: dict[str, list[Job]] = {}
        self._inflight: dict[str, _Inflight] = {}
        self._attempts: dict[str, list[CaseResult]] = {}
        self._final: dict[str, CaseResult] = {}
        self._quarantined: set[str] = set()
        self._pool_seen: dict[str, float] = {}
        self._stopping = False
        self._outage: float | None = None
        self._epoch: str | None = None
        self.first_start: float | None = None
        self.last_end: float | None = None
        self.launch_seconds: dict[str, float] = {}

    # ---- before the run --------------------------------------------------------------------
    def device_names(self) -> list[str]:
        """Live, usable cluster devices of the run's platforms (progress rows)."""
        live = store.leases(self.r)
        bad = store.quarantined(self.r)
        return sorted(n for n, l in live.items() if l.get("platform") in self.limit and n not in bad)

    def prepare(self, jobs: list[Job]) -> list[Job]:
        """Re-estimate durations from the cluster's history; in matrix mode, one job per case
        and device group."""
        hist = store.load_history(self.r, {f"{j.platform}:{j.case_id}" for j in jobs})
        known = [expected_duration(hist, k.split(":", 1)[1], k.split(":", 1)[0], 0) for k in hist]
        default = sum(known) / len(known) if known else self.settings.default_case_seconds
        jobs = [replace(j, expected_seconds=expected_duration(hist, j.case_id, j.platform,
                                                              default)) for j in jobs]
        if not self.matrix:
            for j in jobs:
                self._case_of[j.case_id] = (j.case_id, j.platform)
            return jobs
        groups: dict[str, set[str]] = {}
        for lease in store.leases(self.r).values():
            groups.setdefault(lease["platform"], set()).add(lease["group"])
        out = []
        for j in jobs:
            for g in sorted(groups.get(j.platform, {j.platform})):
                cid = f"{j.case_id}@{g}"
                self._case_of[cid] = (j.case_id, f"{j.platform}.{g}")
                out.append(replace(j, case_id=cid))
        return out

    # ---- the run ---------------------------------------------------------------------------
    def run(self, jobs: list[Job]) -> list[CaseResult]:
        if not self._case_of:
            jobs = self.prepare(jobs)
        for j in order_jobs(jobs):
            self._queue.setdefault(self._case_of[j.case_id][1], []).append(j)
        self._expected = {j.case_id for j in jobs}
        import redis
        try:
            while len(self._final) < len(self._expected) and not self._stopping:
                try:
                    self._tick()
                    if self._outage is not None:
                        log.warning("broker reachable again after %.0fs",
                                    self.clock() - self._outage)
                    self._outage = None
                except (redis.ConnectionError, redis.TimeoutError, OSError) as exc:
                    self._broker_down(exc)
        except KeyboardInterrupt:
            self.interrupt()
        finally:
            self._leave()
        return [self._final[c] for c in sorted(self._final)]

    def interrupt(self) -> None:
        self._stopping = True
        self.services.cancel.set()
        for cid, inf in list(self._inflight.items()):
            self._final[cid] = self._synthetic(inf.job, "interrupted", inf.device,
                                               reason="interrupted by user")
        for q in self._queue.values():
            for job in q:
                self._final.setdefault(job.case_id, self._synthetic(
                    job, "skipped", None, reason="not run: the run was interrupted"))
            q.clear()
        self._inflight.clear()

    def _leave(self) -> None:
        """Forget the run in Redis (workers then drop its queued messages) and keep history."""
        try:
            samples = {f"{r.platform}:{self._case_of.get(r.case_id, (r.case_id,))[0]}": r.duration
                       for r in self._final.values()
                       if r.status in ("passed", "failed", "flaky") and r.duration > 0}
            if not self.matrix:
                store.record_history(self.r, samples)
            self.r.delete(key("run", self.run_id), key("events", self.run_id))
            self.r.zrem(key("runs"), self.run_id)
        except Exception as exc:
            log.warning("could not tidy up run state in Redis: %s", exc)

    def _tick(self) -> None:
        now = self.clock()
        epoch = store.epoch(self.r)
        if self._epoch and epoch != self._epoch:
            log.warning("Redis lost its data (restart?): checking every job in flight")
        self._epoch = epoch
        leases = store.leases(self.r)
        bad = store.quarantined(self.r)
        for name in set(bad) - self._quarantined:
            self._quarantined.add(name)
            self.events.device_state(name, "quarantined", bad[name])
        pools = self._pools(leases, bad)
        self._announce(pools)
        self._check_inflight(leases, pools, now)
        self._fail_orphans(pools, now)
        self._top_up(pools, leases)
        self._drain_events(wait=0.25)

    def _pools(self, leases: dict, bad: dict) -> dict[str, list[dict]]:
        """Usable devices per pool (platform, and platform.group for matrix)."""
        pools: dict[str, list[dict]] = {}
        for name, lease in leases.items():
            if name in bad or lease.get("draining") or lease.get("state") == "starting":
                continue
            pools.setdefault(lease["platform"], []).append(lease)
            pools.setdefault(f"{lease['platform']}.{lease['group']}", []).append(lease)
        return pools

    def _announce(self, pools: dict) -> None:
        """Publish this run's demand per pool so concurrent runs can share fairly."""
        fields = {}
        for pool, q in self._queue.items():
            inflight = self._inflight_in(pool)
            fields[f"demand:{pool}"] = min(len(q) + inflight, self._cap(pool))
            fields[f"inflight:{pool}"] = inflight
        pipe = self.r.pipeline()
        pipe.hset(key("run", self.run_id), mapping=fields or {"alive": 1})
        pipe.expire(key("run", self.run_id), store.RUN_TTL_S)
        pipe.zadd(key("runs"), {self.run_id: time.time()})
        pipe.execute()

    def _cap(self, pool: str) -> int:
        return self.limit.get(pool.split(".", 1)[0], 0)

    def _inflight_in(self, pool: str) -> int:
        return sum(1 for c in self._inflight if self._case_of[c][1] == pool)

    def _top_up(self, pools: dict, leases: dict) -> None:
        others = [r for r in self.r.zrangebyscore(key("runs"), time.time() - store.RUN_TTL_S,
                                                  "+inf") if r != self.run_id]
        for pool, q in self._queue.items():
            if not q:
                continue
            capacity = len(pools.get(pool, []))
            if capacity == 0:
                continue
            demands = {self.run_id: min(len(q) + self._inflight_in(pool), self._cap(pool))}
            inflight = {self.run_id: self._inflight_in(pool)}
            for other in others:
                d, i = self.r.hmget(key("run", other), f"demand:{pool}", f"inflight:{pool}")
                if d is not None:
                    demands[other], inflight[other] = int(d), int(i or 0)
            n = to_dispatch(capacity, self.run_id, demands, inflight, len(q))
            idle = [l["device"] for l in pools[pool] if l.get("state") == "idle"]
            sent = 0
            for job in list(q):
                if sent >= n:
                    break
                queue = self._queue_for(job, pool, pools[pool], idle)
                if queue is None:
                    continue
                q.remove(job)
                self._send(job, queue)
                sent += 1

    def _queue_for(self, job: Job, pool: str, devices: list[dict], idle: list[str]) -> str | None:
        """The pool's queue; for a job avoiding devices, an idle other device's own queue."""
        if not job.avoid_devices:
            return f"farm.{pool}"
        if all(d["device"] in job.avoid_devices for d in devices):
            return f"farm.{pool}"        # nowhere else to go: better the same device than none
        for name in idle:
            if name not in job.avoid_devices:
                idle.remove(name)
                return f"farm.dev.{name}"
        return None

    def _send(self, job: Job, queue: str) -> None:
        from worker.app import time_limits
        base, pool = self._case_of[job.case_id]
        case = self.cases[base]
        if self.matrix:     # one id per case and group: results, claims and artifacts stay apart
            case = case.model_copy(update={"id": job.case_id,
                                           "name": f"{case.name} [{pool.split('.', 1)[1]}]"})
        payload = {"run_id": self.run_id, "job": {**asdict(job),
                                                  "avoid_devices": sorted(job.avoid_devices)},
                   "case": case.model_dump(mode="json"), "env": self._env_for(case),
                   "app_dirs": {str(k): v for k, v in self.services.app_dirs.items()}}
        soft, hard = time_limits(case.timeout)
        self.app.send_task("farm.run_case", args=[payload], queue=queue, soft_time_limit=soft,
                           time_limit=hard, retry=True,
                           retry_policy={"max_retries": 3, "interval_start": 0.5})
        self._inflight[job.case_id] = _Inflight(job, self.clock())
        if self.first_start is None:
            self.first_start = self.clock()

    def _env_for(self, case: Case) -> dict[str, str]:
        """Only what the case refers to, plus the served app URLs: secrets the case does not
        use never travel."""
        names = set(_REF.findall(case.model_dump_json())) | set(case.secrets)
        env = {k: v for k, v in self.services.env.items() if k in names}
        return {**env, **{k: v for k, v in self.services.env.items() if k.startswith("FARM_")
                          and k.endswith("_URL") and k not in ("FARM_BROKER_URL",)}}

    # ---- watching ---------------------------------------------------------------------------
    def _check_inflight(self, leases: dict, pools: dict, now: float) -> None:
        """Lose attempts whose worker died (lease gone or moved on) or that vanished from
        the broker (an idle device never picked them up)."""
        grace = store.LEASE_TTL_S + 2 * store.HEARTBEAT_S
        for cid, inf in list(self._inflight.items()):
            running = [n for n, l in leases.items() if l.get("run") == self.run_id
                       and l.get("case") == cid and l.get("attempt") == inf.job.attempt
                       and l.get("state") == "busy"]
            if running:
                inf.device = inf.device or running[0]
                inf.seen = now
                continue
            if inf.device is not None:
                if now - inf.seen > grace:
                    self._lost(inf, f"worker of {inf.device} stopped answering mid-case "
                                    f"(lease expired)")
                continue
            pool = self._case_of[cid][1]
            idle = any(l.get("state") == "idle" for l in pools.get(pool, []))
            if idle and now - inf.sent > STARTUP_GRACE_S:
                self._lost(inf, "the job vanished from the broker before any worker took it")

    def _lost(self, inf: _Inflight, why: str) -> None:
        log.warning("%s attempt %d lost: %s", inf.job.case_id, inf.job.attempt, why)
        result = self._synthetic(inf.job, "error", inf.device,
                                 error=CaseError(kind="DeviceLost", message=why))
        self._record(inf.job, result, inf.device or "?")

    def _fail_orphans(self, pools: dict, now: float) -> None:
        """Jobs whose pool has had no usable device for a while can never run."""
        wait = self.settings.cluster_device_wait
        for pool, q in self._queue.items():
            if pools.get(pool) or not q:
                self._pool_seen[pool] = now
                continue
            if now - self._pool_seen.setdefault(pool, now) < wait:
                continue
            for job in list(q):
                q.remove(job)
                self._attempts.setdefault(job.case_id, []).append(self._synthetic(
                    job, "error", None, error=CaseError(
                        kind="DeviceLost", message=f"no usable {pool} worker in the cluster "
                                                   f"for {wait:g}s (start one: farm worker)")))
                self._final[job.case_id] = self._finalise(job.case_id)

    def _drain_events(self, wait: float) -> None:
        got = self.r.blpop([key("events", self.run_id)], timeout=wait)
        while got:
            self._handle(json.loads(got[1]))
            raw = self.r.lpop(key("events", self.run_id))
            got = (None, raw) if raw else None

    def _handle(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "step":
            self.events.step_finished(ev["device"], StepRecord.model_validate(ev["record"]))
            return
        if kind == "device_state":
            return      # quarantine is read from Redis itself on every tick
        inf = self._inflight.get(ev.get("case", ""))
        if inf is None or inf.job.attempt != ev.get("attempt"):
            log.info("ignoring %s for %s attempt %s: not awaited (late or duplicate)",
                     kind, ev.get("case"), ev.get("attempt"))
            return
        if kind == "case_started":
            inf.device, inf.seen = ev["device"], self.clock()
            case = self.cases[self._case_of[inf.job.case_id][0]]
            self.events.case_started(ev["device"], inf.job.case_id, case.name, inf.job.attempt)
            self.events.device_state(ev["device"], "busy", inf.job.case_id)
        elif kind == "case_finished":
            self._save_artifacts(ev.get("artifacts") or {})
            self._record(inf.job, CaseResult.model_validate(ev["result"]), ev["device"])
            self.events.device_state(ev["device"], "idle")

    def _save_artifacts(self, files: dict[str, str]) -> None:
        root = self.services.artifacts.run_dir
        for rel, data in files.items():
            parts = PurePosixPath(rel).parts
            if not parts or parts[0] != "artifacts" or ".." in parts:
                continue        # a worker may only write screenshots, and only in artifacts/
            path = root / Path(*parts)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(base64.b64decode(data))

    def _record(self, job: Job, result: CaseResult, device: str) -> None:
        self._inflight.pop(job.case_id, None)
        self.last_end = self.clock()
        retry = next_attempt(job, outcome(result), device, self.policy)
        self._attempts.setdefault(job.case_id, []).append(result)
        self.events.case_finished(device, result, final=retry is None)
        if retry is not None:
            pool = self._case_of[job.case_id][1]
            self._queue[pool] = order_jobs(self._queue[pool] + [retry])
        else:
            self._final[job.case_id] = self._finalise(job.case_id)

    def _finalise(self, case_id: str) -> CaseResult:
        return final_result(self._attempts[case_id])

    def _broker_down(self, exc: BaseException) -> None:
        now = self.clock()
        if self._outage is None:
            self._outage = now
            log.warning("broker unreachable (%s): waiting up to %gs", exc,
                        self.settings.cluster_outage_seconds)
        if now - self._outage < self.settings.cluster_outage_seconds:
            time.sleep(1.0)
            return
        from farm.config import mask_url
        why = (f"lost the broker {mask_url(self.url)} for "
               f"{self.settings.cluster_outage_seconds:g}s: {exc}")
        log.error("%s", why)
        pending = [(inf.job, inf.device) for inf in self._inflight.values()] + [
            (j, None) for q in self._queue.values() for j in q]
        for job, device in pending:
            self._attempts.setdefault(job.case_id, []).append(self._synthetic(
                job, "error", device, error=CaseError(kind="BrokerLost", message=why)))
            self._final[job.case_id] = self._finalise(job.case_id)
        self._inflight.clear()
        for q in self._queue.values():
            q.clear()
        self._stopping = True

    def _synthetic(self, job: Job, status: str, device: str | None, reason: str | None = None,
                   error: CaseError | None = None) -> CaseResult:
        base, pool = self._case_of[job.case_id]
        case = self.cases[base]
        name = f"{case.name} [{pool.split('.', 1)[1]}]" if self.matrix else case.name
        return CaseResult(run_id=self.run_id, case_id=job.case_id, name=name,
                          file=display_path(case.file), platform=case.platform, device=device,
                          attempt=job.attempt, status=status, reason=reason, error=error,
                          started=now_iso(), tags=case.tags)
