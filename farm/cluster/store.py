"""Redis state shared by `farm run` clients and `farm worker` processes.

Every key lives under ``farm:`` (or ``FARM_CLUSTER_PREFIX``) so farm can share a Redis with
other users — never FLUSHALL it. Keys:

    <p>:lease:<device>      JSON lease of one device (TTL, refreshed by the worker's heartbeat)
    <p>:quarantine          hash device → reason: devices that stop taking work cluster-wide
    <p>:streak:<device>     consecutive infrastructure errors of a device
    <p>:target:<phone>      device name driving this phone (adb serial / WDA URL, scoped to
                            its host when only unique there; TTL, refreshed with the lease)
    <p>:claim:<run>:<case>:<attempt>   set once when a worker starts that attempt (NX)
    <p>:events:<run>        list of JSON events workers push and the run's client pops
    <p>:taken:<run>         the event the client has taken off it and not yet handled
                            (BLMOVE: one its connection lost is read again, not lost), and
                            the one handled before it (removed with the next move)
    <p>:run:<run>           hash: the run is alive (TTL); its demand / in-flight counts per pool
                            and per platform (a --matrix run's web.g1 is a plain run's web too)
    <p>:ended:<run>         set when a run ends (done or interrupted): workers cancel its cases
                            and push it no more events
    <p>:runs                zset run id → last heartbeat: runs competing for devices
    <p>:history             hash "<platform>:<case id>" → JSON list of recent durations
    <p>:epoch               random token; a new one means Redis lost its data (restart)
"""

from __future__ import annotations

import json
import re
import secrets
import socket
import time
from typing import Any, Iterable

LEASE_TTL_S = 10.0          # a worker silent this long is dead
HEARTBEAT_S = 2.0
RUN_TTL_S = 30              # a client silent this long has gone away
RUN_FORGOTTEN_S = 3600      # ... and this long: its entry in <p>:runs is dropped
# longer than any redelivery can come back: the visibility timeout (cluster.app), up to a day
# and 11 min with FARM_CLUSTER_MAX_CASE_SECONDS at its most, and kombu's sweep after it
CLAIM_TTL_S = 25 * 3600
HISTORY_KEEP = 20


_prefix = "farm"
_prefix_set = False         # (`refused` names the prefix only once it is known)


def use_prefix(prefix: str) -> None:
    """Key everything under ``prefix`` (Settings.cluster_prefix); set once per process."""
    global _prefix, _prefix_set
    _prefix, _prefix_set = prefix, True


def key(*parts: str) -> str:
    return ":".join((_prefix,) + parts)


def connect(url: str) -> Any:
    """A redis-py client for ``redis://`` / ``rediss://`` URLs (passwords and DB numbers kept).

    Short socket timeouts: a dead Redis must surface as an error within seconds, not hang.
    """
    import redis
    return redis.Redis.from_url(url, socket_timeout=5, socket_connect_timeout=5,
                                health_check_interval=10, decode_responses=True)


def check(url: str, wait: float = 0.0, who: str = "farm", typo_names: bool = False) -> Any:
    """A client for ``url`` that has answered PING; a clear ConfigError when Redis refuses us
    (wrong password, TLS on a plain port, ...), or when Celery cannot read the URL (an option
    redis-py takes and Celery does not: its workers died with a traceback).

    A Redis that is not there (refused, unreachable, timing out) is a ConfigError too, unless
    ``wait``: then it is waited for up to that many seconds, said once on stderr as ``who``
    (a `farm worker` started with its Redis, as Compose starts them, waits for it as Celery
    workers do, rather than exit 4 at once), and a BrokerLost (exit 3) once it has not
    answered for that long. A refusal is said at once, whenever Redis answers.

    ``typo_names``: a host name that does not resolve ("Name or service not known") is a
    ConfigError at once, a typo more likely than a blip (`farm run`; a `farm worker` started
    with its Redis by Compose waits for the name, whose DNS entry comes with its container).
    A temporary DNS failure ("Temporary failure in name resolution") is waited for."""
    from farm.config import mask_url
    from farm.errors import BrokerLost, ConfigError
    _check_celery_reads(url)
    deadline: float | None = None
    while True:
        try:
            r = _pinged(url)
        except _Away as away:
            now = time.monotonic()
            over = not wait or deadline is not None and now >= deadline
            if _unresolved(away.exc) and (typo_names or over):
                raise ConfigError(_mistyped(url, away.exc)) from None
            if over:
                said = f"cannot reach the broker {mask_url(url)}: {away.exc}"
                if not wait:
                    raise ConfigError(said) from None
                raise BrokerLost(f"{said} (waited {wait:g}s: FARM_CLUSTER_OUTAGE_SECONDS)") \
                    from None
            if deadline is None:
                deadline = now + wait
                typo = (" (a name that does not resolve: is it mistyped?)"
                        if _unresolved(away.exc) else "")
                _say(f"{who}: waiting for the broker {mask_url(url)} ({away.exc}): up to "
                     f"{wait:g}s (FARM_CLUSTER_OUTAGE_SECONDS){typo}")
            time.sleep(1.0)     # polling an absent Redis: nothing to wait on but time
            continue
        if deadline is not None:
            _say(f"{who}: the broker answers: starting")
        return r


