"""`farm worker`: one Celery worker process per device.

The supervisor (:func:`run_workers`) starts ``python -m worker.main --kind KIND`` once per
device, each in a session of its own, and has them drain on SIGTERM or Ctrl-C (a second
Ctrl-C stops them at once). Each child claims a device name with a lease in
Redis, opens the device, and runs a solo-pool, concurrency-1 Celery worker consuming
``farm.<platform>``, ``farm.<platform>.<group>`` (matrix mode) and ``farm.dev.<device>``
(retries steered away from a failing device). SIGTERM drains: the current case finishes,
is acknowledged, then the process exits. A phone (adb serial / WDA URL) is driven by one
worker only, cluster-wide: each child takes a ``target`` lease on its phone next to its device
lease, and skips phones another `farm worker` already drives. A child that dies (killed,
crashed) is reported and started again with back-off; one that exits 0 (drained: SIGTERM,
a dead device), 3 (its device would not open) or 4 (no free phone; the broker's ACL refuses
its user a command, key or channel it uses) is not. A child whose device is quarantined
(mid-run, or before its worker was started again) holds the name, serves nothing and exports
the quarantine on /metrics until the device is released; a name whose lease a dead process
of this machine left (a worker killed and started again at once) is taken back.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import warnings
from typing import TYPE_CHECKING, Callable, Sequence

from farm.cluster import store
from farm.config import mask_urls_in     # (a WDA URL's password: never on the console)
from farm.python_child import child_env, python_m
from worker.outbox import OUTAGE

if TYPE_CHECKING:  # pragma: no cover
    from farm.config import Settings
    from worker.runtime import DeviceRuntime

log = logging.getLogger("farm.worker")

EXIT_NO_TARGET = 4          # every phone this child could drive is driven by another worker
EXIT_REFUSED = 4            # the broker's ACL user may not do what it does (NOPERM)
EXIT_NAME_LOST = 75         # another process held its name: started again (under a free one)
FINAL_EXITS = (0, 3, EXIT_NO_TARGET, EXIT_REFUSED)  # a child exiting so meant to: never restarted
SAID_EXITS = (3, EXIT_NO_TARGET, EXIT_REFUSED)      # ... having said why (device, phone, ACL)
RESTART_FIRST_S, RESTART_MAX_S = 1.0, 60.0      # back-off of a child that keeps dying
STABLE_S = 60.0             # a child that ran this long restarts without the back-off


def claim_name(r, kind: str, info: dict, host: str | None, index: int = 0,
               patience: float = 0.0) -> str:
    """``<kind>-<index + 1>@<host>`` (``index``: the device's place among its kind in
    ``--devices``), taken with a lease, whichever child starts first: names follow the
    /metrics ports (`browser:3` is browser-1, -2, -3 on :9464, :9465, :9466). A lease left by
    a process of this machine that is dead (a `farm worker` killed and started again at once)
    is taken over. A quarantined name stays this device's (the caller waits for its release:
    a restarted worker must not come back under a fresh name). When the name is held by a
    live process (another `farm worker`), the first free ``<kind>-<n>@<host>`` that is not
    quarantined instead; but when that process is this machine's and its supervisor is dead
    (a `farm worker` killed: its device process finishes its case and ends), it is waited for,
    up to ``patience`` seconds, and the name taken back."""
    host = host or socket.gethostname()
    bad = store.quarantined(r)
    own = index + 1
    info = {**info, **store.this_machine()}
    for n in (own, *(m for m in range(1, 1000) if m != own)):
        name = f"{kind}-{n}@{host}"
        if name in bad and n != own:
            continue
        lease = {**info, "device": name, "state": "starting"}
        if n == own:
            _wait_for_orphan(r, name, lease, patience)
        if store.acquire_lease(r, name, lease) or _take_over(r, name, lease):
            return name
    raise RuntimeError("no free device name")


def _take_over(r, name: str, lease: dict) -> bool:
    """Take ``name``'s lease if the process holding it ran on this machine and is dead."""
    raw = r.get(store.key("lease", name))
    held = json.loads(raw) if raw else {}
    pid = held.get("pid")
    if not raw or held.get("boot", "") != lease["boot"] or held.get("host") != lease["host"] \
            or not isinstance(pid, int) or _alive(pid):
        return False
    if not store.take_over_lease(r, name, raw, lease):
        return False
    log.warning("%s: taking over the lease of its dead process %d", name, pid)
    return True


