"""CeleryExecutor: `farm run` against a cluster of `farm worker` processes.

Pull scheduling, client side: the run keeps its own longest-first queue per device pool and
hands a job to the broker only when a device of that pool is free (and within the run's fair
share when other runs compete), so the broker queue stays about empty, the order is kept, and
estimates that turn out wrong cost nothing — a free device simply gets the next-longest job.
Workers push events (started / step / finished, keyed run/case/attempt) to a Redis list the
client reads at least once (`EventInbox`), which feeds the same RunEvents as a local run. The client decides retries and
numbers attempts (the same `Ledger` as the local executor); a worker whose lease expires
mid-case, or whose device process is started again, loses its attempt (infra error, re-run
elsewhere) and the run names its device as lost — also one that died right after taking the
job, before the run heard it start (its claim of the attempt names it) — and a late result for
an attempt no longer awaited is ignored.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
from dataclasses import replace
from typing import Any, Callable, Collection

from pydantic import ValidationError

from farm import metrics
from farm.attempts import QUARANTINE_REASON, RetryPolicy
from farm.cluster import jobs as wire
from farm.cluster import store
from farm.cluster.app import TASK, make_app, outlasting, time_limits
from farm.cluster.fair import fair_allocation, to_dispatch
from farm.cluster.store import key
from farm.config import Settings, mask_url, mask_urls_in
from farm.devices.specs import DeviceSpec
from farm.errors import BrokerLost, DeviceError, DeviceLost, InternalError
from farm.executors.base import Ledger, NullEvents, RunEvents, RunOutcome
from farm.executors.event_inbox import EventInbox
from farm.executors.inflight import Inflight as _Inflight
from farm.executors.inflight import so_far
from farm.results import CAME_BACK, CaseResult, StepRecord, now_iso, own_duration, timestamp
from farm.runner import Services, app_dirs_of, case_env
from farm.schedule import Job, enqueue, expected_duration, order_jobs
from farm.suite.model import Case
from farm.usage import Usage

log = logging.getLogger("farm.cluster")

SILENT_S = 5.0              # a run that has not announced itself this long: driver killed
STARTUP_GRACE_S = 20.0      # an unstarted job while a device of its pool sat idle is lost
# a worker silent this long past its lease (two heartbeats more) is taken to be gone
LEASE_GRACE_S = store.LEASE_TTL_S + 2 * store.HEARTBEAT_S


class CeleryExecutor:
    def __init__(self, settings: Settings, cases: dict[str, Case], services: Services,
                 policy: RetryPolicy, specs: list[DeviceSpec], matrix: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        store.use_prefix(settings.cluster_prefix)
        self.url = settings.broker_url.get_secret_value() if settings.broker_url else ""
        self.settings = settings
        self.r = store.connect(self.url)
        self.app = make_app(settings)
        self.inbox = EventInbox(services.run_id)    # the workers' events, read at least once
        self.cases = dict(cases)            # by job case id (matrix: one per case and group)
        self.secret_names = wire.run_secrets(self.cases.values())   # (sent with each task)
        self.services = services
        self.run_id = services.run_id
        self.limit: dict[str, int] = {}
        for s in specs:
            self.limit[s.platform] = self.limit.get(s.platform, 0) + s.count
        self.matrix = matrix
        self.clock = clock
        self.ledger = Ledger(self.cases, self.run_id, replace(
            policy, infra_retries=settings.cluster_infra_retries), NullEvents())
        self.events: RunEvents = NullEvents()
        self.outcome = RunOutcome(results=[])
        self._pool_of: dict[str, str] = {}          # job case id → pool
        self._queue: dict[str, list[Job]] = {}
        self._inflight: dict[str, _Inflight] = {}
        self._known_bad: set[str] = set()
        self._pool_seen: dict[str, float] = {}
        self._said_waiting: set[Any] = set()    # pools the run said it waits for a worker of
        # a retry kept for another device of its pool that is still starting: since when
        self._held_for_starting: dict[tuple[str, int], float] = {}
        self._said_busy: set[str] = set()       # pools the run said other runs hold
        self._said_version: set[str] = set()    # devices said to run another farm version
        self._pool_served: set[str] = set()     # pools that had a usable device in the run
        self._stopping = False
        self._interrupt = False         # asked for from another thread; done by the run loop
        self._outage: float | None = None
        self._epoch: str | None = None
        self._down: set[str] = set()    # devices lost in the run and not seen serving since
        self._benched: set[str] = set()     # said quarantined by their worker, idle no more
        self._died_in: dict[str, tuple[str, str]] = {}  # said dead: (platform, group)
        # by device: (its process' token, since when the run has seen it idle: 0.0 when it
        # was idle the first time the run looked, None while it is not idle)
        self._idle: dict[str, tuple[object, float | None]] = {}
        self._quiet_until = 0.0         # Redis back: leases come back with the next heartbeats

    # ---- the run ---------------------------------------------------------------------------
    def run(self, jobs: list[Job], events: RunEvents | None = None) -> RunOutcome:
        self.events = self.ledger.events = events or NullEvents()
        self._say_outlasting(jobs)
        try:
            jobs = self._prepare(jobs)
            self._known_bad = set(store.quarantined(self.r))
            self.events.run_started(self._device_names(), len(jobs))
        except Exception as exc:
            _say_refused(exc, self.url)
            if not _is_redis_error(exc):
                raise
            outage = self._outage is not None       # (--matrix: it waited for the broker)
            self._give_up(jobs, exc, self.settings.cluster_outage_seconds if outage else 0.0)
            return self._result()
        for j in order_jobs(jobs):
            self._queue.setdefault(self._pool_of[j.case_id], []).append(j)
        self.ledger.expected = {j.case_id for j in jobs}
        try:
            while not self.ledger.done and not self._stopping:
                if self._interrupt:
                    self._stop_now()
                    break
                self._step()
        except KeyboardInterrupt:
            self._stop_now()
        finally:
            self._leave()
        return self._result()

    def _result(self) -> RunOutcome:
        self.outcome.results = self.ledger.results()
        self.outcome.interrupted = self.services.cancel.is_set()
        return self.outcome

    def _step(self) -> None:
        try:
            if self._outage is not None:
                self._back_from_outage()
            self._tick()
        except Exception as exc:
            if _not_permitted(exc):
                self._refused(exc)
                return
            if not _is_redis_error(exc):
                raise
            self._broker_down(exc)

    def _refused(self, exc: BaseException) -> None:
        """The broker's ACL refuses the run's user a command (no wait makes it pass). Before
        a case was sent or ended, as refused at the run's start: a ConfigError (exit 4, each
        case not run; it was exit 3, the cases errors); later (the ACL edited mid-run) the
        cases end as errors naming it, the results so far kept."""
        if self.outcome.first_start is None and not self.ledger.final:
            _say_refused(exc, self.url)
        self._give_up(self._pending(), exc)

    def _back_from_outage(self) -> None:
        """The broker answers again (``_tick`` raises if not). Leases expired meanwhile and come
        back with the workers' next heartbeats: give every attempt in flight the lease grace
        again before calling it lost."""
        store.epoch(self.r)
        now = self.clock()
        self._say_back(now)
        for inf in self._inflight.values():
            inf.seen = max(inf.seen, now)
            inf.sent = max(inf.sent, now)
        self._leases_return(now)

    def _leases_return(self, now: float) -> None:
        """Redis is back (or came back empty): no pool is without workers before their next
        heartbeats; its wait for a worker starts again, and the run says nothing meanwhile."""
        for pool in self._queue:
            self._pool_seen[pool] = now
        self._quiet_until = now + LEASE_GRACE_S

    def interrupt(self) -> None:
        self._interrupt = True          # the run loop acts on it within one tick
        self.services.cancel.set()

    def hurry(self) -> None:
        self._interrupt = True

    def stop_taking(self, reason: str, only: Collection[str] | None = None) -> None:
        """Send no more queued cases (--maxfail), or none of those ``only`` names (a batch's
        files after one failed; called from the run loop's own thread, when a result
        arrives); cases in flight finish normally (their retries are not sent)."""
        self.ledger.stop(reason, only, [])
        for q in list(self._queue.values()):
            self.ledger.hold(q)

    def queued(self) -> dict[str, int]:
        return {pool: len(q) for pool, q in list(self._queue.items())}

    def _stop_now(self) -> None:
        self._stopping = True
        self.services.cancel.set()
        for inf in list(self._inflight.values()):
            self.ledger.keep(inf.job, self._so_far(inf, "interrupted", self.clock()),
                             inf.device or "-")
        for q in self._queue.values():
            for job in q:
                if job.case_id not in self.ledger.final:
                    self.ledger.end(job, "skipped", reason="not run: the run was interrupted")
            q.clear()
        self._inflight.clear()

    # ---- before the run ----------------------------------------------------------------------
    def _say_outlasting(self, jobs: list[Job]) -> None:
        """Once, on stderr, before a case is sent: the cases whose timeout is above
        FARM_CLUSTER_MAX_CASE_SECONDS, and what to set (see `farm.cluster.app.outlasting`)."""
        said = outlasting({j.case_id: self.cases[j.case_id].timeout for j in jobs},
                          self.settings)
        if said:
            print(f"farm: warning: {said}", file=sys.stderr, flush=True)
            log.warning("%s", said)

    def _device_names(self) -> list[str]:
        """Live, usable cluster devices of the run's platforms (progress rows)."""
        live = store.leases(self.r)
        return sorted(n for n, lease in live.items()
                      if lease.get("platform") in self.limit and n not in self._known_bad)

    def _prepare(self, jobs: list[Job]) -> list[Job]:
        """Re-estimate durations from the cluster's history; in matrix mode, one job per case
        and device group."""
        hist = store.load_history(self.r, {f"{j.platform}:{j.case_id}" for j in jobs})
        known = [expected_duration(hist, k.split(":", 1)[1], k.split(":", 1)[0], 0) for k in hist]
        default = sum(known) / len(known) if known else self.settings.default_case_seconds
        jobs = [replace(j, expected_seconds=expected_duration(hist, j.case_id, j.platform,
                                                              default)) for j in jobs]
        if not self.matrix:
            self._pool_of = {j.case_id: j.platform for j in jobs}
            return jobs
        groups = self._await_groups({j.platform for j in jobs})
        some = [j for j in jobs if j.platform in groups]
        none = [j for j in jobs if j.platform not in groups]    # wait no more, as without
        out, cases, self._pool_of = wire.expand_matrix(some, self.cases, groups)  # --matrix
        for j in none:
            cases[j.case_id], self._pool_of[j.case_id] = self.cases[j.case_id], j.platform
        self.cases = self.ledger.cases = cases
        return out + none

    def _groups(self) -> dict[str, set[str]]:
        """Device groups per platform among the cluster's leases."""
        groups: dict[str, set[str]] = {}
        for lease in store.leases(self.r).values():
            if lease.get("state") != "quarantined":     # (waiting for its release)
                groups.setdefault(lease["platform"], set()).add(lease["group"])
        return groups

    def _await_groups(self, platforms: set[str]) -> dict[str, set[str]]:
        """--matrix: the groups to run on. A platform with no worker yet (the run started
        before them) is waited for, up to FARM_CLUSTER_DEVICE_WAIT, then one heartbeat more
        so that workers started with the first one are counted too; one still without a
        worker is left to the run's own wait (counted from the run's start). A broker that
        is unreachable meanwhile is waited for as the run waits for it (up to
        FARM_CLUSTER_OUTAGE_SECONDS); once it is back, the wait for a worker starts again."""
        wait = self.settings.cluster_device_wait
        start = settle = self.clock()
        groups: dict[str, set[str]] = {}
        while not (self._interrupt or self.services.cancel.is_set()):
            was_down = self._outage is not None
            read = self._groups_unless_down()
            now = self.clock()
            if read is None:
                continue
            if was_down:        # back: leases come back with the workers' next heartbeats
                start, settle = now, self._quiet_until
            groups, missing = read, sorted(platforms - set(read))
            if now - start >= wait or not missing and now >= settle:
                break
            for platform in missing:
                settle = max(settle, now + store.HEARTBEAT_S)
                self._pool_seen[platform] = start
                self._say_waiting(platform, wait)
            time.sleep(0.25)        # polling leases: nothing in Redis to block on
        return groups

    def _groups_unless_down(self) -> dict[str, set[str]] | None:
        """The device groups; None while the broker is unreachable (said once, as the run
        says it; raised once it has been for FARM_CLUSTER_OUTAGE_SECONDS: the run gives up)."""
        try:
            groups = self._groups()
        except Exception as exc:
            if not _is_redis_error(exc) or self._outage_too_long(exc):
                raise
            time.sleep(1.0)     # polling an absent Redis: nothing to wait on but time
            return None
        if self._outage is not None:
            now = self.clock()
            self._say_back(now)
            self._leases_return(now)
        return groups

    def _leave(self) -> None:
        """Forget the run in Redis (workers then drop its queued messages) and keep history."""
        try:
            samples = {f"{r.platform}:{r.case_id}": own_duration(r)    # (one attempt's)
                       for r in self.ledger.final.values()
                       if r.status in ("passed", "failed", "flaky") and own_duration(r) > 0}
            if not self.matrix:
                store.record_history(self.r, samples)
            pipe = self.r.pipeline(transaction=False)   # (tidied by a user refused MULTI too)
            pipe.set(key("ended", self.run_id), 1, ex=store.CLAIM_TTL_S)   # workers: cancel
            pipe.delete(key("run", self.run_id), key("events", self.run_id),
                        key("taken", self.run_id))
            pipe.zrem(key("runs"), self.run_id)
            pipe.execute()
            self._drop_unacked()
        except Exception as exc:
            log.warning("could not tidy up run state in Redis: %s", exc)

    # ---- one tick: look, hand out, listen --------------------------------------------------------
    def _tick(self) -> None:
        now = self.clock()
        epoch = store.epoch(self.r)
        if self._epoch and epoch != self._epoch:
            log.warning("Redis lost its data (restart?): checking every job in flight")
            self._leases_return(now)
        self._epoch = epoch
        leases = store.leases(self.r)
        bad = store.quarantined(self.r)
        self._note_quarantine(bad)
        pools = self._pools(leases, bad)
        self._say_versions(pools)
        self._announce()
        self._check_inflight(leases, pools, now, self._claims(now))
        self._fail_orphans(pools, now, leases, bad)
        self._top_up(pools, leases, bad)
        self._drain_events(wait=0.25)

    def _note_quarantine(self, bad: dict[str, str]) -> None:
        """Devices quarantined since the run began (by its own cases or another run's)."""
        for name in sorted(set(bad) - self._known_bad - set(self.outcome.quarantined)):
            self.outcome.quarantined.append(name)
            self.events.device_state(name, "quarantined", bad[name])

    def _quarantined(self, ev: dict[str, Any]) -> None:
        """A worker says its device is quarantined, before the result of the attempt that did
        it: that result may end the run before its next look at Redis, and the device was then
        never named (results.json ``quarantined``, the summary line, the report's banner)."""
        device = str(ev.get("device") or "?")
        self._benched.add(device)
        self._note_quarantine({device: str(ev.get("detail") or QUARANTINE_REASON)})

    def _pools(self, leases: dict, bad: dict) -> dict[str, list[dict]]:
        """Usable devices per pool (platform, and platform.group for matrix). Not a dead one
        (its worker could not restart it and drains: a job sent it in the second before its
        lease says so waited a lease grace, as if the device had been usable)."""
        pools: dict[str, list[dict]] = {}
        for name, lease in leases.items():
            if name in bad or lease.get("draining") or lease.get("state") in ("starting",
                                                                             "dead"):
                continue
            pools.setdefault(lease["platform"], []).append(lease)
            pools.setdefault(f"{lease['platform']}.{lease['group']}", []).append(lease)
        return pools

    def _announce(self) -> None:
        """Publish this run's demand per pool so concurrent runs can share fairly: per pool,
        and per platform over all its pools (a --matrix run's web.g1 and web.g2 are devices a
        plain run's web pool uses too: each must see the other's demand for them)."""
        fields = {}
        for name in set(self._queue) | {pool.split(".", 1)[0] for pool in self._queue}:
            pending, inflight = self._load(name)
            fields[f"demand:{name}"] = min(pending + inflight, self._cap(name))
            fields[f"inflight:{name}"] = inflight
        pipe = self.r.pipeline()
        pipe.hset(key("run", self.run_id), mapping=fields or {"alive": 1})
        pipe.expire(key("run", self.run_id), store.RUN_TTL_S)
        pipe.zadd(key("runs"), {self.run_id: time.time()})
        # runs whose client was killed (no `_leave`) stayed in the set for good, one a run
        pipe.zremrangebyscore(key("runs"), "-inf", time.time() - store.RUN_FORGOTTEN_S)
        pipe.execute()

    def _cap(self, pool: str) -> int:
        return self.limit.get(pool.split(".", 1)[0], 0)

    def _inflight_in(self, pool: str) -> int:
        return sum(1 for c in self._inflight if self._pool_of[c] == pool)

    def _room(self, pool: str) -> int:
        """How many more jobs the run may have in flight on ``pool``'s platform: --devices
        caps the devices it holds at once across all its pools (--matrix: one per device
        group; each group taking the whole cap held more devices than the run was given)."""
        platform = pool.split(".", 1)[0]
        held = sum(1 for c in self._inflight if self._pool_of[c].split(".", 1)[0] == platform)
        return self._cap(pool) - held

    def _load(self, name: str) -> tuple[int, int]:
        """This run's jobs waiting for, and in flight on, ``name``: a pool, or a platform
        (all of the run's pools of that platform)."""
        pools = [p for p in self._queue
                 if p == name or "." not in name and p.split(".", 1)[0] == name]
        return (sum(len(self._queue[p]) for p in pools),
                sum(1 for c in self._inflight if self._pool_of[c] in pools))

    def _share(self, pool: str, pools: dict[str, list[dict]], others: list[str],
               silent: list[str] = ()) -> int:
        """How many more jobs of ``pool`` this run may hand out now: its max-min fair share
        of the platform's devices, against every run wanting them whatever its pools (a plain
        run's web, a --matrix run's web.g1: else each took devices as if the other were not
        there); for a device group's pool, also its share of the group's devices against the
        other --matrix runs wanting that group, each counted for no more than its share of
        the platform lets it take (a device left to a run that may not take it stayed idle).
        Devices of the group busy with a plain run's cases are not the group's to share."""
        platform = pool.split(".", 1)[0]
        devices = pools.get(platform, [])
        demands, inflight = self._demands(platform, devices, others, silent)
        n = to_dispatch(len(devices), self.run_id, demands, inflight, self._load(platform)[0])
        if pool == platform:
            return n
        alloc = fair_allocation(len(devices), demands)
        group, in_group = self._demands(pool, pools[pool], others, silent)
        for run in group:
            if run != self.run_id:
                room = alloc.get(run, 0) - inflight.get(run, 0) + in_group[run]
                group[run] = min(group[run], max(room, in_group[run]))
        taken = sum(1 for lease in pools[pool]
                    if lease.get("state") == "busy" and lease.get("run") not in in_group)
        return min(n, to_dispatch(len(pools[pool]) - taken, self.run_id, group, in_group,
                                  len(self._queue[pool])))

    def _demands(self, name: str, devices: list[dict], others: list[str],
                 silent: list[str] = ()) -> tuple[dict[str, int], dict[str, int]]:
        """Each run's demand for, and jobs in flight on, the ``devices`` of ``name`` (a
        platform, or a pool), as the runs announce them. A run that has ``silent``-ly
        stopped announcing itself (its driver killed: its claim stays in Redis until
        RUN_TTL_S) counts for the devices busy with its cases, not for what it last claimed,
        which held the pool for half a minute."""
        pending, mine = self._load(name)
        demands = {self.run_id: min(pending + mine, self._cap(name))}
        inflight = {self.run_id: mine}
        for other in others:
            d, i = self.r.hmget(key("run", other), f"demand:{name}", f"inflight:{name}")
            if d is not None:
                demands[other], inflight[other] = int(d), int(i or 0)
        for other in silent:
            busy = sum(1 for lease in devices if lease.get("run") == other
                       and lease.get("state") == "busy")
            if busy:
                demands[other] = inflight[other] = busy
        return demands, inflight

    def _top_up(self, pools: dict, leases: dict | None = None, bad: dict | None = None
                ) -> None:
        now = time.time()
        runs = [(run, seen) for run, seen in self.r.zrangebyscore(
            key("runs"), now - store.RUN_TTL_S, "+inf", withscores=True) if run != self.run_id]
        others = [run for run, seen in runs if seen >= now - SILENT_S]
        silent = [run for run, seen in runs if seen < now - SILENT_S]
        for pool, q in self._queue.items():
            if not q or not pools.get(pool):
                continue
            n = self._share(pool, pools, others, silent)
            if n <= 0 and not self._inflight_in(pool):
                self._say_busy(pool, pools[pool])
            if self.matrix:     # (one pool per platform otherwise: its share is capped)
                n = min(n, self._room(pool))
            idle = [lease["device"] for lease in pools[pool] if lease.get("state") == "idle"]
            held: set[str] = set()      # sequences whose earlier job could not go yet
            for job in list(q):
                if n <= 0:
                    break
                if job.sequence is not None and job.sequence in held:
                    continue            # a concurrent: 1 batch's next file waits its turn
                queue = self._queue_for(job, pool, pools[pool], idle,
                                        _starting(pool, leases or {}, bad or {}))
                if queue is None:
                    if job.sequence is not None:
                        held.add(job.sequence)
                    continue
                at = q.index(job)
                q.remove(job)
                try:
                    self._send(job, queue)
                except Exception:       # (the broker went away: sent once it is back)
                    q.insert(at, job)
                    raise
                n -= 1

    def _queue_for(self, job: Job, pool: str, devices: list[dict], idle: list[str],
                   starting: list[str] = ()) -> str | None:
        """The pool's queue; for a job avoiding devices, an idle other device's own queue.
        With none but those it avoids, it waits for another device of the pool still
        starting (`_starting`: its worker opening it), FARM_CLUSTER_DEVICE_WAIT at most;
        else it goes to the pool (better the same device than none)."""
        if not job.avoid_devices:
            return f"farm.{pool}"
        if all(d["device"] in job.avoid_devices for d in devices):
            if any(name not in job.avoid_devices for name in starting):
                since = self._held_for_starting.setdefault((job.case_id, job.attempt),
                                                           self.clock())
                if self.clock() - since < self.settings.cluster_device_wait:
                    return None
            return f"farm.{pool}"
        for name in idle:
            if name not in job.avoid_devices:
                idle.remove(name)
                return f"farm.dev.{name}"
        return None

    def _send(self, job: Job, queue: str) -> None:
        case = self.cases[job.case_id]
        data = wire.payload(self.run_id, job, case, case_env(case, self.services),
                            app_dirs_of(case, self.services),
                            self.services.cache_mode, self.settings.screenshots,
                            self.secret_names)
        soft, hard = time_limits(case.timeout, self.settings)
        # ignore_result: results come back as events; else Celery subscribes to each task's
        # result in Redis, and a broker away ~20 s there raised a RuntimeError that ended
        # the run with a traceback instead of waiting FARM_CLUSTER_OUTAGE_SECONDS for it
        self.app.send_task(TASK, args=[data], queue=queue, soft_time_limit=soft,
                           time_limit=hard, retry=True, ignore_result=True,
                           retry_policy={"max_retries": 3, "interval_start": 0.5},
                           **wire.task_reprs(self.run_id, job))
        target = queue[len("farm.dev."):] if queue.startswith("farm.dev.") else None
        self._inflight[job.case_id] = _Inflight(job, self.clock(), seen=self.clock(),
                                                target=target)
        if self.outcome.first_start is None:
            self.outcome.first_start = self.clock()

    # ---- watching ---------------------------------------------------------------------------
    def _check_inflight(self, leases: dict, pools: dict, now: float,
                        claims: dict[str, tuple[str, float]] | None = None) -> None:
        """Lose attempts whose worker died (lease gone, moved on, or held by a new process;
        ``claims``: see ``_claims``) or that vanished from the broker (an idle device never
        picked them up); take back the ones no device can take any more (see
        ``_check_unstarted``)."""
        grace, claims = LEASE_GRACE_S, claims or {}
        self._note_idle(leases, now)
        for cid, inf in list(self._inflight.items()):
            running = [(n, lease) for n, lease in leases.items()
                       if lease.get("run") == self.run_id and lease.get("case") == cid
                       and lease.get("attempt") == inf.job.attempt
                       and lease.get("state") == "busy"]
            if running:
                if inf.device is None:
                    inf.device = running[0][0]
                    self._device_back(inf.device)
                since = running[0][1].get("since")
                inf.since = since if isinstance(since, (int, float)) else inf.since
                inf.seen, inf.claimed, inf.missing = now, False, None
                inf.alive = _last_beat(running[0][1], now)
                continue
            if inf.device is None and cid in claims:
                device, age = claims[cid]
                inf.device, inf.claimed, inf.seen = device, True, now - age
                self._device_back(device)
            if inf.device is not None:
                self._check_taken(inf, leases.get(inf.device), now, grace)
                continue
            self._check_unstarted(inf, pools.get(self._pool_of[cid], []), now, grace)

    def _note_idle(self, leases: dict, now: float) -> None:
        """Since when each device has been idle, as far as the run has seen: a device that
        comes idle (from starting, busy, or as a new process of its name) now; one idle the
        first time the run looks at it, since before (0.0)."""
        for name, lease in leases.items():
            token, idle = lease.get("token"), lease.get("state") == "idle"
            before = self._idle.get(name)
            if not idle:
                self._idle[name] = (token, None)
            elif before is None:
                self._idle[name] = (token, 0.0)
            elif before[0] != token or before[1] is None:
                self._idle[name] = (token, now)

    def _claims(self, now: float) -> dict[str, tuple[str, float]]:
        """Attempts sent a lease grace ago that the run never heard start, by the device that
        claimed them and how long ago (seconds). A worker claims an attempt just before its
        lease and its first event say so: one that died in between (killed within a second of
        taking the job) took the attempt with it. That is its device's loss, not a job that
        vanished from the broker, and the lease grace counts from the claim."""
        grace = LEASE_GRACE_S
        unheard = [inf.job for inf in self._inflight.values()
                   if inf.device is None and now - inf.sent > grace]
        if not unheard:
            return {}
        pipe = self.r.pipeline()
        for job in unheard:
            claim = key("claim", self.run_id, job.case_id, str(job.attempt))
            pipe.get(claim)
            pipe.pttl(claim)
        got = pipe.execute()
        sent = {inf.job.case_id: now - inf.sent for inf in self._inflight.values()}
        return {job.case_id: (device, _claim_age(ttl, sent[job.case_id]))
                for job, device, ttl in zip(unheard, got[::2], got[1::2]) if device}

    def _check_taken(self, inf: _Inflight, holder: dict | None, now: float,
                     grace: float) -> None:
        """An attempt a device took: lost once its worker is gone. At once when a new process
        holds the device's name (its supervisor started it again: the attempt died with the
        one before); else once nothing has shown it running for ``grace``."""
        if holder is None and inf.missing is None:
            inf.missing = now       # (see `_lost`)
        replaced = holder is not None and _replaced(inf, holder)
        if not replaced and now - inf.seen <= grace:
            return
        device, cid, n = inf.device or "?", inf.job.case_id, inf.job.attempt
        when, why = "right after taking the case", ""
        if not inf.claimed:
            when = "mid-case"
            why = ("a new process took the device over" if replaced else "lease expired"
                   if holder is None else "its lease stopped showing the case")
        where = f"{cid} attempt {n}" + (f", {why}" if why else "")
        self._device_lost(device, f"its worker stopped answering {when} ({where})",
                          back=holder is not None)
        self._lost(inf, f"worker of {device} stopped answering {when}"
                   + (f" ({why})" if why else ""))
        self._drop_unacked(inf.job)     # (its process died with its message unacknowledged)

    def _check_unstarted(self, inf: _Inflight, devices: list[dict], now: float,
                         grace: float) -> None:
        """A job sent but not started. Sent to one device's own queue (a steered retry), only
        that device can take it; else any usable device of its pool. If none could for
        ``grace`` (its lease gone, draining, quarantined), take the job back into the run's
        queue: it is sent again when a device comes, or fails as an orphan after
        FARM_CLUSTER_DEVICE_WAIT (a stale copy left in the broker is dropped by the claim).
        If one sat idle past ``STARTUP_GRACE_S`` (counted from when it came idle, if that was
        after the job was sent) and never took it, the job vanished."""
        able = [d for d in devices if inf.target is None or d["device"] == inf.target]
        if able:
            inf.seen = now
        elif now - inf.seen > grace:
            self._take_back(inf, f"device {inf.target} is gone" if inf.target
                            else "no device left")
            return
        idle = [self._idle.get(d["device"], (None, 0.0))[1] or 0.0 for d in able
                if d.get("state") == "idle"]
        # (from when a device could take it: sent before a device came idle, a restarted one
        # whose Celery consumer is only now reading its queue, it is not lost yet)
        if idle and now - max(inf.sent, min(idle)) > STARTUP_GRACE_S:
            self._lost(inf, "the job vanished from the broker before any worker took it"
                       + _versions_differ(able))

    def _take_back(self, inf: _Inflight, why: str) -> None:
        """An unstarted job back into the run's queue: sent again when a device comes, or
        failed as an orphan (a copy left in the broker is dropped by the claim)."""
        log.warning("%s attempt %d taken back: %s", inf.job.case_id, inf.job.attempt, why)
        self._inflight.pop(inf.job.case_id, None)
        pool = self._pool_of[inf.job.case_id]
        self._queue[pool] = enqueue(self._queue.setdefault(pool, []), inf.job)

    def _device_died(self, ev: dict[str, Any]) -> None:
        """A worker says its device died (it could not be restarted) and it drains: named
        in the run's outcome with why, as a local run names a dead device; the attempt it
        gave back untried (requeued in the broker, unclaimed) is taken back at once, so a
        pool left with no device fails it after FARM_CLUSTER_DEVICE_WAIT, saying why. Before,
        the run never said the device died, and its case ended "no usable … worker" a lease
        grace later than that."""
        device, why = str(ev.get("device") or "?"), str(ev.get("detail") or "dead")
        if device in self._down and device in self._died_in:
            return      # (said already)
        self._died_in[device] = (str(ev.get("platform") or ""), str(ev.get("group") or ""))
        self._device_lost(device, why, back=False)
        inf = self._inflight.get(str(ev.get("case") or ""))
        if inf is not None and inf.job.attempt == ev.get("attempt") and inf.device is None:
            self._take_back(inf, f"{device} gave it back untried")

    def _died_reason(self, pool: str) -> str:
        """Why ``pool`` has no device left, in its devices' own words: those said dead in the
        run and not back since ("" if none)."""
        platform, _, group = pool.partition(".")
        dead = sorted(d for d, (p, g) in self._died_in.items() if d in self._down
                      and p == platform and (not group or g == group))
        return "; ".join(f"{d} died in the run: {self.outcome.lost[d]}" for d in dead)

    def _device_lost(self, device: str, why: str, back: bool) -> None:
        """Name a device whose worker died mid-case in the run's outcome (results.json
        ``lost``, the summary line, the report's banner), as the local executor names a dead
        slot. A job that vanished before any device took it is no device's loss: not here.

        A device whose worker comes back (the supervisor restarts a killed device process) is
        still named: the run lost an attempt on it and whoever reads the report should know
        its worker died; the why says it came back. ``back``: its name holds a lease again
        already (the lease grace is longer than a restart), so it is not shown as dead."""
        before = self.outcome.lost.get(device)
        self.outcome.lost[device] = f"{before}; then {why}" if before else why
        self._down.add(device)
        if not back:
            self.events.device_state(device, "dead", why)
            return
        self._device_back(device)
        # its row showed the lost case, busy, to the end of the run (unless it runs another)
        if sum(1 for inf in self._inflight.values() if inf.device == device) <= 1:
            self.events.device_state(device, "idle")

    def _device_back(self, device: str) -> None:
        """A device lost earlier in the run has a worker again (started a case, or a lease)."""
        if device in self._down:
            self._down.discard(device)
            self.outcome.lost[device] += f"; {CAME_BACK}"

    def _lost(self, inf: _Inflight, why: str) -> None:
        log.warning("%s attempt %d lost: %s", inf.job.case_id, inf.job.attempt, why)
        # its time until its worker's last heartbeat (the lease outlives a killed worker by
        # up to its TTL: a case killed 4 s in counted 12.5 s); or until its lease vanished,
        # when that was sooner than a lease expires: its `farm worker` gave up the lease of
        # its killed device process as it died (a case killed 1.8 s in counted 1.2 s, to the
        # last heartbeat, up to 2 s before its death)
        until = inf.alive if inf.began is not None and inf.alive > inf.began else inf.seen
        if until == inf.alive and inf.missing is not None and (
                inf.alive < inf.missing < inf.alive + store.LEASE_TTL_S / 2):
            until = inf.missing
        result = self._so_far(inf, "error", until, DeviceLost(why))
        self._record(inf.job, result, inf.device or "?")

    def _drop_unacked(self, job: Job | None = None) -> None:
        """Delete from the broker's unacknowledged messages (kombu's ``unacked`` hash and its
        ``unacked_index``, by delivery tag) the message of a lost attempt of ``job`` (its
        process killed mid-case never acked it), or, ``job`` None as the run ends, every
        message of this run: a message carries its case's environment, secrets too, and was
        kept an hour (the visibility timeout), then handed out again only to be dropped. A
        message is told by its ``argsrepr`` header (`farm.cluster.jobs.task_reprs`). A worker
        still running it acks it later: a no-op. Best effort: Redis away, it waits for
        its visibility timeout as before."""
        import json
        unacked, index = key("celery", "unacked"), key("celery", "unacked_index")
        run = f"(run {self.run_id}, case "
        wanted = wire.task_reprs(self.run_id, job)["argsrepr"] if job is not None else run
        tags = []
        try:
            for tag, raw in self.r.hscan_iter(unacked, count=500):
                try:
                    said = json.loads(raw)[0]["headers"]["argsrepr"]
                except (ValueError, TypeError, KeyError, IndexError):
                    continue
                if isinstance(said, str) and (said == wanted if job else said.startswith(run)):
                    tags.append(tag)
            if tags:
                pipe = self.r.pipeline(transaction=False)
                pipe.zrem(index, *tags)
                pipe.hdel(unacked, *tags)
                pipe.execute()
        except Exception as exc:
            if not _is_redis_error(exc) and not _not_permitted(exc):
                raise
            log.warning("could not delete the unacknowledged messages of %s: %s",
                        wanted, exc)
            return
        for tag in tags:
            log.info("deleted unacknowledged message %s (%s)", tag, wanted)

    def _so_far(self, inf: _Inflight, status: str, until: float,
                error: BaseException | None = None) -> CaseResult:
        """The result of an attempt ended here (interrupted, lost) with what it did so far
        (see `farm.executors.inflight.so_far`)."""
        return so_far(inf, self.cases[inf.job.case_id], self.run_id,
                      self.services.artifacts.run_dir, status, until, error)

    def _fail_orphans(self, pools: dict, now: float, leases: dict | None = None,
                      bad: dict | None = None) -> None:
        """Jobs whose pool has had no usable device for a while can never run."""
        wait = self.settings.cluster_device_wait
        for pool, q in self._queue.items():
            if pools.get(pool):
                self._pool_served.add(pool)
            if pools.get(pool) or not (q or self._inflight_in(pool)):
                self._pool_seen[pool] = now     # devices there, or nothing waits for one
                continue
            if now >= self._quiet_until and not self._taken_in(pool, leases or {}):
                self._say_waiting(pool, wait, _starting(pool, leases or {}, bad or {}),
                                  busy=self._busy_here(pool, leases or {}))
            if now - self._pool_seen.setdefault(pool, now) < wait or not q:
                continue
            died = self._died_reason(pool)
            why = (f"no usable {pool} worker in the cluster for {wait:g}s"
                   + (f" ({died})" if died else "") + " "
                   + self._what_to_do(pool, leases or {}, bad or {}))
            for job in list(q):
                q.remove(job)
                self._end_unrunnable(job, DeviceLost(why))

    def _end_unrunnable(self, job: Job, error: DeviceLost) -> None:
        """End a queued job no worker can run, as the local executor does: a retry keeps the
        verdict of the attempt it was for (the device it lost mid-case, its steps and time),
        saying why it was not retried; a case never started is an error naming why. Before,
        a retry's error replaced the real one ("after 2 attempts — no usable web worker",
        device None), which survived only under ``previous``."""
        if self.ledger.attempts.get(job.case_id):
            self.ledger.end(job, "skipped", reason=f"not run: {error}")
        else:
            self.ledger.end(job, "error", error=error)

    def _taken_in(self, pool: str, leases: dict) -> bool:
        """Has a device of ``pool`` an attempt of the run that is not lost (yet)? The run then
        waits for that device, not for a worker: one whose process was killed is started
        again by its supervisor, its lease gone for a second meanwhile (before, the run said
        "waiting for a web worker (none usable left)" each time). Not a draining one (its
        worker asked to stop): it takes no further case, and the run says it needs a worker
        (it said nothing when its cases failed meanwhile for want of one)."""
        return any(inf.device is not None and self._pool_of[cid] == pool
                   and not (leases.get(inf.device) or {}).get("draining")
                   for cid, inf in self._inflight.items())

    def _what_to_do(self, pool: str, leases: dict, bad: dict) -> str:
        """How to get a worker for ``pool``: release its quarantined devices (their workers
        wait for that), or start one."""
        platform, _, group = pool.partition(".")
        held = sorted(n for n, lease in leases.items() if n in bad
                      and lease.get("platform") == platform
                      and (not group or lease.get("group") == group))
        if not held:        # a group's: a plain `farm worker` serves its kind's own group
            # (a pool served earlier in the run lost its workers: no wrong database)
            elsewhere = "" if pool in self._pool_served else self._workers_elsewhere(platform)
            if elsewhere:
                return (f"(workers are registered on {elsewhere} of the same Redis: give the "
                        f"run and the workers the same database)")
            return f"(start one: farm worker --group {group})" if group else (
                "(start one: farm worker)")
        return (f"({', '.join(f'{n} is quarantined: {bad[n]}' for n in held)}; once fixed: "
                + "; ".join(f"farm devices --broker {mask_url(self.url)} --release {n}"
                            for n in held) + ")")

    def _busy_here(self, pool: str, leases: dict) -> int:
        """How many devices of ``pool`` are busy with this run's cases (their leases say so
        before the run has heard those cases start)."""
        platform, _, group = pool.partition(".")
        return sum(1 for lease in leases.values()
                   if lease.get("platform") == platform and lease.get("state") == "busy"
                   and lease.get("run") == self.run_id and not lease.get("draining")
                   and (not group or lease.get("group") == group))

    def _workers_elsewhere(self, platform: str) -> str:
        """The other databases (0-15) of the run's Redis where `farm worker`s of ``platform``
        hold leases, as masked URLs ("redis://…/0"), "" if none: a run on /3 with its workers
        on /0 waited for a worker that could never come, saying only to start one. Looked at
        once a run per platform (at most 15 SCANs of one key pattern)."""
        said = getattr(self, "_elsewhere", None)
        if said is None:
            self._elsewhere = said = {}
        if platform not in said:
            said[platform] = self._leases_on_other_dbs(platform)
        return said[platform]

    def _leases_on_other_dbs(self, platform: str) -> str:
        """See `_workers_elsewhere`: "" when no other database has such a lease."""
        here = int(self.r.connection_pool.connection_kwargs.get("db") or 0)
        found, here_machine = [], store.this_machine()
        for db in (n for n in range(16) if n != here):
            try:
                other = store.connect(_on_db(self.url, db))
                if any(_live_lease_of(other.get(k), platform, here_machine)
                       for k in other.scan_iter(match=key("lease", "*"), count=1000)):
                    found.append(db)
                other.close()
            except Exception:       # (a Redis of fewer databases: the rest are not)
                break
        return " and ".join(_on_db(mask_url(self.url), db, shown=True) for db in found)

    def _say_waiting(self, pool: str, wait: float, starting: list[str] | None = None,
                     busy: int = 0) -> None:
        """Once per pool, on stderr: the run waits for a worker (it would be silent until its
        jobs fail after FARM_CLUSTER_DEVICE_WAIT). ``starting``: the pool's devices opening
        (a killed device process its supervisor started again): the run waits for them, and
        says so, not "none usable left" (said once more if the pool is left with none).
        ``busy``: the pool's devices busy with this run's cases: said so, not "none usable
        left" (said once more if they go)."""
        if busy:
            said: Any = (pool, "busy")
            if said not in self._said_waiting:
                self._said_waiting.add(said)
                log.info("waiting for a %s device: its %d device(s) are busy with this run's "
                         "cases", pool, busy)
            return
        said = (pool, "starting") if starting else pool
        if said in self._said_waiting:
            return
        self._said_waiting.add(said)
        platform, _, group = pool.partition(".")
        what = f"{_a(platform)} {platform} worker" + (f" of group {group}" if group else "")
        state = "none usable left" if pool in self._pool_served else "none in the cluster yet"
        if starting:
            state = f"{', '.join(starting)} {'is' if len(starting) == 1 else 'are'} starting"
        print(f"farm: waiting for {what} ({state}; FARM_CLUSTER_DEVICE_WAIT={wait:g}s)",
              file=sys.stderr, flush=True)
        log.warning("waiting for %s (%s)", what, state)

    def _say_versions(self, pools: dict[str, list[dict]]) -> None:
        """Once per device, on stderr: a worker of a pool this run uses runs another farm
        version (one that cannot read the run's jobs drops them, and the run could only say
        they vanished from the broker), or the same version from another commit, or the same
        commit locally edited on one side (its build: `farm.metrics.build_version`; before,
        only a different version number was said)."""
        for pool in sorted(self._queue):
            for lease in pools.get(pool, []):
                name, other = lease.get("device", "?"), _other_version(lease)
                if other is None or name in self._said_version:
                    continue
                self._said_version.add(name)
                mine = _this_run(lease)
                print(f"farm: warning: worker {name} runs {other}, this run farm {mine}: it "
                      f"may not read this run's cases (run the same farm version on every "
                      f"worker and client)", file=sys.stderr, flush=True)
                log.warning("worker %s runs %s, this run farm %s", name, other, mine)

    def _say_busy(self, pool: str, devices: list[dict]) -> None:
        """Once per pool, on stderr: the run has cases to run but none running, the pool's
        devices busy with other runs (the older keeps what it has; fair share hands ours
        devices as theirs free up). Before, such a run waited in silence."""
        others = {d.get("run") for d in devices
                  if d.get("state") == "busy" and d.get("run") not in (None, self.run_id)}
        if not others or pool in self._said_busy:
            return
        self._said_busy.add(pool)
        platform, _, group = pool.partition(".")
        what = f"{platform} device(s)" + (f" of group {group}" if group else "")
        print(f"farm: waiting: the {len(devices)} {what} are busy with {len(others)} other "
              f"run(s)", file=sys.stderr, flush=True)
        log.info("waiting: the %d %s are busy with other runs", len(devices), what)

    def _drain_events(self, wait: float) -> None:
        self.inbox.drain(self.r, wait, self._handle)

    def _handle(self, ev: dict[str, Any]) -> None:
        kind = ev.get("type")
        if kind == "step":
            try:
                record = StepRecord.model_validate(wire.masked(ev["record"], self.services.mask))
            except ValidationError as exc:      # (its case's result has it, or says why)
                log.warning("step of %s attempt %s from %s not read: %s", ev.get("case"),
                            ev.get("attempt"), ev.get("device"), _unreadable(exc))
                return
            if self._step_of(ev, record):       # (a lost attempt's, late: on no row)
                self.events.step_finished(ev["device"], record)
            return
        if kind == "spend":
            self._spend_of(ev)
            return
        if kind == "file":      # (a worker of an older farm sends none: the journal guesses)
            inf = self._inflight.get(ev.get("case", ""))
            if inf is not None and inf.job.attempt == ev.get("attempt"):
                self.events.file_started(ev["device"], inf.job.case_id, str(ev.get("file")),
                                         started=str(ev.get("started") or ""))
            return
        if kind == "device_state":      # (quarantine is read from Redis each tick too)
            if ev.get("state") == "dead":
                self._device_died(ev)
            elif ev.get("state") == "quarantined":
                self._quarantined(ev)
            return
        inf = self._inflight.get(ev.get("case", "")) or (
            self._adopt(ev.get("case", ""), ev.get("attempt")) if kind == "case_started" else None)
        if inf is None or inf.job.attempt != ev.get("attempt"):
            log.info("ignoring %s for %s attempt %s: not awaited (late or duplicate)",
                     kind, ev.get("case"), ev.get("attempt"))
            return
        if kind == "case_started":
            inf.device, inf.seen, inf.claimed = ev["device"], self.clock(), False
            self._benched.discard(ev["device"])     # (released since)
            inf.started, inf.began = ev.get("started") or now_iso(), self.clock()
            self._device_back(ev["device"])
            case = self.cases[inf.job.case_id]
            self.events.case_started(ev["device"], inf.job.case_id, case.name,
                                     inf.job.attempt, started=inf.started)   # (its worker's clock, as its steps)
            self.events.device_state(ev["device"], "busy", inf.job.case_id)
        elif kind == "case_finished":
            # (one not written, a full disk: said once at the end, as a local run's; the
            # write's OSError was taken for the broker's: the result lost, the run waiting)
            wire.save_artifacts(self.services.artifacts.run_dir, ev.get("artifacts") or {},
                                self.services.artifacts.not_written)
            self._untaken(ev)
            self._record(inf.job, _built_by(ev, self._result_of(ev, inf)), ev["device"])
            if ev["device"] not in self._down | self._benched:  # (out in it: said before)
                self.events.device_state(ev["device"], "idle")

    def _untaken(self, ev: dict[str, Any]) -> None:
        """The report images a worker's device could not take in the attempt, counted for the
        run's end as a local run's are (`ArtifactStore.not_taken`): said once, the first
        reason; before, only the worker's stderr said them."""
        try:
            count = min(int(ev.get("untaken") or 0), 100_000)
        except (TypeError, ValueError):
            return
        mask = self.services.mask or (lambda text: text)
        why = DeviceError(mask(str(ev.get("untaken_why") or "its screenshot failed")))
        for _ in range(count):
            self.services.artifacts.not_taken(str(ev.get("untaken_device") or ev["device"]), why)

    def _result_of(self, ev: dict[str, Any], inf: _Inflight) -> CaseResult:
        """The attempt's result as its worker sent it. One this farm cannot read (a worker of
        another farm version: a status this one does not know) ends the attempt as an error
        saying so, with what the run heard of it (its steps); it ended the run with a
        traceback, every other case's result lost."""
        from farm import __version__
        try:
            return CaseResult.model_validate(wire.masked(ev["result"], self.services.mask))
        except ValidationError as exc:
            why = (f"the result {ev.get('device')} sent cannot be read by farm {__version__} "
                   f"(does that worker run another farm version?): {_unreadable(exc)}")
            log.error("%s attempt %d: %s", inf.job.case_id, inf.job.attempt, why)
            return self._so_far(inf, "error", self.clock(), InternalError(why))

    def _step_of(self, ev: dict[str, Any], record: StepRecord) -> bool:
        """Keep a step reported for an attempt in flight (if it ends here, it ends with it);
        False when the run awaits no such attempt (lost, or ended)."""
        inf = self._inflight.get(ev.get("case", ""))
        if inf is None or inf.job.attempt != ev.get("attempt"):
            return False
        inf.steps.append(record)
        inf.spending = None         # (its usage is the record's)
        inf.seen = max(inf.seen, self.clock())
        return True

    def _spend_of(self, ev: dict[str, Any]) -> None:
        """Keep what the step in progress of an attempt in flight has spent so far (paid for
        even if the attempt is lost before the step ends); one sent before the last step
        reported (``after`` fewer steps) is that step's, whose record has it."""
        inf = self._inflight.get(ev.get("case", ""))
        if inf is None or inf.job.attempt != ev.get("attempt") or ev.get("after") != len(
                inf.steps):
            return
        try:
            inf.spending = Usage.model_validate(ev.get("usage"))
        except ValueError:
            return
        inf.seen = max(inf.seen, self.clock())

    def _adopt(self, case_id: str, attempt: Any) -> _Inflight | None:
        """A job taken back (``_check_unstarted``) that a device started after all, from the
        copy still in the broker: it is in flight again (the copy sent later is dropped)."""
        q = self._queue.get(self._pool_of.get(case_id, ""), [])
        job = next((j for j in q if j.case_id == case_id and j.attempt == attempt), None)
        if job is None:
            return None
        q.remove(job)
        now = self.clock()
        self._inflight[case_id] = _Inflight(job, now, seen=now)
        return self._inflight[case_id]

    def _record(self, job: Job, result: CaseResult, device: str) -> None:
        self._inflight.pop(job.case_id, None)
        self.outcome.last_end = self.clock()
        retry = self.ledger.record(job, result, device)
        why = self.ledger.stopped(job.case_id)
        metrics.attempt_ended(job.platform, result, retry is not None and why is None)
        if retry is not None and why is not None:
            self.ledger.end(retry, "skipped", reason=why)
        elif retry is not None:
            pool = self._pool_of[job.case_id]
            self._queue[pool] = enqueue(self._queue[pool], retry)

    def _outage_too_long(self, exc: BaseException) -> bool:
        """Note that the broker is unreachable (said once per outage); True once it has
        been for FARM_CLUSTER_OUTAGE_SECONDS."""
        import redis
        if isinstance(exc, redis.ReadOnlyError):    # connect again: to the new primary
            self.r.connection_pool.disconnect()
        now = self.clock()
        if self._outage is None:
            self._outage = now
            wait = self.settings.cluster_outage_seconds
            log.warning("broker unreachable (%s): waiting up to %gs", exc, wait)
            print(mask_urls_in(f"farm: the broker {mask_url(self.url)} does not answer "
                               f"({exc}): the run waits up to {wait:g}s for it "
                               "(FARM_CLUSTER_OUTAGE_SECONDS)"), file=sys.stderr, flush=True)
        return now - self._outage >= self.settings.cluster_outage_seconds

    def _say_back(self, now: float) -> None:
        """The broker answers again after an outage the run said it waits out: said on
        stderr as the wait was (before, the terminal heard of neither)."""
        away = now - (self._outage if self._outage is not None else now)
        log.warning("broker reachable again after %.0fs", away)
        print(f"farm: the broker answers again after {away:.0f}s: the run goes on",
              file=sys.stderr, flush=True)
        self._outage = None

    def _broker_down(self, exc: BaseException) -> None:
        if not self._outage_too_long(exc):
            time.sleep(1.0)     # polling an absent Redis: nothing to wait on but time
            return
        self._give_up(self._pending(), exc, self.settings.cluster_outage_seconds)

    def _pending(self) -> list[Job]:
        """The run's unfinished jobs: in flight, then queued."""
        return [inf.job for inf in self._inflight.values()] + [
            j for q in self._queue.values() for j in q]

    def _give_up(self, pending: list[Job], exc: BaseException, after: float = 0.0) -> None:
        """End every unfinished case as an error naming the broker; a case on a worker then
        keeps what it did (its start, time and the steps its worker reported), as a lost
        attempt does."""
        why = f"lost the broker {mask_url(self.url)}" + (f" for {after:g}s" if after else "")
        why += f": {exc}"
        if _not_permitted(exc):
            why = store.refused(self.url, _refusal(exc) or exc)
            print(f"farm: error: {why}", file=sys.stderr, flush=True)
        elif after:         # (the wait said it waits up to that long: it says it stopped)
            print(f"farm: error: the broker {mask_url(self.url)} did not answer for "
                  f"{after:g}s (FARM_CLUSTER_OUTAGE_SECONDS): the cases left end as errors",
                  file=sys.stderr, flush=True)
        log.error("%s", why)
        now = self.clock()
        for job in pending:
            inf = self._inflight.get(job.case_id)
            if inf is not None and inf.job is job:
                self.ledger.keep(job, self._so_far(inf, "error", now, BrokerLost(why)),
                                 inf.device or "-")
            else:
                self.ledger.end(job, "error", error=BrokerLost(why))
        self._inflight.clear()
        for q in self._queue.values():
            q.clear()
        self._stopping = True