def _mistyped(url: str, exc: BaseException) -> str:
    """A broker whose host name does not resolve: at once for `farm run`, after its wait for
    `farm worker` (a name still unknown then is a typo, not a container yet to come: exit 4,
    the same words as `farm run`'s)."""
    from farm.config import mask_url
    return (f"the broker {mask_url(url)}: its host name '{_host_of(url)}' does not resolve "
            f"({exc}): is it mistyped? (--broker / FARM_BROKER_URL)")


def _unresolved(exc: BaseException) -> bool:
    """``exc`` (or what it was raised from) says the host name does not exist (EAI_NONAME),
    not that the lookup failed for now (EAI_AGAIN: a DNS server restarting)."""
    for _ in range(5):
        if isinstance(exc, socket.gaierror):
            return exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None))
        nxt = exc.__cause__ or exc.__context__
        if nxt is None:
            return False
        exc = nxt
    return False


def _host_of(url: str) -> str:
    from urllib.parse import urlsplit
    try:
        return urlsplit(url).hostname or ""
    except ValueError:
        return ""


class _Away(Exception):
    """Redis did not answer (``exc``)."""

    def __init__(self, exc: BaseException) -> None:
        super().__init__(str(exc))
        self.exc = exc


def _say(line: str) -> None:
    import sys

    from farm.config import mask_urls_in
    print(mask_urls_in(line), file=sys.stderr, flush=True)


def _pinged(url: str) -> Any:
    """A client for ``url`` that answered PING; ConfigError for a refusal or a URL Redis
    cannot take, `_Away` when it did not answer (a TLS mismatch is no such: a ConfigError)."""
    import redis
    from redis.exceptions import NoPermissionError

    from farm.config import mask_url
    from farm.errors import ConfigError
    try:
        r = connect(url)
        r.ping()
    except (ValueError, TypeError) as exc:   # an option redis-py does not know ('?foo=1')
        raise ConfigError(f"the broker URL {mask_url(url)} is not one Redis takes: "
                          f"{exc}") from None
    except redis.AuthenticationError as exc:
        if not _password_of(url) and "required" in str(exc).lower():   # NOAUTH: none given
            raise ConfigError(f"the broker {mask_url(url)} needs a password, and the URL gives "
                              "none (redis://:PASSWORD@host:port/db)") from None
        raise ConfigError(f"the broker {mask_url(url)} refused the password: {exc}") from None
    except NoPermissionError as exc:      # an ACL user without PING
        raise ConfigError(refused(url, exc, "PING")) from None
    except (redis.RedisError, OSError) as exc:
        tls = url.startswith("rediss://") and (     # a plain port's answer to a handshake
            isinstance(exc, redis.TimeoutError) or "wrong version number" in str(exc).lower())
        if tls:
            raise ConfigError(f"cannot reach the broker {mask_url(url)}: {exc} (rediss:// "
                              "talks TLS: is that port a TLS one? redis:// for a plain "
                              "port)") from None
        if not isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError)):
            raise ConfigError(f"cannot reach the broker {mask_url(url)}: {exc}") from None
        raise _Away(exc) from None
    return r