def _wait_for_orphan(r, name: str, lease: dict, patience: float) -> None:
    """Wait for the process holding ``name``'s lease to end if it is a device process of this
    machine left by its `farm worker` (killed): it drains (see :func:`end_with_supervisor`)."""
    import psutil
    raw = r.get(store.key("lease", name))
    held = json.loads(raw) if raw else {}
    pid, supervisor = held.get("pid"), held.get("supervisor")
    if not raw or held.get("boot", "") != lease["boot"] or held.get("host") != lease["host"] \
            or not isinstance(pid, int) or not isinstance(supervisor, int) \
            or _alive(supervisor) or not _alive(pid):
        return
    try:
        proc = psutil.Process(pid)
        if "worker.main" not in " ".join(proc.cmdline()):
            return              # the number of a process that is no device's any more
        print(f"farm worker: {name}: waiting for its previous process ({pid}, whose `farm "
              f"worker` was killed) to finish its case", file=sys.stderr, flush=True)
        proc.wait(patience)
    except psutil.TimeoutExpired:
        log.warning("%s: its previous process %d is still running", name, pid)
    except psutil.Error:
        pass                    # gone meanwhile


def end_with_supervisor(supervisor: int) -> None:
    """Have this device process drain and end (SIGTERM) when its `farm worker` dies, even by
    SIGKILL, rather than serve on unsupervised: a `farm worker` started again then takes its
    names and ports back. Linux (prctl PR_SET_PDEATHSIG); elsewhere nothing is done."""
    if not supervisor or not sys.platform.startswith("linux"):
        return
    import ctypes
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != supervisor:      # it died before that: nothing started yet
        sys.exit(0)


def _alive(pid: int) -> bool:
    """Is process ``pid`` of this machine running (a zombie is not)? Our own pid is a dead
    process's number reused (a container restarted)."""
    import psutil
    if pid == os.getpid():
        return False
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True     # there, but not ours to look at


def claim_target(r, kind: str, candidates: list[str], name: str) -> str | None:
    """The first of ``candidates`` (adb serials / WDA URLs) no other worker drives, taken for
    ``name`` with a lease; None when every one is taken (the message is printed)."""
    from worker.runtime import target_id
    for target in candidates:
        tid = target_id(kind, target)
        if store.acquire_target(r, tid, name) or store.target_holders(r, [tid]).get(tid) == name:
            return target       # (held by this name already: its dead process's, taken over)
    held = store.target_holders(r, [target_id(kind, t) for t in candidates])
    print(mask_urls_in(f"farm worker: {name}: no free {kind} device: " + ", ".join(
        f"{t} is driven by {held.get(target_id(kind, t), '?')}" for t in candidates)),
        file=sys.stderr, flush=True)
    return None


def _child_args(argv: Sequence[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="worker.main")
    ap.add_argument("--kind", required=True)
    ap.add_argument("--group", default=None)
    ap.add_argument("--target", default="", help="adb serial / WDA URL this device attaches to")
    ap.add_argument("--candidates", default="", help="comma-separated: other phones to take "
                    "if another worker drives --target")
    ap.add_argument("--index", type=int, default=0)
    ap.add_argument("--metrics-port", type=int, default=0)
    ap.add_argument("--loglevel", default="WARNING")
    ap.add_argument("--supervisor", type=int, default=0, help="pid of the `farm worker` "
                    "that started this process: it ends with it")
    return ap.parse_args(argv)


def child(argv: Sequence[str]) -> int:
    """One device's worker process. One whose Redis user lacks a command, key or channel it
    uses (NOPERM: the broker's ACL) says so in one line and ends with 4, not started again:
    it died of a traceback, again at each restart."""
    from redis.exceptions import NoPermissionError

    from farm.config import load_settings
    args = _child_args(argv)
    end_with_supervisor(args.supervisor)
    logging.basicConfig(level=args.loglevel, format="%(asctime)s %(name)s %(message)s")
    from worker.log_mask import mask_logging
    mask_logging()          # the secrets of the cases it runs, as `farm run`'s farm.log
    settings = load_settings()
    store.use_prefix(settings.cluster_prefix)
    try:
        return _device_process(args, settings, argv)
    except NoPermissionError as exc:
        url = settings.broker_url.get_secret_value()
        _say_refused(f"{args.kind} #{args.index}", store.refused(url, exc))
        return EXIT_REFUSED


def _say_refused(device: str, why: str) -> None:
    # (sys.__stderr__: Celery leaves sys.stderr redirected to its logging once it has run)
    print(f"farm worker: device {device}: {why}. Not started again: once the user may, start "
          "`farm worker` again", file=sys.__stderr__, flush=True)


def _device_process(args: argparse.Namespace, settings: "Settings",
                    argv: Sequence[str]) -> int:
    from farm.devices.specs import known_kinds
    from worker.runtime import DeviceRuntime
    platform = known_kinds(settings)[args.kind]
    group = args.group or args.kind
    url = settings.broker_url.get_secret_value()
    r = store.connect(url)
    if not broker_up(r, f"{args.kind} #{args.index}", url):
        return 0
    info = {"kind": args.kind, "platform": platform, "group": group, "pid": os.getpid(),
            "supervisor": args.supervisor, **store.this_machine()}
    name = claim_name(r, args.kind, info, settings.worker_host, args.index,
                      patience=settings.cluster_max_case_seconds)
    _log_as(name)
    _beat_from_start(name)
    opened: list[DeviceRuntime] = []
    metrics_at = serve_metrics(args.metrics_port, settings.metrics_host,
                               lambda: bool(opened) and opened[0].ready())
    if name in store.quarantined(r) and not wait_released(r, name, {**info, "device": name},
                                                          url):
        return 0
    target = args.target and claim_target(r, args.kind, list(dict.fromkeys(
        [args.target, *filter(None, args.candidates.split(","))])), name)
    if target is None:
        r.delete(store.key("lease", name))
        return EXIT_NO_TARGET
    runtime = DeviceRuntime(settings, args.kind, platform, group, name, target, args.index,
                            supervisor=args.supervisor)
    opened.append(runtime)
    try:
        runtime.start()
    except Exception as exc:
        runtime.stop()
        _cannot_start(runtime, exc)
        # a configuration mistake (a broken device plugin) is exit 4, as for farm run
        from farm.errors import UserError
        return 4 if isinstance(exc, UserError) else 3
    _say(f"farm worker: {name} ready (queues {', '.join(_queues(runtime))}{metrics_at})"
         + (f" on {target}" if target else ""))
    code = serve(runtime, args.loglevel)
    if runtime.name_lost:
        return EXIT_NAME_LOST
    if not runtime.quarantined or args.supervisor and os.getppid() != args.supervisor:
        return code
    if wait_released(r, name, {**info, "device": name}, url):    # its device closed meanwhile
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, python_m("worker.main", *argv),    # a fresh start
                  child_env(dict(os.environ)))
    return 0


