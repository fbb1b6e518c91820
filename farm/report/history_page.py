"""``farm report --history``: one HTML page across the runs in the results history.

Jinja2 with autoescape renders ``templates/history.html.j2``; the page is self-contained
(inline CSS, inline SVG charts, no script) and links to each run's own report.
"""

from __future__ import annotations

import os
import time
from importlib import resources
from pathlib import Path

from farm import __version__
from farm.report.html import _format_time, format_duration
from farm.report.trends import Trends, analyse, parse_since
from farm.report.paths import discard
from farm.results_history import CONTEXT_RUNS, ResultsStore, RunRecord


def _environment():
    import jinja2
    return jinja2.Environment(
        loader=jinja2.PackageLoader("farm.report", "templates"),
        autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
        trim_blocks=True, lstrip_blocks=True)


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
    rates = [r.rate for r in trends.rows if r.rate is not None]
    if not rates:
        return {"width": width, "height": height, "points": ""}
    step = width / max(len(rates) - 1, 1)
    points = " ".join(f"{i * step:.1f},{(1 - rate) * (height - 8) + 4:.1f}"
                      for i, rate in enumerate(rates))
    return {"width": width, "height": height, "points": points}


def _linker(runs: list[RunRecord], page_dir: Path):
    """run id → a link to that run's report.html, relative to the page when possible."""
    reports = {r.run_id: r.report for r in runs if r.report}

    def link(run_id: str) -> str:
        report = reports.get(run_id)
        if not report:
            return "#"
        try:
            return Path(os.path.relpath(report, page_dir)).as_posix()
        except ValueError:      # another drive on Windows
            return Path(report).as_uri()
    return link


def render_history(runs: list[RunRecord], page_dir: Path, suite: str | None = None,
                   window: str = "all runs", earlier: list[RunRecord] = ()) -> str:
    """The page for ``runs`` (oldest first); ``earlier`` runs, before the window, only decide
    its verdicts (`analyse`)."""
    trends = analyse(runs, suite, earlier)
    kept = trends.runs
    template = _environment().get_template("history.html.j2")
    from markupsafe import Markup    # our own stylesheet: <style> is raw text, not escaped
    css = Markup(resources.files("farm.report").joinpath("report.css").read_text(encoding="utf-8"))
    return template.render(
        t=trends, suite=suite, window=window, css=css, version=__version__,
        first=_format_time(kept[0].started) if kept else "—",
        last=_format_time(kept[-1].started) if kept else "—",
        tokens=sum(r.tokens for r in kept), cost=sum(r.cost for r in kept),
        chart=_chart(trends), link=_linker(kept, page_dir), when=_format_time,
        dur=format_duration, spark=_spark)


def write_history(store: ResultsStore, out: Path, since: str | None = None,
                  suite: str | None = None) -> Path:
    """Write the history page for runs since ``since`` (e.g. ``7d``; all when None); the
    runs before the window (as many as a run's own report is decided against) are read too,
    so the verdicts agree with each run's report."""
    cutoff = time.time() - parse_since(since) if since else 0.0
    runs = store.runs(cutoff)
    earlier = store.before(cutoff, CONTEXT_RUNS) if cutoff else []
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    window = f"last {since}" if since else "all runs"
    html = render_history(runs, out.parent.resolve(), suite, window, earlier)
    tmp = out.with_name(out.name + ".tmp")
    try:
        tmp.write_text(html, encoding="utf-8")
        tmp.replace(out)
    except BaseException:
        discard(tmp)
        raise
    return out
