"""``farm report --history``: one HTML page across the runs in the results history.

Jinja2 with autoescape renders ``templates/history.html.j2``; the page is self-contained
(inline CSS, inline SVG charts, no script) and links to each run's own report.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.parse
from pathlib import Path

from farm import __version__
from farm.journal import JOURNAL
from farm.report.html import _format_time, format_duration, history_stylesheet
from farm.report.trends import Trends, analyse, parse_since
from farm.report.paths import replace_file
from farm.report.timeline import case_href, case_key
from farm.errors import UserError
from farm.results_history import (FINISHED, WINDOW, ResultsStore, RunRecord, context_before,
                                  suite_of)
from farm.text import printable
from farm.usage import cost_text, tokens_text

RATE_HELP = ("passed + flaky out of the cases that finished (passed, flaky, failed, error); "
             "skipped and interrupted cases left out, as the Grafana dashboard counts")
SUITES_SHOWN = 20        # a --suite matching none names this many of the history's suites
_RUN_ID = re.compile(r'\s*\{\s*"run_id"\s*:\s*("(?:[^"\\]|\\.)*")')


def _environment():
    import jinja2
    return jinja2.Environment(
        loader=jinja2.PackageLoader("farm.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True, lstrip_blocks=True, finalize=_shown)


def _shown(value: object) -> object:
    """Text as a run's report shows it (`farm.text.printable`): a page's ESC, NUL or
    right-to-left override in an error shows as ``\\x1b``, not raw (a box, nothing, or the
    line reordered); our own markup (Markup) as it is."""
    from markupsafe import Markup
    return printable(value) if isinstance(value, str) and not isinstance(value, Markup) \
        else value


def _failed_here(n: int, f) -> str:
    """How many of an unstable case's failures ended at one step, named as the runs column
    (failed · flaky / runs) counts them, where "2 of 2 failures" beside "0 · 2 / 2" read as
    a contradiction: failed runs, ``2 of 3 failures``; a flaky run's failure is its failed
    attempt, ``2 failed attempts in 2 flaky runs``; both kinds, ``3 of 4 failures (1 failed
    run, 3 failed attempts in flaky runs)``."""
    if not f.flaky:
        return f"{n} of {f.fails} failures"
    attempts = "failed attempt" + ("" if n == 1 else "s")
    if not f.fails:
        return f"{n} {attempts} in {_n(f.flaky, 'flaky run')}"
    return (f"{n} of {f.fails + f.flaky} failures ({_n(f.fails, 'failed run')}, "
            f"{f.flaky} failed attempt{'' if f.flaky == 1 else 's'} in flaky runs)")


def _n(count: int, thing: str) -> str:
    return f"{count} {thing}{'' if count == 1 else 's'}"


def _spark(samples: list[float]):
    """A small inline SVG line of durations (oldest left)."""
    from markupsafe import Markup
    if len(samples) < 2:
        return ""
    top = max(samples) or 1.0
    step = 100 / (len(samples) - 1)
    points = " ".join(f"{i * step:.1f},{20 - s / top * 18:.1f}" for i, s in enumerate(samples))
    return Markup('<svg viewBox="0 0 100 20" width="100" height="20" aria-hidden="true">'
                  f'<polyline fill="none" stroke="#0969da" stroke-width="1.5" '
                  f'points="{points}"/></svg>')


def _chart(trends: Trends, width: int = 1000, height: int = 120) -> dict:
    """The pass-rate line through the whole runs that have a rate; a partial run
    (`farm.report.trends.mark_partial`: --last-failed, --shard, an unusual -k / --tag, no
    device for a platform the usual run has) is a hollow square off the line, at its place
    in time and its own rate: a 3-case rerun neither lifts nor drops the nights' line. An interrupted run's point is circled (its rate is over
    the cases it finished); one interrupted before any case finished has no rate: a circle on
    a dashed line at its place (``cut_short``), not left off the chart."""
    placed = [r for r in trends.rows if r.rate is not None or r.run.interrupted]
    if not placed:
        return {"width": width, "height": height, "points": "", "dots": [],
                "interrupted": [], "partial": [], "cut_short": []}
    step = (width - 12) / max(len(placed) - 1, 1)      # 6 each side: a square is whole
    xs = [6 + i * step for i in range(len(placed))]
    rated = [(x, (1 - r.rate) * (height - 8) + 4, r) for x, r in zip(xs, placed)
             if r.rate is not None]
    return {"width": width, "height": height,
            "points": " ".join(f"{x:.1f},{y:.1f}" for x, y, r in rated if not r.partial),
            "dots": [(f"{x:.1f}", f"{y:.1f}", r) for x, y, r in rated if not r.partial],
            "interrupted": [(f"{x:.1f}", f"{y:.1f}", r.run.run_id) for x, y, r in rated
                            if r.run.interrupted],
            "partial": [(f"{x - 4:.1f}", f"{y - 4:.1f}", r) for x, y, r in rated if r.partial],
            "cut_short": [(f"{x:.1f}", r.run.run_id) for x, r in zip(xs, placed)
                          if r.rate is None]}


def _linker(runs: list[RunRecord], page_dir: Path):
    """run id → a link to that run's report.html, relative to the page when possible; ""
    (no link) when the report is gone or its directory now holds another run (a later
    ``farm run --report-dir DIR --overwrite``): no link rather than one to another run."""
    reports = {r.run_id: r.report for r in runs if r.report}
    links: dict[str, str] = {}      # a run is linked from several tables: its files read once

    def link(run_id: str) -> str:
        if run_id not in links:
            links[run_id] = _link(reports.get(run_id), run_id, page_dir)
        return links[run_id]
    return link


def _link(report: str | None, run_id: str, page_dir: Path) -> str:
    if not report or not Path(report).is_file() or \
            _run_in(Path(report).parent) not in (run_id, None):
        return ""
    try:    # a folder named "r#1" or "50%" is a path, not a fragment or an escape
        return urllib.parse.quote(Path(os.path.relpath(report, page_dir)).as_posix(), safe="/")
    except ValueError:      # another drive on Windows
        return Path(report).as_uri()


def _run_in(folder: Path) -> str | None:
    """The id of the run whose results ``folder`` holds now: its results.json's (the first
    key, so only the head is read), else its journal's (a run still going, or killed);
    None when neither is there or readable."""
    try:
        with (folder / "results.json").open(encoding="utf-8") as f:
            head = _RUN_ID.match(f.read(4096))
            if head is not None:
                return json.loads(head.group(1))
            f.seek(0)                   # not laid out as farm writes it: read it all
            return str(json.load(f).get("run_id"))
    except (OSError, ValueError, AttributeError):
        pass
    try:
        with (folder / JOURNAL).open(encoding="utf-8") as f:
            return str(json.loads(f.readline()).get("run_id"))
    except (OSError, ValueError, AttributeError):
        return None


def render_history(runs: list[RunRecord], page_dir: Path, suite: str | None = None,
                   window: str = "all runs", earlier: list[RunRecord] = (),
                   css_file: str | None = None) -> str:
    """The page for ``runs`` (oldest first); ``earlier`` runs, before the window, only decide
    its verdicts (`analyse`). ``css_file``: its stylesheet's file beside it, linked."""
    trends = analyse(runs, suite, earlier)
    kept = trends.runs
    template = _environment().get_template("history.html.j2")
    from markupsafe import Markup    # our own stylesheet: <style> is raw text, not escaped
    css = Markup(history_stylesheet())
    return template.render(
        t=trends, suite=suite, window=window, css=css, version=__version__,
        css_file=urllib.parse.quote(css_file) if css_file else None,
        first=_format_time(kept[0].started) if kept else "—",
        last=_format_time(kept[-1].started) if kept else "—",
        tokens=tokens_text(sum(r.tokens for r in kept), any(r.tokens_unknown for r in kept)),
        cost=cost_text(sum(r.cost for r in kept), any(r.cost_unknown for r in kept)),
        tokens_text=tokens_text, cost_text=cost_text,
        chart=_chart(trends), when=_format_time,
        link=_linker(kept + [s for r in kept for s in r.shards], page_dir),   # (each shard's)
        carried_from=_carried_from(trends), complete=_last_complete(trends),
        dur=format_duration, spark=_spark, rate_help=RATE_HELP, window_runs=WINDOW,
        failed_here=_failed_here,
        case_href=lambda case_id: case_href(case_key(case_id)))    # (its row in the report)


