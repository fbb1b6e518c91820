"""Pushing farm's metrics to a Prometheus Pushgateway (``farm run --pushgateway URL``).

The gateway keeps one value per series of a group and each push replaces the group, so farm
pushes running totals per host (kept in the state dir, floored by what the gateway holds);
see `push`. A run pushes as it starts, every FARM_PUSHGATEWAY_INTERVAL while it lasts and at
its end (`RunPushes`). The metrics themselves are farm/metrics.py's.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import prometheus_client
from prometheus_client import CollectorRegistry

from farm.metrics import REGISTRY

log = logging.getLogger("farm.metrics")

TIMEOUT_S = 10.0    # each request to the gateway, unless told (Settings.pushgateway_timeout)


def push(url: str, job: str = "farm_run", totals: Path | None = None,
         baseline: bool = False, timeout: float = TIMEOUT_S,
         instance: str | None = None, counted: dict[str, float] | None = None,
         unread_said: set[str] | None = None, keep: bool = True) -> dict[str, float]:
    """Push farm's metrics to a Pushgateway (grouped by job and host: one group per CI
    machine; ``instance``, FARM_PUSHGATEWAY_INSTANCE, names the group instead of the host
    name, for CI runners whose host name is new for every job: a group each, kept by the
    gateway for ever); ``user:password@`` in the URL is sent as HTTP basic auth.

    The gateway keeps one value per series of a group and each push replaces the group, so a
    run's own counts, pushed as they are, read to Prometheus as the same value again (no
    increase for `increase()` to see) or as a counter reset. With ``totals`` (a JSON file in
    the state directory) counters and histograms are pushed as running totals of every run
    this host pushed to this gateway: each sample raised by its total so far, and every
    earlier sample this run has none of (a cluster run has no locate attempts, a run without
    a model no model requests) pushed again at its total, so that no total goes down or
    leaves the gateway. A total so far is the higher of the file's and the gateway's (what
    this host's group holds there now): a new state dir (a CI runner's) or a file that missed
    a push continues from what Prometheus last saw. The file keeps the new totals once the
    push succeeded. ``baseline``: push the totals so far only, not this run's counts yet
    (`Baseline`: they come with the end's push; pushed now too, they would count twice).
    ``timeout``: seconds each request may take (FARM_PUSHGATEWAY_TIMEOUT, farm.toml's
    ``pushgateway_timeout``). ``counted``: this run's own counts as its last push that went
    through carried them (`RunPushes`): the totals so far hold them already, so they are
    taken out before this run's counts now go on top (a run pushed every period counts each
    case once, and its last push is what a push at its end alone would have been). Returns
    this run's own counts as pushed (what ``counted`` is next time). ``unread_said``: problems of
    reading the gateway's totals said already (at debug level now; each added). A run's push
    (``counted`` given) that fails keeps what it would have added for the next (`keep_unpushed`)
    when ``keep``: its push at the end, not one while it goes on (`RunPushes._push`).

    Runs of one host that overlap (CI jobs of the cluster path) share the group, and each
    push carries every run's counts so far; read, raised and pushed while another process
    of the host did the same, one run's counts were lost: so the host's farm processes push
    to a group one at a time (`_one_push_at_a_time`)."""
    import socket
    url, auth = _split_auth(url)
    instance = instance or socket.gethostname()
    group = f"{url} {job}"         # never the credentials: the file is not a secret
    unread: list[str] = []      # said once the push went through (else its failure says it)
    with _one_push_at_a_time(group, instance, timeout):
        try:
            carried, held = _push_carried(url, job, instance, auth, unread, timeout, totals,
                                          group, baseline, counted or {})
        except Exception:
            if keep and totals and not baseline and counted is not None:   # a run's last
                keep_unpushed(totals, group, counted)
            raise
        if totals:
            _write_totals(totals, group, {**held, **carried.pushed}, done=True)
    for problem in unread:
        said = unread_said is not None and problem in unread_said
        level = logging.DEBUG if said else logging.WARNING
        log.log(level, "cannot read the Pushgateway's totals for this host (%s): they "
                "continue from the state dir's", problem)
        if unread_said is not None:
            unread_said.add(problem)
    return carried.own_counts


_RUN = [os.urandom(6).hex()]    # this run's entry among the unpushed counts (`RunPushes`)
UNPUSHED = "unpushed"           # the totals file's key of counts no push got through with


def _push_carried(url: str, job: str, instance: str, auth: tuple[str, str] | None,
                  unread: list[str], timeout: float, totals: Path | None, group: str,
                  baseline: bool, counted: dict[str, float]) -> tuple["_Carried", dict]:
    """One push: the totals so far (the file's, the gateway's, and the counts of earlier
    runs whose pushes all failed: `keep_unpushed`) with this run's counts on top."""
    before: dict[str, float] = {}
    if totals:
        before = _higher(_group_totals(totals, group),
                         _at_gateway(url, job, instance, auth, unread, timeout))
        for key, value in _unpushed_of_others(totals, group).items():
            before[key] = before.get(key, 0.0) + value
    carried = _Carried(before, own=not baseline, counted=counted)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(carried)
    prometheus_client.push_to_gateway(url, job=job, registry=registry,
                                      grouping_key={"instance": instance},
                                      timeout=timeout, handler=_push_handler(auth))
    return carried, before