def _check_celery_reads(url: str) -> None:
    """Celery (kombu) takes no URL option but ``ssl_*`` and ``connect_timeout``: ``?db=3``
    or ``?socket_timeout=5``, fine for redis-py, made every Celery connection raise."""
    from kombu import Connection

    from farm.config import mask_url
    from farm.errors import ConfigError
    try:
        Connection(url)         # parses only: connects on first use
    except (TypeError, ValueError) as exc:
        found = re.search(r"argument '(\w+)'", str(exc))
        what = f"option '{found.group(1)}'" if found else str(exc)
        if found and found.group(1) == "db":
            what += " (a database goes in the path: redis://host:6379/N)"
        raise ConfigError(f"the broker URL {mask_url(url)} is not one Celery takes: "
                          f"{what}") from None


def refused(url: str, exc: BaseException, doing: str = "") -> str:
    """One line for Redis's NOPERM: the broker's ACL user lacks a command, key or channel
    farm (or Celery, under ``<prefix>:celery:``) uses. It names the URL (password masked),
    the user, what was refused and the grant that serves farm (before: a traceback of
    redis-py's insides, the device process started again and again)."""
    from farm.config import mask_url
    user = _user_of(url) or "default"
    mine = key("*")
    what = f" {doing}" if doing else ""
    needs = (f"the keys {mine} and Celery's channels: ACL SETUSER {user} ~{mine} &* +@all"
             if _prefix_set else "its keys (FARM_CLUSTER_PREFIX) and Celery's channels")
    said = _PIPELINED.sub("", str(exc))     # (redis-py's "Command # 1 (HSET …) of pipeline")
    return (f"the broker {mask_url(url)} refuses user '{user}'{what}: {said} (farm needs "
            f"every command on {needs})")


_PIPELINED = re.compile(r"^Command # \d+ \(.*?\) of pipeline caused error: ", re.DOTALL)


def multi_refused(exc: BaseException) -> BaseException | None:
    """The NOPERM of a MULTI the ACL refused, where redis-py says "EXEC without MULTI" (the
    refusal itself it drops; the commands MULTI was to hold ran one by one)."""
    from redis.exceptions import NoPermissionError, ResponseError
    if type(exc) is ResponseError and str(exc) == "EXEC without MULTI":
        return NoPermissionError("this user has no permissions to run the 'multi' command")
    return None


# the commands farm's scripts (_REFRESH, _TAKE_OVER, _PUSH_EVENT) run, on keys of farm's own:
# the ACL checks them as each runs, so EVAL alone being allowed proves nothing of them
_PROBE = """
redis.call('exists', KEYS[1])
redis.call('get', KEYS[1])
redis.call('set', KEYS[1], '1', 'PX', 1000)
redis.call('rpush', KEYS[2], '1')
redis.call('expire', KEYS[2], 1)
redis.call('del', KEYS[1], KEYS[2])
return 1
"""


def check_permissions(r: Any, url: str) -> None:
    """A ConfigError (see `refused`) unless the broker's user may do what a `farm worker`
    does: write farm's keys, run its scripts, scan its leases, subscribe to Celery's control
    channel (a sample of each kind of command; one refused later is said as it happens).
    A broker away, full or read-only is not checked here: each device waits for it."""
    from redis.exceptions import NoPermissionError, RedisError, ResponseError

    from farm.errors import ConfigError
    control = key("celery", f"/{_db_of(url)}.celery.pidbox")     # (kombu's name for it)
    probes = [(f"SET on {key('epoch')}", lambda: epoch(r)),
              (f"MULTI on {key('*')} (Celery's queues)", lambda: _transaction(r)),
              (f"EVAL (farm's scripts: EXISTS, GET, SET, RPUSH, EXPIRE, DEL) on {key('*')}",
               lambda: r.eval(_PROBE, 2, key("acl-check", "a"), key("acl-check", "b"))),
              (f"SCAN of {key('lease', '*')}", lambda: r.scan(0, match=key("lease", "*"),
                                                               count=1)),
              (f"PSUBSCRIBE {control} (Celery's control channel)",
               lambda: _psubscribe(r, control))]
    for doing, probe in probes:
        try:
            probe()
        except NoPermissionError as exc:
            raise ConfigError(refused(url, exc, doing)) from None
        except ResponseError as exc:    # a command refused inside a script: a plain error
            if type(exc) is ResponseError and doing.startswith("EVAL"):
                raise ConfigError(refused(url, exc, doing)) from None
            return                      # READONLY, OOM: below
        except (RedisError, OSError):   # away, full, a replica: each device waits for it
            return