def _beat_from_start(name: str) -> None:
    """farm_worker_heartbeat_timestamp_seconds from the start: now, as the name's lease was
    just taken. It was set at the first renewal only: a worker whose Redis went away before
    that (its process up, /ready 503) had no series, and FarmWorkerNoHeartbeat, comparing
    its age, never fired. Now it stands still at the start and the alert fires as for a
    worker that lost Redis later (over 60 s old, for 1m). Not 0: an alert at once for every
    worker still opening its device."""
    from farm import metrics
    metrics.heartbeat(name, time.time())


_NAME = ""      # this device process's name, once taken (`_log_as`)


def _log_as(name: str) -> None:
    """Each logged line names this device: the device processes of a `farm worker` share its
    output, and Celery's "Cannot connect to redis://..." or a heartbeat's "redis unavailable"
    came once per device, alike, none saying which."""
    global _NAME
    _NAME = name
    quiet = logging.getLogger().getEffectiveLevel() >= logging.WARNING
    for handler in logging.getLogger().handlers:
        handler.setFormatter(_Said(name) if quiet else logging.Formatter(
            f"%(asctime)s {name} %(name)s %(message)s"))


class _Said(logging.Formatter):
    """A device's warnings and errors (the default --loglevel WARNING) in its `farm worker`'s
    own style, among its lines ("farm worker: browser-1@vm redis unavailable (…): retrying",
    "farm worker: error: browser-1@vm …"); they were logging's dated lines ("2026-12-07
    09:30:21,443 browser-1@vm farm.worker redis unavailable …") among "farm worker: …" ones.
    Asked for more (--loglevel INFO or DEBUG), lines keep their date and logger."""

    def __init__(self, name: str) -> None:
        super().__init__("%(message)s")
        self.name = name

    def format(self, record: logging.LogRecord) -> str:
        said = super().format(record)
        error = "error: " if record.levelno >= logging.ERROR else ""
        # farm's own stderr lines ("farm: warning: cache store …"), which Celery hands to
        # logging: one prefix, the worker's ("farm worker: browser-1@vm farm: warning: …")
        own = re.match(r"farm: (?:(warning|error): )?", said)
        if own:
            error = f"{own[1]}: " if own[1] else error
            said = said[own.end():]
        return f"farm worker: {error}{self.name} {said}"


