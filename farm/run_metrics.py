"""A run's Prometheus metrics: /metrics while it runs (``--metrics-port``), its baseline pushed
before the first case ends and what it counted so far every FARM_PUSHGATEWAY_INTERVAL
(``--pushgateway``), and at its end metrics.prom in the run directory, the final push and a
wait for the final scrape. Problems here are warnings on
stderr, never the run's exit code."""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from farm import metrics
from farm.config import Settings
from farm.errors import ConfigError
from farm.results import CaseResult
from farm.text import first_line

if TYPE_CHECKING:
    from farm.pushgateway import RunPushes


def start_metrics(settings: Settings, platforms: set[str]
                  ) -> tuple["metrics.MetricsServer | None", metrics.CaseMetrics]:
    """/metrics of this run while it runs (``--metrics-port``), and the tally of its final
    results; the case series start at 0 so a scrape before the first result has a base (at
    the Pushgateway too: `_push_baseline`)."""
    metrics.build_info("run")
    metrics.run_started(platforms)
    tally = metrics.CaseMetrics(None)
    _local_series(settings, platforms)
    _start_pushes(settings)
    if not settings.metrics_port:
        return None, tally
    server = metrics.MetricsServer(settings.metrics_port, settings.metrics_host)
    try:
        server.start()
    except OSError as exc:      # named as set: the flag, FARM_METRICS_PORT, and the host's
        if _pushes is not None:
            _pushes.stop()      # (the run stops here: no pushes of it every period)
        where = f"{settings.named('metrics_port')} {settings.metrics_port}" + (
            f" on {settings.named('metrics_host')} {settings.metrics_host}"
            if settings.metrics_host else "")
        raise ConfigError(f"{where}: cannot listen there ({exc.strerror or exc})") from None
    return server, tally


PUSHED_TOTALS = "pushed-metrics.json"     # in the state dir: see pushgateway.push


def _local_series(settings: Settings, platforms: set[str]) -> None:
    """A local run's device and model series at 0 before the baseline push, as its devices
    will create them: pushed first at the end with their values, a host's first run's model
    tokens, cost and locates were no increase to Prometheus (a CI runner whose host name is
    new at every job: none of its runs). A cluster run's are its workers'."""
    if settings.broker_url:
        return
    for platform in platforms:
        metrics.device_started(platform)
    if settings.model:          # (a zero-token run imports nothing of the model)
        from farm.llm.models import configured_families
        for family in configured_families(settings):
            metrics.model_family(family)


# the run's pushes while it is under way (one run per process, as its metrics are)
_pushes: "RunPushes | None" = None


def _start_pushes(settings: Settings) -> None:
    """With ``--pushgateway``: push the totals so far (0 for a host's first run) before any
    case ends, so that Prometheus, scraping the gateway while the run lasts, sees each case
    series rise from it (`increase()` counts from a series' second sample: a host's first
    run, pushed only at its end, was not counted); then, every FARM_PUSHGATEWAY_INTERVAL
    seconds, what the run counted so far (a nightly showed nothing until it ended, and one
    killed by its CI's hard timeout lost every count). In the background: no case waits for
    the gateway. The first failure after the baseline is one warning on stderr; the
    baseline's is said by the push at the end."""
    global _pushes
    if _pushes is not None:
        _pushes.stop()          # an earlier run of this process that did not reach its end
        _pushes = None
    if not settings.pushgateway_url:
        return
    from farm.pushgateway import RunPushes
    interval = settings.pushgateway_interval

    def say(exc: Exception) -> None:
        from farm.config import mask_url
        _say(f"farm: warning: could not push metrics to {mask_url(settings.pushgateway_url)}"
             f": {_url_failure(exc, settings.pushgateway_timeout)} (pushing again every "
             f"{interval:g} s and at the end, said once; "
             f"{_kept(settings, 'if none gets through')})")
    _pushes = RunPushes(settings.pushgateway_url, Path(settings.state_dir) / PUSHED_TOTALS,
                        settings.pushgateway_timeout, settings.pushgateway_instance,
                        interval, say)


def export_metrics(settings: Settings, run_dir: Path, tally: metrics.CaseMetrics,
                   cases: list[CaseResult], server: "metrics.MetricsServer | None") -> None:
    """Count the results no executor reported (decided up front; a run refused before it
    started passes none: its cases ran nowhere, no alert may count them as errors); write
    metrics.prom into the run directory (node_exporter's textfile collector can read it),
    push to ``--pushgateway`` when given, and with ``--metrics-port`` wait for the final values
    to be scraped (not for a refused run's: it counted nothing, and its error waited behind
    the wait). Problems are warnings on stderr (the report's path stays the last line on
    stdout), never the run's exit code."""
    for result in cases:
        tally.count(result, settling=True)
    with _Linger(server) as linger:
        _write_and_push(settings, run_dir)
        _last_scrape(server, settings, linger, wait=bool(cases))


def _write_and_push(settings: Settings, run_dir: Path) -> None:
    """metrics.prom, and the push to ``--pushgateway`` when given (failures: warnings)."""
    try:
        metrics.write_textfile(run_dir / "metrics.prom")
    except OSError as exc:
        _say(f"farm: warning: cannot write {run_dir / 'metrics.prom'}: {exc}")
    if settings.pushgateway_url:
        _push(settings)