def _last_complete(trends: Trends):
    """The newest point of the pass-rate line whose run was not interrupted (None: none
    is): when the line ends on a run stopped after 47 of its 300 cases, the headline gives
    that rate as it is, marked interrupted, and this one's beside it (a QA lead's night)."""
    return next((r for r in reversed(trends.rows)
                 if r.rate is not None and not r.partial and not r.run.interrupted), None)


def _carried_from(trends: Trends) -> list:
    """The runs (rows, newest first) an interrupted newest run's unfinished cases keep their
    state from (`farm.report.trends._carried`): one per case, so a ``-k`` run between the
    night and the stopped run is one of them for its cases alone."""
    runs = {c.carried for c in trends.latest if c.carried}
    return [row for row in reversed(trends.rows) if row.run.run_id in runs]


def write_history(store: ResultsStore, out: Path, since: str | None = None,
                  suite: str | None = None) -> Path:
    """Write the history page for runs since ``since`` (e.g. ``7d``; all when None); the
    runs before the window (as many as a run's own report is decided against) are read too,
    so the verdicts agree with each run's report."""
    cutoff = time.time() - parse_since(since) if since else 0.0
    runs = store.runs(cutoff)
    if not runs and not (cutoff and store.recent(1)):
        raise UserError(_no_history(store, Path(out)))
    window = f"last {since}" if since else "all runs"
    _check_suite(suite, runs, window)
    earlier = context_before(store, cutoff, _first_verdicts(runs)) if cutoff and runs else []
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    css = out.with_name(out.name + ".css")     # (history.html.css: a policy blocking inline
    replace_file(css, history_stylesheet().encode("utf-8"))     # styles loads it instead)
    html = render_history(runs, out.parent.resolve(), suite, window, earlier, css.name)
    return replace_file(out, html.encode("utf-8"))