def _cannot_start(runtime: "DeviceRuntime", exc: BaseException) -> None:
    """Say once why a device could not start (the one line about it: the slot's log and the
    supervisor say nothing more) and what to do; its `farm worker` does not start it again
    (exit 3 or 4), its other devices serve on."""
    said = str(exc)
    said = said if said.startswith("could not start") else f"could not start: {said}"
    once = {"android": f"once `adb devices` lists {runtime.target} as `device`",
            "ios": f"once its WebDriverAgent answers at {runtime.target}",
            "browser": "once its Chromium starts (FARM_CHROMIUM_PATH chooses which)"}
    print(mask_urls_in(f"farm worker: device {runtime.name} {said}. Not started again: "
                       f"{once.get(runtime.kind, 'once it is fixed')}, start `farm worker` "
                       "again"), file=sys.stderr, flush=True)


def broker_up(r, what: str, url: str) -> bool:
    """Wait for Redis as a device process starts (started again mid-outage: after a crash, a
    release, a failover), saying so once per cause, rather than die with a traceback and come
    back, by the supervisor's back-off, up to a minute after Redis; False when told to stop
    meanwhile. Redis must take writes: a replica (READONLY, after a failover) or a full one
    (maxmemory) answers PING."""
    stop = threading.Event()
    before = {sig: signal.signal(sig, lambda *_: stop.set())
              for sig in (signal.SIGTERM, signal.SIGINT)}
    said = ""
    try:
        while True:
            cause, why = _broker_not_ready(r, url)
            if not cause:
                if said:
                    print(f"farm worker: {what}: the broker answers: starting", flush=True)
                return True
            if cause != said:       # (a connection's errors differ in their words)
                print(f"farm worker: {what}: {why}", file=sys.stderr, flush=True)
                said = cause
            if stop.wait(1.0):      # polling an absent (or read-only) Redis
                return False
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _broker_not_ready(r, url: str) -> tuple[str, str]:
    """What keeps the broker from serving a device, and how to say it ("" once it takes
    writes)."""
    import redis

    from farm.config import mask_url
    try:
        store.epoch(r)      # a write (SET NX): a replica refuses it, and answers PING
        return "", ""
    except redis.ReadOnlyError:
        return "replica", (f"the broker {mask_url(url)} is a read-only replica (failed "
                           "over?): waiting for it to take writes again (or point the URL at "
                           "the primary)")
    except redis.OutOfMemoryError as exc:     # maxmemory reached, under noeviction
        return "full", (f"the broker {mask_url(url)} is out of memory and takes no writes "
                        f"({exc}): waiting for it to take writes again")
    except (redis.ConnectionError, redis.TimeoutError) as exc:
        return "away", f"waiting for the broker {mask_url(url)} ({exc})"


def _say(line: str) -> None:
    """``line`` on stdout in one write, its newline included: a `farm worker`'s device
    processes share its stdout, and print's two writes (the text, then the newline) let two
    ready lines run into one when output is unbuffered (PYTHONUNBUFFERED, as containers set)."""
    sys.stdout.write(mask_urls_in(line) + "\n")    # a WDA URL's password never shown
    sys.stdout.flush()


def _queues(runtime: "DeviceRuntime") -> list[str]:
    return [f"farm.{runtime.platform}", f"farm.{runtime.platform}.{runtime.group}",
            f"farm.dev.{runtime.name}"]


def serve(runtime: "DeviceRuntime", loglevel: str) -> int:
    """Consume the device's queues with a solo-pool Celery worker until it is told to stop.
    Quiet: the ready line says what Celery's banner would (its queues), Celery's warning
    about running as root is said once by the supervisor, not by every device, and its
    shutdown lines not at all (see :func:`_celery_says_nothing`)."""
    from celery import signals
    from celery.exceptions import SecurityWarning

    from farm.suite.vars import on_a_worker
    from worker import tasks
    tasks.RUNTIME = runtime
    on_a_worker()       # (a case's undefined ${NAME} says where a worker reads one)

    @signals.worker_shutting_down.connect
    def _drain(**_: object) -> None:
        runtime.draining()

    @signals.worker_ready.connect
    def _consuming(**_: object) -> None:
        runtime.consuming()

    workers: list = []      # Celery's worker, for its exit code

    @signals.worker_init.connect
    def _started(sender: object, **_: object) -> None:
        workers.append(sender)

    warnings.filterwarnings("ignore", category=SecurityWarning)
    said = _FailoverSaidPlainly(runtime.name)
    logging.getLogger("celery.worker").addFilter(said)
    if logging.getLogger().getEffectiveLevel() >= logging.WARNING:
        _celery_says_nothing()
        logging.getLogger("celery.worker.consumer.consumer").addFilter(_broker_lost_unsaid)
    try:
        # app.start, not worker_main (which drops it): the worker's exit code, not 0 when its
        # consumer died of an unrecoverable error, so that the supervisor starts it again
        code = tasks.app.start(["--quiet", "worker", "-P", "solo", "-c", "1",
                                "-Q", ",".join(_queues(runtime)), "-n", runtime.name,
                                "--without-gossip", "--without-mingle", "--without-heartbeat",
                                "-l", loglevel])
    finally:
        runtime.stop()
    if not isinstance(code, int) and workers:
        # app.start drops the exit code click hands back: a consumer dead of an unrecoverable
        # error (a Redis failover) exited 0, taken for a drained device: never started again
        code = getattr(workers[0], "exitcode", None)
    if said.refused is not None:        # Celery's consumer died of the broker's ACL
        _say_refused(runtime.name, store.refused(
            runtime.settings.broker_url.get_secret_value(), said.refused))
        return EXIT_REFUSED
    return code if isinstance(code, int) else 0


