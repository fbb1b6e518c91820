"""Every Prometheus metric farm exports, defined once (names: REFERENCE.md §9).

Labels are bounded: platform, status, family, kind, tokens, tier, result, cache, device, queue,
role —
never a case, run id, URL or error text.

Who exports what (so a Prometheus scraping `farm run` and every `farm worker` never counts
one event twice — each series has one producer per event):

* **Where it happens** — recorded by the process that runs the case: model requests, latency,
  tokens and cost (``farm_model_*``, at the model client), locate attempts (the locator
  chain), screenshots (the grabber), cache requests, device gauges (the DeviceSlot). That is
  `farm run` with local devices, and the `farm worker`s in a cluster run.
* **Per final case result** — recorded only by `farm run` (RunEvents wrapper in the session, so
  both executors and the results decided up front are counted once): ``farm_cases_total``,
  ``farm_case_duration_seconds``, ``farm_agent_iterations``, ``farm_case_tokens_total``,
  ``farm_case_cost_usd_total`` (the tokens and cost of every attempt, from the results),
  ``farm_queue_depth``. These are what ``metrics.prom`` must agree with results.json on, in
  cluster runs too, where no model call happens in `farm run` itself.

Series whose label values are a known set start at 0 in the process that will count them
(``run_started``, ``device_started``, ``model_family``): rate() and increase() count from a
series' first sample. ``process_*`` is on /metrics only, not in ``metrics.prom`` or a push.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import secrets
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server
from socketserver import ThreadingMixIn

import prometheus_client
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Info
from prometheus_client.core import GaugeMetricFamily

from farm.relay import RelayEvents

log = logging.getLogger("farm.metrics")

prometheus_client.disable_created_metrics()   # no *_created series: textfile stays readable
# farm's own metrics: what metrics.prom and the Pushgateway get. process_* is served on /metrics
# only: node_exporter exports its own process_* and drops a textfile's as duplicates ("was
# collected before"), and a Pushgateway would keep a finished run's as if they were current.
REGISTRY = CollectorRegistry()
PROCESS = prometheus_client.ProcessCollector(registry=None)

# ---- per final case result (farm run only) ----------------------------------------------------
CASES = Counter("farm_cases", "Final case results, by platform and status.",
                ["platform", "status"], registry=REGISTRY)
CASE_DURATION = Histogram(
    "farm_case_duration_seconds", "Duration of a case's final attempt (cases that ran on a "
    "device; none skipped).", ["platform", "status"], registry=REGISTRY,
    buckets=(1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600))
AGENT_ITERATIONS = Histogram(
    "farm_agent_iterations", "Plan-act rounds of the AI agent per case, every attempt's "
    "(cases with ai steps the agent ran: a replayed cached plan is none, see "
    "farm_cache_requests_total{cache=\"plan\"}).",
    ["platform"], registry=REGISTRY, buckets=(1, 2, 3, 5, 8, 10, 15, 20, 30, 40, 60, 100))
CASE_TOKENS = Counter("farm_case_tokens", "Model tokens of every attempt of the final cases, "
                      "from their results: with farm's estimate of the tokens of a request "
                      "that got no usable answer (sent, likely billed), which "
                      "farm_model_tokens_total counts as 0.", ["platform", "kind"],
                      registry=REGISTRY)
CASE_COST = Counter("farm_case_cost_usd", "Model cost (USD) of every attempt of the final "
                    "cases, from their results.", ["platform"], registry=REGISTRY)

# ---- where it happens (the process running the case) --------------------------------------------
MODEL_REQUESTS = Counter("farm_model_requests", "Model HTTP requests, by outcome "
                         "(ok | error | timeout | interrupted: Ctrl-C or a stop cut it "
                         "short).", ["family", "outcome"], registry=REGISTRY)
MODEL_DURATION = Histogram(
    "farm_model_request_duration_seconds", "Model request latency.", ["family"],
    registry=REGISTRY, buckets=(0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120))
MODEL_TOKENS = Counter("farm_model_tokens", "Model tokens as the model reported them.",
                       ["family", "kind"], registry=REGISTRY)
MODEL_COST = Counter("farm_model_cost_usd", "Model cost in USD (litellm's cost map; 0 for "
                     "models it does not know).", ["family"], registry=REGISTRY)
MODEL_UNPRICED = Counter(
    "farm_model_unpriced_requests", "Model requests whose cost is unknown: counted as $0 in "
    "farm_model_cost_usd_total, which is then a lower bound (tokens=counted: a model "
    "litellm's cost map lacks, its tokens counted; tokens=unknown: a reply without usage, one "
    "cut mid-body, a timeout or a stop after the request was sent: its tokens counted as 0 "
    "too).",
    ["family", "tokens"], registry=REGISTRY)
LOCATE_RESULTS = ("hit", "miss", "error")
LOCATE_ATTEMPTS = Counter("farm_locate_attempts", "Locator tier attempts, by tier and result "
                          f"({' | '.join(LOCATE_RESULTS)}).", ["tier", "result"],
                          registry=REGISTRY)
SCREENSHOT_DURATION = Histogram(
    "farm_screenshot_duration_seconds", "Real screenshot captures (cache hits not counted).",
    ["platform"], registry=REGISTRY,
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5))
# the label values farm counts, by cache; farm_cache_requests_total's HELP names each
CACHE_RESULTS = {"locate": ("hit", "miss", "stale"),
                 "plan": ("hit", "miss", "replanned", "replay-failed", "replay-error")}
CACHE_REQUESTS = Counter("farm_cache_requests", "Plan / locate cache lookups, by result ("
                         + "; ".join(f"{cache}: {' | '.join(results)}"
                                     for cache, results in CACHE_RESULTS.items()) + ").",
                         ["cache", "result"], registry=REGISTRY)
DEVICE_BUSY = Gauge("farm_device_busy", "1 while the device runs a case.",
                    ["platform", "device"], registry=REGISTRY)
DEVICE_HEALTHY = Gauge("farm_device_healthy", "1 while the device is open and usable; once "
                       "closed, its last value (0: lost or quarantined).",
                       ["platform", "device"], registry=REGISTRY)
DEVICE_QUARANTINED = Gauge("farm_device_quarantined", "1 once the device is quarantined.",
                           ["platform", "device"], registry=REGISTRY)
WORKER_HEARTBEAT = Gauge("farm_worker_heartbeat_timestamp_seconds",
                         "When the worker last renewed its device lease in Redis.",
                         ["device"], registry=REGISTRY)
ATTEMPTS_LOST = Counter("farm_attempts_lost", "Case attempts lost to a device or worker that "
                        "died or stopped answering mid-case.", ["platform"], registry=REGISTRY)
ATTEMPTS_RETRIED = Counter("farm_attempts_retried", "Case attempts given another attempt (a "
                           "device's error or the case's retries:).", ["platform"],
                           registry=REGISTRY)
BUILD = Info("farm_build",
             "farm's version (+git commit) and this process's role (run | worker).",
             registry=REGISTRY)

STATUSES = ("passed", "failed", "error", "flaky", "skipped", "interrupted")
# Label values that are a known set, so their series can start at 0 (tiers: the classes in
# farm/agent/locator.py, ocr.py, model_tiers.py and farm/cache/locate.py; checked by a test).
# LOCATE_RESULTS and CACHE_RESULTS are defined with their counters, whose HELP names them.
LOCATE_TIERS = ("plan-bbox", "xpath", "cache", "text", "ocr", "ai", "deep-locate")
MODEL_OUTCOMES = ("ok", "error", "timeout", "interrupted")
TOKEN_KINDS = ("prompt", "completion")
UNPRICED_TOKENS = ("counted", "unknown")


def build_info(role: str) -> None:
    """farm_build_info{version,role}: ``version`` carries the git commit of a checkout farm
    runs from, as a local version (``0.1.0+d72697a0dae6``): a worker on a days-old checkout
    is told apart from one on today's code."""
    BUILD.info({"version": build_version(), "role": role})