def _transaction(r: Any) -> None:
    """A MULTI/EXEC, as kombu's Redis transport sends to size and ack Celery's queues: a
    device process refused it died at its consumer's start ("EXEC without MULTI", a
    traceback) and was started again and again, its device said ready each time."""
    from redis.exceptions import ResponseError
    with r.pipeline(transaction=True) as pipe:
        pipe.exists(key("acl-check", "a"))
        try:
            pipe.execute()
        except ResponseError as exc:
            raise multi_refused(exc) or exc from None


def _psubscribe(r: Any, pattern: str) -> None:
    """PSUBSCRIBE ``pattern`` (Redis's ACL lets a pattern only through when it is one of the
    user's channel patterns as written: ``&farm:*`` does not let ``farm:celery:...`` by)."""
    sub = r.pubsub()
    try:
        sub.psubscribe(pattern)
        sub.get_message(timeout=1.0)        # (its answer: NOPERM is raised here)
    finally:
        sub.close()


def _db_of(url: str) -> str:
    from urllib.parse import urlsplit
    try:
        return urlsplit(url).path.strip("/") or "0"
    except ValueError:
        return "0"


def _user_of(url: str) -> str:
    from urllib.parse import unquote, urlsplit
    try:
        return unquote(urlsplit(url).username or "")
    except ValueError:
        return ""


def _password_of(url: str) -> str:
    from urllib.parse import urlsplit
    try:
        return urlsplit(url).password or ""
    except ValueError:
        return ""


# ---- leases --------------------------------------------------------------------------------
def acquire_lease(r: Any, device: str, info: dict[str, Any]) -> bool:
    """Take the lease of ``device`` unless a live worker holds it."""
    return bool(r.set(key("lease", device), json.dumps(info), nx=True, px=int(LEASE_TTL_S * 1000)))


def refresh_lease(r: Any, device: str, info: dict[str, Any]) -> bool:
    """Heartbeat: rewrite the lease (this also restores it after a Redis restart). False, the
    lease left as it is, when another process holds the name since before this one (``info``'s
    ``token`` and ``since``) took it: a name taken twice, by a process that started while the
    lease was gone (Redis lost its data, or its holder stood still past the TTL). The later
    one must give the name up."""
    raw = json.dumps(info)
    ttl = int(LEASE_TTL_S * 1000)
    if not info.get("token") or not isinstance(info.get("since"), (int, float)):
        r.set(key("lease", device), raw, px=ttl)
        return True
    return bool(r.eval(_REFRESH, 1, key("lease", device), raw, info["token"],
                       repr(float(info["since"])), ttl))


_REFRESH = """
local raw = redis.call('get', KEYS[1])
if raw then
  local ok, held = pcall(cjson.decode, raw)
  if ok and type(held) == 'table' and type(held.token) == 'string' and held.token ~= ARGV[2]
     and type(held.since) == 'number' and held.since < tonumber(ARGV[3]) then
    return 0
  end
end
redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[4])
return 1
"""


def take_over_lease(r: Any, device: str, seen: str, info: dict[str, Any]) -> bool:
    """Take the lease of ``device`` if it still holds ``seen`` (the lease of a process known
    dead), atomically: a live worker that took the name meanwhile keeps it."""
    return bool(r.eval(_TAKE_OVER, 1, key("lease", device), seen, json.dumps(info),
                       int(LEASE_TTL_S * 1000)))


_TAKE_OVER = """
if redis.call('get', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
"""


def this_machine() -> dict[str, str]:
    """What a lease says of the machine its process runs on: host name and boot id (two
    machines may share a host name), so a successor there can tell whether it is dead; and
    the farm version it runs, so a run can tell a worker that may not read its jobs."""
    from farm import __version__
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as f:
            boot = f.read().strip()
    except OSError:
        boot = ""
    return {"host": socket.gethostname(), "boot": boot, "version": __version__}


def release_lease(r: Any, device: str, token: str) -> None:
    raw = r.get(key("lease", device))
    if raw and json.loads(raw).get("token") == token:
        r.delete(key("lease", device))


def leases(r: Any) -> dict[str, dict[str, Any]]:
    """Every live device lease, by device name."""
    out: dict[str, dict[str, Any]] = {}
    names = list(r.scan_iter(match=key("lease", "*"), count=500))
    if not names:
        return out
    for name, raw in zip(names, r.mget(names)):
        if raw:
            out[name.split(":lease:", 1)[1]] = json.loads(raw)
    return out