def _own_counts() -> dict[str, float]:
    """This process's counter and histogram samples, by key (what a push adds on top)."""
    out: dict[str, float] = {}
    for family in REGISTRY.collect():
        if family.type in _SAMPLE_SUFFIXES:
            for sample in family.samples:
                if not sample.name.endswith("_created") and sample.value:
                    out[_key(sample.name, sample.labels)] = sample.value
    return out


def keep_unpushed(totals: Path, group: str, counted: dict[str, float]) -> None:
    """A push that failed: keep this run's counts that no push got through with (all it
    counted, less ``counted``) in the totals file, for the next push that gets through, this
    run's or a later one's, to add (a gateway down at a run's end lost its counts for good)."""
    left = {key: value - counted.get(key, 0.0) for key, value in _own_counts().items()}
    left = {key: value for key, value in left.items() if value > 0}
    data = _read_totals(totals)
    waiting = data.get(UNPUSHED) if isinstance(data.get(UNPUSHED), dict) else {}
    runs = waiting.get(group) if isinstance(waiting.get(group), dict) else {}
    if not left and _RUN[0] not in runs:
        return          # nothing counted that a push missed: the file stays as it was
    runs[_RUN[0]] = left
    waiting[group] = runs
    data[UNPUSHED] = waiting
    _write_data(totals, data)


def _unpushed_of_others(totals: Path, group: str) -> dict[str, float]:
    """The counts earlier runs kept (`keep_unpushed`) for ``group``, summed by key."""
    waiting = _read_totals(totals).get(UNPUSHED)
    runs = waiting.get(group) if isinstance(waiting, dict) else None
    out: dict[str, float] = {}
    for run, counts in runs.items() if isinstance(runs, dict) else ():
        if run == _RUN[0] or not isinstance(counts, dict):
            continue
        for key, value in counts.items():
            if isinstance(value, (int, float)) and isinstance(key, str):
                out[key] = out.get(key, 0.0) + float(value)
    return out


@contextmanager
def _one_push_at_a_time(group: str, instance: str, timeout: float) -> Iterator[None]:
    """Hold the host's lock of ``group`` (an flock on a file in the temp dir, which the
    kernel lets go of when a process dies), waiting at most the time two requests may take
    for a push of another farm process. Without a lock (no fcntl, a temp dir farm cannot
    open a file in, a holder that does not let go), the push goes as it did before."""
    try:
        import fcntl
        fd = _lock_file(group, instance)
    except (ImportError, OSError) as exc:
        log.debug("pushing without the host's push lock: %s", exc)
        yield
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            log.debug("another farm process of this host is pushing to %s: waiting for it",
                      group.split(" ")[0])
            _wait_for_lock(fd, fcntl, timeout)
        yield
    finally:
        os.close(fd)          # lets go of the lock