def build_version() -> str:
    """farm's version, and ``+<commit>`` when it runs from a git checkout (``+<commit>.dirty``
    when that checkout has uncommitted changes: farm.tree_modified)."""
    from farm import __version__, build_commit, tree_modified
    commit = build_commit()
    if not commit:
        return __version__
    return f"{__version__}+{commit}.dirty" if tree_modified() else f"{__version__}+{commit}"


# ---- recording --------------------------------------------------------------------------------
def model_request(family: str, outcome: str, seconds: float, usage: Any = None,
                  unpriced: str | None = None) -> None:
    """One HTTP request to a model (``usage``: a farm.usage.Usage of a successful reply).
    ``unpriced``: this request's cost is unknown, its tokens "counted" or "unknown" ("": its
    cost is known); None: told by `unpriced_request`."""
    model_family(family)
    MODEL_REQUESTS.labels(family, outcome).inc()
    MODEL_DURATION.labels(family).observe(seconds)
    if usage is not None:
        MODEL_TOKENS.labels(family, "prompt").inc(usage.prompt_tokens)
        MODEL_TOKENS.labels(family, "completion").inc(usage.completion_tokens)
        MODEL_COST.labels(family).inc(max(usage.cost_usd, 0.0))
    if unpriced is None:
        unpriced = unpriced_request(outcome, usage)
    if unpriced:
        MODEL_UNPRICED.labels(family, unpriced).inc()


