"""The `farm` command. Exit codes follow pytest: 0 passed, 1 failed, 2 interrupted,
3 internal/infra error, 4 usage or suite error, 5 nothing collected."""

from __future__ import annotations

import contextlib
import gc
import glob
import os
import re
import signal
import stat
import sys
import threading
from typing import Any, Iterator

EXIT_INTERRUPTED, EXIT_INTERNAL, EXIT_USAGE = 2, 3, 4

try:    # a Ctrl-C while farm is still starting (importing) is an interrupt, not a traceback
    import errno
    import traceback
    from pathlib import Path

    import click

    from farm.errors import FarmError, SuiteErrors, UserError
except KeyboardInterrupt:
    # a blank line first closes a terminal's ``^C`` echo, as click does
    sys.stderr.write(("\n" if sys.stderr.isatty() else "") + "farm: interrupted\n")
    raise SystemExit(EXIT_INTERRUPTED) from None

# farm uses no pydantic plugin, and pydantic's first model otherwise scans every installed
# distribution's entry points for one (~10 ms of CPU in each `farm` command). Set before
# anything imports pydantic; a value the user set (e.g. to name plugins to skip) is kept.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
# set by `main`: the process is the `farm` command's alone (not a test runner's, which calls
# `cli` itself), so `farm run` may tune it for the run (`_quiet_gc`)
_OWN_PROCESS = False
# the collector's thresholds while `farm run` runs its cases (Python's: 700, 10, 10)
GC_THRESHOLDS = (10_000, 20, 20)
# set by `main` when it turned the collector off for the start-up's imports (`_hold_gc`)
_GC_HELD = False
CACHE_MODES = ["read-write", "read-only", "write-only", "off"]
MAX_TIMEOUT = 86400     # farm.config.MAX_SECONDS (not imported: `farm --help` stays light)


class _GivenPath(click.Path):
    """A path argument or option that may not be empty: click reads "" as "." (`--report-dir
    "$DIR"` with DIR unset put the report in the working directory, and with --overwrite
    removed farm's files and any artifacts/ folder there; `farm run "$SUITE"` ran it all)."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            optional = param is not None and param.param_type_name == "option"
            self.fail("an empty path (an unset variable, as in \"$DIR\"?): give one"
                      + (", or leave the option out" if optional else ""), param, ctx)
        return super().convert(value, param, ctx)


class _RunPath(_GivenPath):
    """`farm run`'s PATHS: also ``file:line`` (pytest's node ids: the case that file holds,
    one a file) and a glob the shell left unexpanded (``'tests/*.yaml'``, quoted or on a
    shell that expands none), expanded here: both read "does not exist"."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.strip() and not os.path.exists(value):
            file, _, line = value.rpartition(":")
            if file and line.isdigit() and os.path.isfile(file):
                self._check_line(file, int(line), value, param, ctx)
                return super().convert(file, param, ctx)
            if glob.has_magic(value):
                found = sorted(glob.glob(value, recursive=True))
                if not found:
                    self.fail(f"{value!r}: a glob that matches no file (farm expands a glob the "
                              "shell did not)", param, ctx)
                return [super(_RunPath, self).convert(f, param, ctx) for f in found]
        return super().convert(value, param, ctx)

    def _check_line(self, file: str, line: int, value: str, param, ctx) -> None:
        """A ``file:line`` past the file's end, or in a batch file (its line names no one
        case), is a mistake said as such, not the whole file run without a word."""
        try:
            with open(file, "rb") as f:
                lines = f.read(1 << 22).count(b"\n") + 1
        except OSError:
            return      # (said as the path's own problem)
        if not 1 <= line <= lines:
            self.fail(f"{value!r}: {file} has {lines} line(s): give a line inside it, or the "
                      "file alone (it holds one case)", param, ctx)
        from farm.suite.loader import is_batch_file
        if is_batch_file(Path(file)):
            self.fail(f"{value!r}: {file} is a batch file: its lines name no one case; run the "
                      "case's own file (its files: list names them), or -k to pick one",
                      param, ctx)

    @staticmethod
    def flat(paths: tuple[Path | list[Path], ...]) -> list[Path]:
        """The paths given, a glob's files in its place."""
        return [p for given in paths for p in (given if isinstance(given, list) else [given])]


class _Seconds(click.ParamType):
    """Seconds, as a number (90, 2.5) or a duration (90s, 5m, 1h30m): ``--timeout 5m`` read
    "'5m' is not a valid float range"."""

    name = "seconds"
    _PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s)")

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)):
            seconds = float(value)
        else:
            text = str(value).strip().lower()
            try:
                seconds = float(text)
            except ValueError:
                parts = self._PART.findall(text)
                if not parts or "".join(n + u for n, u in parts) != text.replace(" ", "") \
                        or len({u for _, u in parts}) < len(parts):
                    self.fail(f"{value!r} is no duration: give seconds (300) or a duration "
                              "such as 90s, 5m, 1h30m", param, ctx)
                seconds = sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)
        if not 0.1 <= seconds <= MAX_TIMEOUT:
            self.fail(f"{value!r} is out of range: from 0.1 s to {MAX_TIMEOUT} s (24h)",
                      param, ctx)
        return seconds


class _GivenText(click.ParamType):
    """A value option that may not be blank (--broker, --model, --pushgateway): `--broker
    "$REDIS_URL"` with the variable unset ran the suite here instead of on the cluster, and
    `--model "$MODEL"` put FARM_MODEL aside and skipped every ai case (exit 0)."""

    name = "text"

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value.strip():
            self.fail("an empty value (an unset variable, as in \"$VAR\"?): give one, or "
                      "leave the option out", param, ctx)
        return value


GIVEN_TEXT = _GivenText()


class _Interrupted(Exception):
    """An interrupt (Ctrl-C, SIGTERM) while click parsed or ran the command, past click's own
    handling, which wrote a blank line (closing a terminal's ``^C`` echo) with no terminal."""