class _FailoverSaidPlainly(logging.Filter):
    """Celery's "Unrecoverable error" as Redis fails over (the consumer's Redis a replica now)
    in one line naming the device and what comes next, not a traceback of kombu's insides.
    One of the broker's ACL (NOPERM: a command, key or channel Celery uses; a MULTI kombu
    sends, which redis-py reports as "EXEC without MULTI") is kept in ``refused`` for
    :func:`serve` to say, and not logged."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.device = name
        self.refused: BaseException | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        import redis
        from redis.exceptions import NoPermissionError
        exc = record.exc_info[1] if record.exc_info else None
        exc = (exc and store.multi_refused(exc)) or exc     # (kombu's MULTI, refused)
        if isinstance(exc, NoPermissionError):
            self.refused = exc
            return False
        if isinstance(exc, redis.ReadOnlyError) or (
                isinstance(exc, redis.ResponseError) and "UNBLOCKED" in str(exc)):
            record.msg, record.args, record.exc_info = (
                "%s: the broker is a read-only replica now (failed over?): this device's "
                "process ends, `farm worker` starts it again (%s)", (self.device, exc), None)
        return True


def _broker_lost_unsaid(record: logging.LogRecord) -> bool:
    """Celery's "consumer: Connection to broker lost. Trying to re-establish the
    connection..." (a WARNING) and, while Redis stays away, its "consumer: Cannot connect to
    redis://:**@…: Error 111 … Trying again in 2.00 seconds... (1/None)" (an ERROR, with a
    password of its own masking): the device's own "redis unavailable" line says the outage,
    and Celery's lines are for --loglevel INFO (this filter is only there below it)."""
    said = record.getMessage()
    return "Connection to broker lost" not in said and not said.startswith(
        "consumer: Cannot connect to ")


def _celery_says_nothing() -> None:
    """Keep Celery's own lines off the terminal: on SIGTERM it writes "worker: Warm shutdown
    (MainProcess)" (on a cold shutdown "Hitting Ctrl+C again ...") straight to stdout, not
    through logging, after farm's own line saying what drains. Asked for Celery's logging
    (--loglevel INFO or DEBUG), its lines stay."""
    from celery.apps import worker as celery_worker
    celery_worker.safe_say = lambda *_args, **_kwargs: None    # (read at each call)


def wait_released(r, name: str, lease: dict, url: str) -> bool:
    """``name`` is quarantined: hold the name (its lease says so), serve nothing and export
    ``farm_device_quarantined`` 1 on /metrics (/ready says 503) until `farm devices --release`
    takes it back (True), or until told to stop (False). A worker started again (Compose's
    restart, a Deployment) so keeps its quarantine instead of coming back under a fresh name,
    and a device quarantined mid-run waits here too (its process stays up: the alert needs the
    series for a minute)."""
    from farm import metrics
    from farm.config import mask_url
    stop = threading.Event()
    before = {sig: signal.signal(sig, lambda *_: stop.set())
              for sig in (signal.SIGTERM, signal.SIGINT)}
    record = _QuarantineRecord(r, name, f"farm devices --broker {mask_url(url)} --release {name}")
    metrics.device_state(lease.get("platform", ""), name, "quarantined")
    try:
        while True:
            try:
                released = record.released()
                OUTAGE.answered()
                if released:
                    print(f"farm worker: device {name} released: starting it", flush=True)
                    return True
                store.refresh_lease(r, name, {**lease, "state": "quarantined"})
                metrics.heartbeat(name, time.time())
            except Exception as exc:    # Redis away: keep waiting, the lease comes back; said
                OUTAGE.failed(_why_unread(exc, name, url))  # as an outage is (a line a beat)
            if stop.wait(store.HEARTBEAT_S):    # polling Redis for the release
                _forget_name(r, name)
                return False
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _why_unread(exc: BaseException, name: str, url: str) -> str:
    from redis.exceptions import NoPermissionError
    why = store.refused(url, exc) if isinstance(exc, NoPermissionError) else str(exc)
    return f"reading the quarantine of {name}: {why}"