def unpriced_request(outcome: str, usage: Any = None) -> str:
    """Whether a request's cost is unknown: "unknown" (its tokens too), "counted" (its tokens
    known, its price not) or "" (known). A reply is judged by its own figures, not by the
    flags, which an earlier attempt of the same call may have set (a timeout, then a reply):
    no tokens at all is a reply without usage (no prompt is free); tokens at $0 with the cost
    flagged unknown, a model missing from litellm's cost map. A timeout was sent and perhaps
    processed. Other failures (a 429, a 5xx) were not billed."""
    if usage is not None:
        if not (usage.prompt_tokens or usage.completion_tokens):
            return "unknown"
        return "counted" if usage.cost_usd <= 0 and usage.cost_unknown else ""
    return "unknown" if outcome == "timeout" else ""


def locate_attempt(tier: str, result: str) -> None:
    LOCATE_ATTEMPTS.labels(tier, result).inc()


def screenshot(platform: str, seconds: float) -> None:
    SCREENSHOT_DURATION.labels(platform).observe(seconds)


def cache_request(cache: str, result: str) -> None:
    CACHE_REQUESTS.labels(cache, result).inc()


def device_state(platform: str, device: str, state: str) -> None:
    """A DeviceSlot state: starting | idle | busy | restarting | dead | quarantined | done.
    A device closed as the run (or worker) ends (``done``) keeps its last health: 1 when it
    served to the end, 0 when it was restarting, or stopped as it started (a run's
    metrics.prom, written after every device closed, said 0 for each, so a lost device could
    not be told from the others, and a dashboard's sum of it read 0)."""
    if state == "starting":
        device_started(platform)
    DEVICE_BUSY.labels(platform, device).set(state == "busy")
    if state != "done":
        device_healthy(platform, device,
                       state in ("idle", "busy") and all(c() for c in _SERVES))
    DEVICE_QUARANTINED.labels(platform, device).set(state == "quarantined")


_SERVES: list[Callable[[], bool]] = []     # a `farm worker`'s: False while its broker is away


def serves_only_if(check: Callable[[], bool]) -> None:
    """A device's state says healthy only while ``check()`` holds too (a `farm worker`: its
    broker answers): a slot going busy -> idle while Redis was away set the gauge back to 1
    while /ready said 503."""
    _SERVES[:] = [check]


def device_healthy(platform: str, device: str, healthy: bool) -> None:
    """farm_device_healthy: set with its state (`device_state`), and by a `farm worker` whose
    broker is away (0: its /ready is 503) or back."""
    DEVICE_HEALTHY.labels(platform, device).set(healthy)


def heartbeat(device: str, when: float) -> None:
    WORKER_HEARTBEAT.labels(device).set(when)


def case_iterations(result: Any) -> int | None:
    """Agent rounds of a case, every attempt's (None: the agent ran no ai step in any): a
    retried case spent the rounds of its failed attempts too, as its tokens and cost count
    them. A step that replayed a cached plan and asked no model (`REPLAYED`) is no round: a
    nightly that replays everything read "every agent finished in 1 round" (its 0 in the
    lowest bucket); farm_cache_requests_total{cache="plan"} counts those."""
    rounds = [s.rounds for attempt in (*result.previous, result) for s in attempt.steps
              if getattr(s, "rounds", None) is not None and not _replayed(s)]
    return sum(rounds) if rounds else None