def _no_history(store: ResultsStore, out: Path) -> str:
    """Why no page is written: the results history looked in holds no run at all (none
    recorded there yet, or the wrong place looked in); where it was and how one is made. An
    empty page over a real one (--out) read as "nothing ran": a mistake said as one (exit 4)."""
    path = getattr(store, "path", None)
    where = f"{path}" if path is not None else \
        f"the results history in Redis ({getattr(store, 'index', 'farm:results:*')})"
    kept = f"; {out} left as it was" if out.exists() else ""
    killed: list[Path] = []
    runs_dir = getattr(store, "rebuild_from", None)     # (the state dir's own history)
    if runs_dir is not None:
        from farm.run_outputs import unrebuilt_runs
        killed = unrebuilt_runs(runs_dir, store)
    adds = (f"; {len(killed)} run(s) there ended without writing results (killed?): "
            + ", ".join(f"`farm report {d}`" for d in killed[:5])
            + (", …" if len(killed) > 5 else "") + " adds each" if killed else "")
    return (f"{where}: no run recorded in this results history: `farm run` records each run "
            "there (`farm report RUN_DIR` adds a run's results.json); run farm from the "
            "folder holding .farm (or set FARM_STATE_DIR), or name the history with "
            f"--results PATH|URL{adds}. Nothing written{kept}")


def _first_verdicts(runs: list[RunRecord]) -> dict[str, str]:
    """Each case's first finished status in the window (case id → status): the one the runs
    before the window decide new failure / still failing / flaky / fixed for."""
    first: dict[str, str] = {}
    for run in runs:
        for case in run.cases:
            if case.status in FINISHED:
                first.setdefault(case.case_id, case.status)
    return first


def _check_suite(suite: str | None, runs: list[RunRecord], window: str) -> None:
    """A ``--suite`` no run of the window has a case of (a typo) would give an empty page
    that looks like a quiet week: a UserError naming the suites there instead."""
    held = sorted({suite_of(c.case_id) for r in runs for c in r.cases})
    if suite is None or not held or suite in held:
        return
    import difflib
    near = difflib.get_close_matches(suite, held, n=1)
    hint = f"did you mean {near[0]!r}? " if near else ""
    shown = ", ".join(held[:SUITES_SHOWN]) + (", …" if len(held) > SUITES_SHOWN else "")
    raise UserError(f"--suite {suite}: no case of that suite in the results history "
                    f"({window}); {hint}its suites: {shown}")