class _QuarantineRecord:
    """A device's entry in ``farm:quarantine`` as its waiting worker reads it. Only a release
    (`farm devices --release`) ends the quarantine: an entry gone because Redis came back
    without its data (a new epoch) is written again, and the device stays out of service."""

    def __init__(self, r, name: str, release: str) -> None:
        self.r, self.name, self.release = r, name, release
        self.reason: str | None = None      # the entry last read
        self.epoch: str | None = None       # Redis's data epoch when it was read

    def released(self) -> bool:
        epoch = store.epoch(self.r)
        reason = store.quarantined(self.r).get(self.name)
        if reason is not None:
            if self.reason is None:     # said once, with the command that ends it
                print(f"farm worker: device {self.name} is quarantined ({reason}): not "
                      f"serving it until it is released; once it is fixed: {self.release}",
                      file=sys.stderr, flush=True)
            self.reason, self.epoch = reason, epoch
            return False
        if self.reason is None or epoch == self.epoch:
            return True
        self.r.hset(store.key("quarantine"), self.name, self.reason)
        self.epoch = epoch
        print(f"farm worker: the quarantine record of {self.name} is gone from Redis (was "
              f"Redis restarted without its data?): recorded it again; the device stays out "
              f"of service until: {self.release}", file=sys.stderr, flush=True)
        return False


def _forget_name(r, name: str) -> None:
    try:
        r.delete(store.key("lease", name))
    except Exception as exc:        # the lease expires by itself
        log.warning("cannot give up the lease of %s: %s", name, exc)


def serve_metrics(port: int, host: str, ready: Callable[[], bool]) -> str:
    """/metrics, /healthz, /ready of this device's process from ``port`` on (the first free
    one of the next 100: several `farm worker`s on one host never clash); 0: off. Returns
    what the ready line says about it."""
    from farm import metrics
    metrics.build_info("worker")
    if not port:
        return ""
    try:
        bound = metrics.MetricsServer(port, host, ready=ready, scan=100).start()
    except OSError as exc:
        print(f"farm worker: no /metrics: ports {port}-{min(port + 99, 65535)} unusable ({exc})",
              file=sys.stderr)
        return ""
    return f", metrics :{bound}"


def run_workers(settings: "Settings", specs: str, group: str | None = None,
                metrics_port: int = 0, loglevel: str = "WARNING") -> int:
    """Start one worker process per device in ``specs``; return when all have exited.
    Device *i* (counting across specs) serves /metrics from ``metrics_port`` + i."""
    url = settings.broker_url.get_secret_value() if settings.broker_url else ""
    env = child_env(dict(os.environ, FARM_BROKER_URL=url))      # (see python_m)
    env.pop("CELERY_BROKER_URL", None)
    # glibc's malloc gave each thread that allocated an arena of its own: a phone's device
    # process grew 83 → 324–336 MB in 10 runs of the demo's android cases, 134 MB with 2
    # (a value the user set is kept)
    env.setdefault("MALLOC_ARENA_MAX", "2")
    store.use_prefix(settings.cluster_prefix)
    r = store.connect(url)
    store.check_permissions(r, url)     # once, here: not a traceback from each device
    children = worker_commands(settings, specs, group, metrics_port, r, loglevel)
    if children is None:
        return EXIT_NO_TARGET
    if hasattr(os, "geteuid") and os.geteuid() == 0:     # (Celery's warning, said once)
        print("farm worker: warning: running as root; prefer an unprivileged user (the image "
              "runs as `farm`)", file=sys.stderr, flush=True)
    return supervise([_Child(cmd) for cmd in children], env, r)


def worker_commands(settings: "Settings", specs: str, group: str | None, metrics_port: int,
                    r, loglevel: str = "WARNING") -> list[list[str]] | None:
    """The command of each device's process; None (the reason printed) when fewer phones
    than asked for are free of other `farm worker`s."""
    from farm.devices.specs import attach_targets, parse_device_specs
    from worker.runtime import target_id
    cmds: list[list[str]] = []
    for spec in parse_device_specs(specs, settings):
        found = attach_targets(spec.kind, spec.count, settings, every=True)
        if found[0]:
            held = store.target_holders(r, [target_id(spec.kind, t) for t in found])
            free = [t for t in found if target_id(spec.kind, t) not in held]
            if len(free) < spec.count:
                print(f"farm worker: --devices {spec.kind}:{spec.count}: {len(free)} of "
                      f"{len(found)} {spec.kind} device(s) free; " + ", ".join(
                          f"{t} is driven by {held[target_id(spec.kind, t)]}"
                          for t in found if t not in free), file=sys.stderr, flush=True)
                return None
            found = free
        for index in range(spec.count):
            port = metrics_port + len(cmds) if metrics_port else 0
            cmd = python_m("worker.main", "--kind", spec.kind,
                           "--index", str(index), "--metrics-port", str(port),
                           "--supervisor", str(os.getpid()), "--loglevel", loglevel)
            if found[index]:
                cmd += ["--target", found[index], "--candidates", ",".join(found)]
            cmds.append(cmd + (["--group", group] if group else []))
    return cmds