def _push(settings: Settings) -> None:
    """The push at the end, once the run's pushes while it ran are over (or its failure,
    when the gateway never answered the last of them): its counts in place of theirs. One
    warning when it fails, unless a push while the run lasted said one already (then a line
    when this one gets through: the final values are there after all)."""
    global _pushes
    from farm.config import mask_url
    from farm.pushgateway import push
    pushes, _pushes = _pushes, None
    said = pushes.said if pushes is not None else None
    try:
        unanswered = pushes.settle() if pushes is not None else None
        if unanswered is not None:
            raise unanswered
        push(settings.pushgateway_url, totals=Path(settings.state_dir) / PUSHED_TOTALS,
             timeout=settings.pushgateway_timeout, instance=settings.pushgateway_instance,
             counted=pushes.counted if pushes else None,
             unread_said=pushes.unread if pushes else None)
    except Exception as exc:
        if said is None:        # (a run's counts, ``pushes`` given, are kept: `keep_unpushed`)
            _say(f"farm: warning: could not push metrics to "
                 f"{mask_url(settings.pushgateway_url)}: "
                 f"{_url_failure(exc, settings.pushgateway_timeout)}"
                 + (f" ({_kept(settings)})" if pushes is not None else ""))
        return
    if said is not None:
        _say(f"farm: metrics pushed to {mask_url(settings.pushgateway_url)} at the end")


def _kept(settings: Settings, when: str = "") -> str:
    """Where a run's counts that no push got through with wait for the next push (commit
    032bcf4: `pushgateway.keep_unpushed`), in words."""
    return (f"{when + ', ' if when else ''}this run's counts are kept in "
            f"{Path(settings.state_dir) / PUSHED_TOTALS} and pushed with the next run that "
            f"reaches it")


def _url_failure(exc: BaseException, timeout: float) -> str:
    """What a failed HTTP request met, in words: "connection refused", "HTTP 401
    Unauthorized" (urllib's own text is "<urlopen error [Errno 111] Connection refused>")."""
    import urllib.error
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(getattr(exc, "reason", exc), TimeoutError):    # connecting, or the answer
        return f"no answer in {timeout:g} s"
    if isinstance(exc, urllib.error.URLError):
        reason = exc.reason
        said = getattr(reason, "strerror", None) or str(reason)
        return said[:1].lower() + said[1:]
    return first_line(exc)


class _StopWaiting(Exception):
    """A stop signal while waiting for the final scrape."""


class _Linger:
    """Ctrl-C / SIGTERM once the results are written, while waiting for the final scrape
    (``--metrics-port``): ends the wait at once (it lasted up to FARM_METRICS_LINGER_SECONDS
    whatever the user pressed, and a container stop ran into its SIGKILL); one that comes
    while metrics.prom is being written or pushed is noted, and no wait follows. The run's
    exit code stays what its results say; the handlers of before come back."""

    def __init__(self, server: "metrics.MetricsServer | None") -> None:
        self.on = server is not None and threading.current_thread() is threading.main_thread()
        self.signal: str | None = None
        self.waiting = False
        self._before: dict[int, object] = {}

    def __enter__(self) -> "_Linger":
        from farm.stop_signals import heeded     # (a SIGHUP nohup ignored stays ignored)
        for sig in heeded() if self.on else ():
            self._before[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._before.items():
            signal.signal(sig, handler)       # type: ignore[arg-type]

    def _handle(self, signum: int, _frame: object) -> None:
        self.signal = signal.Signals(signum).name
        if self.waiting:
            self.waiting = False
            raise _StopWaiting
        _say(f"farm: {self.signal}: writing the results; farm ends once they are written")


def _say(line: str) -> None:
    """A line on stderr at the end of a run: a terminal that is gone (SIGHUP), a pipe whose
    reader has quit (`farm run … |& head`) must not turn a run whose results are written into
    an internal error, its exit code 1 whatever its cases did."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (OSError, ValueError):
        pass


def _last_scrape(server: "metrics.MetricsServer | None", settings: Settings,
                 linger: _Linger, wait: bool = True) -> None:
    """A batch job's final values are lost unless scraped before it exits: wait (at most
    FARM_METRICS_LINGER_SECONDS) for one scrape of them, unless a stop signal came. 0 (or
    not ``wait``): no wait, and no warning of the scrape it did not wait for (the user's
    choice, every run)."""
    if server is None:
        return
    if not (wait and settings.metrics_linger_seconds):
        server.stop()
        return
    scraped = False
    try:
        linger.waiting = True         # a signal from here on ends the wait; one before: none
        if linger.signal is None:     # (said first: the run went quiet for the wait)
            _say(f"farm: waiting up to {settings.metrics_linger_seconds:g}s for a scrape of "
                 f":{server.port}/metrics (the final values; FARM_METRICS_LINGER_SECONDS)")
            scraped = server.wait_for_scrape(settings.metrics_linger_seconds)
        linger.waiting = False
    except _StopWaiting:
        pass
    if linger.signal:
        _say(f"farm: {linger.signal}: not waiting for a scrape of :{server.port}/metrics; "
             f"metrics.prom has the final values")
    elif not scraped:
        _say(f"farm: warning: nothing scraped :{server.port}/metrics in "
             f"{settings.metrics_linger_seconds:g}s after the run; metrics.prom has the "
             f"final values")
    server.stop()