def _claim_age(ttl_ms: int, since_sent: float) -> float:
    """How long ago an attempt was claimed, from its claim's TTL left (ms). A claim cannot be
    older than the attempt's sending: one that reads so was set with another TTL than this
    farm's (a worker of an earlier farm, whose claims lived 4 h: a claim it made a moment ago
    read as 21 h old, and the run took a worker just starting the case for one that died
    right after taking it, and ran it again elsewhere). Its age is then unknown: 0, the lease
    grace counting from now."""
    age = max(store.CLAIM_TTL_S - ttl_ms / 1000, 0.0) if ttl_ms > 0 else 0.0
    return age if age <= since_sent + 1.0 else 0.0


def _other_version(lease: dict[str, Any]) -> str | None:
    """The farm a worker runs when it is not this run's ("an earlier farm" for one whose
    lease does not say: those predate the version in the lease); None when the same. The
    same version is told apart by the lease's ``build`` (``0.1.0+<commit>[.dirty]``): another
    commit is said as that build, the same commit with uncommitted edits on one side as
    "locally edited". A build without a commit on either side (no checkout, no wheel record)
    tells nothing: not said."""
    from farm import __version__
    version = lease.get("version")
    if version != __version__:
        return f"farm {version}" if isinstance(version, str) and version else "an earlier farm"
    build, mine = lease.get("build"), _run_build()
    if not isinstance(build, str) or build == mine or "+" not in build or "+" not in mine:
        return None
    if build.removesuffix(".dirty") == mine.removesuffix(".dirty"):
        edited = "the worker's" if build.endswith(".dirty") else "this run's"
        return f"farm {build} (the same commit, {edited} checkout locally edited)"
    return f"farm {build} (another commit)"