def acquire_target(r: Any, target: str, device: str) -> bool:
    """Take the phone ``target`` for ``device`` unless another live worker drives it."""
    return bool(r.set(key("target", target), device, nx=True, px=int(LEASE_TTL_S * 1000)))


def refresh_target(r: Any, target: str, device: str) -> None:
    """Heartbeat of a taken phone (restored after a Redis restart; never taken over)."""
    if r.get(key("target", target)) in (None, device):
        r.set(key("target", target), device, px=int(LEASE_TTL_S * 1000))


def release_target(r: Any, target: str, device: str) -> None:
    if r.get(key("target", target)) == device:
        r.delete(key("target", target))


def target_holders(r: Any, targets: list[str]) -> dict[str, str]:
    """Which device drives each of ``targets`` (free ones left out)."""
    if not targets:
        return {}
    held = r.mget([key("target", t) for t in targets])
    return {t: d for t, d in zip(targets, held) if d}


def quarantined(r: Any) -> dict[str, str]:
    return dict(r.hgetall(key("quarantine")))


def release(r: Any, device: str) -> bool:
    """Take a device out of quarantine, its infra-error streak reset (else its next error
    would quarantine it again); True if it was in. (No MULTI: a user the ACL refuses it
    had both done, and then "internal error: EXEC without MULTI".)"""
    pipe = r.pipeline(transaction=False)
    pipe.hdel(key("quarantine"), device)
    pipe.delete(key("streak", device))
    return bool(pipe.execute()[0])


# ---- events ---------------------------------------------------------------------------------
# how long the events of a run whose client no longer announces itself (its <p>:run key gone:
# killed, or away longer than RUN_TTL_S) are kept: its client, back from an outage, takes them
# within seconds of announcing itself again; a SIGKILLed one never does (they held a day's
# TTL: the screenshots of its cases in flight, hundreds of KB a run)
ORPHAN_EVENTS_TTL_S = 600


def push_event(r: Any, run_id: str, raw: str, ttl: float) -> bool:
    """Append an event (JSON) to the list the client of ``run_id`` pops, unless that run has
    ended; False then. Atomic: an ended run's list, deleted by its client, is never made
    again by a worker finishing late. A run whose key is gone (its client killed, or not
    heard for RUN_TTL_S) gets it still (a client waiting out an outage takes it once back),
    its list then kept ORPHAN_EVENTS_TTL_S after the last push, not ``ttl``."""
    # (the run's key goes after the event and its TTL: the events' and ended keys first, as
    # before, for whatever reads the call's arguments)
    return bool(r.eval(_PUSH_EVENT, 2, key("events", run_id), key("ended", run_id), raw,
                       int(ttl), key("run", run_id), int(min(ttl, ORPHAN_EVENTS_TTL_S))))


_PUSH_EVENT = """
if redis.call('exists', KEYS[2]) == 1 then return 0 end
redis.call('rpush', KEYS[1], ARGV[1])
if redis.call('exists', ARGV[3]) == 1 then
  redis.call('expire', KEYS[1], ARGV[2])
else
  redis.call('expire', KEYS[1], ARGV[4])
end
return 1
"""


# ---- epoch ---------------------------------------------------------------------------------
def epoch(r: Any) -> str:
    """The current data epoch; created if missing. It changes when Redis comes back empty."""
    r.set(key("epoch"), secrets.token_hex(8), nx=True)
    return r.get(key("epoch")) or ""


# ---- duration history ------------------------------------------------------------------------
def load_history(r: Any, keys: Iterable[str]) -> dict[str, list[float]]:
    """Samples for ``"<platform>:<case id>"`` keys (missing keys left out)."""
    wanted = list(keys)
    if not wanted:
        return {}
    values = r.hmget(key("history"), wanted)
    return {k: json.loads(v) for k, v in zip(wanted, values) if v}


def record_history(r: Any, samples: dict[str, float]) -> None:
    """Append one duration per key, keeping the most recent ``HISTORY_KEEP``."""
    if not samples:
        return
    old = load_history(r, samples)
    r.hset(key("history"), mapping={
        k: json.dumps((old.get(k, []) + [round(v, 3)])[-HISTORY_KEEP:]) for k, v in samples.items()})


def now() -> float:
    return time.time()