class _FarmGroup(click.Group):
    """click's Group, save that an interrupt leaves it as `_Interrupted` (`_main` says it)."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt as exc:
            raise _Interrupted from exc

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise _Interrupted from exc


class _ReportCommand(click.Command):
    """`farm report`, whose --merge takes one path each time: ``--merge a b c`` (click's
    "unexpected extra argument") says to repeat it (`_merge_shards` says it of ``--merge a b``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        merging = any(a == "--merge" or a.startswith("--merge=") for a in args)
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            if merging and "unexpected extra argument" in exc.message:
                exc.message += f": {MERGE_REPEAT}"
            raise


MERGE_REPEAT = ("--merge takes one path: repeat it for each (--merge a --merge b), or give "
                "the folder holding the shard runs")


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """`farm --version`: the version with the commit it was built from, as farm_build_info
    and `farm devices --broker` say it (a checkout's, or the one a wheel recorded)."""
    if not value or ctx.resilient_parsing:
        return
    from farm.metrics import build_version
    click.echo(f"farm, version {build_version()}")
    ctx.exit()


@click.group(cls=_FarmGroup,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version (and commit) and exit.")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """farm: run UI test suites on many devices at once.

    \b
    Example:
      farm run suites/demo --devices browser:2
      farm devices
      farm config show
    """
    if ctx.invoked_subcommand != "run":     # (`farm run`: once it has imported the run's)
        _gc_back()
    if any(name.upper().startswith("FARM_") for name in os.environ):
        from farm.config import misspelt_variables      # FARM_RETRYS=3 would do nothing
        for warning in misspelt_variables():
            click.echo(f"farm: warning: {warning}", err=True)
    if os.path.isfile(".env"):
        from farm.suite.dotenv import dotenv_settings   # FARM_MODEL in .env would do nothing
        if found := dotenv_settings():
            click.echo(f"farm: warning: .env sets {', '.join(found)}, which farm does not read "
                       "as settings (.env gives a suite's ${NAME} values only): set "
                       f"{'them' if len(found) > 1 else 'it'} in the environment or in "
                       "farm.toml", err=True)


@cli.command()
@click.argument("paths", nargs=-1, required=True, type=_RunPath(exists=True, path_type=Path))
@click.option("--devices", "-d", default=None, metavar="SPEC",
              help="Devices to run on: KIND[:COUNT][,KIND[:COUNT]] (kinds: browser, android, "
                   "ios, android-sim, ios-sim). Default: browser:1. Browsers run headless: "
                   "FARM_HEADLESS=false shows them (on a display; there is no --headed).")
@click.option("--report-dir", type=_GivenPath(path_type=Path),
              help="Write results here instead of .farm/runs/<run-id>/.")
@click.option("--collect-only", is_flag=True, help="Load, validate and select; print the "
              "cases (and the deselected ones) with their platform; run nothing (exit 0, 5 when "
              "no case is selected, 4 on a suite error). Platforms are deselected only with an "
              "explicit --devices or with --shard (the shard the run would take). With "
              "--matrix, each case's run on each device group of the cluster's workers "
              "(CASE@GROUP).")
@click.option("-k", "keyword", metavar="EXPR", help="Only cases whose name or id (its file's "
              "path in the suite: demo/mobile/ios_login) contains these words, joined by "
              "and / or / not (as pytest's -k).")
@click.option("--tag", "tags", multiple=True, metavar="TAG",
              help="Only cases with this tag (tags:); repeat for any of several.")
@click.option("--exclude-tag", "exclude_tags", multiple=True, metavar="TAG",
              help="Leave out cases with this tag; repeatable.")
@click.option("-x", "--exitfirst", is_flag=True, help="Start no more cases after the first "
              "failure or error (--maxfail 1).")
@click.option("--maxfail", type=click.IntRange(0), metavar="N",
              help="Start no more cases after N failed or errored ones (0: as not given, "
                   "pytest's default).")
@click.option("--max-model-cost", type=click.FloatRange(0, min_open=True), metavar="USD",
              help="Start no more cases once the finished ones have spent this much on model "
                   "calls (cases not started end skipped; exit 3). Also FARM_MAX_MODEL_COST.")
@click.option("--max-model-tokens", type=click.IntRange(1), metavar="N",
              help="As --max-model-cost, counting tokens. Also FARM_MAX_MODEL_TOKENS.")
@click.option("--last-failed", "--lf", "last_failed", is_flag=True, help="Of the selected "
              "cases (after -k, tags and --shard), only those that failed in the previous runs "
              "(all of them when none did); after a run stopped before its end, its "
              "interrupted and not-run cases too.")
@click.option("--shard", metavar="I/N", multiple=True, callback=lambda _c, _p, v: _shard_form(v),
              help="Run shard I of N: cases split deterministically "
              "from the suite files (heaviest first by steps, as Flank does), the same plan on "
              "every CI job.")
@click.option("--shard-timings", type=_GivenPath(path_type=Path), metavar="PATH", multiple=True,
              callback=lambda _c, _p, v: tuple(v) or None,
              help="Balance --shard by the case times of earlier runs: a results.json, run "
                   "directory or --junit-xml file, or a folder of them (a sharded pipeline's); "
                   "repeatable, a case weighs its newest time. Give every job the same ones.")
@click.option("--junit-xml", type=_GivenPath(path_type=Path),
              help="Also write the JUnit XML report to this path.")
@click.option("--alluredir", type=_GivenPath(file_okay=False, path_type=Path),
              help="Also write Allure results into this directory.")
@click.option("--no-progress", is_flag=True, default=None,
              help="No progress output (also FARM_NO_PROGRESS=1).")
@click.option("--fail-on-skip", is_flag=True, default=None,
              help="A skipped case (a step that needs a model with none set, a target no "
                   "zero-token tier finds) fails the run: exit 1. Also FARM_FAIL_ON_SKIP=1.")
@click.option("--retries", type=click.IntRange(0),
              help="Re-runs after a test failure (at most 10), for every case: --retries wins "
                   "over a case's own retries: and farm.yaml's; also FARM_RETRIES.")
@click.option("--timeout", type=_Seconds(),
              help="Seconds per case (0.1 to 86400), or a duration (90s, 5m, 1h30m). A case's "
                   "own timeout: wins over --timeout; --timeout wins over farm.yaml's; also "
                   "FARM_DEFAULT_TIMEOUT.")
@click.option("--model", type=GIVEN_TEXT,
              help="litellm model string, e.g. openai/qwen3-vl (enables ai steps).")
@click.option("--model-base-url", type=GIVEN_TEXT,
              help="OpenAI-compatible base URL for the model.")
@click.option("--model-family", type=GIVEN_TEXT,
              help="Model family: decides grammar and coordinates.")
@click.option("--broker", type=GIVEN_TEXT, metavar="URL",
              help="Run on `farm worker`s via this Redis "
              "(redis:// or rediss://; also FARM_BROKER_URL / CELERY_BROKER_URL). --devices "
              "then names platforms and how many cluster devices this run may hold at once.")
@click.option("--matrix", is_flag=True, help="Cluster: run every case on every device group.")
@click.option("--overwrite", is_flag=True,
              help="Reuse a --report-dir that already holds a run (its results are replaced).")
@click.option("--verbose", "-v", is_flag=True,
              help="Also list what was skipped while finding cases (hidden files and folders, "
                   "node_modules, farm.yaml's exclude:, *.solved.yaml, a batch's unlisted files).")
@click.option("--cache", "cache_mode", type=click.Choice(CACHE_MODES),
              help="Locate/plan cache: read-write (default), read-only (CI), write-only, off "
                   "(also FARM_CACHE).")
@click.option("--screenshots", type=click.Choice(["all", "on-failure", "off"]),
              help="Report images: after every step (all, the default), only of a failing "
                   "step (on-failure), or none (off). Also FARM_SCREENSHOTS.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), metavar="PORT",
              help="Serve Prometheus /metrics on PORT while the run lasts (0: off, the "
                   "default). metrics.prom is written into the run directory either way.")
@click.option("--pushgateway", type=GIVEN_TEXT, metavar="URL",
              help="Push the run's metrics to this Prometheus Pushgateway at the end.")
def run(paths: tuple[Path, ...], devices: str, report_dir: Path | None, junit_xml: Path | None,
        alluredir: Path | None, no_progress: bool | None, fail_on_skip: bool | None,
        retries: int | None, timeout: float | None, model: str | None, model_base_url: str | None,
        model_family: str | None, broker: str | None, matrix: bool, overwrite: bool, verbose: bool,
        collect_only: bool, keyword: str | None, tags: tuple[str, ...],
        exclude_tags: tuple[str, ...], exitfirst: bool, maxfail: int | None,
        max_model_cost: float | None, max_model_tokens: int | None, last_failed: bool,
        shard: str | None, shard_timings: Path | None, cache_mode: str | None,
        screenshots: str | None, metrics_port: int | None, pushgateway: str | None) -> None:
    """Run every case under PATHS (folders, case files, or a Midscene index.yaml).

    \b
    Example:
      farm run suites/demo --devices browser:2 --junit-xml out/junit.xml
      farm run suites/demo -k "login and not failure" --collect-only
      farm run suites/ --shard 2/3 --maxfail 5

    Exit codes (as pytest): 0 all passed (skips allowed unless --fail-on-skip), 1 a case failed,
    2 interrupted, 3 infrastructure, model or internal error (a case's device died, a case timed
    out, the model budget was spent), 4 usage, configuration or suite error, 5 no case selected.
    """
    from farm.select import Choice
    from farm.config import load_settings
    from farm.session import run as run_session
    _imports_done()
    settings = load_settings(report_dir=report_dir, no_progress=no_progress, retries=retries,
                             fail_on_skip=fail_on_skip, default_timeout=timeout, model=model,
                             model_base_url=model_base_url, model_family=model_family,
                             broker_url=broker, cache=cache_mode,
                             screenshots=screenshots, metrics_port=metrics_port,
                             pushgateway_url=pushgateway, max_model_cost=max_model_cost,
                             max_model_tokens=max_model_tokens)
    _settings_file_unread()
    _scraped_and_pushed(settings, collect_only)
    _flags_agree(settings, matrix=matrix, exitfirst=exitfirst, maxfail=maxfail)
    maxfail = maxfail or None       # --maxfail 0 (CI's "${N:-0}"): as not given, as pytest
    _outputs_usable(settings, collect_only, report_dir=report_dir, junit_xml=junit_xml,
                    alluredir=alluredir, overwrite=overwrite)
    _needs_model(settings, model_family=model_family, model_base_url=model_base_url)
    choice = Choice(keyword=keyword, tags=tags, exclude_tags=exclude_tags, last_failed=last_failed,
                    shard=shard, shard_timings=shard_timings, maxfail=1 if exitfirst else maxfail,
                    collect_only=collect_only, devices_given=devices is not None,
                    matrix_groups=_matrix_groups(settings) if matrix and collect_only else None)
    try:
        code = run_session(_RunPath.flat(paths), "browser:1" if devices is None else devices,
                           settings, junit_xml=junit_xml, progress=not settings.no_progress,
                           matrix=matrix, overwrite=overwrite, verbose=verbose, choice=choice,
                           alluredir=alluredir, own_process=_OWN_PROCESS)
    except SuiteErrors as exc:      # said on stderr, exit 4, by `main`
        _on_load_errors(exc, junit_xml, collect_only, alluredir)
        raise
    sys.stdout.flush()
    sys.stderr.flush()
    from farm.executors.local import unsettled_devices
    if unsettled_devices():
        # A second Ctrl-C left device threads inside Playwright calls: destroying their
        # greenlets during interpreter teardown crashes (SIGSEGV). Everything is written;
        # leave without that teardown so the exit code is the run's.
        os._exit(code)
    sys.exit(code)


def _shard_form(given: tuple[str, ...]) -> str | None:
    """--shard checked as it is read, before anything: a blank one (`--shard "$SHARD"` with
    SHARD unset) was taken as no --shard, and every CI job ran the whole suite; two that
    differ (a job's own --shard after a template's) are refused, where the last was taken."""
    from farm.errors import ConfigError
    from farm.select import parse_shard
    if len({parse_shard(one) for one in given}) > 1:
        raise ConfigError(f"--shard given {len(given)} times: "
                          + " and ".join(f"--shard {one}" for one in given)
                          + ": a run is one shard of the suite: give --shard once")
    return given[-1] if given else None


def _matrix_groups(settings) -> dict[str, list[str]] | str:
    """--collect-only --matrix: the device groups of each platform among the cluster's workers
    now, as a --matrix run reads them at its start (quarantined devices left out); or why the
    broker could not be read (its password masked)."""
    import redis

    from farm.cluster import store
    from farm.config import mask_urls_in
    from farm.errors import ConfigError
    store.use_prefix(settings.cluster_prefix)
    url = settings.broker_url.get_secret_value()
    try:
        leases = store.leases(store.check(url))
    except redis.exceptions.NoPermissionError as exc:     # (SCAN, MGET refused by the ACL)
        return store.refused(url, exc)
    except ConfigError as exc:      # (check's: masked already, its example URL's PASSWORD
        return str(exc)             # kept: it was made '***' too)
    except (redis.RedisError, OSError) as exc:
        return mask_urls_in(str(exc))
    groups: dict[str, set[str]] = {}
    for lease in leases.values():
        if lease.get("state") != "quarantined":
            groups.setdefault(str(lease.get("platform")), set()).add(str(lease.get("group")))
    return {platform: sorted(names) for platform, names in groups.items()}


def _scraped_and_pushed(settings, collect_only: bool) -> None:
    """A warning as a run starts when it is both served for scraping (--metrics-port) and
    pushed (--pushgateway): Prometheus stores its series twice, and every sum on the dashboard
    and in the alerts counted its cases, tokens and cost twice, said nowhere."""
    if collect_only or not (settings.metrics_port and settings.pushgateway_url):
        return
    click.echo(f"farm: warning: {settings.named('metrics_port')} {settings.metrics_port} and "
               f"{settings.named('pushgateway_url')} {_masked(settings.pushgateway_url)}: "
               "this run's series will be stored twice in Prometheus (scraped and pushed), "
               "every sum counting its cases, tokens and cost twice: give only one (the push "
               "alone counts runs over time, and shows a run as it goes every "
               "FARM_PUSHGATEWAY_INTERVAL seconds)", err=True)


def _settings_file_unread(who: str = "farm") -> None:
    """A warning naming the farm.toml / pyproject.toml [tool.farm] above the working
    directory, which farm does not read: run from a sub-folder, a run (or a worker) went
    without the project's model, broker or retries, and said nothing of it."""
    from farm.config import unread_above
    if (above := unread_above()) is not None:
        click.echo(f"{who}: warning: {above} is not read (farm reads farm.toml and "
                   "pyproject.toml from the working directory only: run farm in "
                   f"{above.parent})", err=True)


def _flags_agree(settings, *, matrix: bool, exitfirst: bool, maxfail: int | None) -> None:
    """Flags that contradict each other are a usage error (exit 4), said before any work."""
    if matrix and not settings.broker_url:
        raise click.UsageError("--matrix needs a cluster: give --broker URL")
    if exitfirst and maxfail is not None and maxfail != 1:
        raise click.UsageError(f"-x and --maxfail {maxfail} disagree: -x is --maxfail 1; "
                               "give one of them")


def _outputs_usable(settings, collect_only: bool, **given: object) -> None:
    """An output flag that would do nothing is refused (as --shard-timings without --shard):
    --collect-only runs nothing and writes no report; --overwrite needs a report directory.
    So is a --junit-xml file that holds something else (`_junit_replaces_no_other_file`)."""
    _junit_replaces_no_other_file(given.get("junit_xml"))
    flags = [f"--{name.replace('_', '-')}" for name, value in given.items() if value]
    if collect_only and flags:
        raise UserError(f"{', '.join(flags)}: --collect-only runs nothing and writes no "
                        f"report: leave {'them' if len(flags) > 1 else 'it'} out, or drop "
                        "--collect-only")
    if given.get("overwrite") and not settings.report_dir:
        raise UserError("--overwrite is for a report directory that already holds a run: give "
                        "--report-dir DIR too (or set FARM_REPORT_DIR)")


def _junit_replaces_no_other_file(path: object, flag: str = "--junit-xml",
                                  what: str = "XML", doc: str = "the run's JUnit XML") -> None:
    """--junit-xml is a file farm writes over: one that holds something other than XML (a
    case, `--junit-xml suites/login.yaml` tab-completed) is refused, not replaced by the
    run's JUnit document (the case file was lost). An earlier run's junit.xml, or an empty
    file, is replaced as before. (`farm report --history --out`, HTML, too.) So is anything
    but a file (`--junit-xml /dev/null`): the renamed new file replaced the device node."""
    if not isinstance(path, Path):
        return
    _not_a_device(path, flag, doc)
    if not path.is_file():
        return
    try:
        with path.open("rb") as file:
            head = file.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()
    except OSError:     # (what is wrong with it is said where it is written)
        return
    if head and not head.startswith(b"<"):
        raise UserError(f"{flag} {path}: the file holds something other than {what} (farm "
                        f"would write {doc} over it): give another file name, or delete the "
                        "file first")


_NOT_FILES = ((stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
              (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def _not_a_device(path: Path, flag: str, doc: str) -> None:
    """A UserError when ``path`` (or what its link leads to) is a device, a FIFO or a socket:
    farm writes an output whole into a new file renamed over the path, so `--junit-xml
    /dev/null` (or /dev/stdout, a link to one) made /dev/null a file holding the XML."""
    try:
        mode = os.stat(path).st_mode
    except OSError:         # not there (or a dangling link): a file is made
        return
    kind = next((name for test, name in _NOT_FILES if test(mode)), None)
    folder = os.path.realpath(path.parent)
    if kind is None and (folder == "/dev" or folder.startswith("/proc/")):
        kind = "a link to an open file (as /dev/stdout is)"
    if kind is not None:
        raise UserError(f"{flag} {path}: {kind}, not a file: farm writes {doc} into a new file "
                        f"it renames over {path}, which would replace it; give a file name "
                        f"(or leave {flag} out)")


def _needs_model(settings, **given: str | None) -> None:
    """A model option given without a model (--model / FARM_MODEL) would do nothing: say so
    (usage error) rather than run as if it were in effect."""
    flags = [f"--{name.replace('_', '-')}" for name, value in given.items() if value]
    if flags and not settings.model:
        raise click.UsageError(f"{' and '.join(flags)} need{'s' * (len(flags) == 1)} a "
                               "model: give --model too (or set FARM_MODEL)")


def _on_load_errors(exc: SuiteErrors, junit_xml: Path | None, collect_only: bool,
                    alluredir: Path | None = None) -> None:
    """The --junit-xml and --alluredir of a suite that did not load, and what `main` says
    after its problems of the cases that did (one broken file among fifty stops them all)."""
    if junit_xml is not None:
        _junit_of_load_errors(exc, junit_xml)
    if alluredir is not None:
        _allure_of_load_errors(exc, alluredir)
    how = "fix the problems listed"
    # a suite's farm.yaml is read whichever of its files is named: naming fewer cannot help
    if not all(Path(e.file).name == "farm.yaml" for e in exc.errors):
        how += f", or name only the files to {'list' if collect_only else 'run'}"
    exc.outcome = (f"farm: no case is listed: --collect-only lists cases only when every "
                   f"suite file loads ({how})" if collect_only else
                   f"farm: no case ran: a run starts only when every suite file loads ({how})")


def _junit_of_load_errors(exc: SuiteErrors, path: Path) -> None:
    """A junit.xml naming each file that did not load (as pytest reports collection errors),
    so CI shows why instead of "no test report files". Only where --junit-xml may write:
    the suite's problems, on stderr, stay the one thing the user is told."""
    from farm.report.junit import write_load_errors
    from farm.report.paths import writable_file
    try:
        writable_file(path, "--junit-xml")
        write_load_errors(exc.errors, path)
    except (UserError, OSError):
        pass


def _allure_of_load_errors(exc: SuiteErrors, alluredir: Path) -> None:
    """One broken Allure result per file that did not load (as junit.xml's farm.load cases),
    where --alluredir may write: an Allure report then shows the run red, not last night's."""
    from farm.report.allure import write_load_errors_allure
    from farm.report.paths import check_outputs
    try:
        check_outputs(None, alluredir)
        write_load_errors_allure(exc.errors, alluredir)
    except (UserError, OSError):
        pass


@cli.command()
@click.option("--broker", type=GIVEN_TEXT, metavar="URL",
              help="Also list the cluster's devices (Redis URL; "
              "FARM_BROKER_URL / CELERY_BROKER_URL work too).")
@click.option("--release", metavar="DEVICE", multiple=True,
              help="Take a quarantined cluster device back into service (needs a broker).")
def devices(broker: str | None, release: tuple[str, ...]) -> None:
    """List the devices farm can use on this machine (and the cluster's, with a broker)."""
    from farm.config import load_settings
    from farm.devices.chromium import find_chromium
    settings = load_settings(broker_url=broker)
    if release and not settings.broker_url:
        raise click.UsageError("--release needs a cluster: give --broker URL")
    from farm.errors import ConfigError
    broken = None
    try:
        chromium = find_chromium(settings)  # this machine's devices first: they are listed
    except ConfigError as exc:              # even when the broker then turns out unusable,
        chromium, broken = None, exc        # or FARM_CHROMIUM_PATH names no browser
    if broken is not None:
        click.echo("browser   none: the chromium_path set names no browser (the error below)")
    elif chromium is None:
        click.echo("browser   none: no Chromium found (apt-get install chromium, or set "
                   "FARM_CHROMIUM_PATH)")
    else:
        version = (f"Chromium {chromium.version}" if chromium.version != "unknown" else
                   "not a Chromium? (its --version names no Chromium version)")
        click.echo(f"browser   {version}  {chromium.path}  ({chromium.source})")
    _mobile_devices(settings)
    _plugin_devices(settings)
    if settings.broker_url:
        sys.stdout.flush()
        _cluster_devices(settings.broker_url.get_secret_value(), settings.cluster_prefix,
                         release)
    if broken is not None:      # a setting that is wrong: said last, exit 4
        raise broken
    if chromium is None:
        sys.exit(5)


def _plugin_devices(settings) -> None:
    """The kinds FARM_DEVICE_PLUGINS adds (a broken plugin: its error, exit 4, as a run)."""
    if not settings.device_plugins:
        return
    from farm.devices.specs import plugin_modules
    for kind, (module, found) in sorted(plugin_modules(settings).items()):
        click.echo(f"{kind:<9} device plugin {module}: {found.platform} cases ({kind}:N)")


def _mobile_devices(settings) -> None:
    """Android devices on the adb server, WDA endpoints, and last run's quarantine."""
    import json
    from farm.devices.android import adb_client, adb_server_problem
    from farm.devices.specs import (adb_phones, android_not_ready, android_serials,
                                    held_elsewhere, ios_urls)
    adb = adb_client(socket_timeout=5)      # never starts a server (adbutils' own would)
    problem = adb_server_problem(adb)
    if problem and problem.startswith("no adb server"):
        click.echo(f"android   {problem} (farm starts none: `adb start-server` for phones, "
                   "android-sim:N for simulated ones)")
    elif problem:
        click.echo(f"android   {problem}")
    else:
        serials, not_ready = android_serials(settings), android_not_ready(settings)
        only = f" (ANDROID_SERIAL={settings.android_serial})" if settings.android_serial else ""
        if only and not serials and not not_ready:     # a stale or mistyped serial: not 0
            listed = ", ".join(serial for serial, _ in adb_phones()) or "none"
            not_ready = [f"ANDROID_SERIAL={settings.android_serial} names no phone on this "
                         f"adb server (it lists {listed}): unset it, or set it to one of those"]
        about = {serial: _android_about(adb, serial) for serial in serials}
        dead = [s for s in serials if about[s].startswith("does not answer")]
        serials = [s for s in serials if s not in dead]     # (listed "device", shell dead)
        not_ready = [f"{s} (listed, but {about[s]}; a run passes it over)" for s in dead] \
            + not_ready
        held = {serial: held_elsewhere("android", serial) for serial in serials}
        busy = sum(map(bool, held.values()))
        click.echo(f"android   {len(serials)} device(s) on adb server {adb.host}:{adb.port}{only}"
                   + (f", {len(serials) - busy} free" if busy else "")
                   + (":" if serials or not_ready else " (android-sim:N starts simulated ones)"))
        for serial in serials:
            click.echo(f"          {serial}  {about[serial]}"
                       + (f"  [{held[serial]}]" if held[serial] else ""))
        for line in not_ready:      # unauthorized, offline...: listed with what to do
            click.echo(f"          {line}")
    from farm.devices.ios import wda_phone_key
    urls, seen = ios_urls(settings), {}
    click.echo(f"ios       {len(urls)} WebDriverAgent endpoint(s) in FARM_IOS_WDA_URLS"
               + (":" if urls else " (ios-sim:N starts simulated ones)"))
    for url in urls:           # its password never printed
        again = seen.setdefault(wda_phone_key(url), url)
        held = held_elsewhere("ios", url) if again is url else ""
        click.echo(f"          {_masked(url)}  " + (_ios_about(url) if again is url else
                   f"the iPhone at {_masked(again)} again (a run drives it once)")
                   + (f"  [{held}]" if held else ""))
    try:
        last = json.loads((Path(settings.state_dir) / "quarantine.json").read_text())
    except (OSError, ValueError):
        return
    devices = last.get("devices") if isinstance(last, dict) else None   # (a hand edit)
    if isinstance(devices, list) and devices:
        click.echo(f"quarantined in run {last.get('run')}: "
                   f"{', '.join(str(d) for d in devices)}")


def _android_about(adb, serial: str) -> str:
    """What the phone is (model, Android version), or why it did not say."""
    from farm.devices.android import ABOUT_COMMAND, adb_failure, android_about
    try:
        return android_about(adb.device(serial).shell(ABOUT_COMMAND, timeout=5)) or "?"
    except Exception as exc:     # (adbutils' own words: "Unknown data: b''")
        return f"does not answer: {adb_failure(exc)}"


def _ios_about(url: str) -> str:
    """What the iPhone behind this WDA endpoint is, or that it does not answer (checked with a
    short timeout: a listing must not hang on one endpoint). A URL with ``user:password@``:
    not asked, and said unusable: the WDA client of the runs sends no credentials (it looks
    ``user:password@host`` up as a host name: "Name or service not known")."""
    import json
    from urllib.parse import urlsplit

    from wda.usbmux import fetch

    from farm.devices.ios import NotWda, ios_about, unreachable_why, wda_status, wda_url_path
    try:
        credentials = urlsplit(url).username is not None
    except ValueError as exc:        # "http://[::1": the run cannot reach it either
        return f"not a usable URL: {exc}"
    if credentials:
        return ("not usable: farm's WebDriverAgent client sends no user:password (give a URL "
                "without them, e.g. an ssh tunnel's)")
    if wda_url_path(url):       # (Appium's /wd/hub: what a run refuses too)
        return "not usable: " + wda_url_path(url)
    try:
        status = wda_status(url, 5)         # (not WDA: said as the run's check says it)
    except NotWda as exc:
        return f"not usable: {exc}"
    except Exception as exc:
        return "not answering: " + unreachable_why(url, exc)
    try:
        # (facebook-wda's own fetch, as the runs reach WDA: http, https and a USB-connected
        # iPhone's http+usbmux://<udid>:<port>, which urllib does not know)
        info = json.loads(fetch(url.rstrip("/") + "/wda/device/info", timeout=5).content
                          ).get("value")
    except Exception:          # an older WDA: the OS alone
        info = {}
    info = info if isinstance(info, dict) else {}
    return (ios_about(status, info) or "?") + ("" if status.get("ready", True) else
                                               " (not ready)")


def _cluster_devices(url: str, prefix: str, release: tuple[str, ...] = ()) -> None:
    """The cluster's devices (after taking ``release``d ones out of quarantine). A broker that
    is not there or refuses us (its ACL too: SCAN, HGETALL, ... not granted): a ConfigError
    (exit 4), its password masked."""
    from redis.exceptions import NoPermissionError

    from farm.cluster import store
    from farm.errors import ConfigError
    store.use_prefix(prefix)
    r = store.check(url)
    try:
        _list_cluster(r, url, release)
    except NoPermissionError as exc:    # (was "internal error: NoPermissionError", exit 3)
        raise ConfigError(store.refused(url, exc)) from None


def _list_cluster(r, url: str, release: tuple[str, ...]) -> None:
    """Take ``release``d devices out of quarantine, then list the leases and quarantine."""
    from farm.cluster import store
    from farm.config import mask_urls_in
    released, unknown = set(), []
    known = set(store.leases(r)) | set(store.quarantined(r))
    for name in release:
        done = store.release(r, name)
        released |= {name} if done else set()
        if done or name in known:
            click.echo(f"{name}: {'released' if done else 'was not quarantined'}")
        else:       # a typo said "was not quarantined", exit 0, as if all were well
            unknown.append(name)
            click.echo(f"{name}: no device of that name in the cluster (its devices are "
                       "listed below)")
    live, bad = store.leases(r), store.quarantined(r)
    click.echo(f"cluster   {len(live)} device(s) on {_masked(url)}")
    for name in sorted(set(live) | set(bad)):
        lease = live.get(name, {})
        if name in released and lease.get("state") == "quarantined":   # its worker's next look
            lease = {**lease, "state": "released (its worker starts it again)"}
        state = "quarantined: " + bad[name] if name in bad else (
            lease.get("state", "?") + (f" {lease['case']} (run {lease.get('run', '?')})"
                                       if lease.get("state") == "busy" else "")
            + (" (draining)" if lease.get("draining") else ""))
        # a WDA URL with user:password@ (the phone a worker drives, or a quarantine reason
        # that names it): its password masked
        click.echo(mask_urls_in(
            f"  {name:<28} {lease.get('platform', '-'):<8} {lease.get('group', '-'):<12} "
            f"{state if name in live or name in bad else ''}"
            + (f"  (farm {lease['build']})" if lease.get("build") else "")
            + (f"  on {lease['target']}" if lease.get("target") else "")
            + (f"  {lease['about']}" if lease.get("about") else "")))
    if unknown:
        raise UserError(f"--release {', '.join(unknown)}: no such device in the cluster")


def _masked(url: str) -> str:
    from farm.config import mask_url
    return mask_url(url)


@cli.command()
@click.option("--broker", type=GIVEN_TEXT, metavar="URL", help="Redis URL (also FARM_BROKER_URL / "
              "CELERY_BROKER_URL).")
@click.option("--devices", "-d", default="browser:1", show_default=True, metavar="SPEC",
              help="Devices to attach: KIND[:COUNT][,...]; one worker process per device.")
@click.option("--group", help="Device group for --matrix runs (default: the device kind).")
@click.option("--metrics-port", type=click.IntRange(0, 65535), metavar="PORT",
              help="Prometheus /metrics of the first device's process (default 9464, "
                   "FARM_WORKER_METRICS_PORT); the next devices take the next free ports; "
                   "0: off.")
@click.option("--loglevel", type=click.Choice(["DEBUG", "INFO", "WARNING", "ERROR"],
                                            case_sensitive=False), default="WARNING",
              show_default=True, help="Of the device processes; INFO or DEBUG also shows "
              "Celery's own lines (its start-up banner, its warm shutdown).")
def worker(broker: str | None, devices: str, group: str | None,
           metrics_port: int | None, loglevel: str) -> None:
    """Serve cluster runs: one Celery worker process per device.

    \b
    Example:
      farm worker --broker redis://:secret@redis:6379/0 --devices browser:3
    SIGTERM drains: each device finishes its current case, then its worker exits.
    """
    _worker(broker, devices, group, metrics_port, loglevel)


def _worker(broker: str | None, devices: str, group: str | None,
            metrics_port: int | None, loglevel: str) -> None:
    """`farm worker`'s checks, then the hand-over to its supervisor (`python -m worker`)."""
    from farm.config import load_settings
    from farm.devices.specs import (attach_targets, check_browser, parse_device_specs,
                                    refuse_named)
    settings = load_settings(broker_url=broker, worker_metrics_port=metrics_port)
    _settings_file_unread("farm worker")
    if not settings.broker_url:
        raise click.UsageError("farm worker needs --broker URL (or FARM_BROKER_URL)")
    group = _group_word(group)
    from farm.cluster import store
    store.use_prefix(settings.cluster_prefix)   # (a refused PING's grant names farm's keys)
    specs = parse_device_specs(devices, settings)           # user mistakes end here, exit 4
    refuse_named(specs, "farm worker")
    _check_metrics_ports(settings.worker_metrics_port, sum(s.count for s in specs),
                         "--metrics-port" if metrics_port is not None
                         else "FARM_WORKER_METRICS_PORT")
    for spec in specs:
        attach_targets(spec.kind, spec.count, settings)
    check_browser(specs, settings)
    from farm.report.paths import check_tmpdir
    check_tmpdir()          # (a TMPDIR that is no folder: every browser failed to launch)
    if settings.model:      # a model name or key that cannot work: exit 4 before serving
        from farm.llm.models import check_models
        check_models(settings)
    # wrong password: exit 4 at once; a Redis not up yet (Compose starts it with the
    # workers) is waited for, said on stderr, up to FARM_CLUSTER_OUTAGE_SECONDS (then exit 3)
    store.check(settings.broker_url.get_secret_value(), wait=settings.cluster_outage_seconds,
                who="farm worker")
    # The worker is its own program (the `worker` package, which builds on farm, never the
    # other way round): hand this process over to its supervisor.
    # (`python -P`: a worker.py or farm.py in the working directory is never what runs)
    from farm.python_child import child_env, python_m
    env = child_env({**os.environ,
                     "FARM_BROKER_URL": settings.broker_url.get_secret_value()})
    argv = python_m("worker", "--devices", devices,
                    "--metrics-port", str(settings.worker_metrics_port))
    argv += ["--group", group] if group else []
    argv += ["--loglevel", loglevel.upper()] if loglevel.upper() != "WARNING" else []
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, argv, env)


def _group_word(group: str | None) -> str | None:
    """--group as a word (None when blank: `--group "$GROUP"` with GROUP unset). A --matrix
    run names each case's run CASE@GROUP, and its output files after it: "os@14" was read
    back as group "14" (--last-failed matched nothing), "os/14" made a folder."""
    group = group.strip() or None if group else None
    if group is not None and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", group):
        raise click.BadParameter(f"{group!r}: a device group is a word of letters, digits, "
                                 "'.', '-' and '_' (e.g. pixel7, ios-17.2)",
                                 param_hint="--group")
    return group


def _check_metrics_ports(first: int, devices: int, where: str) -> None:
    """Device *i* serves /metrics on ``first`` + i: a port past 65535 crashed that device's
    process at each restart (an OverflowError traceback, again and again), so say it once."""
    last = first + devices - 1
    if first and last > 65535:
        from farm.errors import ConfigError
        raise ConfigError(f"{where} {first}: the {devices} devices serve /metrics on ports "
                          f"{first}-{last}, past 65535; give at most {65536 - devices} "
                          "(or 0: no /metrics)")


SIM_PACKAGE = "com.farm.sim.app"


@cli.command()
@click.argument("platform", type=click.Choice(["android", "ios"]))
@click.option("--count", "-n", default=1, show_default=True, type=click.IntRange(1),
              help="How many devices (phones) to simulate.")
@click.option("--app", "app", metavar="PATH_OR_URL", help="Web app the devices launch: a "
              "directory (served here) or an http(s) URL. Without it no app is installed.")
@click.option("--package", help=f"Package / bundle id --app is installed as.  [default: "
              f"{SIM_PACKAGE}]")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="adb server port (android; default a free one) or first WDA port (ios).")
def sim(platform: str, count: int, app: str | None, package: str | None, port: int) -> None:
    """Serve simulated phones until Ctrl-C: an adb server (android) or WebDriverAgent
    endpoints (ios), each screen a headless Chromium page showing APP.

    \b
    Example:
      farm sim android --count 2 --app suites/demo/app \\
        --package com.farm.demo.shop --port 5137
      ANDROID_ADB_SERVER_PORT=5137 adb devices
      farm sim ios --count 1 --app http://127.0.0.1:8000/
    Fault switches for tests: `adb shell farm-sim fault NAME COUNT` or
    POST /farm/fault {"name": NAME, "count": COUNT} (see README).
    """
    from farm.appserver import AppServer
    from farm.devices.sim import AndroidSimulator, IosSimulator, PortUnavailable
    from farm.errors import ConfigError
    if app is None and package is not None:
        raise click.UsageError(f"--package {package}: the id --app's web app is installed "
                               "as: give --app DIR_OR_URL too (without --app no app is "
                               "installed)")
    package = package or SIM_PACKAGE
    with AppServer() as served:
        url = _sim_app_url(app, served)
        apps = {package: url} if url else {}
        cls = AndroidSimulator if platform == "android" else IosSimulator
        # (its Android phones come without yadb, as phones do: `adb push yadb` gives it)
        simulator = cls(count, apps, port=port, **({"yadb": False} if cls is AndroidSimulator
                                                   else {}))
        try:
            simulator.start()
        except PortUnavailable as exc:        # a user's choice of port: exit 4, no traceback
            raise ConfigError(f"farm sim {platform} --port {port}: {exc}; choose another "
                              "port, or --port 0 for a free one") from None
        try:
            _sim_banner(platform, simulator, package, url)
            _until_a_signal()
        finally:
            simulator.stop()


def _until_a_signal() -> None:
    """Wait until a signal's handler raises (Ctrl-C, SIGTERM: `_interrupt`). A process's
    signal can come to any of its threads (a busy simulator's request threads): Python runs
    its handler in the main thread, but a main thread asleep in `time.sleep` was not woken,
    and `farm sim` went on for the hour its sleep had left. A signal on any thread writes to
    the wakeup socket, and the main thread's select returns to run the handler."""
    import select
    import socket
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    before = signal.set_wakeup_fd(theirs.fileno(), warn_on_full_buffer=False)
    try:
        while True:
            select.select([ours], [], [])
            ours.recv(512)
    finally:
        signal.set_wakeup_fd(before)
        ours.close()
        theirs.close()


def _sim_app_url(app: str | None, served: Any) -> str | None:
    """The URL of the app `farm sim`'s phones launch (None: no --app, no app): a directory
    served by ``served``, or an http(s) URL, checked once: one that does not answer (yet) is
    a warning, not an error, as its server may start later. Any other --app is a UsageError
    (`--app ftp://x` started, the app mapped to a URL no phone can show)."""
    if app is None:
        return None
    if "://" not in app:
        from farm.suite.model import AppSpec
        folder = Path(app)
        if not folder.is_dir():
            raise click.UsageError(f"--app {app}: not a directory or an http(s) URL")
        served.serve([AppSpec(name="app", serve=folder)])
        return served.urls[folder.resolve()] + "/"
    if app.split("://", 1)[0].lower() not in ("http", "https") or not app.split("://", 1)[1]:
        raise click.UsageError(f"--app {app}: the phones show a web app: give a directory "
                               "(served here) or an http:// or https:// URL")
    problem = _not_served(app)
    if problem:
        click.echo(f"farm sim: warning: --app {app}: {problem}: its phones show an error page "
                   "where the app should be until it is served", err=True)
    return app


def _not_served(url: str) -> str | None:
    """Why nothing is served at ``url`` ("nothing answers there (Connection refused)",
    "answers HTTP 404"), or None when it answers."""
    import urllib.error
    import urllib.request
    try:
        with urllib.request.urlopen(url, timeout=3):
            return None
    except urllib.error.HTTPError as exc:
        return f"answers HTTP {exc.code}"
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return f"nothing answers there ({getattr(reason, 'strerror', None) or reason})"


def _sim_banner(platform: str, simulator: Any, package: str, url: str | None) -> None:
    """What `farm sim` says once its phones answer: where, the variable to export, the app."""
    if platform == "android":
        click.echo(f"adb server on 127.0.0.1:{simulator.port}: "
                   f"{', '.join(simulator.serials)}")
        click.echo(f"  export ANDROID_ADB_SERVER_PORT={simulator.port}")
    else:
        for u in simulator.urls:
            click.echo(f"WebDriverAgent on {u}")
        click.echo(f"  export FARM_IOS_WDA_URLS={','.join(simulator.urls)}")
    click.echo(f"  {package} -> {url}" if url else "  no app installed (--app DIR_OR_URL "
               f"installs one, as --package, default {SIM_PACKAGE})")
    click.echo("Ctrl-C stops.", nl=True)
    sys.stdout.flush()


@cli.group()
def config() -> None:
    """Inspect configuration."""


@config.command("show")
def config_show() -> None:
    """Print resolved settings (flag > FARM_* env > farm.toml > [tool.farm] > defaults),
    secrets masked, then where each one set was set (and what that overrides)."""
    from farm.config import in_force, load_settings, places, unread_above
    shown = in_force(load_settings())
    width = max(map(len, shown))
    for key, value in shown.items():
        click.echo(f"{key:<{width}} {value}")
    where = places()
    above = unread_above()
    if above is not None:
        click.echo(f"\nnot read: {above} (farm reads farm.toml and pyproject.toml from the "
                   f"working directory only: run farm in {above.parent})")
    if not where:
        click.echo("\nwhere set: nowhere: every value is farm's default (no FARM_* "
                   "variable, farm.toml or pyproject.toml [tool.farm] sets one)")
        return
    click.echo("\nwhere set (environment > farm.toml > pyproject.toml [tool.farm]; a "
               "command's flags win over all three):")
    width = max(map(len, where))
    for key, found in where.items():
        shadowed = f" (overrides {', '.join(found[1:])})" if len(found) > 1 else ""
        click.echo(f"  {key:<{width}} {found[0]}{shadowed}")


@cli.group()
def cache() -> None:
    """The locate / plan cache (.farm/cache.db; FARM_CACHE_URL or the broker's Redis when
    set).

    \b
    Example:
      farm cache ls demo/ai_shopping
      farm cache export suites/demo/ai_shopping.yaml   # a flow needing no model
      farm cache clear demo/ai_shopping
    """


_broker_option = click.option("--broker", type=GIVEN_TEXT, metavar="URL",
                              help="The cluster's store: this "
                              "Redis (also FARM_BROKER_URL; FARM_CACHE_URL wins).")


def _store(broker: str | None):
    """The configured cache store, answering (a ConfigError naming it when it does not), or
    None after saying ``no cache at PATH``: these commands never create an empty one."""
    from farm.cache.run_store import existing_store, missing_cache
    from farm.config import load_settings
    settings = load_settings(broker_url=broker)
    missing = missing_cache(settings)
    if missing is not None:
        click.echo(f"no cache at {missing}")
        return None
    return existing_store(settings, "")


@contextlib.contextmanager
def _cache_refusals(store) -> Iterator[None]:
    """A Redis cache store whose ACL user may not read or write farm's cache keys (NOPERM):
    one line naming the store (password masked), the user and the grant, exit 4; it was
    "internal error: NoPermissionError", exit 3, a traceback file. So is a cache.db another
    process kept locked past the busy timeout (a `farm run` writing it, a sqlite3 shell in
    a transaction): `farm cache clear` was "internal error: OperationalError: database is
    locked", exit 3."""
    try:
        yield
    except Exception as exc:    # (redis imported only then: a SQLite store does not need it)
        from urllib.parse import urlsplit

        from farm.errors import ConfigError
        _say_locked(store, exc)
        from redis.exceptions import NoPermissionError
        if not isinstance(exc, NoPermissionError):
            raise
        try:
            user = urlsplit(store.where.split(" ", 1)[0]).username or "default"
        except ValueError:
            user = "default"
        raise ConfigError(f"the cache store {store.where} refuses user '{user}': {exc} (farm's "
                          f"cache needs every command on its keys: ACL SETUSER {user} "
                          f"~{store.prefix}* +@all)") from None


def _say_locked(store, exc: Exception) -> None:
    """A ConfigError naming the store when ``exc`` is SQLite's "database is locked" (busy:
    another connection held a write lock past the busy timeout): nothing was changed."""
    import sqlite3
    if not isinstance(exc, sqlite3.OperationalError) or (
            (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF) not in (5, 6):   # BUSY, LOCKED
        return
    from farm.cache.sqlite_store import BUSY_TIMEOUT_MS
    from farm.errors import ConfigError
    raise ConfigError(f"the cache store {store.where} is locked: another process (a `farm run` "
                      f"or a sqlite3 shell?) kept it for more than {BUSY_TIMEOUT_MS / 1000:g} "
                      "s; nothing was changed: run this again when it is done") from None


def _entries_of(store, case: str):
    """(key, entry) of what CASE names (see `_selection_prefixes`), each once."""
    seen: set[str] = set()
    for prefix in _selection_prefixes(case):
        for key, entry in store.items(prefix):
            if key not in seen:
                seen.add(key)
                yield key, entry


def _selection_prefixes(case: str) -> list[str]:
    """Key prefixes of CASE (`farm.cache.keys.selection_prefixes`): a case id or suite, or,
    when CASE is a case file or folder on disk (suites/demo/login.yaml, as `farm run` and
    `farm cache export` take it), the ids of the cases it holds: where 'farm cache clear
    suites/demo/login.yaml' removed nothing and said "removed 0 entries"."""
    from farm.cache.keys import selection_prefixes
    prefixes = selection_prefixes(case)
    target = Path(case)
    if case and not target.exists() and target.suffix in (".yaml", ".yml") \
            and target.parent.is_dir():
        return prefixes + selection_prefixes(_gone_case_id(target))
    if not case or not target.exists():
        return prefixes
    from farm.config import load_settings
    from farm.errors import FarmError
    from farm.suite.loader import load_suites
    try:        # the secrets dir defines ${NAME}s too, as for `farm run`
        suites = load_suites([target], env=os.environ, warnings=[],
                             secrets_dir=load_settings().secrets_dir)
    except (FarmError, OSError):
        return prefixes         # not loadable as cases: CASE as an id, as before
    ids = ([_folder_id(target, s.root) for s in suites] if target.is_dir()
           else [c.id for s in suites for c in s.cases])
    return list(dict.fromkeys(prefixes + [p for i in ids for p in selection_prefixes(i)]))


def _gone_case_id(path: Path) -> str:
    """The id the case file ``path``, deleted since, had (its folder's suite, as `farm run`
    names it): `farm cache clear suites/shop/gone.yaml` said "removed 0 entries" and left
    the entries of shop/gone behind."""
    from farm.suite.casefile import file_case_id
    from farm.suite.loader import find_root
    folder = path.parent.resolve()
    return file_case_id(find_root(folder) or folder, folder / path.name)


def _no_such_file(case: str) -> None:
    """CASE is a case file that is not there and the cache holds nothing of the case it
    would be: a user error (a typo: `farm cache ls suites/shop/logn.yaml` said "0 entries",
    as if the case had none)."""
    target = Path(case)
    if not case or target.suffix not in (".yaml", ".yml") or target.exists():
        return
    said = (f" (nor entries of {_gone_case_id(target)}, the case a file deleted there was)"
            if target.parent.is_dir() else "")
    raise UserError(f"{case}: no such case file{said}")


def _folder_id(folder: Path, root: Path) -> str:
    """What the case ids of the cases in ``folder`` of the suite at ``root`` start with
    (``demo/`` or ``demo/mobile/``: a case's id is its suite folder's name and its path
    there): one key prefix for the folder, not three for each of its cases."""
    folder, root = folder.resolve(), root.resolve()
    if folder == root or folder in root.parents:
        return f"{root.name}/"
    return f"{root.name}/{folder.relative_to(root).as_posix()}/"


@cache.command("ls")
@click.argument("case", required=False, default="")
@_broker_option
def cache_ls(case: str, broker: str | None) -> None:
    """List entries of CASE: a case id such as demo/login_success, or a suite / folder
    (demo/ or demo: its cases; an id is whole: demo/login is not demo/login_success), or a
    case file or folder (suites/demo/login_success.yaml); all without CASE."""
    store = _store(broker)
    if store is None:
        return
    with _cache_refusals(store):
        _list_entries(store, case)


def _list_entries(store, case: str) -> None:
    """`farm cache ls`'s lines: one per entry of CASE, then how many and what they save. When
    the case files are found (CASE as a path, or its suite's folder here), the entries no step
    of theirs uses now (re-worded, removed) are listed apart, and not counted as saving."""
    entries = list(_entries_of(store, case))
    orphan = _orphans(store, case, [key for key, _ in entries])
    from farm.cache.locate import inside_plans
    saved: list[dict] = []
    located: list[dict] = []
    kept = [(k, e) for k, e in entries if k not in orphan]
    inside = inside_plans(kept)     # (a plan's target: its find is in the plan's saving)
    for key, entry in kept:
        click.echo(_entry_row(key, entry, saved, located, key in inside))
    if orphan:
        click.echo(f"{_entries_said(len(orphan))} no step of the case files use"
                   f"{'s' if len(orphan) == 1 else ''} now (a step re-worded or removed), "
                   "not counted below:")
        for key, entry in entries:
            if key in orphan:
                click.echo(_entry_row(key, entry, [], []))
    rows = len(entries)
    if not rows:
        _no_such_file(case)
    click.echo(f"{rows} entr{'y' if rows == 1 else 'ies'} in {store.where}"
               + (f" ({len(orphan)} of them used by no step)" if orphan else "")
               + (f"; replaying their plans saves {_spend(_summed(saved))} a run" if saved
                  else "")
               + (f"; their {len(located)} model-found locate entr"
                  f"{'y saves' if len(located) == 1 else 'ies save'} {_spend(_summed(located))} "
                  "a run" if located else "") + _inside_said(len(inside))
               + ("" if rows else _none_named(store, case)))
    if orphan:
        click.echo(_orphans_hint(case, len(orphan)))


def _inside_said(n: int) -> str:
    """After the summary's savings: the model-found locate entries counted inside a plan's."""
    return (f" ({n} model-found locate entr{'y' if n == 1 else 'ies'} of a plan's target: "
            "counted in the plan's saving)" if n else "")


def _entry_row(key: str, entry: dict, saved: list, located: list, inside: bool = False
               ) -> str:
    """One entry's line; what replaying its plan (or its model-found target) saves is added
    to ``saved`` (``located``); a model-found target of a cached plan (``inside``) is in its
    plan's saving, not added again."""
    import time as _time
    from farm.cache.keys import split_key
    from farm.cache.locate import ASKED_TIERS, found_with
    part = split_key(key)
    what = (f"{len(entry.get('actions') or [])} action(s)" if part.get("kind") == "plan"
            else ", ".join(entry.get("xpaths") or []))
    # (an empty plan, cached before 5cb8769, is a miss: it saves no call)
    if (part.get("kind") == "plan" and isinstance(entry.get("solved_with"), dict)
            and entry.get("actions")):
        saved.append(entry["solved_with"])
        what += f", solved with {_spend(entry['solved_with'])}"
    elif part.get("kind") == "plan" and entry.get("actions") and entry.get("solved_with") is None:
        what += ", saved: not known (solved by an older farm)"   # (its replays add none)
    elif part.get("kind") == "locate" and entry.get("tier") in ASKED_TIERS:
        found = found_with(entry.get("found_with"))     # a model's find
        what += f", found with {_spend(found)}" + (", inside its plan's saving" if inside
                                                    else "")
        if not inside:
            located.append(found)
    age = _age(_time.time() - float(entry.get("updated") or _time.time()))
    prompt = str(entry.get("prompt", ""))[:50].replace("\n", " ")
    return (f"{part.get('case', '?')}  {part.get('platform', '?')}  "
            f"{part.get('version') or '-'}  {part.get('kind', '?')}#{part.get('n', 0)}  "
            f"\"{prompt}\"  {what}  ({age})")


def _entries_said(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


def _orphans(store, case: str, keys: list[str]) -> set[str]:
    """The keys among ``keys`` that no step of the case files uses now (`farm.cache.in_use`):
    none when those files are not found here."""
    if not keys:
        return set()
    from farm.cache.in_use import in_use
    from farm.cache.keys import split_key
    from farm.config import load_settings
    live = in_use(case, {split_key(k).get("case", "") for k in keys} - {""}, store,
                  os.environ, load_settings().secrets_dir)
    return set() if live is None else {k for k in keys if live.matches(k) is False}


def _orphans_hint(case: str, n: int) -> str:
    """What becomes of entries no step uses: `farm cache clear` takes a case, not an entry."""
    from farm.config import load_settings
    days = load_settings().cache_ttl_days
    them = "it" if n == 1 else "them"
    return (f"no run replays {them}: {'it expires' if n == 1 else 'they expire'} {days:g} d after "
            f"{'its' if n == 1 else 'their'} last use (FARM_CACHE_TTL_DAYS); `farm cache "
            f"clear {case or 'CASE'}` drops {them} now, with every other entry of "
            f"{case or 'the case'} (the next run asks the model again)")


def _none_named(store, case: str) -> str:
    """After "0 entries" of CASE, a case id or suite (not a file or folder here): ``: no
    case or suite named demo/logn has any (did you mean demo/login?)``, the nearest ids
    that have entries, or how many cases do. It said only "0 entries in .farm/cache.db",
    as of a case that had none, where the id was mistyped."""
    from farm.cache.keys import case_prefix, near_selections, split_key
    if not case or os.path.exists(case):
        return ""
    keys = [key for key, _ in store.items(case_prefix())]
    cases = {split_key(key).get("case", "").split("@", 1)[0] for key in keys} - {""}
    if not cases:
        return ""
    said = f": no case or suite named {case} has any"
    near = near_selections(case, keys)
    if near:
        return f"{said} (did you mean {' or '.join(near)}?)"
    return (f"{said} ({len(cases)} case{'' if len(cases) == 1 else 's'} "
            f"{'has' if len(cases) == 1 else 'have'}: `farm cache ls` lists them)")


def _age(seconds: float) -> str:
    """``just now``, ``12 min ago``, ``3.5 h ago``, ``4 d ago``: an entry written by a
    machine whose clock runs ahead is "just now", not "-0.0 h ago"."""
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{seconds // 60:.0f} min ago"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h ago"
    return f"{seconds // 86400:.0f} d ago"


def _spend(used: dict) -> str:
    """``8 model call(s), 13,345 tokens, $0.0200`` (the tokens and cost left out when
    unknown: a locate entry from before farm kept what finding it cost)."""
    cost, tokens = used.get("cost_usd"), used.get("tokens")
    return (f"{int(used.get('calls') or 0):,} model call(s)"
            + (f", {int(tokens):,} tokens" if tokens is not None else "")
            + (f", ${float(cost):.4f}" if isinstance(cost, (int, float)) else ""))


def _summed(spends: list) -> dict:
    """What several plans' ``solved_with`` add up to (the cost only when every one's is known)."""
    costs = [s.get("cost_usd") for s in spends]
    tokens = [s.get("tokens") for s in spends]
    return {"calls": sum(int(s.get("calls") or 0) for s in spends),
            "tokens": sum(tokens) if all(isinstance(t, int) for t in tokens) else None,
            "cost_usd": sum(costs) if all(isinstance(c, (int, float)) for c in costs) else None}


@cache.command("clear")
@click.argument("case", required=False, default=None)
@_broker_option
def cache_clear(case: str | None, broker: str | None) -> None:
    """Remove the entries of CASE (a case id, a suite: demo/ or demo, or a case file or
    folder: suites/demo/login_success.yaml, also one deleted since); all of them without
    CASE. A corrupt cache file is moved aside (cache.db.corrupt-<time>) and a fresh one
    started."""
    if case is not None and not case.strip():   # `farm cache clear "$CASE"`, CASE unset
        raise UserError("farm cache clear: empty case id (an unset variable?): nothing "
                        "removed; `farm cache clear` with no argument removes every entry")
    case = case or ""
    from farm.cache.keys import withheld_key
    from farm.cache.sqlite_store import CorruptStore
    try:
        store = _store(broker)
    except CorruptStore as exc:
        _fresh_store(exc)
        return
    if store is None:
        return
    from farm.cache.store import StoreReadOnly
    from farm.errors import ConfigError
    try:        # a Redis replica: said as the error it is, not an internal error
        with _cache_refusals(store):
            prefixes = _selection_prefixes(case)
            removed = sum(store.delete(prefix) for prefix in prefixes)
            for prefix in prefixes:     # (export's "not cached: it held a secret" notes: not
                store.delete(withheld_key(prefix))     # entries, not counted, gone with them)
    except StoreReadOnly as exc:
        if isinstance(exc, ConfigError):        # a cache.db that may not be written
            raise
        raise ConfigError(f"{exc}: nothing removed; clear the cache on its primary") from None
    if not removed:
        _no_such_file(case)
    freed = _space_given_back(store) if removed and not case else ""
    if not removed and case:        # a typo (`farm cache ls` it), or `/`: README's exit 4
        with _cache_refusals(store):
            said = _none_named(store, case) or (
                f": no case in {case} has any" if os.path.exists(case)
                else f": no entries at all match {case}")
        raise UserError(f"nothing removed from {store.where}{said}")
    click.echo(f"removed {removed} entr{'y' if removed == 1 else 'ies'} from {store.where}"
               + freed)


def _space_given_back(store) -> str:
    """After `farm cache clear` of everything: the SQLite file made small again (VACUUM),
    and ``; the file went from 42.4 MB to 12 KB``; "" for a Redis store, or when another
    process has the file in use (a run: it is not waited for). A cleared 42 MB cache.db
    stayed 42 MB: SQLite keeps freed pages for reuse."""
    import sqlite3

    from farm.cache.sqlite_store import SqliteStore
    if not isinstance(store, SqliteStore):
        return ""
    before = store.path.stat().st_size
    store.close()
    try:
        with contextlib.closing(sqlite3.connect(store.path, timeout=0.5)) as conn:
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error:
        return ""       # (in use: the pages are reused as it writes)
    after = store.path.stat().st_size
    return f"; the file went from {_size(before)} to {_size(after)}" if after < before else ""


def _size(n: int) -> str:
    """``12 KB``, ``42.4 MB``."""
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{max(1, round(n / 1e3))} KB"


def _fresh_store(corrupt) -> None:
    """Set the damaged store file aside and start an empty one, saying where it went."""
    from farm.cache.sqlite_store import SqliteStore, set_aside
    from farm.errors import ConfigError
    try:
        moved = set_aside(corrupt.path)
        SqliteStore(corrupt.path).close()
    except OSError as exc:
        raise ConfigError(f"{corrupt}; cannot move it aside: {exc.strerror or exc}") from None
    click.echo(f"the cache store {corrupt.path} was corrupt: moved it to {moved}; "
               "started a fresh, empty one")


class _CaseOrRun(_GivenPath):
    """`farm cache export`'s argument: a case file or a run directory. A case id, which `farm
    cache ls` and `clear` take (demo/ai_shopping), was refused as "Path 'demo/ai_shopping' does
    not exist", leaving the reader to guess what the command takes."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and value.strip() and not os.path.exists(value):
            self.fail(_no_case_or_run(value), param, ctx)
        return super().convert(value, param, ctx)


def _no_case_or_run(value: str) -> str:
    """What to give instead of ``value``, which names nothing here: the case file of that id
    in the working directory or a folder in it (suites/demo/ai_shopping.yaml), when there is
    one."""
    said = f"{value!r} is no case file or run directory here"
    case_id = value.rstrip("/")
    if not re.fullmatch(r"[\w-]+(/[\w.-]+)*", case_id) or case_id.endswith((".yaml", ".yml")):
        return said
    files = sorted({str(path) for pattern in ("", "*/") for ext in (".yaml", ".yml")
                    for path in Path().glob(f"{pattern}{case_id}{ext}")})
    give = (f"give its file ({' or '.join(files)})" if files
            else "give the case's file (the .yaml `farm run` ran)")
    return (f"{said}: {give} or a run directory (.farm/runs/<run-id>); unlike `farm cache ls` "
            "and `clear`, export takes no case id")


@cache.command("export")
@click.argument("case_or_run", type=_CaseOrRun(exists=True, path_type=Path))
@click.option("--output", "-o", type=_GivenPath(path_type=Path),
              help="Where to write (one case only; default: <case>.solved.yaml beside it).")
@_broker_option
def cache_export(case_or_run: Path, output: Path | None, broker: str | None) -> None:
    """Write a solved case (a case file, or every case of a run directory) as a YAML flow
    that runs with no model: each ai step becomes the steps its cached plan holds. A run
    directory's cases are read from the store that run used."""
    from farm.cache.export import (export_case, export_target, refuse_poorer, run_cases,
                                   write_export)
    from farm.cache.run_store import case_file_hint, existing_store, run_store
    from farm.config import load_settings
    settings = load_settings(broker_url=broker)
    cases = ([_one_case(case_or_run, settings.secrets_dir)] if case_or_run.is_file()
             else run_cases(case_or_run, os.environ, secrets_dir=settings.secrets_dir))
    if output is not None and len(cases) > 1:
        raise click.UsageError("--output takes one case; this run has several")
    if output is not None:
        _export_replaces_no_case(output, cases[0])
    what = "--output" if output is not None else "the export"
    targets = [export_target(case, output, what) for case in cases]   # checked before any
    store = (existing_store(settings, case_file_hint(case_or_run)) if case_or_run.is_file()
             else run_store(case_or_run, settings, cases))
    with _cache_refusals(store):
        texts = [export_case(case, store, os.environ, settings.secrets_dir) for case in cases]
        for target, text in zip(targets, texts):
            refuse_poorer(target, text, store)
    for target, text in zip(targets, texts):
        write_export(target, text, what)
        click.echo(str(target))


def _export_replaces_no_case(output: Path, case) -> None:
    """--output is a file the export writes over: the case file itself, or any file that is
    not an earlier export (another case: `-o suites/shop/login.yaml` tab-completed), is
    refused; it was replaced, its ai steps by the steps their cached plans took, its
    comments gone."""
    if os.path.realpath(output) == os.path.realpath(case.file):
        said = "is the case file itself"
    else:
        try:
            with output.open("rb") as file:
                head = file.read(64).removeprefix(b"\xef\xbb\xbf")
        except OSError:     # not there (or what is wrong is said where it is written)
            return
        if not head.strip() or head.startswith(b"# Exported by `farm cache export`"):
            return
        said = "holds something other than an earlier export"
    raise UserError(f"--output {output} {said}: the export would replace it (a case's ai "
                    "steps by the steps their cached plans took, its comments): give another "
                    f"file, delete it first, or leave --output out ({case.file.stem}.solved.yaml "
                    "beside the case)")


def _one_case(path: Path, secrets_dir: Path | None):
    """The case the file ``path`` is; a UserError naming it when it is a suite's farm.yaml
    or a batch file (they stand for several cases: each has its own export)."""
    from farm.suite.batch import SUITE_FILE
    from farm.suite.loader import load_suites
    cases = [c for s in load_suites([path], env=os.environ, secrets_dir=secrets_dir)
             for c in s.cases]
    if len(cases) == 1 and cases[0].file.resolve() == path.resolve():
        return cases[0]
    what = ("a suite's farm.yaml" if path.name == SUITE_FILE
            else f"a batch file (it lists {len(cases)} case(s))")
    raise UserError(f"{path}: {what}, not a case file: farm cache export takes one case file "
                    "(or a run directory: every case of the run)")


@cli.command(cls=_ReportCommand)
@click.argument("run_dir", required=False,
                type=_GivenPath(exists=True, file_okay=False, path_type=Path))
@click.option("--history", is_flag=True,
              help="Write one page across the runs in the results history instead.")
@click.option("--since", metavar="AGE", help="With --history: only runs this recent (7d, 12h).")
@click.option("--suite", metavar="NAME", help="With --history: only this suite's cases.")
@click.option("--out", type=_GivenPath(path_type=Path),
              help="With --history: where to write the page (default .farm/history.html); "
                   "with --merge: the folder to write the merged run into.")
@click.option("--results", metavar="PATH|URL", help="The results history to read (default: "
              "FARM_RESULTS_HISTORY_URL, the broker's Redis, else .farm/results.sqlite).")
@click.option("--alluredir", type=_GivenPath(file_okay=False, path_type=Path),
              help="Also write Allure results of RUN_DIR into this directory.")
@click.option("--junit-xml", type=_GivenPath(dir_okay=False, path_type=Path),
              help="Also write RUN_DIR's JUnit XML here (the --junit-xml a killed run left "
                   "saying it had not finished).")
@click.option("--merge", "merge", multiple=True, metavar="PATH",
              type=_GivenPath(exists=True, path_type=Path),
              help="Merge the runs of a --shard I/N nightly into one run in --out: each "
                   "shard's run directory or results.json, or a folder holding them "
                   "(one path each: repeat --merge for each path).")
@click.option("--overwrite", is_flag=True,
              help="With --merge: replace the run an earlier merge left in --out.")
def report(run_dir: Path | None, history: bool, since: str | None, suite: str | None,
           out: Path | None, results: str | None, alluredir: Path | None,
           junit_xml: Path | None, merge: tuple[Path, ...], overwrite: bool) -> None:
    """Rebuild report.html and junit.xml of RUN_DIR from its results.json, or, for a run
    that was killed before writing it, from the results journal (results.jsonl). With
    --merge: one run in --out of the shard runs of a `farm run --shard I/N` nightly.

    \b
    Example:
      farm report .farm/runs/20250101-020000-ab12
      farm report --history --since 7d --suite demo
      farm report --merge shard-artifacts/ --out nightly/
    """
    if merge or overwrite:
        _merge_shards(merge, out, overwrite, run_dir=run_dir, history=history, since=since,
                      suite=suite, results=results, alluredir=alluredir, junit_xml=junit_xml)
        return
    if history:
        ignored = [what for what, value in ((f"RUN_DIR {run_dir}", run_dir),
                                            ("--alluredir", alluredir),
                                            ("--junit-xml", junit_xml)) if value is not None]
        if ignored:
            raise UserError(f"{' and '.join(ignored)}: not with --history (the page across "
                            "runs, from the results history): give one or the other")
        _history_page(since, suite, out, results)
        return
    unused = [flag for flag, value in (("--since", since), ("--suite", suite), ("--out", out),
                                       ("--results", results)) if value is not None]
    if unused:
        raise click.UsageError(f"{', '.join(unused)}: only with --history (the page across "
                               "runs); RUN_DIR's report is rebuilt in RUN_DIR")
    if run_dir is None:
        runs = _runs_in(_state_dir() / "runs")
        raise click.UsageError("give RUN_DIR" + (f" (the newest run: `farm report {runs[-1]}`)"
                                                 if runs else "") +
                               ", or --history for the page across runs")
    import logging

    from farm.journal import concluded
    from farm.report.paths import check_outputs, writable_dir
    from farm.run_outputs import remember_rebuilt, write_outputs
    # what `farm run` logs to farm.log: not on the console (each failure is said below, once)
    logging.getLogger("farm").addHandler(logging.NullHandler())
    summary, rebuilt = _run_summary(run_dir)
    writable_dir(run_dir, "the run directory")
    _junit_replaces_no_other_file(junit_xml)
    check_outputs(junit_xml=junit_xml, alluredir=alluredir)
    if rebuilt and (summary.interrupted or not concluded(run_dir)):    # killed (after its last
        from farm.config import load_settings   # case too): the history and --last-failed, once
        remember_rebuilt(load_settings(), summary, run_dir)     # (says what it remembered)
    unwritten = write_outputs(summary, run_dir, junit_xml=junit_xml, alluredir=alluredir,
                              record=rebuilt, state_dir=_state_dir())
    page = run_dir / "report.html"
    if not any(what.startswith(f"{page}: ") for what in unwritten):   # (not an older one)
        click.echo(str(page.resolve()))
    for what in unwritten:
        click.echo(f"farm: error: not written: {what}", err=True)
    if unwritten:
        sys.exit(EXIT_INTERNAL)


def _merge_shards(merge: tuple[Path, ...], out: Path | None, overwrite: bool,
                  **others: object) -> None:
    """`farm report --merge PATH... --out DIR` (farm.report.merge)."""
    unused = [f"--{k.replace('_', '-')}" if k != "run_dir" else f"RUN_DIR {v}"
              for k, v in others.items() if v not in (None, False)]
    if unused or not merge or out is None:
        raise click.UsageError(
            "--overwrite: only with --merge (a merge's --out)" if not merge else
            f"{', '.join(unused)}: not with --merge" + (
                f" ({MERGE_REPEAT})" if others.get("run_dir") is not None else "")
            if unused else
            "--merge: give --out DIR, the folder to write the merged run into")
    from farm.report.merge import merge as merge_runs
    merged = merge_runs(list(merge), out, overwrite)
    for shard in merged.missing:
        click.echo(f"farm: warning: shard {shard} missing: its cases are not in this "
                   "report", err=True)
    for note in merged.notes:
        click.echo(f"farm: {note}", err=True)
    s = merged.summary
    click.echo(f"farm: merged {len(s.shards)} shard run(s), {len(s.cases)} case(s), "
               f"into {out}", err=True)
    click.echo(str((out / "report.html").resolve()))
    for what in merged.unwritten:
        click.echo(f"farm: error: not written: {what}", err=True)
    if merged.unwritten:
        sys.exit(EXIT_INTERNAL)


def _run_summary(run_dir: Path):
    """RUN_DIR's results: its results.json, else (missing, or unreadable) rebuilt from its
    journal, saying so; without either, a UserError saying what is wrong with which file."""
    from farm.journal import JOURNAL, concluded, recover, writer
    source, journal = run_dir / "results.json", run_dir / JOURNAL
    from farm.results import read_results
    summary, _, why = read_results(source) if source.exists() else (None, None, None)
    if summary is not None:
        return summary, False
    if not journal.exists():
        if why:
            raise UserError(f"{source}: {why}")
        where = next((f for f in (run_dir, run_dir / "runs") if _runs_in(f)), run_dir)
        runs = _runs_in(where)      # (`farm report .farm`: the state dir, its runs/ in it)
        raise click.UsageError(f"{source} does not exist" + (
            f"; {where} holds {len(runs)} run folder(s): give one, e.g. "
            f"`farm report {runs[-1]}` (the newest)" if runs else
            f", nor {journal}: {run_dir} is not a run directory (a run's --report-dir, or "
            "one under .farm/runs)"))
    pid = writer(run_dir)
    if pid is not None:     # not killed: rebuilt now, its report would say it stopped here
        raise UserError(f"{run_dir}: its run is still going (farm process {pid}): it writes "
                        "its report when it ends; `farm report` rebuilds one after farm was "
                        "stopped")
    try:
        damaged = _damaged_lines(journal)
        summary = recover(run_dir)      # (a line that is not UTF-8 passed over, as others)
    except OSError as exc:
        raise UserError(f"{journal}: cannot read it ({exc.strerror or exc})") from None
    if not summary.cases and summary.interrupted and why is None:
        raise UserError(f"{journal}: " + (
            "empty (its disk was full from the run's start?)" if not journal.stat().st_size
            else f"run {summary.run_id} was stopped while it set up, before it planned any "
            "case") + ": there is no report to rebuild")
    finished, unfinished = _rebuilt(summary)
    if why is not None and not finished:    # nothing to rebuild from: leave results.json be
        raise UserError(f"{source}: {why}; {journal} holds no finished case to rebuild from")
    if not summary.interrupted:     # the journal's end line: the run finished
        n = len(summary.cases)
        said = f": the run had finished ({n} case{'' if n == 1 else 's'})" + (
            "" if concluded(run_dir) else ": farm was stopped after its last case ended, "
            "before it wrote them, so the run is not interrupted (as a Ctrl-C then)")
    elif why is None:
        said = f": {finished} case(s) had finished{unfinished} before the run stopped"
    else:
        said = f" ({finished} case(s) finished{unfinished})"
    lost = "" if why is None else f"{source} is unreadable ({why}): "
    for number, what in damaged[:5]:
        click.echo(f"farm: warning: {journal}:{number}: {what}: skipped", err=True)
    if len(damaged) > 5:
        click.echo(f"farm: warning: {journal}: {len(damaged) - 5} more damaged line(s) "
                   "skipped", err=True)
    click.echo(f"farm: {lost}rebuilt from {journal}{said}", err=True)
    return summary, True


def _damaged_lines(journal: Path) -> list[tuple[int, str]]:
    """The journal's lines `recover` cannot read, (line number, why): it passes them over
    in silence, and a damaged result line made its case "not run" with nothing said of the
    file; a line that is not UTF-8 stopped the whole rebuild naming no line."""
    import json
    data = journal.read_bytes()
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    damaged = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            damaged.append((number, "not UTF-8 text (the file is damaged there)"))
        except ValueError:
            damaged.append((number, "cut off (farm was killed as it wrote it)"
                            if number == len(lines) and not data.endswith(b"\n")
                            else "not a journal line (the file is damaged there)"))
    return damaged


def _runs_in(folder: Path) -> list[Path]:
    """The run folders right inside ``folder`` (``.farm/runs`` given for a run), oldest
    first by name (a run id starts with its time)."""
    from farm.journal import JOURNAL
    try:
        return sorted(p for p in folder.iterdir() if p.is_dir() and (
            (p / "results.json").is_file() or (p / JOURNAL).is_file()))
    except OSError:
        return []


def _rebuilt(summary) -> tuple[int, str]:
    """How many of a journal's cases had finished, and ", N interrupted, M not run" for the
    ones `recover` found begun without a result or never begun. (A rebuilt run is interrupted
    unless its journal's end line says it finished.)"""
    from farm.results import not_run_by_interrupt
    interrupted = sum(c.status == "interrupted" for c in summary.cases)
    not_run = not_run_by_interrupt(summary)     # (a Ctrl-C's too, when the run had its end)
    rest = (f", {interrupted} interrupted" if interrupted else "") + (
        f", {not_run} not run" if not_run else "")
    return len(summary.cases) - interrupted - not_run, rest


def _history_page(since: str | None, suite: str | None, out: Path | None,
                  results: str | None) -> None:
    from farm.config import load_settings
    from farm.report.trends import parse_since
    if since is not None:
        try:
            parse_since(since)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--since") from None
    from farm.report.paths import writable_file
    settings = load_settings()
    target = out or Path(settings.state_dir) / "history.html"
    made = _first_missing(target.parent)
    writable_file(target, "--out" if out else "the history page")
    try:
        _write_history_page(settings, target, since, suite, out, results)
    except BaseException:       # nothing written: no folder made for it either
        _unmake(target.parent, made)
        raise


def _first_missing(folder: Path) -> Path | None:
    """The outermost folder of ``folder``'s path that is not there yet (None: all are); its
    ``..`` taken away first, as `_unmake` does (`new/../existing` is ``existing``, there)."""
    folder = Path(os.path.abspath(folder))
    missing = None
    for path in (folder, *folder.parents):
        if path.exists():
            return missing
        missing = path
    return missing


def _unmake(folder: Path, top: Path | None) -> None:
    """Remove the empty folders from ``folder`` up to ``top``, the ones a check made: `farm
    report --history` with no history ("Nothing written") left an empty .farm/ behind. The
    path's ``..`` are taken away first: `--out new/../existing/h.html` removed the user's
    empty ``existing/`` (a folder there before), not ``new/``."""
    if top is None:
        return
    folder = Path(os.path.abspath(folder))
    for path in (folder, *folder.parents):
        try:
            path.rmdir()
        except OSError:
            return
        if path == top:
            return


def _write_history_page(settings, target: Path, since: str | None, suite: str | None,
                        out: Path | None, results: str | None) -> None:
    from farm.report.history_page import write_history
    from farm.results_history import HistoryUnreadable, is_redis, open_results
    _junit_replaces_no_other_file(out, "--out", "HTML", "the history page")
    named = results or settings.results_history_url    # a typo is not an empty history
    if named and not is_redis(named) and not Path(named).exists():
        raise UserError(f"{_history_source(settings, results)}: no such results history (a "
                        "SQLite file farm wrote, or a redis:// URL)")
    store = open_results(settings, results)
    try:
        page = write_history(store, target, since, suite)
    except HistoryUnreadable as exc:
        raise UserError(f"{_history_source(settings, results)}: cannot read it as a results "
                        f"history ({exc})") from None
    except OSError as exc:      # checked writable up front: a full disk, as for RUN_DIR's
        from farm.report.paths import why_not_written
        click.echo(f"farm: error: not written: {target}: {why_not_written(target, exc)}",
                   err=True)
        sys.exit(EXIT_INTERNAL)
    click.echo(str(page.resolve()))
    if results is None:     # (the history this state dir's runs go to)
        _say_unrebuilt(settings, store, since)


def _say_unrebuilt(settings, store, since: str | None) -> None:
    """The killed runs of the state dir that no `farm report` has put in the history: not
    on the page, one line each saying how to add them."""
    import time

    from farm.report.trends import parse_since
    from farm.run_outputs import unrebuilt_runs
    cutoff = time.time() - parse_since(since) if since else 0.0
    try:
        killed = unrebuilt_runs(Path(settings.state_dir) / "runs", store, cutoff)
    except Exception:       # (the page is written: a note is not worth an error)
        return
    for run_dir in killed:
        click.echo(f"farm: run {run_dir.name} ended without writing its results (killed?) and "
                   f"is not in the results history: `farm report {run_dir}` rebuilds its report "
                   "from its journal and adds it", err=True)


def _history_source(settings, results: str | None) -> str:
    """Which results history was read, as the user named it (passwords masked)."""
    from farm.config import mask_url
    if results:
        return f"--results {mask_url(results)}"
    if settings.results_history_url:
        return f"{settings.named('results_history_url')} {mask_url(settings.results_history_url)}"
    if settings.broker_url:
        return f"the broker's Redis {mask_url(settings.broker_url.get_secret_value())}"
    return str(Path(settings.state_dir) / "results.sqlite")


def _imports_done() -> None:
    """`farm run` has imported the run's modules: the collector on again (`_hold_gc`), tuned
    for the run in the process of its own."""
    if _OWN_PROCESS:
        _quiet_gc()
    _gc_back()


def _quiet_gc() -> None:
    """What `farm run` has imported by now lives until it exits: move it out of the garbage
    collector's sight (gc.freeze), and collect young objects less often. A run allocates a
    great many short-lived dicts (Playwright's messages, nearly all freed by reference
    counting); with Python's defaults a 20-case demo run spent 0.11-0.13 s of its 2.0 s of
    CPU in 293 collections, with these 0.06 s in 101 (timed with gc.callbacks)."""
    gc.freeze()         # no gc.collect() first: it found nothing to free and cost ~16 ms
    gc.set_threshold(*GC_THRESHOLDS)


def _hold_gc() -> None:
    """The collector off while `farm` starts, until its command has imported its modules
    (`_gc_back`: `farm run` once it has imported the run's, any other command before it
    starts). Those are some 40,000 objects that live until exit (modules, classes, pydantic's
    validators): with the collector on, importing them cost `farm run` ~40 ms of CPU in ~75
    collections, which found some 1,500 objects to free (kept now, frozen by `_quiet_gc`)."""
    global _GC_HELD
    if gc.isenabled():
        gc.disable()
        _GC_HELD = True


def _gc_back() -> None:
    """The collector on again, if `_hold_gc` turned it off."""
    global _GC_HELD
    if _GC_HELD:
        _GC_HELD = False
        gc.enable()


def _state_dir() -> Path:
    """The configured state dir (FARM_STATE_DIR, farm.toml, ...), where an internal error's
    traceback goes; ``.farm`` when the settings themselves cannot be read."""
    try:
        from farm.config import load_settings
        return Path(load_settings().state_dir)
    except Exception:
        return Path(".farm")


def _closed_to_devnull() -> None:
    """stdout or stderr closed (`farm run … 2>&-`, a supervisor's closed descriptor): Python
    has None there, and a passed run ended "internal error: 'NoneType' object has no
    attribute 'flush'", exit 3. What farm says there goes nowhere instead (the os.devnull
    opened takes the closed descriptor, so a browser farm starts writes nowhere too)."""
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))


def _printable_anywhere() -> None:
    """A terminal that is not UTF-8 (an ISO-8859-1 or ASCII locale, PYTHONIOENCODING=ascii)
    gets what it cannot show as \\u escapes, not an internal error after the run: farm's own
    lines have "—", and page text may be Chinese. The C locale's ``surrogateescape`` too
    (Python's own in a C or POSIX locale with UTF-8 mode off): it fails on "—" as strict
    does, and a run's output stopped at its first "—", a failure's line and the tally lost."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") in ("strict",
                                                                         "surrogateescape"):
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):     # a closed or detached stream: nothing to do
                pass


# How a write to standard output fails when its reader went away (`| head -1`, a closed
# terminal or socket): nothing is lost that anyone would read.
_READER_GONE = {errno.EPIPE, errno.EIO, errno.ECONNRESET, errno.ESHUTDOWN}


class _ReaderMayLeave:
    """sys.stdout while a command runs: a reader that goes away (`farm run … | head -1`)
    costs the lines after it, not the command. click's answer to the closed pipe was exit 1
    at the next line: `farm run` stopped at its "deselected" note, no case run, no report,
    nothing said; `--collect-only | grep -q` exited 1. A write that fails otherwise (a full
    disk under `farm run --collect-only > cases.txt`) loses the lines after it too, but is
    said on stderr and fails the command (`lost`): the list was cut short, and exit 0 said
    it was whole. Anything else is the real stream's."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.reader_gone = False
        self.lost: OSError | None = None      # why what farm printed did not all get there

    def write(self, text: str) -> int:
        if not self.reader_gone:
            try:
                return self._stream.write(text)
            except BlockingIOError:     # a full non-blocking pipe: its reader is still there
                raise
            except OSError as exc:      # EPIPE; EIO from a terminal that closed; ENOSPC
                self._reader_left(exc)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self.reader_gone:
            try:
                self._stream.flush()
            except BlockingIOError:
                raise
            except OSError as exc:
                self._reader_left(exc)

    def _reader_left(self, exc: OSError) -> None:
        self.reader_gone = True
        if exc.errno not in _READER_GONE:
            self.lost = exc
            try:        # (stderr on the same full disk: the exit code still says it)
                click.echo(f"farm: error: standard output could not be written "
                           f"({exc.strerror or exc}): what farm printed after that is lost",
                           err=True)
            except OSError:
                pass
        try:    # what the stream still holds goes nowhere at exit, not to "Exception ignored"
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _hidden(text: str) -> str:
    """``text`` with the value of every credential-named environment variable as ``***``: an
    error may quote a value given in the wrong place (an API key pasted into
    FARM_MODEL_RETRIES: "got 'sk-...'"), which must not reach a CI log. Its control
    characters show as escapes (``\\x1b``): a suite's ``"ai\\e[31mTap":`` coloured the
    terminal, and piped (click drops escape sequences there) read "unknown step kind 'aiTap'
    (did you mean 'aiTap'?)"."""
    from farm.config import environment_secrets
    from farm.suite.vars import Variables      # (its mask: escaped forms, cut quotes too)
    from farm.text import printable
    found = environment_secrets()
    return printable(Variables({str(i): v for i, v in enumerate(found)},
                               secrets=map(str, range(len(found)))).mask(text))


def main(held: list[int] | None = None) -> None:
    """Entry point: maps errors to exit codes; no tracebacks for user mistakes. ``held``: the
    signals that came while this module loaded (`farm.entry`), delivered once it can heed them."""
    global _OWN_PROCESS
    _OWN_PROCESS = True
    _HELD[:] = held or []
    _hold_gc()
    _closed_to_devnull()
    _printable_anywhere()
    _junit_at_start(sys.argv[1:])
    real_stdout = sys.stdout
    sys.stdout = out = _ReaderMayLeave(real_stdout)
    before = _stops_interrupt(sys.argv[1:])
    try:
        try:
            _main()
            code: object = 0
        except SystemExit as exc:
            code = exc.code
        out.flush()
        if out.lost is not None and code in (0, None):    # cut short: not a whole success
            code = EXIT_INTERNAL
        if _whole_process():    # threads a device plugin left running: not waited for ever
            from farm.leftover_threads import exit_watched
            exit_watched(code if isinstance(code, int) else int(code is not None), "farm")
        sys.exit(code)
    finally:
        sys.stdout = real_stdout
        for sig, handler in before.items():
            signal.signal(sig, handler)
        _gc_back()      # (a usage error ends `farm run` before `_quiet_gc`)


def _stops_interrupt(args: list[str]) -> dict[int, Any]:
    """SIGTERM and SIGHUP stop farm as Ctrl-C does (an interrupt: exit 2, as README gives it)
    until `farm run` takes them over (farm.stop_signals); a CI runner's SIGTERM while farm
    read its settings or suites killed it with 143. As a run heeds it (`stop_signals.heeded`),
    SIGTERM stops farm however it was started: one its parent left ignored (a wrapper's
    ``trap '' TERM``) was ignored until the run took it over, and farm waited for ever on a
    settings file that did not come. An ignored SIGHUP (``nohup``) stays ignored, and so does
    an ignored Ctrl-C (a script's `farm sim … &` outlives the script's Ctrl-C, as before) —
    except for `farm run` (``args``: the command line), which heeds Ctrl-C however it was
    started: a script's background `farm run … &` ignored a SIGINT that came while it was
    still starting (its settings, suites, devices), and its cases then ran to their end.
    The handlers of before, for `main` to put back (a test calls it in its own process)."""
    before: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return before
    heeds = ("SIGTERM", "SIGINT") if args[:1] == ["run"] else ("SIGTERM",)
    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        sig = getattr(signal, name, None)
        if sig is None:
            continue
        now = signal.getsignal(sig)
        if (now is signal.SIG_DFL and name != "SIGINT") or (now is signal.SIG_IGN
                                                            and name in heeds):
            before[sig] = signal.signal(sig, _interrupt)
    return before


def _interrupt(_signum: int, _frame: object) -> None:
    raise KeyboardInterrupt


_HELD: list[int] = []       # `main`'s ``held``


def _held_signals() -> None:
    """The signals `farm.entry` held while this module loaded, delivered now that `main` set
    up what each does (an ignored one stays ignored: `signal.raise_signal` heeds that)."""
    while _HELD:
        signal.raise_signal(_HELD.pop(0))


HEADED_FLAGS = ("--headed", "--headful", "--head", "--no-headless")


# Midscene CLI options (`midscene --config index.yaml --concurrent 2`) and where farm takes
# what they set: click said only "No such option".
_BATCH_KEY = ("farm has no {flag}: Midscene's {flag} is the batch file's `{key}:` in farm; "
              "write it in the batch file and run `farm run index.yaml`")
MIDSCENE_FLAGS = {
    "--config": ("farm has no --config: name the batch file as a path, `farm run index.yaml` "
                 "(as `midscene --config index.yaml` runs it)"),
    "--concurrent": _BATCH_KEY.format(flag="--concurrent", key="concurrent") + (
        " (or give devices: --devices browser:N)"),
    "--continue-on-error": _BATCH_KEY.format(flag="--continue-on-error", key="continueOnError"),
    "--share-browser-context": _BATCH_KEY.format(flag="--share-browser-context",
                                                 key="shareBrowserContext"),
    "--summary": _BATCH_KEY.format(flag="--summary", key="summary"),
    "--keep-window": "farm has no --keep-window: farm closes its browsers when the run ends",
}


def _no_headed(exc: click.UsageError) -> str:
    """`farm run --headed` (a flag of pytest-playwright and others): how farm shows its
    browser, not click's "Did you mean '--shard'?"; a Midscene CLI option: where farm takes
    what it sets."""
    name = getattr(exc, "option_name", None)
    if isinstance(exc, click.NoSuchOption) and name in HEADED_FLAGS:
        exc.possibilities = None
        return f"farm has no {name}: set FARM_HEADLESS=false for a visible browser"
    if isinstance(exc, click.NoSuchOption) and name in MIDSCENE_FLAGS:
        exc.possibilities = None
        return MIDSCENE_FLAGS[name]
    return exc.message


def _whole_process() -> bool:
    """Is `main` this process's entry point (the `farm` script, `python -m farm.cli`), not
    called by another program (a test) whose process must go on?"""
    return getattr(sys.modules.get("__main__"), "main", None) is main


def _main() -> None:
    """`main`'s map of what ended the command to its exit code and what is said of it."""
    try:
        _held_signals()
        cli.main(standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.UsageError as exc:
        exc.message = _hidden(_no_headed(exc))
        _junit_of_mistake(exc.format_message())
        exc.show()
        sys.exit(EXIT_USAGE)
    except (click.Abort, KeyboardInterrupt, _Interrupted):
        _junit_of_interrupt()
        # a blank line first closes a terminal's ``^C`` echo (none without a terminal)
        click.echo(("\n" if sys.stderr.isatty() else "") + "farm: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except SuiteErrors as exc:
        n = len(exc.errors)
        click.echo(f"farm: {n} problem{'s' if n != 1 else ''} in suite files:", err=True)
        for err in exc.errors:
            click.echo(_hidden(f"  {err}"), err=True)
        if exc.outcome:     # (with the problems: `2>/dev/null` left it alone on stdout)
            click.echo(exc.outcome, err=True)
        sys.exit(EXIT_USAGE)
    except UserError as exc:
        _junit_of_mistake(_hidden(str(exc)))
        click.echo(_hidden(f"farm: error: {exc}"), err=True)
        sys.exit(EXIT_USAGE)
    except FarmError as exc:
        if exc.exit_code == EXIT_USAGE:
            _junit_of_mistake(_hidden(str(exc)))
        click.echo(_hidden(f"farm: error: {exc}"), err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.message = _hidden(exc.message)
        _junit_of_mistake(exc.format_message())
        exc.show()
        sys.exit(EXIT_USAGE)
    except OSError as exc:
        if exc.errno == errno.ENOENT and _cwd_gone():
            click.echo("farm: error: the working directory no longer exists (removed since "
                       "the shell went there, or replaced by a new one): cd into it again",
                       err=True)
            sys.exit(EXIT_USAGE)
        if exc.errno != errno.ENAMETOOLONG or exc.filename is None:
            _internal_error(exc)
        # a path given (a flag, a setting, CASE) with a name over 255 bytes: no bug of farm's
        click.echo(_hidden(f"farm: error: {exc.filename}: a name in this path is longer than "
                           "the file system takes"), err=True)
        sys.exit(EXIT_USAGE)
    except Exception as exc:
        if _locale_cannot(exc):
            sys.exit(EXIT_USAGE)
        _internal_error(exc)


def _locale_cannot(exc: Exception) -> bool:
    """A name or text this process's locale cannot encode (``LC_ALL=C`` with Python's UTF-8
    mode and locale coercion switched off: ASCII file names), said as the setting to change,
    not as farm's bug; True when it was that."""
    if not isinstance(exc, UnicodeEncodeError) or sys.getfilesystemencoding().lower().replace(
            "-", "") == "utf8":
        return False
    bad = exc.object[exc.start:exc.end] if isinstance(exc.object, str) else "?"
    click.echo(f"farm: error: this process's locale encodes text as "
               f"{sys.getfilesystemencoding()}, which cannot hold {bad!r} (in a file name or "
               "text farm reads): run farm with a UTF-8 locale, LANG=C.UTF-8 (or "
               "PYTHONUTF8=1)", err=True)
    return True


# The --junit-xml `_junit_at_start` replaced: its path, what it held (None: no file), and
# what it holds now (farm's "not finished" error).
_START_JUNIT: dict[str, Any] = {}


def _junit_of_args(args: list[str]) -> Path | None:
    """The --junit-xml FILE of a `farm run` command line as given; None for another command,
    --help or --collect-only (which write none)."""
    if not args or args[0] != "run":
        return None
    found = None
    for i, arg in enumerate(args[1:], 1):
        if arg == "--":
            break
        if arg in ("-h", "--help", "--collect-only"):
            return None
        if arg == "--junit-xml" and i + 1 < len(args):
            found = args[i + 1]
        elif arg.startswith("--junit-xml="):
            found = arg.partition("=")[2]
    return Path(found) if found and found.strip() else None


def _junit_at_start(args: list[str]) -> None:
    """`farm run … --junit-xml FILE`: an earlier run's FILE (green, passes) says at once, before
    anything slow (imports, settings, suites), that this run has not finished: a CI cancel
    (SIGTERM) in farm's first moments left it for CI to publish as this run's. The run's own
    placeholder (`unfinished_junit`), its end or its mistake (`_junit_of_mistake`) replace
    it. Only a file in a folder that is there, and never one farm would not write over."""
    path = _junit_of_args(args)
    if path is None or not path.parent.is_dir() or path.is_dir():
        return
    try:
        _junit_replaces_no_other_file(path)
        old = path.read_bytes() if path.exists() else None
        when = _now()
        _START_JUNIT["text"] = _replace_junit(path, "RunNotFinished", (
            f"farm run (started {when}) has not written its results: it was still starting "
            f"(reading its settings and suites), or it was stopped then (killed: a CI "
            f"timeout?)"), when)
    except (UserError, OSError):
        return
    _START_JUNIT.update(path=path, old=old)


def _junit_of_interrupt() -> None:
    """A Ctrl-C (SIGTERM, SIGHUP) while `farm run … --junit-xml FILE` was still starting,
    before its outputs existed: FILE, still `_junit_at_start`'s "not finished", says the run
    was interrupted before any case started (exit 2), not that it may have been killed (its
    error's type stays RunNotFinished: no run began). A FILE the run has written since (its
    own placeholder, its results) is kept."""
    path = _START_JUNIT.get("path")
    if path is None:
        return
    try:
        if path.read_text(encoding="utf-8") != _START_JUNIT.get("text"):
            return
        _START_JUNIT["text"] = _replace_junit(path, "RunNotFinished", (
            "farm run was interrupted (exit 2) while it was starting (reading its settings "
            "and suites, checking its devices), before any case started: no case ran"), _now())
    except (UserError, OSError, UnicodeDecodeError):
        pass


def _junit_of_mistake(message: str) -> None:
    """A usage or settings mistake (exit 4) of `farm run … --junit-xml FILE`: FILE holds one
    ``farm``/``run`` error naming it, in place of the previous run's (green) file, which CI
    published as this run's. When the mistake is FILE itself, it is left as it was (as
    `_junit_at_start` found it); a FILE the run wrote its results into is kept."""
    path = _junit_of_args(sys.argv[1:])
    if path is None:
        return
    started = _START_JUNIT.get("path") == path
    try:
        if "--junit-xml" in message:        # FILE is the mistake: as it was
            if started and path.read_text(encoding="utf-8") == _START_JUNIT["text"]:
                old = _START_JUNIT["old"]
                path.unlink() if old is None else path.write_bytes(old)
            return
        if path.exists():
            now = path.read_text(encoding="utf-8")
            if now != _START_JUNIT.get("text") and 'type="RunNotFinished"' not in now:
                return
        _junit_replaces_no_other_file(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace_junit(path, "UsageError", f"farm run did not start (exit 4): {message}")
    except (UserError, OSError, UnicodeDecodeError):
        pass


def _now() -> str:
    from datetime import datetime
    return datetime.now().astimezone().isoformat(timespec="seconds")


_JUNIT_OF_ONE_ERROR = """<?xml version="1.0" encoding="utf-8"?>
<testsuites name="farm run" tests="1" failures="0" errors="1" time="0.0">
\t<testsuite name="farm" timestamp="{when}" tests="1" errors="1" failures="0" skipped="0" \
time="0.0">
\t\t<testcase name="run" classname="farm" time="0.0">
\t\t\t<error message="{short}" type="{kind}">{kind}: {message}</error>
\t\t</testcase>
\t</testsuite>
</testsuites>
"""


def _replace_junit(path: Path, kind: str, message: str, when: str | None = None) -> str:
    """``path`` replaced whole (a new file renamed over it) by a JUnit document of one
    ``farm``/``run`` error, ``kind``: ``message``, written without farm.report (its imports
    take a fifth of a second); the text written."""
    from xml.sax.saxutils import escape

    from farm.atomic_file import replace_file
    shown = re.sub(r"[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]", "?", message)
    text = _JUNIT_OF_ONE_ERROR.format(when=when or _now(), kind=kind, message=escape(shown),
                                      short=escape(" ".join(shown.split()), {'"': "&quot;"}))
    replace_file(path, text.encode("utf-8"))
    return text


def _cwd_gone() -> bool:
    """The working directory was deleted: every relative path (farm.toml, .farm, the
    suites) fails, and os.getcwd() itself raises "No such file or directory"."""
    try:
        os.getcwd()
    except FileNotFoundError:
        return True
    return False


def _internal_error(exc: Exception) -> None:
    """A bug in farm: say so, keep the traceback out of the way (exit 3)."""
    log_path = _state_dir() / "last-error.log"
    try:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        log_path.write_text(_hidden(traceback.format_exc()))
        where = f" (traceback in {log_path})"
    except OSError:
        where = ""
    click.echo(_hidden(f"farm: internal error: {type(exc).__name__}: {exc}{where}"), err=True)
    sys.exit(EXIT_INTERNAL)


if __name__ == "__main__":
    main()