def _built_by(ev: dict[str, Any], result: CaseResult) -> CaseResult:
    """``result`` with the farm build of the worker that ran it in its ``device_info`` when
    that is not this run's ("Chromium 156.0 (worker farm 0.1.0+efee4000409f.dirty)"): which
    code ran each case, in results.json and the report, where a run beside workers of other
    commits said only its own version."""
    build = ev.get("build")
    if not isinstance(build, str) or not build or build == _run_build():
        return result
    said = f"worker farm {build[:80]}"
    info = f"{result.device_info} ({said})" if result.device_info else said
    return result.model_copy(update={"device_info": info})


@functools.cache
def _run_build() -> str:
    """This run's farm build (``0.1.0+<commit>[.dirty]``; just the version without a
    commit)."""
    return metrics.build_version()


def _this_run(lease: dict[str, Any]) -> str:
    """This run's farm, as said beside a worker's: its version beside another version, its
    build beside another build of the same version."""
    from farm import __version__
    return _run_build() if lease.get("version") == __version__ else __version__


def _versions_differ(devices: list[dict[str, Any]]) -> str:
    """Why a job may have vanished: the devices of its pool that run another farm version
    or build (one that cannot read this run's jobs drops them unclaimed), as words for its
    error."""
    other = {d.get("device", "?"): (v, _this_run(d)) for d in devices
             if (v := _other_version(d))}
    if not other:
        return ""
    runs = ", ".join(f"{name} runs {v}" for name, (v, _) in sorted(other.items()))
    mine = " or ".join(sorted({m for _, m in other.values()}))
    return (f" ({runs}; this run farm {mine}: a worker of another version may not "
            f"read its jobs — run the same farm version on every worker and client)")