def _lock_file(group: str, instance: str) -> int:
    """A read-only descriptor of the host's lock file of ``group`` (read-only: one another
    user created can still be locked; opened before created: a file of another user in a
    sticky /tmp refuses O_CREAT where fs.protected_regular is on)."""
    import hashlib
    import tempfile
    name = hashlib.sha256(f"{group} {instance}".encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"farm-pushgateway-{name}.lock"
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        return os.open(path, flags | os.O_CREAT, 0o644)


def _wait_for_lock(fd: int, fcntl: Any, timeout: float) -> None:
    """Take the lock once the other push lets go of it; past the time its two requests may
    take, go on without it (a holder stopped, not dead, must not stop this push)."""
    import time
    deadline = time.monotonic() + 2 * timeout + 5
    while time.monotonic() < deadline:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            time.sleep(0.05)
    log.debug("the other push did not end in %.0f s: pushing without waiting", 2 * timeout)


def _split_auth(url: str) -> tuple[str, tuple[str, str] | None]:
    """The URL without ``user:password@``, and those (unquoted)."""
    from urllib.parse import unquote, urlsplit
    parts = urlsplit(url)
    if parts.username is None:
        return url, None
    bare = parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()
    return bare, (unquote(parts.username), unquote(parts.password or ""))


def _push_handler(auth: tuple[str, str] | None) -> Callable[..., Callable[[], None]]:
    from prometheus_client.exposition import basic_auth_handler, default_handler
    if auth is None:
        return default_handler

    def handler(url: str, method: str, timeout: float | None, headers: list,
                data: bytes) -> Callable[[], None]:
        return basic_auth_handler(url, method, timeout, headers, data, *auth)
    return handler


# the samples of a counter or histogram family named ``name`` are name + one of these
_SAMPLE_SUFFIXES = {"counter": ("_total",), "histogram": ("_bucket", "_count", "_sum")}


def _key(name: str, labels: dict[str, str]) -> str:
    """A sample's key in the totals file (the format of earlier farm versions' files)."""
    return name + json.dumps(sorted(labels.items()))


def _unkey(key: str) -> tuple[str, dict[str, str]]:
    name, bracket, labels = key.partition("[")
    return name, dict(json.loads(bracket + labels))


def _higher(a: dict[str, float], b: dict[str, float]) -> dict[str, float]:
    """Each key's higher value (both are totals pushed earlier: neither may go down)."""
    out = dict(a)
    for key, value in b.items():
        out[key] = max(value, out.get(key, value))
    return out


def _at_gateway(url: str, job: str, instance: str, auth: tuple[str, str] | None,
                unread: list[str], timeout: float = TIMEOUT_S) -> dict[str, float]:
    """The counter and histogram samples this host's group holds at the gateway, by key; {}
    when it answers but they cannot be read (why: added to ``unread``; the file's totals are
    then the base). OSError when it does not answer: the push would not reach it either."""
    import base64
    import urllib.error
    import urllib.request
    from prometheus_client.parser import text_string_to_metric_families
    from prometheus_client.utils import floatToGoString
    request = urllib.request.Request(url.rstrip("/") + "/metrics")
    if auth is not None:
        token = base64.b64encode(":".join(auth).encode()).decode()
        request.add_header("Authorization", f"Basic {token}")
    held: dict[str, float] = {}
    try:
        with urllib.request.urlopen(request, timeout=timeout) as reply:
            families = list(text_string_to_metric_families(reply.read().decode()))
    except (OSError, ValueError) as exc:
        # a gateway that does not answer (refused, timed out): raised, not pushed to as well
        # (a gateway whose packets are dropped cost the run two timeouts at each push)
        if not isinstance(exc, (urllib.error.HTTPError, ValueError)):
            raise
        unread.append(str(exc))
        return held
    for family in families:
        if family.type not in _SAMPLE_SUFFIXES:
            continue
        for sample in family.samples:
            labels = dict(sample.labels)
            if labels.pop("job", None) != job or labels.pop("instance", None) != instance:
                continue
            if "le" in labels:         # Go writes le="1", prometheus_client le="1.0"
                labels["le"] = floatToGoString(float(labels["le"]))
            held[_key(sample.name, labels)] = sample.value
    return held


class RunPushes:
    """A run's pushes while it runs, in a daemon thread: its baseline (`push` with
    ``baseline``) at once, then every ``interval`` seconds (FARM_PUSHGATEWAY_INTERVAL; 0:
    none) what it has counted so far, in place of what it pushed before (``counted``), so a
    long nightly shows on Grafana as it goes and a run killed outright (a CI job's hard
    timeout) leaves its counts of the last period on the gateway. In the background: a
    gateway that is slow, or accepts the connection and never answers, held the run's first
    case for the request timeout. The first failure of a push after the baseline is said once
    (``say``), the baseline's is kept for the end of the run, whose own push says it."""

    def __init__(self, url: str, totals: Path | None, timeout: float = TIMEOUT_S,
                 instance: str | None = None, interval: float = 0.0,
                 say: Callable[[Exception], None] | None = None) -> None:
        self.error: Exception | None = None
        self.said: Exception | None = None      # the failure ``say`` was given
        self.counted: dict[str, float] = {}     # this run's counts in its last push through
        self.unread: set[str] = set()          # problems reading the totals, said once
        self._args = (url, totals, timeout, instance)
        _RUN[0] = os.urandom(6).hex()           # a run of its own among the unpushed counts
        self._say = say
        self._stopping = threading.Event()
        self._late = False                      # the last push failed after `settle` began
        self._thread = threading.Thread(target=self._run, args=(interval,),
                                        name="farm-pushgateway", daemon=True)
        self._thread.start()

    def _run(self, interval: float) -> None:
        self._push(baseline=True)
        while interval > 0 and not self._stopping.wait(interval):
            self._push(baseline=False)

    def _push(self, baseline: bool) -> None:
        url, totals, timeout, instance = self._args
        try:
            # (a push while the run goes on keeps nothing when it fails: another run's push
            # would add what it kept, and this run's next push its own counts again)
            self.counted = push(url, totals=totals, baseline=baseline, timeout=timeout,
                                instance=instance, counted=self.counted,
                                unread_said=self.unread, keep=False)
        except Exception as exc:     # noqa: BLE001 - said once, not as a traceback
            log.debug("could not push the metrics %s: %s",
                      "baseline" if baseline else "so far", exc)
            self.error, self._late = exc, self._stopping.is_set()
            if not (baseline or self._late or self.said or self._say is None):
                self.said = exc
                self._say(exc)

    def stop(self) -> None:
        """No push after the one under way (a run that did not get to its end)."""
        self._stopping.set()

    def settle(self) -> Exception | None:
        """Stop, and wait for the push under way to end (the end's push must not be
        overtaken by it: the gateway keeps the last one). The error of one that was still
        waiting, at the end of the run, for a gateway that then never answered: the end's
        push would wait as long again, so it is not tried; None otherwise (tried then, a
        gateway down at the start may be up)."""
        import urllib.error
        self._stopping.set()
        self._thread.join()
        if self._late and isinstance(self.error, OSError) and \
                not isinstance(self.error, urllib.error.HTTPError):
            url, totals, _timeout, _instance = self._args
            if totals:      # the end's push is not tried: its counts wait for the next run's
                keep_unpushed(totals, f"{_split_auth(url)[0]} farm_run", self.counted)
            return self.error
        return None


Baseline = RunPushes        # (its first push alone: interval 0)


class _Carried:
    """REGISTRY's metrics with every counter and histogram sample raised by ``before`` (what
    earlier runs pushed, by key) less ``counted`` (what of it this run pushed already), and
    every sample of ``before`` this run has none of added at its value; ``pushed``: the values
    sent, ``own_counts``: this run's part of them. ``own`` False: this run's samples count 0
    (its baseline: the totals so far, whatever it has counted meanwhile)."""

    def __init__(self, before: dict[str, float], own: bool = True,
                 counted: dict[str, float] | None = None) -> None:
        self.before = before
        self.own = own
        self.counted = counted or {}
        self.pushed: dict[str, float] = {}
        self.own_counts: dict[str, float] = {}

    def _base(self, key: str) -> float:
        """The total of ``key`` without this run's part (never below 0: a gateway restarted
        without its data while the state dir's file could not be written has lost it)."""
        return max(self.before.get(key, 0.0) - self.counted.get(key, 0.0), 0.0)

    def collect(self) -> Iterator[Any]:
        for family in REGISTRY.collect():
            if family.type in _SAMPLE_SUFFIXES:
                family.samples = [self._raised(s) for s in family.samples]
                family.samples += self._missing(family.name, family.type)
            yield family

    def _raised(self, sample: Any) -> Any:
        if sample.name.endswith("_created"):
            return sample
        key = _key(sample.name, sample.labels)
        own = sample.value if self.own else 0.0
        value = own + self._base(key)
        self.pushed[key] = value
        self.own_counts[key] = own
        return sample._replace(value=value)

    def _missing(self, name: str, kind: str) -> list[Any]:
        """The samples of ``before`` in family ``name`` that this run has not pushed."""
        from prometheus_client.samples import Sample
        suffixes = _SAMPLE_SUFFIXES[kind]
        found = []
        names = {name + suffix for suffix in suffixes}
        for key in self.before:
            sample_name, labels = _unkey(key)
            if sample_name in names and key not in self.pushed:
                self.pushed[key] = value = self._base(key)
                found.append(Sample(sample_name, labels, value))
        # a histogram's samples as a client writes them: per label set, buckets, count, sum
        return sorted(found, key=lambda s: (
            sorted((k, v) for k, v in s.labels.items() if k != "le"),
            suffixes.index(s.name[len(name):]), float(s.labels.get("le", 0))))


def _read_totals(path: Path) -> dict[str, dict[str, float]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}            # none yet (or unreadable): this run's counts start the totals
    return data if isinstance(data, dict) else {}


def _group_totals(path: Path, group: str) -> dict[str, float]:
    """The file's totals of ``group`` (entries it cannot read left out)."""
    stored = _read_totals(path).get(group)
    out: dict[str, float] = {}
    for key, value in stored.items() if isinstance(stored, dict) else ():
        try:
            _unkey(key)
        except (ValueError, TypeError):
            continue
        if isinstance(value, (int, float)):
            out[key] = float(value)
    return out


def _write_totals(path: Path, group: str, pushed: dict[str, float], done: bool = False) -> None:
    """The group's new totals; ``done``: the counts kept unpushed for it are in them now."""
    data = _read_totals(path)
    data[group] = pushed
    waiting = data.get(UNPUSHED)
    if done and isinstance(waiting, dict) and group in waiting:
        del waiting[group]
        if not waiting:
            del data[UNPUSHED]
    _write_data(path, data)


def _write_data(path: Path, data: dict[str, Any]) -> None:
    from farm.report.paths import replace_file      # never through a planted .tmp symlink
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        replace_file(path, json.dumps(data).encode("utf-8"))
    except OSError as exc:
        log.warning("cannot keep the pushed metric totals in %s: %s", path, exc)
