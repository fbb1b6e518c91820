"""DeviceRuntime: the device a worker process is attached to — its `DeviceSlot`, its lease and
heartbeat in Redis — and one case attempt as the Celery task runs it.

Exactly-once per attempt: the client numbers attempts; the first worker to start an attempt
claims it with SET NX, so a redelivered message (worker lost, visibility timeout passed) is
dropped instead of run twice. Results are pushed as events keyed run/case/attempt (by the
`Outbox`'s thread: a case never waits for Redis); the client keeps the first one per attempt
it is still waiting for. While a case runs, a watcher asks every half second whether its run
is over (ended, interrupted, its client gone) and stops the case at once if so.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable

from farm import metrics, scratch
from farm.attempts import QUARANTINE_REASON, Outcome
from farm.cluster import jobs as wire
from farm.cluster import queues, store
from farm.cluster.store import key
from farm.config import Settings
from farm.devices.specs import build_device
from farm.evidence import flush_images
from farm.executors.base import NullEvents
from farm.results import ArtifactStore, CaseResult, StepRecord, now_iso, storable
from farm.runner import Services, case_variables
from farm.schedule import Job
from farm.slot import DeviceSlot
from farm.suite.model import Case
from farm.suite.vars import Variables
from farm.usage import Usage
from worker.log_mask import SECRETS
from worker.outbox import NOPERM, OUTAGE, PUBLISH_PATIENCE_S, REFUSED, Outage, Outbox

log = logging.getLogger("farm.worker")

WATCH_S = 0.5           # how often a running case asks whether its run is still there
SPEND_S = 0.1           # how often its model spend mid-step is looked at (sent when it grew)
KILL_AFTER_S = 1.0      # a case still running this long after its run ended: kill the device
# the heartbeat refused by the broker's ACL (NOPERM), said as an outage is: once, every 30 s
LEASE_REFUSED = Outage(what="the lease", down="not renewed", back="renewed again")


def retrying(fn: Callable[[], Any], patience: float = PUBLISH_PATIENCE_S) -> Any:
    """Call ``fn`` until Redis answers (it may be restarting), up to ``patience`` seconds."""
    import redis
    deadline = time.monotonic() + patience
    while True:
        try:
            done = fn()
            OUTAGE.answered()
            return done
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            if time.monotonic() > deadline:
                raise
            OUTAGE.failed(str(exc))
            time.sleep(1.0)     # polling an absent Redis: nothing to wait on but time


def target_id(kind: str, target: str) -> str:
    """The phone behind ``target`` as the cluster knows it (its ``target`` lease): an adb serial
    is one phone on one adb server (this host's), a WDA URL on loopback one on this host."""
    host = socket.gethostname()
    if kind == "android":
        from farm.devices.android import adb_client
        adb = adb_client(socket_timeout=5)
        return f"adb:{host}:{adb.host}:{adb.port}/{target}"
    from urllib.parse import urlsplit
    local = (urlsplit(target).hostname or "") in ("127.0.0.1", "localhost", "::1")
    return f"wda:{host}/{target}" if local else f"wda:{target}"


def own_env() -> dict[str, str]:
    """The worker's own environment as a case's variables: a secret the run left to its workers
    (`farm.suite.vars.from_workers`) is read here or from the worker's FARM_SECRETS_DIR
    (``services.settings.secrets_dir``); its ``FARM_*`` settings (the broker's password, a
    model key) are never a case's."""
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("FARM_")}


def learn_secrets(case: Case, services: Services, run_secrets: Iterable[str] = ()) -> None:
    """Have this process's log mask the secrets of ``case`` (each file of a shared-context
    unit's) from now on: the values its steps type and a page can show back. The case's
    records, its model requests and its cache entries get the run's mask (``services.mask``):
    a name any case of the run declares secret (``run_secrets``, sent with the task) is secret
    in this one too, as in a local run (`farm.session`'s ``_every_secret``): its ``${NAME}``
    is what the model reads, never its value."""
    names = list(run_secrets)
    parts = []
    for each in (case, *case.parts):
        try:
            parts.append(case_variables(each.model_copy(update={"secrets": [
                *each.secrets, *names]}), services))
        except Exception:   # (a secrets dir it cannot read: the case ends with it, said there)
            continue
    run = Variables.joined(parts)
    SECRETS.learn(run)
    services.mask, services.hides = run.mask, run.hides