# plan-cache results of a step whose actions came from a cached plan, with no model round
REPLAYED = ("hit", "replay-failed", "replay-error")


def _replayed(step: Any) -> bool:
    cache = getattr(step, "cache", None)
    return getattr(cache, "plan", None) in REPLAYED


def ran_on_device(result: Any) -> bool:
    """Did this attempt (a farm.results.CaseResult) run on its device? Not one decided up
    front or never run (no device), nor one a worker skipped before its session (its first
    step needs a model and it has none: `farm run` skips those up front, with no device)."""
    if not result.device:
        return False
    if result.status != "skipped":
        return True
    return any(step.status != "skipped" for step in result.steps) or any(
        ran_on_device(part) for part in result.parts)


def case_finished(result: Any) -> None:
    """One final case result (a farm.results.CaseResult): count it once."""
    CASES.labels(result.platform, result.status).inc()
    # a case that ran on its device to an end of its own: not a skipped one (its steps stopped
    # at one that needs a model, or a stop left it "not run": a part of a case's time, which
    # pulled the p50 / p95 down). Its own attempt's time, as HELP says: a retried case's
    # `duration` is every attempt's, which doubled it on the p50 / p95 panel
    if result.status != "skipped" and ran_on_device(result):
        seconds = result.duration if result.attempt_duration is None else \
            result.attempt_duration
        CASE_DURATION.labels(result.platform, result.status).observe(seconds)
    iterations = case_iterations(result)
    if iterations is not None:
        AGENT_ITERATIONS.labels(result.platform).observe(iterations)
    for attempt in [*result.previous, result]:
        if attempt.usage is None:
            continue
        CASE_TOKENS.labels(result.platform, "prompt").inc(attempt.usage.prompt_tokens)
        CASE_TOKENS.labels(result.platform, "completion").inc(attempt.usage.completion_tokens)
        CASE_COST.labels(result.platform).inc(max(attempt.usage.cost_usd, 0.0))


# rate() and increase() count from a series' first sample: a series first scraped at 5 shows
# no increase. So every series whose label values are known up front is created at 0 before
# anything is counted, by the process that will count it.
def run_started(platforms: Iterable[str]) -> None:
    """Create a run's case series at 0, so the first scrape has a base to count up from."""
    for platform in platforms:
        for status in STATUSES:
            CASES.labels(platform, status)
            CASE_DURATION.labels(platform, status)
        for kind in TOKEN_KINDS:
            CASE_TOKENS.labels(platform, kind)
        CASE_COST.labels(platform)
        AGENT_ITERATIONS.labels(platform)
        ATTEMPTS_LOST.labels(platform)
        ATTEMPTS_RETRIED.labels(platform)


def attempt_ended(platform: str, result: Any, retried: bool) -> None:
    """An attempt the run recorded (`farm run`, once per attempt): lost to a dead device or
    worker (farm_attempts_lost_total), given another attempt (farm_attempts_retried_total)."""
    error = getattr(result, "error", None)
    if getattr(error, "kind", "") == "DeviceLost":
        ATTEMPTS_LOST.labels(platform).inc()
    if retried:
        ATTEMPTS_RETRIED.labels(platform).inc()


def device_started(platform: str) -> None:
    """Create at 0 the series of the process that runs cases on a device (`farm run` with
    local devices, a `farm worker`): locate attempts, cache lookups, screenshots."""
    for tier in LOCATE_TIERS:
        for result in LOCATE_RESULTS:
            LOCATE_ATTEMPTS.labels(tier, result)
    for cache, results in CACHE_RESULTS.items():
        for result in results:
            CACHE_REQUESTS.labels(cache, result)
    SCREENSHOT_DURATION.labels(platform)


_MODEL_FAMILIES: set[str] = set()