def _replaced(inf: _Inflight, holder: dict[str, Any]) -> bool:
    """Does a process started after the one running ``inf`` hold its device's name now (its
    supervisor started it again)? Its lease's ``since`` is later than that of the lease seen
    running the attempt or, that never seen, than the attempt's start (both times from that
    device's host). An older holder is not one: the name taken twice, the later gives it up."""
    since = holder.get("since")
    if not isinstance(since, (int, float)):
        return False
    if inf.since is not None:
        return since > inf.since
    began = timestamp(inf.started)
    return began is not None and since > began


def _starting(pool: str, leases: dict, bad: dict) -> list[str]:
    """The devices of ``pool`` whose worker is opening them (usable in a moment)."""
    platform, _, group = pool.partition(".")
    return sorted(n for n, lease in leases.items() if lease.get("state") == "starting"
                  and n not in bad and not lease.get("draining")
                  and lease.get("platform") == platform
                  and (not group or lease.get("group") == group))


def _a(word: str) -> str:
    """The article before ``word`` (a web worker, an ios worker, an android worker)."""
    return "an" if word.lower().startswith(tuple("aeiou")) else "a"


def _unreadable(exc: ValidationError) -> str:
    """What of a worker's event this farm could not read: "steps.0.status: Input should be
    'passed', … (got 'warned')"."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where}: {first.get('msg')} (got {first.get('input')!r:.60})"


def _say_refused(exc: BaseException, url: str) -> None:
    """A ConfigError (exit 4, one line) for the broker's ACL refusing the run's user a command
    or key it needs (NOPERM) as the run starts, where it ended as an internal error (exit 3)."""
    from farm.errors import ConfigError
    if _not_permitted(exc):
        raise ConfigError(store.refused(url, _refusal(exc) or exc)) from None


def _not_permitted(exc: BaseException) -> bool:
    """The broker's ACL refuses the run's user a command, key or channel (NOPERM)."""
    return _refusal(exc) is not None


def _refusal(exc: BaseException | None) -> BaseException | None:
    """The NOPERM ``exc`` is or was raised from: sending a job, Celery wraps it in kombu's
    OperationalError, which reads as an outage (Redis answered the next PING, the run sent
    again, for ever: `farm run` hung without a word)."""
    from redis.exceptions import NoPermissionError
    for _ in range(10):         # (a chain of causes; a cycle ends here too)
        if exc is None or isinstance(exc, NoPermissionError):
            return exc
        if (multi := store.multi_refused(exc)) is not None:
            return multi
        exc = exc.__cause__ or exc.__context__
    return None


def _is_redis_error(exc: BaseException) -> bool:
    """The broker is unreachable (redis-py's errors; Celery's, sending a job: kombu's), or
    refuses writes for now (over its maxmemory; a replica after a failover): an outage,
    waited for, not a traceback that ended the run."""
    import redis
    from kombu.exceptions import OperationalError
    return isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError,
                            OperationalError, redis.OutOfMemoryError, redis.ReadOnlyError))


def check_broker(settings: Settings) -> None:
    """The run's broker answers PING before the run starts. One that does not (refused,
    unreachable, timing out: Redis restarting as a CI job starts) is waited for as a running
    run waits for it (FARM_CLUSTER_OUTAGE_SECONDS, said once; BrokerLost, exit 3, if it stays
    away): an infrastructure error, not the user's. What no wait mends is a ConfigError (exit
    4) at once: a URL Redis or Celery cannot take, a refused password or ACL, a host name
    that does not resolve (a typo more likely). Before, a broker no run from this state dir
    had reached was exit 4 at once, whatever the cause, blaming the user's configuration."""
    # (BrokerLost when it stays away: the run's cases end "not run", each an error naming it,
    # exit 3, no case counted in the metrics: `farm.session._not_run`)
    store.check(settings.broker_url.get_secret_value(), wait=settings.cluster_outage_seconds,
                who="farm", typo_names=True)