class RedisStreak:
    """A device's infra-error streak in Redis: it survives a worker restart."""

    def __init__(self, r: Any, device: str) -> None:
        self.r, self.key = r, key("streak", device)

    def bump(self, result: Outcome) -> int:
        if result is Outcome.INFRA:
            return int(retrying(lambda: self.r.incr(self.key)))
        retrying(lambda: self.r.delete(self.key))
        return 0


class RunGone:
    """Has the run of this case ended? Yes when its client said so (``ended`` key), or when
    the client has not been heard of for longer than a run's TTL. A run key missing for a
    moment is no reason: after a Redis restart the client re-announces it within a tick."""

    def __init__(self, r: Any, run_id: str, every: float = WATCH_S) -> None:
        self.r, self.run_id, self.every = r, run_id, every
        self.last_check = time.monotonic()
        self.missing_since: float | None = None

    def check(self) -> bool:
        now = time.monotonic()
        if now - self.last_check < self.every:
            return False
        self.last_check = now
        try:
            if self.r.exists(key("ended", self.run_id)):
                return True
            if self.r.exists(key("run", self.run_id)):
                self.missing_since = None
                return False
        except Exception as exc:      # Redis away: the case goes on, its result waits
            log.info("cannot check run %s: %s", self.run_id, exc)
            return False
        self.missing_since = self.missing_since or now
        return now - self.missing_since > store.RUN_TTL_S


class _RunEvents(NullEvents):
    """The slot's events, sent to the client of the run being served."""

    def __init__(self, runtime: "DeviceRuntime") -> None:
        self.runtime = runtime
        self.run_id = ""
        self.case, self.attempt = "", 0      # the attempt running (its steps name it)
        self.reported = 0                    # its steps sent so far
        self._spent: Usage | None = None     # the spend of the step it is in, as last sent
        self._lock = threading.Lock()        # a step and a spend go out in the order made

    def device_state(self, device: str, state: str, detail: str = "") -> None:
        if state == "restarting":       # (dead, quarantined: the slot says so itself)
            log.warning("device %s restarting: %s", device, detail)
            self.runtime.set_state(state="restarting", detail=detail)   # (`farm devices`)

    def case_started(self, device: str, case_id: str, name: str, attempt: int,
                     started: str = "") -> None:
        with self._lock:
            self.case, self.attempt, self.reported, self._spent = case_id, attempt, 0, None
            self.runtime.publish(self.run_id, {"type": "case_started", "case": case_id,
                                               "attempt": attempt, "device": device,
                                               "started": now_iso()})

    def step_finished(self, device: str, record: StepRecord) -> None:
        with self._lock:
            self.runtime.publish(self.run_id, {"type": "step", "device": device,
                                               "case": self.case, "attempt": self.attempt,
                                               "record": record.model_dump(mode="json")})
            self.reported += 1
            self._spent = None

    def file_started(self, device: str, unit_id: str, file_id: str) -> None:
        with self._lock:
            self.runtime.publish(self.run_id, {"type": "file", "device": device,
                                               "case": self.case, "attempt": self.attempt,
                                               "file": file_id, "started": now_iso()})

    def spending(self, device: str, running: Any) -> None:
        """Send what the step in progress of ``running`` (a case attempt, `farm.runner`'s
        ``_CaseRun``) has spent on the model so far, when that changed. A step's usage goes
        out with it once it ends; an attempt lost before that (its process killed mid-step)
        had paid for these calls all the same, and the run counts them (``after``: the steps
        sent before: the client takes the spend of the step it awaits, not of one it has)."""
        if running is None:
            return
        with self._lock:
            if running.job.attempt != self.attempt:
                return
            done = Usage()
            for rec in list(running.records):
                if rec.usage is not None:
                    done.add(rec.usage)
            spent = running.agent.usage.minus(done)
            if not spent.spent or spent == self._spent:
                return
            self._spent = spent
            self.runtime.publish(self.run_id, {"type": "spend", "device": device,
                                               "case": self.case, "attempt": self.attempt,
                                               "after": self.reported,
                                               "usage": spent.model_dump(mode="json")})