def model_family(family: str) -> None:
    """Create a model family's series at 0. Call it where the model is configured, before its
    first request; a family's first request does it too (for the outcomes it did not have)."""
    if family in _MODEL_FAMILIES:
        return
    for outcome in MODEL_OUTCOMES:
        MODEL_REQUESTS.labels(family, outcome)
    MODEL_DURATION.labels(family)
    for kind in TOKEN_KINDS:
        MODEL_TOKENS.labels(family, kind)
    MODEL_COST.labels(family)
    for tokens in UNPRICED_TOKENS:
        MODEL_UNPRICED.labels(family, tokens)
    _MODEL_FAMILIES.add(family)


class CaseMetrics(RelayEvents):
    """RunEvents wrapper that counts every final case result once (first one per case wins),
    whichever executor reports it. A shared-context unit's result (one with its files',
    ``parts``) is left to the end-of-run pass, which counts the run's results as they are
    written: its files (a --matrix run's unit as one). Counted as it came, a batch of 2 files
    was 3 cases in farm_cases_total: the unit, then its files again at the end."""

    def __init__(self, inner: Any) -> None:
        super().__init__(inner)
        self._seen: set[str] = set()
        self._lock = threading.Lock()

    def case_finished(self, device: str, result: Any, final: bool) -> None:
        if final and not result.parts:
            self.count(result)
        self.inner.case_finished(device, result, final)

    def count(self, result: Any, settling: bool = False) -> None:
        """Count ``result`` unless its case was counted already; ``settling``: the run's
        end-of-run pass over every result (those already counted are expected there)."""
        with self._lock:
            if result.case_id in self._seen:
                if not settling:
                    log.warning("%s had a final result already: not counted again",
                                result.case_id)
                return
            self._seen.add(result.case_id)
        case_finished(result)


class _QueueDepth:
    """farm_queue_depth{queue}: jobs a run holds back until a device is free, read from the
    running executor when scraped; once the run is over, what its queues held at the end (0
    for a finished run), so that the run's last scrape still has every queue's series."""

    def __init__(self) -> None:
        self.source: Callable[[], dict[str, int]] | None = None
        self.final: dict[str, int] = {}

    def read(self) -> dict[str, int]:
        source = self.source
        if source is None:
            return self.final
        try:
            return source()
        except Exception as exc:      # a scrape must not fail because the run moved on
            log.debug("queue depth: %s", exc)
            return {}

    def collect(self) -> Iterable[GaugeMetricFamily]:
        family = GaugeMetricFamily("farm_queue_depth", "Jobs of this run waiting for a device, "
                                   "by queue (pool).", labels=["queue"])
        for queue, n in sorted(self.read().items()):
            family.add_metric([queue], n)
        yield family


QUEUE = _QueueDepth()
REGISTRY.register(QUEUE)


def watch_queue(source: Callable[[], dict[str, int]] | None) -> None:
    """Read farm_queue_depth from ``source`` (a run's executor); None at the run's end keeps
    what its queues held then."""
    QUEUE.final = QUEUE.read() if source is None else {}
    QUEUE.source = source


# ---- export -----------------------------------------------------------------------------------
class _Served:
    """What /metrics serves: farm's metrics and this process's (process_*)."""

    def collect(self) -> Iterator[Any]:
        yield from REGISTRY.collect()
        yield from PROCESS.collect()


SERVED = CollectorRegistry(auto_describe=False, support_collectors_without_names=True)
SERVED.register(_Served())


def exposition() -> bytes:
    """What /metrics serves now."""
    return prometheus_client.generate_latest(SERVED)


