"""The run report's per-device timeline (a Gantt chart in plain HTML/CSS): one row per device,
one bar per attempt placed by its start time and duration, coloured by status, a link to its
case (``#case=<case id>``, as the case's own link); earlier attempts are marked as retried,
and a quarantined device's row says so after its last bar.

A bar's place and width are classes (``x123``: left 12.3%, ``w45``: width 4.5%; steps of
0.1%), not ``style=""``: a Content-Security-Policy without 'unsafe-inline' for styles (Jenkins'
HTML Publisher's default) drops every style attribute, and every bar with it; a class's rule
is in the stylesheet (`geometry_rules`)."""

from __future__ import annotations

from html import escape
from urllib.parse import quote

from farm.results import CaseResult, RunSummary, own_duration, timestamp

KEY_SAFE = "/@:=~-_.!*'()+,;"      # kept as written in a case's link (readable in a chat)


def case_key(case_id: str, n: int = 1) -> str:
    """A case's id in the page (``case=demo/login``; ``~2`` for a second case of one id)."""
    return f"case={case_id}" if n == 1 else f"case={case_id}~{n}"


def case_href(key: str) -> str:
    """The link to the case of id ``key`` in the page, as the report's permalink and the
    timeline's bars both write it (``#case=demo/login``), unescaped for HTML."""
    return "#" + quote(key, safe=KEY_SAFE)


def _bars(summary: RunSummary) -> list[tuple[str, float, float, CaseResult, bool]]:
    """(device, start, end, attempt, retried) for every attempt that ran on a device."""
    out = []
    for case in summary.cases:
        attempts = [*case.previous, case]
        last = max(a.attempt for a in attempts)     # (a failure's verdict may have a later
        for attempt in attempts:                    # skipped attempt: `final_result`)
            start = timestamp(attempt.started)
            if attempt.device and start is not None:
                end = start + max(own_duration(attempt), 0.0)
                out.append((attempt.device, start, end, attempt, attempt.attempt < last))
    return out


STEPS = 1000        # the geometry classes' steps across 100% (0.1% each)


def left_class(percent: float, used: set[str] | None = None) -> str:
    """The class placing an element ``percent`` % from its box's left (``x123``)."""
    return _step("x", percent, 0, used)


def width_class(percent: float, used: set[str] | None = None, least: int = 1) -> str:
    """The class giving an element ``percent`` % of its box's width (``w45``), at least
    ``least`` steps (a short attempt's bar stays in sight)."""
    return _step("w", percent, least, used)


def _step(prefix: str, percent: float, least: int, used: set[str] | None) -> str:
    name = f"{prefix}{min(max(round(percent * STEPS / 100), least), STEPS)}"
    if used is not None:
        used.add(name)
    return name


def geometry_rules(used: set[str] | None = None) -> str:
    """The rules of the geometry classes: those in ``used`` (a page's inline copy), all of
    them when None (the stylesheet file beside the pages, any of them may use any)."""
    names = sorted(used) if used is not None else \
        [f"{p}{n}" for p in "xw" for n in range(STEPS + 1)]
    prop = {"x": "left", "w": "width"}
    return "\n".join(f".{n}{{{prop[n[0]]}:{int(n[1:]) * 100 / STEPS:g}%}}" for n in names)


def render_timeline(summary: RunSummary, used: set[str] | None = None) -> str:
    """The timeline section, or "" when nothing ran on a device; the geometry classes it
    uses are added to ``used``."""
    bars = _bars(summary)
    if not bars:
        return ""
    t0 = min(b[1] for b in bars)
    span = max(max(b[2] for b in bars) - t0, 1e-3)
    rows = []
    for device in sorted({b[0] for b in bars}):
        mine = sorted((b for b in bars if b[0] == device), key=lambda b: b[1])
        cells = "".join(_bar(b, t0, span, used) for b in mine)
        if device in summary.quarantined:     # after its last bar, inside the track (past
            left = (mine[-1][2] - t0) / span * 100     # its end, the page scrolled sideways:
            cells += (f'<span class="qz {left_class(left, used)}"><span class="q" '  # report.css
                      f'title="quarantined after repeated infrastructure errors">'
                      f"quarantined</span></span>")
        about = summary.device_info.get(device)      # what the device is, on hover
        title = f' title="{escape(about)}"' if about else ""
        rows.append(f'<div class="lane" data-device="{escape(device)}">'
                    f'<span class="dev"{title}>{escape(device)}</span><div class="track">{cells}'
                    f"</div></div>")
    return (f'<section class="timeline" id="timeline"><h2>Timeline <small>{len(bars)} '
            f'attempt(s) on {len(rows)} device(s) over {span:.1f} s</small></h2>'
            + "".join(rows) + "</section>")


def _bar(bar: tuple[str, float, float, CaseResult, bool], t0: float, span: float,
         used: set[str] | None) -> str:
    device, start, end, attempt, retried = bar
    place = (f"{left_class((start - t0) / span * 100, used)} "
             f"{width_class((end - start) / span * 100, used, least=3)}")
    note = f" (attempt {attempt.attempt}, retried)" if retried else f" (attempt {attempt.attempt})"
    title = f"{attempt.case_id}: {attempt.status}{note}, {own_duration(attempt):.1f} s"
    link = case_href(case_key(attempt.case_id))      # the case's own link
    return (f'<a class="bar st-{escape(attempt.status)} {place}{" retried" if retried else ""}" '
            f'href="{escape(link)}" title="{escape(title)}"></a>')