def _device_healthy(runtime: Any, healthy: bool | None) -> None:
    """farm_device_healthy of a device that serves (idle or busy): ``healthy``, or None for
    what `DeviceRuntime.ready` says (Redis away: 0, as /ready is 503)."""
    state = getattr(runtime, "state", None) or {}
    if state.get("state") in ("idle", "busy"):
        ok = runtime.ready() if healthy is None else healthy
        metrics.device_healthy(runtime.platform, runtime.name, ok)


class HandedArtifacts(ArtifactStore):
    """A task's image store, which also keeps the report images its device could not take
    (`ArtifactStore.not_taken`) for the run's client: the run's end says them as a local run's
    does (they were said on the worker's stderr only)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._untaken_lock = threading.Lock()
        self.untaken: tuple[int, str, str] = (0, "", "")    # how many; the first's device, why

    def not_taken(self, device: str, exc: BaseException, *args: Any, **kw: Any) -> Any:
        said = super().not_taken(device, exc, *args, **kw)
        if not isinstance(said, str):       # (the first line of what the device raised)
            said = (str(exc).strip() or type(exc).__name__).splitlines()[0]
        with self._untaken_lock:
            count, first, why = self.untaken
            self.untaken = (count + 1, first or device, why or said)
        return said

    def untaken_event(self) -> dict[str, Any]:
        """What a ``case_finished`` event carries of them (nothing when there were none)."""
        count, device, why = self.untaken
        return {"untaken": count, "untaken_device": device, "untaken_why": why} if count else {}


class NotReady(Exception):
    """The device could not be made ready for an attempt it was given: the attempt is given
    back to the broker untried (worker.tasks rejects its message, requeued) for another
    device, and this process drains."""


class DeviceRuntime:
    """One device, one worker process. Tasks call :meth:`execute` from the worker's thread."""

    def __init__(self, settings: Settings, kind: str, platform: str, group: str, name: str,
                 target: str = "", index: int = 0, supervisor: int = 0) -> None:
        self.settings = settings
        self.r = store.connect(settings.broker_url.get_secret_value())
        self.kind, self.platform, self.group, self.name = kind, platform, group, name
        self.target, self.index = target, index
        self.supervisor = supervisor    # its `farm worker`'s pid (in the lease: see claim_name)
        self.target_key = target_id(kind, target) if target else ""   # taken by worker.main
        self.token = os.urandom(8).hex()
        self.since = time.time()        # when it took the name: an earlier holder keeps it
        self.name_lost = False          # another process holds the name (see _write_lease)
        self.machine = store.this_machine()     # lets a successor tell we are dead
        self.build = metrics.build_version()    # `farm devices` tells an out-of-date worker
        self.state: dict[str, Any] = {"state": "starting"}
        self.events = _RunEvents(self)
        self.outbox = Outbox(self.r, url=settings.broker_url.get_secret_value())
        self.slot: DeviceSlot | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._draining = False
        self._said_dead = ""             # the run told this device died (`_say_dead`)
        self._cache: Any = None          # the cache store, shared by every task of this device
        self._models: Any = None         # the model clients, likewise (see `_warm_models`)
        metrics.serves_only_if(lambda: OUTAGE.since is None)    # (as `ready` says)

    # ---- lease -------------------------------------------------------------------------------
    def lease_info(self) -> dict[str, Any]:
        about = (self.slot.about or "") if self.slot is not None else ""
        with self._lock:
            return {"device": self.name, "kind": self.kind, "platform": self.platform,
                    "group": self.group, **self.machine, "pid": os.getpid(),
                    "supervisor": self.supervisor,
                    "token": self.token, "since": self.since,
                    "draining": self._draining, "about": about, "build": self.build,
                    "beat": time.time(),    # (a run times a lost attempt until then)
                    "target": self.target,
                    **self.state}

    def ready(self) -> bool:
        """Can this device take work (the /ready probe)? Opened, not draining, and its broker
        answers (while Redis is away its Celery consumer reads nothing: the heartbeat, every
        2 s, found it away and has not found it back since)."""
        if OUTAGE.since is not None:
            return False
        with self._lock:
            return self.state.get("state") in ("idle", "busy") and not self._draining

    def set_state(self, **state: Any) -> None:
        with self._lock:
            self.state = state
        try:
            self._write_lease()
            self._beat()
        except Exception as exc:   # the heartbeat thread will write it again
            log.warning("lease update failed: %s", exc)

    def _beat(self) -> None:
        """farm_worker_heartbeat_timestamp_seconds: now, while this process holds its name; not
        once it lost it (its lease is another process's, not renewed: a dashboard's staleness
        alert must see this device's time stand still while it drains)."""
        if not self.name_lost:
            metrics.heartbeat(self.name, time.time())

    def _write_lease(self) -> None:
        """Refresh the lease; if another process has held the name since before this one took
        it (both started while the lease was gone: Redis lost its data, or this process stood
        still past the TTL), give the name up: drain, then exit for the supervisor to start
        this device again under a free name (worker.main.EXIT_NAME_LOST), rather than serve
        as a second device of that name (each would hide the other's cases)."""
        if store.refresh_lease(self.r, self.name, self.lease_info()) or self.name_lost:
            return
        self.name_lost = True
        raw = self.r.get(key("lease", self.name))
        pid = json.loads(raw).get("pid", "?") if raw else "?"
        print(f"farm worker: {self.name}: another process ({pid}) has held this name since "
              f"before this one took it (Redis lost its data, or this process stood still "
              f"past its lease): starting again under a free name", file=sys.stderr, flush=True)
        self._draining = True
        os.kill(os.getpid(), signal.SIGTERM)     # warm shutdown: a case in progress finishes

    def start(self) -> None:
        """Open the device (this thread owns it from now on) and heartbeat its lease (and its
        phone's) from before it opens: a slow phone must not lose them meanwhile. Its case
        folders, and Playwright's and Chromium's, go in a scratch folder of its own (one a
        process killed hard left is removed as the next starts: `farm.scratch`)."""
        scratch.own()
        device = build_device(self.kind, self.name, self.settings, self.target, self.index)
        self.slot = DeviceSlot(device, self._services("", Path(tempfile.gettempdir())),
                               self.events, RedisStreak(self.r, self.name))
        threading.Thread(target=self._heartbeat, name="lease", daemon=True).start()
        slot_log = logging.getLogger("farm.slot")
        level = slot_log.level
        slot_log.setLevel(logging.ERROR)    # why it could not start: said once, by the caller
        try:                                # (worker.main), not by the slot's log as well
            opened = self.slot.open()
        finally:
            slot_log.setLevel(level)
        if not opened:
            raise RuntimeError(self.slot.detail)
        self._warm_models()
        self.set_state(state="starting")    # idle once its Celery consumer reads its queues
        self._sweep_queues()

    def _sweep_queues(self) -> None:
        """Forget the queues of devices gone for a day (`farm.cluster.queues.sweep`)."""
        try:
            gone = queues.sweep(self.r)
        except Exception as exc:        # (a later start sweeps them)
            log.warning("cannot sweep the queues of departed devices: %s", exc)
            return
        if gone:
            log.info("forgot the queues of %d device(s) gone for a day: %s", len(gone),
                     ", ".join(gone))

    def consuming(self) -> None:
        """Its Celery consumer reads its queues now (Celery's worker_ready): the device is idle.
        Said so before, a run counted a job sent to it as lost 20 s on while a consumer slow to
        start (a restarted device on a busy machine) had not yet read it."""
        if self.state.get("state") == "starting":
            self.set_state(state="idle")

    def _warm_models(self) -> None:
        """Build the model clients before the device says it is ready: litellm takes seconds
        to import, and the first case of each device process paid for it on its own clock (a
        case of ``timeout: 2`` that a local run passes timed out there, and the durations in
        the report and the cluster's history were seconds too long). Not built here (a setting
        litellm refuses): each case tries again, and says why, as before."""
        assert self.slot is not None
        try:
            self._models = self.slot.services.models()
        except Exception as exc:
            log.warning("model clients not built: %s", exc)

    def _heartbeat(self) -> None:
        import redis
        while not self._stop.wait(store.HEARTBEAT_S):
            try:
                self._write_lease()
                if self.target_key:
                    store.refresh_target(self.r, self.target_key, self.name)
                self._beat()
                away = OUTAGE.since is not None
                OUTAGE.answered()
                if away:            # healthy again if it serves
                    _device_healthy(self, None)
            except (redis.ConnectionError, redis.TimeoutError, *REFUSED) as exc:
                if isinstance(exc, redis.ReadOnlyError):    # a replica now (failed over):
                    self.r.connection_pool.disconnect()     # connect again, to the primary
                OUTAGE.failed(f"heartbeat: {exc}")
                _device_healthy(self, False)    # (and /ready 503) while Redis is away
            except NOPERM as exc:       # the broker's ACL changed under it: said as an outage
                LEASE_REFUSED.failed(store.refused(    # (a line a beat before), back once
                    self.settings.broker_url.get_secret_value(), exc))     # granted again
            except Exception as exc:
                log.warning("heartbeat failed: %s", exc)
            else:
                LEASE_REFUSED.answered()

    @property
    def quarantined(self) -> bool:
        return self.slot is not None and self.slot.state == "quarantined"

    def stop(self) -> None:
        """Close the device and give up its leases; a quarantined device keeps its name's
        (its process waits for the release under it: worker.main.wait_released)."""
        self._stop.set()
        if self.slot is not None:
            self.slot.close()
        self._close_cache()
        scratch.leave()
        try:
            if not self.name_lost:      # (else its queue is the other process's now)
                queues.forget(self.r, self.name)    # before the name is free again
        except Exception as exc:        # (a worker's sweep forgets it a day on)
            log.warning("cannot forget the queue of %s: %s", self.name, exc)
        try:
            if not self.quarantined:
                store.release_lease(self.r, self.name, self.token)
            if self.target_key:
                store.release_target(self.r, self.target_key, self.name)
        except Exception:
            pass

    def _close_cache(self) -> None:
        """Close the cache store its tasks shared (cache.db: its write-ahead log checkpointed
        into the file) as the process ends: that end may skip the interpreter's exit handlers,
        which closed it (a device given up: `worker.main._leave`; a quarantined one started
        afresh: exec), and the entries its cases wrote stayed in cache.db-wal alone."""
        cache, self._cache = self._cache, None
        if cache is None:
            return
        try:
            cache.close()
        except Exception as exc:       # (closing is best effort: the process ends anyway)
            log.warning("cannot close the cache store: %s", exc)

    def draining(self) -> None:
        """SIGTERM: the current case finishes; clients stop counting this device."""
        # Runs inside the signal handler, on the thread that may hold _lock: no locking here.
        self._draining = True

    # ---- events ------------------------------------------------------------------------------
    def publish(self, run_id: str, event: dict[str, Any]) -> None:
        """Queue ``event`` for the run's client (sent in order by the outbox's thread)."""
        self.outbox.put(run_id, event)

    # ---- one attempt -------------------------------------------------------------------------
    def execute(self, payload: dict[str, Any]) -> str:
        """Run one case attempt described by ``payload``; return what happened (for logs)."""
        run_id, job, case = wire.read_payload(payload)
        claim = key("claim", run_id, job.case_id, str(job.attempt))
        if not retrying(lambda: self.r.exists(key("run", run_id))):
            return "dropped: the run is over"
        if retrying(lambda: self.r.exists(claim)):
            return "dropped: attempt already claimed (redelivery)"
        self._make_ready(run_id, job)   # (before the claim: an attempt given back is unclaimed)
        if not retrying(lambda: self.r.set(claim, self.name, nx=True, ex=store.CLAIM_TTL_S)):
            return "dropped: attempt already claimed (redelivery)"
        self.set_state(state="busy", run=run_id, case=job.case_id, attempt=job.attempt)
        self.events.run_id = run_id
        try:
            with tempfile.TemporaryDirectory(prefix="farm-case-", dir=scratch.here()) as tmp:
                services = self._services(run_id, Path(tmp), payload)
                learn_secrets(case, services, payload.get("secrets", ()))
                result = self._run_watched(job, case, services)
                flush_images([result], services.artifacts)   # (a step not written says so)
                artifacts = wire.encode_artifacts(Path(tmp))
        finally:
            self.set_state(state="idle")
        result = storable(result)
        self._say_out_of_service(run_id)    # (before the result, which may end the run)
        self.publish(run_id, {"type": "case_finished", "case": job.case_id,
                              "attempt": job.attempt, "device": self.name,
                              "build": self.build,  # (a run says a build other than its own)
                              "result": result.model_dump(mode="json"), "artifacts": artifacts,
                              **services.artifacts.untaken_event()})
        self.outbox.flush()     # handed in (Redis may be restarting) before the task is acked
        self._after(run_id, result)
        return result.status

    def _make_ready(self, run_id: str, job: Job) -> None:
        """Check the device before an attempt starts on it, restarting it once if it does
        not answer (as a local run does: `DeviceSlot.ready`). One that cannot be made ready
        gives the attempt back untried (`NotReady`) and its process drains: before, the
        attempt started on the dead device, ended "device … unusable" at once, and its retry
        was spent on a device that never ran it. The run is told the device died, and why
        (`_say_dead`)."""
        assert self.slot is not None
        if self.slot.services.cancel.is_set():  # (the last run's, stopped: a failed restart
            self.slot.services = self._services("", Path(tempfile.gettempdir()))  # is dead)
        if self.slot.usable and self.slot.ready(job):
            if self.state.get("state") != "idle":      # (restarted: the lease said so)
                self.set_state(state="idle")
            return
        why = f"{self.slot.state}: {self.slot.detail}" if self.slot.detail else self.slot.state
        log.error("device %s %s; %s attempt %d given back untried; draining", self.name, why,
                  job.case_id, job.attempt)
        self.set_state(state=self.slot.state, detail=self.slot.detail)
        self._say_dead(run_id, case=job.case_id, attempt=job.attempt)
        os.kill(os.getpid(), signal.SIGTERM)     # warm shutdown: no further job taken
        raise NotReady(f"device {self.name} {why}")

    def _say_dead(self, run_id: str, **given_back: Any) -> None:
        """Tell the run's client that this device is out of service for good (dead: it could
        not be restarted), and why: the run names it as a local run names a dead device
        (results.json ``lost``, the summary line, the report's banner) and says why its
        cases have no device left. ``given_back``: the attempt returned to the broker untried
        (case, attempt), which the client may take back at once."""
        assert self.slot is not None
        if self.slot.state != "dead" or self._said_dead == run_id:
            return
        self._said_dead = run_id
        self.publish(run_id, {"type": "device_state", "device": self.name, "state": "dead",
                              "detail": self.slot.detail or "dead", "platform": self.platform,
                              "group": self.group, **given_back})
        self.outbox.flush()     # handed in before this process drains and ends

    def _run_watched(self, job: Job, case: Case, services: Services) -> CaseResult:
        """The attempt, watched by a thread that stops it once its run is over."""
        assert self.slot is not None
        done = threading.Event()
        threading.Thread(target=self._watch_run, args=(services, done), name="run-watch",
                         daemon=True).start()
        try:
            return self.slot.run(job, case, services)
        finally:
            done.set()

    def _watch_run(self, services: Services, done: threading.Event) -> None:
        """A finished or interrupted run (Ctrl-C of `farm run`), or one whose client went
        away, stops its case within about a second, mid-step too: its waits are cancelled
        (sleep, model retries) and, if a step does not end on that, the device is killed, as a
        local run's Ctrl-C does. The device is then free for the next run's cases. Meanwhile
        it sends the model spend of the step in progress as it grows (`_RunEvents.spending`).
        """
        gone = RunGone(self.r, services.run_id)
        while not done.wait(SPEND_S):
            self._send_spend(services)
            if gone.check():
                break
        else:
            return
        log.warning("run %s is over: stopping its case on %s", services.run_id, self.name)
        self.outbox.forget(services.run_id)
        services.cancel.set()
        if not done.wait(KILL_AFTER_S) and self.slot is not None:
            log.warning("the case did not stop: killing device %s", self.name)
            self.slot.kill()

    def _send_spend(self, services: Services) -> None:
        """The spend of the step in progress to the run's client; a failure to read it is
        no reason to stop watching the run."""
        if self.slot is None:
            return
        try:
            self.events.spending(self.slot.name, services.in_flight.get(self.slot.name))
        except Exception as exc:
            log.debug("cannot read the spend of the step in progress: %s", exc)

    def _say_out_of_service(self, run_id: str) -> None:
        """A device this attempt took out of service, quarantined (cluster-wide: its
        infrastructure errors in a row) or dead (given up after kill()), said to the run's
        client BEFORE the attempt's result: the run may end on that result, and a notice after
        it came too late, the device then never named (results.json ``quarantined`` or
        ``lost``, the summary line, the report's banner)."""
        assert self.slot is not None
        if self.slot.quarantine_due:
            retrying(lambda: self.r.hset(key("quarantine"), self.name, QUARANTINE_REASON))
            self.slot.quarantine()
            self.set_state(state="quarantined")     # /ready 503; the lease says so
            self.publish(run_id, {"type": "device_state", "device": self.name,
                                  "state": "quarantined", "detail": QUARANTINE_REASON})
            self.outbox.flush()
        self._say_dead(run_id)      # (said once; only if it is dead)

    def _after(self, run_id: str, result: CaseResult) -> None:
        """Retire a device that must stop (quarantined or dead: said before the result,
        `_say_out_of_service`): drain (a quarantined device's process then waits for its
        release: worker.main.child)."""
        assert self.slot is not None
        if self.slot.usable:
            return
        log.error("device %s %s: %s; draining", self.name, self.slot.state, self.slot.detail)
        self.set_state(state=self.slot.state, detail=self.slot.detail)  # (not idle: no job)
        self._say_dead(run_id)
        os.kill(os.getpid(), signal.SIGTERM)     # warm shutdown: this task acks, then exit

    def _services(self, run_id: str, tmp: Path, payload: dict[str, Any] | None = None) -> Services:
        payload = payload or {"env": {}, "app_dirs": {}}
        settings = self.settings      # the run's --screenshots, not the worker's default
        if payload.get("screenshots"):
            settings = settings.model_copy(update={"screenshots": payload["screenshots"]})
        services = Services(settings=settings, artifacts=HandedArtifacts(tmp), run_id=run_id,
                            env={**own_env(), **payload["env"]},
                            app_dirs={Path(k): v for k, v in payload["app_dirs"].items()},
                            cache=self._cache, cache_mode=payload.get("cache_mode"),
                            model=self._models)
        if payload.get("cache_mode") != "off":
            self._cache = services.cache_store()     # opened once, kept for the next task
        services.on_step = self.events.step_finished
        # the spend of a model call goes out at the call: a process killed right after it
        # had paid for it (the watch thread's look every SPEND_S stays, a backstop)
        services.on_spend = lambda d: self.events.spending(d, services.in_flight.get(d))
        services.on_file = self.events.file_started
        return services