def write_textfile(path: Path) -> None:
    """``metrics.prom`` in the text exposition format, farm's own metrics (written atomically:
    node_exporter's textfile collector never reads half a file). The temporary file is
    ``metrics.prom.<pid>.<random>.tmp``; one a killed farm left there (SIGKILL mid-write) is
    removed here, so they do not pile up in a textfile-collector folder."""
    path = Path(path)
    from prometheus_client.openmetrics.exposition import ALLOWUTF8    # as write_to_textfile
    body = prometheus_client.generate_latest(REGISTRY, ALLOWUTF8)
    _discard_stale_temps(path)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{secrets.token_hex(6)}.tmp")
    # created exclusively, never through a symlink planted at that name
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(body)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _discard_stale_temps(path: Path) -> None:
    """Remove the temporary files of writes of ``path`` whose farm process is gone: this
    version's (``<name>.<pid>.<hex>.tmp``) and those of earlier ones, written by
    prometheus_client (``<name>.<pid>.<thread id>``). A live process's write is left be."""
    own = re.compile(re.escape(path.name) + r"\.(\d+)\.(?:\d+|[0-9a-f]+\.tmp)")
    try:
        names = [e.name for e in os.scandir(path.parent) if e.name.startswith(path.name + ".")]
    except OSError:
        return          # the write itself says what is wrong with the folder
    for name in names:
        found = own.fullmatch(name)
        if found and not _alive(int(found.group(1))):
            try:
                (path.parent / name).unlink()
            except OSError as exc:
                log.debug("cannot remove the stale %s: %s", path.parent / name, exc)


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (another user's counts as running; so does this one, whose
    failed writes remove their own file)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):    # not ours to signal, or no pid at all: left be
        return True
    return True


class _Sent:
    """A WSGI response body that calls ``sent`` once the server has written it out (the
    server asks for a next block only after writing this one, and then closes the response);
    not when writing failed (the client went away)."""

    def __init__(self, body: bytes, sent: Callable[[], None]) -> None:
        self.body, self.sent, self.written = body, sent, False

    def __iter__(self) -> Iterator[bytes]:
        yield self.body
        self.written = True

    def __len__(self) -> int:     # one block: the server sends its Content-Length
        return 1

    def close(self) -> None:
        if self.written:
            self.sent()


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True
    # SO_REUSEADDR: the port binds again at once after a restart, though the last scrapes'
    # connections still hold it in TIME_WAIT (~60 s). On Linux a port that another socket
    # listens on still refuses the bind (EADDRINUSE): two processes never share a port.
    allow_reuse_address = True


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class MetricsServer:
    """/metrics (text exposition), /healthz (the process answers) and /ready (``ready()``
    says the device can take work: 503 otherwise) on one port, in a daemon thread."""

    def __init__(self, port: int, host: str = "", ready: Callable[[], bool] | None = None,
                 scan: int = 1) -> None:
        self.host, self.wanted, self.scan = host, port, scan
        self.ready = ready or (lambda: True)
        self.port = 0
        self.scrapes = 0            # scrapes begun
        self._answered = -1         # the latest begun scrape that has been answered
        self._scraped = threading.Condition()
        self._metrics = prometheus_client.make_wsgi_app(SERVED)
        self._server: _Server | None = None

    def start(self) -> int:
        """Bind ``port`` (or, with ``scan`` > 1, the first free one of the ``scan`` ports from
        it); return the port. OSError when none is free."""
        # (the scan stops at 65535: a port past it is an OverflowError, not an OSError)
        last = min(self.wanted + max(self.scan, 1) - 1, 65535) if self.wanted else 0
        for port in range(self.wanted, last + 1):
            try:
                self._server = make_server(self.host, port, self._app, _Server,
                                           handler_class=_Quiet)
                break
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE or port == last:
                    raise
        assert self._server is not None
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, name="metrics", daemon=True).start()
        return self.port

    def _app(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        if path == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok\n"]
        if path == "/ready":
            ok = bool(self.ready())
            start_response("200 OK" if ok else "503 Service Unavailable",
                           [("Content-Type", "text/plain")])
            return [b"ready\n" if ok else b"not ready\n"]
        with self._scraped:
            ticket = self.scrapes
            self.scrapes += 1
        body = b"".join(self._metrics(environ, start_response))
        # answered once the server has written the body out (it then closes the response),
        # not when it is built: a batch job that exits in between loses its final values
        return _Sent(body, lambda: self._answer(ticket))

    def _answer(self, ticket: int) -> None:
        with self._scraped:
            self._answered = max(self._answered, ticket)
            self._scraped.notify_all()

    def wait_for_scrape(self, timeout: float, since: int | None = None) -> bool:
        """Wait until a scrape that began after this call (or after ``since`` scrapes had
        begun) has been answered, its body written out, so it carried the values as they are
        now (a batch job's final ones), at most ``timeout`` seconds."""
        with self._scraped:
            first = self.scrapes if since is None else since
            return self._scraped.wait_for(lambda: self._answered >= first, timeout)

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
