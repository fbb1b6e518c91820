"""DeviceRuntime: the device a worker process is attached to, its lease and heartbeat, and one
case attempt as a Celery task runs it.

Exactly-once per attempt: the client numbers attempts; the first worker to start an attempt
claims it with SET NX, so a redelivered message (worker lost, visibility timeout passed) is
dropped instead of run twice. Results are pushed as events keyed run/case/attempt; the client
keeps the first one per attempt it is still waiting for.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import socket
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

from farm.cluster import store
from farm.cluster.store import key

log = logging.getLogger("farm.worker")

QUARANTINE_AFTER = 3            # consecutive infra errors before the device stops taking work
WATCHDOG_GRACE_S = 10.0         # past a case's timeout before the device is killed
PUBLISH_PATIENCE_S = 300.0      # keep retrying to hand in a result through a Redis outage
EVENTS_TTL_S = 24 * 3600


def make_device(kind: str, name: str) -> Any:
    """A device for this worker. ``fake`` is a test/bench kind: an in-memory web device whose
    ``sleep`` steps really sleep (FARM_FAKE_FAIL=1 makes every session an infra error)."""
    from farm.config import load_settings
    if kind == "browser":
        from farm.devices.registry import make_devices
        from farm.schedule import DeviceSpec
        device = make_devices([DeviceSpec("browser", 1)], load_settings())[0]
        device.name = name
        return device
    if kind == "fake":
        from farm.devices.fake import FakeDevice
        from farm.errors import DeviceLost
        errors = ({"start_session": DeviceLost("fake device lost (FARM_FAKE_FAIL)")}
                  if os.environ.get("FARM_FAKE_FAIL") == "1" else {})
        return FakeDevice(name=name, platform="web", errors=errors)
    target = os.environ.get("FARM_WORKER_TARGET", "")
    if kind == "android" and target:
        from farm.devices.android import AndroidDevice
        return AndroidDevice(name, load_settings(), target)
    if kind == "ios" and target:
        from farm.devices.ios import IosDevice
        return IosDevice(name, load_settings(), target)
    from farm.devices.registry import make_devices
    from farm.schedule import DeviceSpec
    device = make_devices([DeviceSpec(kind, 1)], load_settings())[0]
    device.name = name
    return device


def retrying(fn: Callable[[], Any], patience: float = PUBLISH_PATIENCE_S) -> Any:
    """Call ``fn`` until Redis answers (it may be restarting), up to ``patience`` seconds."""
    import redis
    deadline = time.monotonic() + patience
    while True:
        try:
            return fn()
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            if time.monotonic() > deadline:
                raise
            log.warning("redis unavailable (%s): retrying", exc)
            time.sleep(1.0)


class DeviceRuntime:
    """One device, one worker process. Tasks call :meth:`execute` from the worker's thread."""

    def __init__(self, url: str, kind: str, platform: str, group: str, name: str) -> None:
        self.r = store.connect(url)
        self.kind, self.platform, self.group, self.name = kind, platform, group, name
        self.token = os.urandom(8).hex()
        self.state: dict[str, Any] = {"state": "starting"}
        self.device: Any = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._draining = False

    # ---- lease -------------------------------------------------------------------------------
    def lease_info(self) -> dict[str, Any]:
        with self._lock:
            return {"device": self.name, "kind": self.kind, "platform": self.platform,
                    "group": self.group, "host": socket.gethostname(), "pid": os.getpid(),
                    "token": self.token, "draining": self._draining, **self.state}

    def set_state(self, **state: Any) -> None:
        with self._lock:
            self.state = state
        try:
            store.refresh_lease(self.r, self.name, self.lease_info())
        except Exception as exc:   # the heartbeat thread will write it again
            log.warning("lease update failed: %s", exc)

    def start(self) -> None:
        """Open the device and start heartbeating its lease."""
        self.device = make_device(self.kind, self.name)
        self.device.open()
        self.set_state(state="idle")
        threading.Thread(target=self._heartbeat, name="lease", daemon=True).start()

    def _heartbeat(self) -> None:
        while not self._stop.wait(store.HEARTBEAT_S):
            try:
                store.refresh_lease(self.r, self.name, self.lease_info())
            except Exception as exc:
                log.warning("heartbeat failed: %s", exc)

    def stop(self) -> None:
        self._stop.set()
        try:
            self.device.close()
        except Exception:
            pass
        try:
            store.release_lease(self.r, self.name, self.token)
        except Exception:
            pass

    def draining(self) -> None:
        """SIGTERM: the current case finishes; clients stop counting this device."""
        # Runs inside the signal handler, on the thread that may hold _lock: no locking here.
        self._draining = True

    # ---- events ------------------------------------------------------------------------------
    def publish(self, run_id: str, event: dict[str, Any]) -> None:
        def push() -> None:
            pipe = self.r.pipeline()
            pipe.rpush(key("events", run_id), json.dumps(event))
            pipe.expire(key("events", run_id), EVENTS_TTL_S)
            pipe.execute()
        retrying(push)

    # ---- one attempt -------------------------------------------------------------------------
    def execute(self, payload: dict[str, Any]) -> str:
        """Run one case attempt described by ``payload``; return what happened (for logs)."""
        from farm.suite.model import Case
        from farm.schedule import Job

        run_id = payload["run_id"]
        job = Job(**{**payload["job"], "avoid_devices": frozenset(payload["job"]["avoid_devices"])})
        attempt_key = key("claim", run_id, job.case_id, str(job.attempt))
        if not retrying(lambda: self.r.exists(key("run", run_id))):
            return "dropped: the run is over"
        if not retrying(lambda: self.r.set(attempt_key, self.name, nx=True, ex=store.CLAIM_TTL_S)):
            return "dropped: attempt already claimed (redelivery)"
        case = Case.model_validate(payload["case"])
        self.set_state(state="busy", run=run_id, case=job.case_id, attempt=job.attempt)
        self.publish(run_id, {"type": "case_started", "case": job.case_id,
                              "attempt": job.attempt, "device": self.name})
        try:
            result, artifacts = self._run(run_id, job, case, payload)
        except Exception as exc:    # the device would not restart: an infra error, not a crash
            from farm.results import CaseError, CaseResult, now_iso
            result, artifacts = CaseResult(
                run_id=run_id, case_id=case.id, name=case.name, file=str(case.file),
                platform=case.platform, device=self.name, attempt=job.attempt, status="error",
                error=CaseError(kind="DeviceLost", message=f"device unusable: {exc}"),
                started=now_iso(), tags=case.tags), {}
        finally:
            self.set_state(state="idle")
        kind = _outcome(result)
        streak = retrying(lambda: self.r.incr(key("streak", self.name)) if kind == "infra"
                          else self.r.delete(key("streak", self.name)) and 0)
        self.publish(run_id, {"type": "case_finished", "case": job.case_id,
                              "attempt": job.attempt, "device": self.name,
                              "result": result.model_dump(mode="json"), "artifacts": artifacts})
        if kind == "infra" and int(streak or 0) >= QUARANTINE_AFTER:
            reason = f"{QUARANTINE_AFTER} infrastructure errors in a row"
            retrying(lambda: self.r.hset(key("quarantine"), self.name, reason))
            self.publish(run_id, {"type": "device_state", "device": self.name,
                                  "state": "quarantined", "detail": reason})
            log.error("device %s quarantined: %s; draining", self.name, reason)
            os.kill(os.getpid(), signal.SIGTERM)     # warm shutdown: this task acks, then exit
        return result.status

    def _run(self, run_id: str, job: Any, case: Any, payload: dict[str, Any]):
        from farm.config import load_settings
        from farm.results import ArtifactStore
        from farm.runner import Services, run_case

        with tempfile.TemporaryDirectory(prefix="farm-case-") as tmp:
            services = Services(settings=load_settings(), artifacts=ArtifactStore(Path(tmp)),
                                run_id=run_id, env={**os.environ, **payload["env"]},
                                app_dirs={Path(k): v for k, v in payload["app_dirs"].items()})
            last_check = [time.monotonic()]

            def on_step(device: str, record: Any) -> None:
                self.publish(run_id, {"type": "step", "device": device,
                                      "record": record.model_dump(mode="json")})
                # a finished or interrupted run cancels its cases at the next step
                if time.monotonic() - last_check[0] > 1.0:
                    last_check[0] = time.monotonic()
                    if not self.r.exists(key("run", run_id)):
                        services.cancel.set()
            services.on_step = on_step
            self._ensure_healthy()
            done = threading.Event()
            watchdog = threading.Thread(target=self._watchdog, args=(case.timeout, done),
                                        daemon=True)
            watchdog.start()
            try:
                result = run_case(job, case, self.device, services)
            finally:
                done.set()
            services.artifacts.flush()
            artifacts = {p.relative_to(tmp).as_posix(): base64.b64encode(p.read_bytes()).decode()
                         for p in Path(tmp).rglob("*.jpg")}
        return result, artifacts

    def _ensure_healthy(self) -> None:
        try:
            if self.device.healthy():
                return
        except Exception:
            pass
        log.warning("device %s not answering: restarting it", self.name)
        try:
            self.device.close()
        except Exception:
            pass
        self.device.open()      # an error here ends the attempt as an infra error via run_case

    def _watchdog(self, timeout: float, done: threading.Event) -> None:
        # The solo pool cannot enforce Celery's time limits; kill the device instead, which
        # ends the case as a timeout (see farm.runner._classify).
        if not done.wait(timeout + WATCHDOG_GRACE_S):
            log.warning("case overstayed its timeout on %s: killing the device", self.name)
            try:
                self.device.kill()
            except Exception:
                pass


def _outcome(result: Any) -> str:
    from farm.executors.local import outcome
    return outcome(result)