def _on_db(url: str, db: int, shown: bool = False) -> str:
    """``url`` naming database ``db`` (a ``db`` in its query too); ``shown``: just the server
    and database, as a message names them ("redis://…/0")."""
    from urllib.parse import parse_qsl, urlencode, urlsplit
    parts = urlsplit(url)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "db"]
    query = "" if shown else urlencode(kept)
    return parts._replace(path=f"/{db}", query=query, fragment="").geturl()


def _live_lease_of(raw: str | None, platform: str, machine: dict[str, str]) -> bool:
    """A lease of a device of ``platform`` not left by a dead process of this machine."""
    import json
    import os
    try:
        lease = json.loads(raw or "")
    except ValueError:
        return False
    if not isinstance(lease, dict) or lease.get("platform") != platform:
        return False
    if (lease.get("host"), lease.get("boot")) != (machine["host"], machine["boot"]):
        return True
    try:
        os.kill(int(lease.get("pid") or 0), 0)
    except ProcessLookupError:
        return False        # killed: its lease not yet expired
    except (OSError, ValueError, TypeError):
        pass
    return int(lease.get("pid") or 0) > 0


def _last_beat(lease: dict[str, Any], now: float) -> float:
    """When (our clock, ``now`` being the time of the look) the lease was last renewed by
    its worker (its ``beat``, the worker's wall clock; at most the lease's TTL ago, so a
    skewed clock cannot move it further); ``now`` for a lease without one (an older farm)."""
    beat = lease.get("beat")
    if not isinstance(beat, (int, float)):
        return now
    return now - min(max(time.time() - beat, 0.0), store.LEASE_TTL_S)