class _Child:
    """One device's process as the supervisor sees it."""

    def __init__(self, cmd: list[str]) -> None:
        self.cmd = cmd
        self.proc: subprocess.Popen | None = None
        self.started = 0.0
        self.delay = RESTART_FIRST_S
        self.due: float | None = None       # when to start it again
        self.code: int | None = None        # its final exit code (not started again)
        self.name = ""                      # its device (its lease said so as it stopped)

    def start(self, env: dict[str, str]) -> None:
        # a session of its own: a Ctrl-C at the terminal reaches the `farm worker` only, which
        # has the device drain, not the device process (whose Celery would cancel its case)
        # and its browser (which would die under it)
        self.proc = subprocess.Popen(self.cmd, env=env, start_new_session=True)
        self.started, self.due = time.monotonic(), None

    def signal(self, signum: int) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL the process and everything it started (its browser and driver)."""
        import psutil
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            top = psutil.Process(self.proc.pid)
            procs = [top, *top.children(recursive=True)]
        except psutil.Error:
            return
        for p in procs:
            try:
                p.kill()
            except psutil.Error:
                pass

    def describe(self) -> str:
        arg = {k: v for k, v in zip(self.cmd, self.cmd[1:])}
        return f"{arg['--kind']} #{arg['--index']}"


def supervise(children: list[_Child], env: dict[str, str], r) -> int:
    """Run ``children``, report each that exits and start again (with back-off) each that
    died; on SIGTERM or Ctrl-C have them drain, on a Ctrl-C after that stop them at once
    (see :func:`_stop`); return once every one has exited for good."""
    signals: list[int] = []     # stop signals received (the handler only notes them)
    signal.signal(signal.SIGTERM, lambda signum, _frame: signals.append(signum))
    signal.signal(signal.SIGINT, lambda signum, _frame: signals.append(signum))
    for c in children:
        c.start(env)
    handled = 0
    orphans = _Orphans(children)
    # poll every child (not wait() in order) so a drained one is reaped at once
    while any(c.code is None for c in children):
        while handled < len(signals):
            _stop(children, signals[:handled + 1], r)
            handled += 1
        for c in children:
            if c.code is None:
                _watch(c, env, r, bool(signals))
        orphans.reap()
        time.sleep(0.2)
    # a device killed by a signal counts as a shell says it (128 + the signal: 137 for SIGKILL)
    return max((128 - c.code if (c.code or 0) < 0 else c.code or 0 for c in children),
               default=0)


class _Orphans:
    """The processes left to a `farm worker` that is PID 1 (a container's: the image's
    entrypoint): a device process killed (the OOM killer, a crash) leaves its browser and its
    driver to it, which, not reaped, stayed zombies (three a kill) until the container ended."""

    EVERY_S = 5.0

    def __init__(self, children: list[_Child]) -> None:
        self.children = children
        self.last = 0.0

    def reap(self) -> None:
        now = time.monotonic()
        if os.getpid() != 1 or now - self.last < self.EVERY_S:
            return
        self.last = now
        import psutil
        ours = {c.proc.pid for c in self.children if c.proc is not None}  # (theirs: Popen's)
        try:
            left = [p for p in psutil.Process().children() if p.pid not in ours]
        except psutil.Error:
            return
        for p in left:
            try:
                if p.status() == psutil.STATUS_ZOMBIE:
                    os.waitpid(p.pid, os.WNOHANG)
            except (psutil.Error, ChildProcessError):
                pass


def _stop(children: list[_Child], signals: list[int], r) -> None:
    """Act on the last of ``signals`` (the stop signals received so far). The first, SIGTERM
    or Ctrl-C, has each device drain: the case it is running finishes, then it ends. A Ctrl-C
    after that stops them now (SIGKILL, their browsers too): their cases are lost attempts
    that their runs re-run on other devices."""
    *before, signum = signals
    if not before:
        for c in children:
            c.signal(signal.SIGTERM)
        print(f"farm worker: stopping{_on(signum)}: each device finishes the case it is "
              f"running, then ends ({_to_stop_now(signum)})", file=sys.stderr, flush=True)
        _say_draining(children, r)
    elif signum == signal.SIGINT and signal.SIGINT not in before[1:]:
        print("farm worker: stopping now: the cases in progress end here (their runs run them "
              "again on other devices)", file=sys.stderr, flush=True)
        for c in children:
            c.kill()


def _on(signum: int) -> str:
    """" (SIGTERM)" for a stop that did not come from the terminal's Ctrl-C (docker stop,
    systemctl stop, kill): the line names what it acted on."""
    return "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"


def _to_stop_now(signum: int) -> str:
    """How to stop now, in the words of how the stop came: a SIGTERM (from `docker stop`,
    `systemctl stop`, `kill`) has no "again": a second SIGTERM drains on, SIGINT stops now."""
    if signum == signal.SIGINT:
        return "Ctrl-C again to stop now"
    return f"to stop now: kill -INT {os.getpid()}"


def _say_draining(children: list[_Child], r) -> None:
    """As the devices drain: each one that finishes a case first, and which (their leases);
    nothing when Redis does not answer."""
    try:
        held = {lease.get("pid"): (name, lease) for name, lease in store.leases(r).items()}
    except Exception as exc:        # Redis away: the first line said it all
        log.warning("cannot read the leases: %s", exc)
        return
    for c in children:
        name, lease = held.get(c.proc.pid if c.proc else None, ("", {}))
        c.name = name or c.name
        if lease.get("state") == "busy":
            print(f"farm worker: {name} finishes {lease.get('case')} (run {lease.get('run')}) "
                  f"first", file=sys.stderr, flush=True)


def _watch(c: _Child, env: dict[str, str], r, stopping: bool) -> None:
    assert c.proc is not None
    now = time.monotonic()
    if c.due is not None:
        if stopping:    # dead before the stop (said then), due to start again: stopped, and
            c.code = 0  # `systemctl stop` sees 0, not the death's 137 (a unit "failed")
            print(f"farm worker: device {c.name or c.describe()} stopped (it was to start "
                  "again)", file=sys.stderr, flush=True)
        elif now >= c.due:
            c.start(env)
        return
    code = c.proc.poll()
    if code is None:
        return
    if stopping and code == -signal.SIGTERM:
        code = 0    # the stop's own SIGTERM, to a device still starting (no handler yet): stopped
    name = c.name = _forget(r, c.proc.pid) or c.name or c.describe()
    how = f"was killed by {signal.Signals(-code).name}" if code < 0 else f"exited with {code}"
    if stopping or code in FINAL_EXITS:
        if code and code not in SAID_EXITS:
            print(f"farm worker: device {name} {how}", file=sys.stderr, flush=True)
        elif stopping and not code:
            print(f"farm worker: device {name} stopped", file=sys.stderr, flush=True)
        c.code = code
        return
    c.delay = RESTART_FIRST_S if now - c.started > STABLE_S else c.delay
    print(f"farm worker: device {name} {how}: starting it again in {c.delay:g}s",
          file=sys.stderr, flush=True)
    c.due, c.delay = now + c.delay, min(c.delay * 2, RESTART_MAX_S)


def _forget(r, pid: int) -> str:
    """The device a dead child (``pid``) held, its lease and its phone's given up so its
    successor can take them at once; "" when Redis does not say."""
    from worker.runtime import target_id
    try:
        for name, lease in store.leases(r).items():
            if lease.get("pid") == pid:
                r.delete(store.key("lease", name))
                if lease.get("target"):
                    store.release_target(r, target_id(lease["kind"], lease["target"]), name)
                return name
    except Exception as exc:        # Redis away: the leases expire by themselves
        log.warning("cannot give up the lease of device process %d (it expires by itself): "
                    "%s", pid, exc)
    return ""


def _leave(code: int) -> None:
    """End the device process with ``code``; without the interpreter's teardown when a device
    call farm gave up on is still running (a thread in a Playwright call: destroying its
    greenlet at teardown crashes, SIGSEGV, which the supervisor took for a crash and started
    the drained device again), as `farm run` leaves."""
    from farm.executors.local import unsettled_devices
    if unsettled_devices():     # (its cache store closed already: `DeviceRuntime.stop`)
        for handler in logging.getLogger().handlers:
            try:
                handler.flush()
            except Exception:       # (a closed stream: nothing more to write there)
                pass
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    from farm.leftover_threads import exit_watched
    exit_watched(code, f"farm worker: {_NAME or f'device process {os.getpid()}'}")
    sys.exit(code)


if __name__ == "__main__":
    from worker.syspath import working_directory_not_first
    working_directory_not_first()       # (before a device plugin is imported)
    _leave(child(sys.argv[1:]))
