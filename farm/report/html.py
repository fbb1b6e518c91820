"""One self-contained HTML report per run: ``<run_dir>/report.html``.

CSS and JS are inlined (``report.css`` / ``report.js`` package data); the only external
resources are the screenshot JPEGs under ``artifacts/``, referenced by relative path, so a
500-case run stays a few MB and the run directory can be moved or served as a whole. The
stylesheet is written beside the report too (``<run_dir>/report.css``) and linked: a server
whose Content-Security-Policy blocks inline styles (Jenkins' HTML Publisher: ``style-src
'self'``) loads that file instead; nothing in the page is styled by a ``style=""`` attribute
such a policy drops (bars are placed by classes: `farm.report.timeline.left_class`). Every
string from a run (names, labels, errors, paths) goes through ``html.escape``.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import urllib.parse
from collections import Counter
from datetime import datetime
from html import escape
from importlib import resources
from itertools import groupby
from pathlib import Path

from farm.budget import stopped_line
from farm.report.paths import replace_file
from farm.report.timeline import (case_href, case_key, geometry_rules, render_timeline,
                                  width_class)
from farm.results import (STATUS_ORDER, CaseResult, RunSummary, StepRecord, cache_savings,
                          case_usage, failing_step, never_ran, not_run_by_interrupt,
                          own_duration, refused_before_start, run_usage, since_last_words)
from farm.results_history import WINDOW, pass_rate
from farm.run_log import one_line, skips_failed_text, verdict_line
from farm.suite.kinds import KINDS
from farm.text import printable
from farm.usage import Usage, tokens_text

_STATUS_HELP = {
    "passed": "passed",
    "failed": "test failure: the app under test misbehaved",
    # a case's own timeout is an error too (exit 3), counted as a fail on the history page
    "error": "error: the case could not finish: it timed out, or its device, the model or "
             "farm broke (not a failed check of the app)",
    "skipped": "skipped",
    "flaky": "flaky (passed on retry): failed an earlier attempt in this run, then passed",
    # Ctrl-C, a CI job's cancel or timeout (SIGTERM), a kill -9 or the OOM killer: not always
    # a person's doing, and never the app's
    "interrupted": "interrupted: farm was stopped (Ctrl-C, a signal, killed) before the case "
                   "ended",
}
_OPEN_BY_DEFAULT = {"failed", "error", "interrupted"}
# A case's verdict against earlier runs (results.json's since_last): its key (#since=…) and
# help; its words are `since_last_words`, as the terminal and junit.xml say them ("unstable",
# an older farm's "flaky" of a red case: "unstable across runs", not a pass on a retry)
_SINCE = {"new failure": ("new-failure",
                          "red now, passed (or never ran) in the runs before: new since then"),
          "still failing": ("still-failing", "red in the run before too"),
          "unstable": ("unstable", f"passed and failed in its last {WINDOW} runs: its "
                       "verdict goes back and forth (red after a pass the run before; a pass "
                       "after red, having been red or flaky before its last pass too: not "
                       "fixed; not flaky: it did not pass on a retry)"),
          "fixed": ("fixed", f"passed now after failing, and neither red nor flaky before "
                    f"that in its last {WINDOW} runs (a regression mended)"),
          "flaky before": ("flaky-before", "flaky (passed on a retry) in an earlier run too, "
                           "not only in this one")}
# the header's verdict counts, each a link to its cases (#since=…): what broke, what got
# fixed, what was flaky before too
_SINCE["flaky"] = _SINCE["unstable"]     # (an older results.json's word, set in memory)
_SINCE_COUNTS = [("new-failure", "new failure", "new failures"), ("fixed", "fixed", "fixed"),
                 ("flaky-before", "flaky before", "flaky before")]
_SINCE_ORDER = ["new-failure", "unstable", "still-failing"]   # failures: new ones first
_HEADER_ORDER = ["passed", "failed", "error", "flaky", "skipped", "interrupted"]
_TITLE_ORDER = ["failed", "error", "interrupted", "flaky", "passed", "skipped"]   # worst first
ERROR_SHOWN = 10_000     # characters of an error shown (a page's may be megabytes)
FAILURES_SHOWN = 20      # cases the Failures list at the top names (then "and N more")
# a marked copy's link to its image (as farm.report.marks writes it; an older run's embeds it)
_LINK = re.compile(rb'<image href="(?!data:)([^"]*)"')

_CSP = ("default-src 'none'; img-src 'self' file: data:; style-src 'unsafe-inline' 'self' file:; "
        "script-src 'unsafe-inline'")
STYLESHEET = "report.css"     # written beside report.html (`write_html`), linked by it


def _e(value: object) -> str:
    return escape(printable(str(value)), quote=True)


def _t(value: object) -> str:
    """``value`` for a text node (not an attribute): quotes stay quotes. A step's label is
    mostly quotes (aiTap "Sign in"): each one written &quot; made a 500-case run's rows 60 kB
    bigger, and ``<`` is still escaped, so a closed case's raw text never ends its noscript."""
    return escape(printable(str(value)), quote=False)


def _asset(name: str) -> str:
    return resources.files("farm.report").joinpath(name).read_text(encoding="utf-8")


def stylesheet(used: set[str] | None = None) -> str:
    """The report's CSS: report.css and the geometry classes' rules (those in ``used``, the
    page's own; all of them for the file beside the pages, which every page links)."""
    return _asset("report.css") + "\n" + geometry_rules(used) + "\n"


def history_stylesheet() -> str:
    """The CSS of ``farm report --history``'s page: report.css, then history.css."""
    return _asset("report.css") + "\n" + _asset("history.css")


def format_duration(seconds: float) -> str:
    """Human duration: ``850 ms``, ``12.3 s``, ``4 m 05 s``, ``1 h 02 m``."""
    if seconds < 1:
        return f"{round(seconds * 1000)} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} m {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} m"


def _format_time(iso: str) -> str:
    try:
        moment = datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return iso or "—"
    zone = moment.strftime("%Z") or moment.strftime("%z")
    return moment.strftime("%Y-%m-%d %H:%M:%S") + (f" {zone}" if zone else "")


def _sort_key(case: CaseResult) -> tuple[int, int, int, str, str]:
    """Status order (failures first), new failures first among the failed and errored
    cases (then unstable, still failing, the rest), then by name."""
    rank = STATUS_ORDER.index(case.status) if case.status in STATUS_ORDER else 0
    if case.status not in ("failed", "error"):
        return rank, 0, 0, case.name.lower(), case.case_id
    said = _since(case)
    since = _SINCE_ORDER.index(said[1]) if said else len(_SINCE_ORDER)
    return STATUS_ORDER.index("failed"), since, rank, case.name.lower(), case.case_id


def _since(case: CaseResult) -> tuple[str, str, str] | None:
    """(words, key, help) of a case's verdict against earlier runs; None: it has none."""
    words = since_last_words(case.since_last)
    if not case.since_last or not words:
        return None
    key, said = _SINCE.get(case.since_last, (words.replace(" ", "-"), "against earlier runs"))
    return words, key, said


class _Renderer:
    """Turns one RunSummary into HTML; knows which artifact files really exist."""

    def __init__(self, summary: RunSummary, run_dir: Path | None,
                 history_page: Path | None = None) -> None:
        self.summary = summary
        self.run_dir = run_dir
        self.history_page = history_page          # the run's state dir's history.html
        self.counts: Counter[str] = Counter(c.status for c in summary.cases)
        self._files: dict[str, set[str]] = {}     # a folder's files, listed once
        self._keys: set[str] = set()              # the cases' ids in the page
        self._said: dict[str, int] = {}           # why a step has no image → the case's first
        self.used: set[str] = set()               # the geometry classes the page uses
        self.under: dict[str, str] = {}           # a marked copy's src → the JPEG under it
        self.keys: dict[int, str] = {}            # id() of a case → its id in the page

    def _exists(self, rel: str) -> bool:
        """Whether the run dir's ``rel`` is a file: its folder is listed once for all its
        artifacts (a report links hundreds of images: one listing a folder, not one stat an
        image; and string keys, not Path objects, for each of them)."""
        assert self.run_dir is not None
        folder, _, name = rel.rpartition("/")
        if folder not in self._files:
            try:
                with os.scandir(self.run_dir / folder) as entries:
                    self._files[folder] = {e.name for e in entries if e.is_file()}
            except OSError:
                self._files[folder] = set()
        return name in self._files[folder]

    # -- pieces -------------------------------------------------------------------------
    def badge(self, status: str, text: str | None = None) -> str:
        help_text = _STATUS_HELP.get(status, status)
        title = f' title="{_e(help_text)}"' if help_text != (text or status) else ""
        return (f'<span class="badge st-{_e(status)}"{title}>'
                f"{_e(text or status)}</span>")

    def src(self, rel: str | None) -> str | None:
        """URL for an artifact path, or None when the file is missing (avoids broken images)."""
        if not rel:
            return None
        if os.path.isabs(rel):
            path = Path(rel)
            return path.as_uri() if path.is_file() else None
        rel = rel.replace(os.sep, "/")
        if self.run_dir is not None and not self._exists(rel):
            return None
        return urllib.parse.quote(rel, safe="/")

    def thumb(self, rel: str | None, alt: str, cls: str = "") -> str:
        """A lazy ``<img>`` (the JS lightbox opens it full size); a note if the file is gone."""
        if not rel:
            return ""
        url = self.src(rel)
        if url is None:
            return f'<span class="missing" title="{_e(rel)}">{_e(alt)} missing</span>'
        return _img(url, alt, cls)

    def no_image(self, st: StepRecord) -> str:
        """Where a step's after image would be: why it has none (``no image: not written: No
        space left on device``), once a case (its later steps: ``as step 2``); "" when the
        --screenshots policy said why for the run (`_by_policy`), or a results.json from an
        older farm does not say."""
        why = st.no_image or ("not run" if st.status == "skipped" else None)
        if why is None or why.startswith(_POLICY):
            return ""
        if why != "not run" and (first := self._said.setdefault(why, st.index)) != st.index:
            return f'<span class="noimg">no image: as at step {first}</span>'
        shown = cut_long(one_line(why), NO_IMAGE_SHOWN)
        return f'<span class="noimg">no image: {_e(shown)}</span>'

    def marked(self, st: StepRecord) -> str:
        """The before screenshot with where the step acted drawn: its marked copy, an SVG that
        links to the JPEG (which a browser does not load for an ``<img>``), shown over that
        JPEG as the image's background (the same box, crop and lightbox by construction); an
        older run's copy has the JPEG embedded and simply covers it. "" when it has none."""
        marked = self.src(st.marked)
        if marked is None:
            return ""
        under = self.src(st.before) or self.src(self._linked(st.marked))
        style = f' style="background-image:url(&quot;{_e(under)}&quot;)"' if under else ""
        if under:       # and report.css's rule, for a policy that drops style="" (`_under`)
            self.under[marked] = under
        return (f'<img class="marked" loading="lazy" src="{_e(marked)}" '
                f'alt="where it acted"{style}>')

    def _linked(self, marked: str | None) -> str | None:
        """The image a marked copy links to, relative to the run dir, read from the SVG: for
        a step whose before image is not the one it was made from (a run killed while a
        capture that found the screen unchanged stood in for it)."""
        if not marked or self.run_dir is None or os.path.isabs(marked):
            return None
        try:
            link = _LINK.search((self.run_dir / marked).read_bytes())
        except OSError:
            return None
        href = urllib.parse.unquote(link.group(1).decode("utf-8", "replace")) if link else None
        if not href or "/" in href or href in (".", ".."):    # (farm links a sibling only)
            return None
        return posixpath.join(posixpath.dirname(marked), href)

    # -- page ---------------------------------------------------------------------------
    def page(self) -> str:
        s = self.summary
        cases = "\n".join(self.case(c) for c in sorted(s.cases, key=_sort_key))
        header, timeline = self.header(), render_timeline(s, self.used)
        # a bar is a second link to a case: out of the tab order (hundreds of Tabs before
        # the filters); the case list and the Failures list are the keyboard's way in
        timeline = timeline.replace('"></a>', '" tabindex="-1"></a>')
        failures = self.failures()
        skip = (f'<a class="skip" href="#failures">Skip to the failures</a>' if failures
                else "") + '<a class="skip" href="#cases">Skip to the cases</a>'
        return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{_CSP}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>{_e(self.title())}</title>
<link rel="stylesheet" href="{STYLESHEET}">
<style>
{stylesheet(self.used)}</style>
</head>
<body>
{skip}
{header}
{failures}
{timeline}
{self.toolbar()}
<main id="cases" tabindex="-1">
{cases}
{self.empty()}
</main>
{self.deselected()}
<footer class="foot">
<a href="results.json">results.json</a> · <a href="junit.xml">junit.xml</a>
<span>generated by farm {_e(s.farm_version or "")}</span>
</footer>
<div id="lightbox" class="lightbox" hidden>
<figure><img alt=""><figcaption><span></span>
<a target="_blank" rel="noopener">open original</a></figcaption></figure>
</div>
<script>
{_asset("report.js")}
</script>
</body>
</html>
"""

    def failures(self) -> str:
        """The top of the page's "Failures": each case that failed, errored or was
        interrupted, worst and newest first as the case list orders them, a line each: its
        name (a link to its row), the step it failed at and the one-line reason; the first
        FAILURES_SHOWN, then how many more and links to all of them by status. "" when every
        case passed (or was skipped / flaky)."""
        bad = sorted((c for c in self.summary.cases if c.status in _OPEN_BY_DEFAULT),
                     key=_sort_key)
        if not bad:
            return ""
        rows = []
        for c in bad[:FAILURES_SHOWN]:
            at = failing_step(c)
            step = f"step {at.index} · {_t(at.task)}: {_t(_short(at.label, 120))}" if at else "—"
            href = case_href(self.keys.get(id(c), case_key(c.case_id)))
            since = _since(c)
            rows.append(f'<tr><td>{self.badge(c.status)} <a href="{_e(href)}">{_e(c.name)}</a>'
                        f"<td>{_since_chip(since) if since else ''}<td>{step}"
                        f"<td>{_t(_why(c, at))}")
        more = ""
        if len(bad) > FAILURES_SHOWN:
            by = Counter(c.status for c in bad)
            links = ", ".join(f'<a href="#status={st}">all {by[st]} {st}</a>'
                              for st in _TITLE_ORDER if by[st])
            more = (f'<p class="more">and {len(bad) - FAILURES_SHOWN} more: {links}</p>')
        return (f'<section class="failures" id="failures" tabindex="-1"><h2>Failures '
                f"<small>{len(bad)}</small></h2><table class=\"list\"><thead><tr><th>Case"
                f"<th>Verdict<th>Failed at<th>Why</thead><tbody>{''.join(rows)}</tbody>"
                f"</table>{more}"
                "</section>")

    def title(self) -> str:
        """The tab's (and a bookmark's, a chat link preview's) words: the verdict first, as
        ``10 failed, 4 error, 386 passed of 400 · farm report r400``; a nightly's tabs side by
        side, or the browser's history, told "farm report r400" alone."""
        counts, total = self.counts, len(self.summary.cases)
        said = [f"{counts[st]} {st}" for st in _TITLE_ORDER if counts[st]]
        head = ("interrupted: " if self.summary.interrupted else "") + (
            ", ".join(said) + f" of {total}" if said else "no case ran")
        return f"{head} · farm report {self.summary.run_id}"

    def empty(self) -> str:
        """What the case list says when it shows none: no case matches the filter, or (a run
        in which no case ran: all deselected) that none ran, not a filter's doing."""
        if self.summary.cases:
            return '<p id="empty" class="empty" hidden>No cases match the filter.</p>'
        left = len(self.summary.deselected)
        return ('<p id="empty" class="empty">No case ran'
                + (f": {left} deselected (listed below)" if left else "") + ".</p>")

    def header(self) -> str:
        s, counts = self.summary, self.counts
        total = len(s.cases)
        bar = "".join(
            f'<span class="seg st-{st} {width_class(counts[st] * 100 / total, self.used)}">'
            "</span>"
            for st in _HEADER_ORDER if total and counts[st])
        badges = "".join(    # a count links to its cases, as the status filter shows them
            f'<li class="count st-{st}{"" if counts[st] else " zero"}" '
            f'title="{_e(_STATUS_HELP[st])}">'
            + (f'<a href="#status={st}"><b>{counts[st]}</b> {st}</a>' if counts[st] else
               f"<b>0</b> {st}") + "</li>"
            for st in _HEADER_ORDER if counts[st] or st in ("passed", "failed", "error"))
        meta = [("Started", _format_time(s.started)), ("Duration", format_duration(s.duration)),
                ("Cases", str(total)), ("Devices", _devices_text(s)),
                ("farm", s.farm_version or "—")]
        meta += _model_totals(s)
        saved = cache_savings(s)
        if saved:           # what the plan cache saved the run (as its last console line says)
            meta.append(("Cache", saved))
        if s.cache and s.cache.get("renewed"):      # (a night's cost jump: why)
            meta.append(("Cache store", s.cache["renewed"]))
        if s.shard:     # (one CI job's part: the other shards' cases are in their reports)
            meta.append(("Shard", f"{s.shard} (the other shards ran in other jobs)"))
        if s.shards:    # (`farm report --merge`: the whole nightly's, but what is missing)
            meta.append(("Merged", _merged_text(s)))
        if s.deselected:
            meta.append(("Deselected", f"{len(s.deselected)} (listed below, not counted)"))
        meta += _by_policy(s)
        dl = "".join(f"<div><dt>{_e(k)}</dt><dd>{_e(v)}</dd></div>" for k, v in meta)
        not_run, refused = not_run_by_interrupt(s), refused_before_start(s)
        banner = (f'<p class="banner" id="refused">The run stopped before any case started: '
                  f'{_e(refused)}</p>' if refused else "")
        banner += ('<p class="banner">Run interrupted — results are partial'
                  + (f": {not_run} case(s) not run (counted as skipped)" if not_run else "")
                  + ".</p>" if s.interrupted or counts["interrupted"] else "")
        for shard in s.missing_shards:
            banner += (f'<p class="banner missing-shard">Shard {_e(shard)} missing: its cases '
                       'are not in this report.</p>')
        if failed_by_skips := skips_failed_text(s):
            banner += f'<p class="banner" id="fail-on-skip">{_e(failed_by_skips)}.</p>'
        if s.stopped:
            stopped = stopped_line(s)
            banner += f'<p class="banner">{_e(stopped[0].upper() + stopped[1:])}.</p>'
        if s.quarantined:
            banner += ('<p class="banner">Quarantined during the run (repeated infrastructure '
                       'errors): ' + _e(", ".join(s.quarantined)) + '</p>')
        for device, why in s.lost.items():
            banner += f'<p class="banner">Lost during the run: {_e(device)} ({_e(why)})</p>'
        return f"""<header class="top">
<div class="title"><h1>farm report</h1><code class="run-id">{_e(s.run_id)}</code></div>
{banner}<dl class="meta">{dl}</dl>
<div class="summary">
{self.rate(refused)}
<div class="grow"><div class="bar">{bar}</div>\
<ul class="counts">{badges}{self.new_count()}</ul>{self.history_link()}</div>
</div>
</header>"""

    def rate(self, refused: str | None) -> str:
        """The pass rate: passed + flaky of the cases that finished; none of a run stopped
        before any case started (``refused``: its cases are errors "not run", none finished).
        Cases no device was left to run count as errors, as the history page, Grafana and
        the alert rules count them (a run that lost most of its devices is not green), and
        are said apart: ``2 passed of 7 (5 not run: no device left, counted as errors)``."""
        unrun = 0 if refused else sum(map(never_ran, self.summary.cases))
        passed, finished, rate = pass_rate(self.counts)
        rate_text = f"{rate * 100:.1f}%" if rate is not None and not refused else "—"
        of = ("nothing finished: the run stopped before any case started" if refused
              else f"{passed} passed of {finished} ({unrun} not run: no device left, counted "
                   "as errors)" if unrun
              else f"{passed} passed of {finished} finished")
        if self.counts["flaky"] and not refused:    # (the "162 passed" chip beside: flaky not)
            of += f" ({self.counts['flaky']} flaky: passed after a retry)"
        return f"""<div class="rate" title="passed + flaky, out of the cases that finished: \
passed, flaky, failed, error (skipped and interrupted left out; a case no device was left to \
run is an error)">
<strong id="pass-rate">{rate_text}</strong><span>pass rate</span>\
<small id="pass-rate-of">{of}</small></div>"""

    def new_count(self) -> str:
        """"1 new failure", linking to the list of them (``#since=new-failure``): what broke
        since the runs before, at a glance; then "2 fixed" and "1 flaky before" where there
        are some, linked the same way. Said when the run's cases were compared with earlier
        runs (0 new failures too: nothing new among them); not when they were not (no
        history)."""
        said = Counter(x[1] for c in self.summary.cases if (x := _since(c)))
        if not said:
            return ""
        out = []
        for key, one, many in _SINCE_COUNTS:
            n = said[key]
            if not n and key != "new-failure":
                continue
            text = f"<b>{n}</b> {one if n == 1 else many}"
            if n:
                text = f'<a href="#since={key}">{text}</a>'
            help_text = next(v[1] for v in _SINCE.values() if v[0] == key)
            ident = "new-count" if key == "new-failure" else f"{key}-count"
            out.append(f'<li class="count v-{key}{"" if n else " zero"}" id="{ident}" '
                       f'title="{_e(help_text)}">{text}</li>')
        return "".join(out)

    def history_link(self) -> str:
        """A link to the results history's page (``farm report --history``) when it exists
        as the report is written: the run's state dir's (``history_page``; a run written with
        ``--report-dir`` anywhere links it too), else the one beside the run's folder
        (``.farm/history.html`` for ``.farm/runs/<run>/``). Relative to the report's folder;
        an absolute file URL where no relative path leads there (another drive)."""
        if self.run_dir is None:
            return ""
        beside = self.run_dir.parent.parent / "history.html" \
            if self.run_dir.parent.name == "runs" else None
        page = next((p for p in (self.history_page, beside) if p and p.is_file()), None)
        if page is None:
            return ""
        return ('<p class="history-link"><a href="'
                f'{_e(_href_to(page, self.run_dir))}">Results across runs (history.html, as '
                '<code>farm report --history</code> last wrote it)</a></p>')

    def toolbar(self) -> str:
        total = len(self.summary.cases)
        buttons = [f'<button type="button" class="filter active" data-filter="all" '
                   f'aria-pressed="true">All <span>{total}</span></button>']
        buttons += [f'<button type="button" class="filter st-{st}" data-filter="{st}" '
                    f'aria-pressed="false">{st} <span>{self.counts[st]}</span></button>'
                    for st in STATUS_ORDER if self.counts[st]]
        return f"""<nav class="toolbar">
<div class="filters" role="group" aria-label="Filter by status">{"".join(buttons)}</div>
{self.pickers()}<input id="search" type="search" placeholder="Search cases…  ( / )"
 aria-label="Search cases" autocomplete="off">
<span id="shown" class="shown">{total} of {total} cases</span>
<button type="button" class="link" data-expand="open">expand all</button>
<button type="button" class="link" data-expand="close">collapse all</button>
<noscript><style>.toolbar > :not(noscript) {{ display: none; }}</style>
<span class="shown">JavaScript is off: no filter or search. Cases that did not pass come first,
open.</span></noscript>
</nav>"""

    def pickers(self) -> str:
        """A menu a facet (platform, device, tag, verdict against earlier runs) when picking
        one of its values leaves some cases out: a platform or device with more than one value
        among the cases; a tag or verdict some case does not have (one tag on a few cases of
        many still narrows; one on every case would pick them all). "Which of last night's
        failures were on pixel-2 / tagged checkout / new?" (a search for "pixel-2" also found
        every case whose error named that device)."""
        cases = self.summary.cases
        verdicts = [_since(c) for c in cases]
        facets = [("platform", "platforms", Counter(c.platform for c in cases), {}),
                  ("device", "devices", Counter(c.device for c in cases if c.device), {}),
                  ("tag", "tags", Counter(t for c in cases for t in dict.fromkeys(c.tags)), {}),
                  ("since", "verdicts",
                   Counter(v[1] for v in verdicts if v), {v[1]: v[0] for v in verdicts if v})]
        menus = []
        for name, plural, counts, words in facets:
            narrows = len(counts) > 1 or (name in ("tag", "since") and counts
                                          and max(counts.values()) < len(cases))
            if not narrows:
                continue
            options = "".join(f'<option value="{_e(v)}">{_e(words.get(v, v))} ({n})</option>'
                              for v, n in sorted(counts.items()))
            menus.append(f'<select class="pick" data-pick="{name}" aria-label="Filter by '
                         f'{"verdict" if name == "since" else name}"><option value="">all '
                         f'{plural}</option>{options}</select>')
        return "".join(menus)

    def source(self, file: str) -> str | None:
        """A relative link from report.html to a case's YAML file (as Playwright's report
        links a test's source), when the file is there: relative to the directory the run
        was made in (results.json's ``cwd``; an older one's: the working directory) or
        absolute; None when it is not (a results.json from another machine: the place stays
        plain text, never a link to another file of that name)."""
        if self.run_dir is None or not file:
            return None
        try:    # (the working directory deleted under the run: no link, the report written)
            # relative to the directory `farm run` ran in (results.json's cwd), wherever this
            # report is rebuilt; an older results.json's: the working directory's
            base = Path(self.summary.cwd) if self.summary.cwd else Path.cwd()
            path = Path(file) if os.path.isabs(file) else base / file
            if not path.is_file():
                return None
            return _relative_href(path, self.run_dir)      # (another drive: None, no link)
        except OSError:
            return None

    def where(self, file: str, line: int | None) -> str:
        """``file:line``, a link to the file where it is reachable (`source`)."""
        text = _e(file + (f":{line}" if line else ""))
        url = self.source(file)
        return text if url is None else \
            f'<a class="src" href="{_e(url)}" target="_blank" rel="noopener">{text}</a>'

    def case(self, c: CaseResult) -> str:
        where = self.where(c.file, verdict_line(c))
        is_open = c.status in _OPEN_BY_DEFAULT
        # the device's chip says what the device is on hover
        device = f' title="{_e(c.device_info)}"' if c.device_info else ""
        chip_html = (f"<span>{_e(c.platform)}</span>"
                     f"<span{device}>{_e(c.device or 'no device')}</span>")
        chips = [f"attempt {c.attempt}", format_duration(c.duration)   # (every attempt's)
                 + (f" ({len(c.previous) + 1} attempts)" if c.previous else "")]
        if never_ran(c):    # no attempt, no time: "attempt 1 0 ms" read as if it had run
            chips = [_unrun_chip(c)]
        spent = case_usage(c)      # every attempt's: each was paid for, as the header counts
        if spent.spent:
            chips += [spent.tokens_text(), spent.cost_text()
                      + (f" ({len(c.previous) + 1} attempts)" if c.previous else "")]
        elif sum(c.tokens.values()):     # a results.json with tokens but no usage (hand-made)
            chips.append(tokens_text(sum(c.tokens.values()), False))
        if _continued_after_failure(c.steps):     # continueOnError: see Note / Reason
            chips.append("continued after a failed step")
        chip_html += "".join(f"<span>{_e(x)}</span>" for x in chips)
        since = _since(c)
        if since:
            chip_html = _since_chip(since) + chip_html
        key = self.keys[id(c)] = self.case_key(c)
        link = f'<a class="permalink" href="{_e(case_href(key))}">#</a>'
        facets = f'data-platform="{_e(c.platform)}"' + (
            f' data-device="{_e(c.device)}"' if c.device else "") + (
            f' data-tags="{_e(json.dumps(c.tags, ensure_ascii=False))}"' if c.tags else "") + (
            f' data-since="{_e(since[1])}"' if since else "")
        # A closed case's body is raw text until it opens (report.js unfolds it): 2,000 cases'
        # steps parsed as markup made 700,000 nodes and a nightly took 25 s to open. With
        # JavaScript off a <noscript> is markup, so the page reads the same.
        body = self.case_body(c) if is_open else \
            f'<noscript>{self.case_body(c)}</noscript>'
        return f"""<details class="case st-{_e(c.status)}" id="{_e(key)}" \
data-status="{_e(c.status)}" {facets} data-q="{_e(_searched(c))}"\
{" open" if is_open else ""}>
<summary>{self.badge(c.status)}<span class="name">{_e(c.name)}</span>\
<span class="where">{where}</span><span class="chips">{chip_html}</span>{link}</summary>
<div class="body">{body}</div>
</details>"""

    def case_key(self, c: CaseResult) -> str:
        """The case's id in the page and its link (``report.html#case=demo/login``): from its
        case id, so a link pasted in a chat opens the same case in every copy of the report;
        a second case of one id (a hand-made results.json) gets ``~2``."""
        key, n = case_key(c.case_id), 1
        while key in self._keys:
            n += 1
            key = case_key(c.case_id, n)
        self._keys.add(key)
        return key

    def case_body(self, c: CaseResult) -> str:
        parts = [f'<p class="facts"><span>id <code>{_e(c.case_id)}</code></span>'
                 + (f"<span>tags {_e(', '.join(c.tags))}</span>" if c.tags else "")
                 + "".join(f"<span>{_e(k)} tokens {v:,}</span>"
                           for k, v in sorted(_attempts_tokens(c).items()))
                 + (f"<span>started {_e(_format_time(c.started))}</span>"
                    if c.started and c.device else "")   # no device: it never started
                 + "</p>"]
        if c.description:
            parts.insert(0, f'<p class="description">{_e(c.description)}</p>')
        if c.previous:
            parts.append(self.previous(c))
        if c.error is not None:
            unrun = "not run — " if never_ran(c) else ""
            parts.append(f'<pre class="error">{unrun}{_e(c.error.kind)}: '
                         f'{_e(cut_long(c.error.message))}</pre>')
        at = failing_step(c) if c.status != "passed" else None
        if at is not None:      # (a long case: the step is far down, below its passes)
            verb = {"failed": "Failed", "error": "Error", "interrupted": "Stopped"}.get(
                c.status, "Went wrong")
            parts.append(f'<p class="at-step">{verb} at <a href="#{_anchor(c)}">step {at.index}'
                         f" of {len(c.steps)}</a>" + (f" · line {at.line}" if at.line else "")
                         + f" · {_e(at.task)}: {_e(at.label)}</p>")
            parts.append(_model_said(at, c))
        if c.reason:    # beside an error too: "not retried: --maxfail 1 reached" & co.
            label = "Skipped" if c.status == "skipped" else "Reason" if c.error is None \
                and c.status not in ("passed", "flaky") else "Note"
            parts.append(f'<p class="reason"><b>{label}:</b> {_e(cut_long(c.reason))}</p>')
        if c.screenshot and c.status != "passed":
            shot = self.thumb(c.screenshot, "last screenshot", "shot")
            parts.append(f'<figure class="evidence">{shot}'
                         f"<figcaption>Last screenshot ({_e(c.status)}){_older_shot(c, at)}"
                         "</figcaption></figure>")
        if c.data:
            parts.append(_data_table(c.data))
        self._said = {}
        for task, steps in groupby(c.steps, key=lambda st: st.task):
            parts.append(self.task(task, list(steps), at.index if at else None, _anchor(c)))
        if not c.steps:
            parts.append('<p class="nosteps">No steps ran.</p>')
        return "\n".join(parts)

    def deselected(self) -> str:
        """Cases left out of this run (no device for their platform, -k, --tag, --shard)."""
        left = self.summary.deselected
        if not left:
            return ""
        rows = "".join(f"<tr><td>{_e(d.name or d.case_id)}<td><code>{_e(d.file or d.case_id)}"
                       f"</code><td>{_e(d.platform)}<td>{_e(d.reason)}" for d in left)
        return (f'<details class="deselected" id="deselected"><summary>{len(left)} case(s) '
                f"deselected (not run, not counted)</summary><table class=\"list\"><thead>"
                f"<tr><th>Case<th>File<th>Platform<th>Why</thead><tbody>{rows}</tbody></table>"
                f"</details>")

    def previous(self, c: CaseResult) -> str:
        items = []
        for p in c.previous:
            text = _e(f"attempt {p.attempt} {p.status} on {p.device or '?'}" + _took(p))
            if p.error is not None:
                message = p.error.message
                message = message if len(message) < 300 else message[:299] + "…"
                text += _e(f": {p.error.kind} {message}")
            elif p.reason:
                text += _e(f": {p.reason}")
            step = failing_step(p) if p.status != "passed" else None
            if step is not None:    # where it failed, as the case's own failure says it
                text += (f'<br><span class="at">at step {step.index} · '
                         f"{self.where(p.file, step.line or p.line)} · {_e(step.task)}: "
                         f"{_e(one_line(step.label))}</span>")
            shot = self.thumb(p.screenshot, f"attempt {p.attempt} screenshot", "shot") \
                if p.status != "passed" else ""
            items.append(f"<li>{self.badge(p.status)} {text}{shot}</li>")
        others = ("other attempts" if any(p.attempt > c.attempt for p in c.previous)
                  else "earlier attempts")     # (a failure's retry that was skipped: later)
        return (f'<div class="previous"><b>attempt {c.attempt}</b>{_e(_took(c))} — {others}:'
                f'<ul>{"".join(items)}</ul></div>')

    def task(self, name: str, steps: list[StepRecord], bad: int | None, anchor: str) -> str:
        failed = any(st.status in ("failed", "error") for st in steps)
        took = format_duration(sum(st.duration for st in steps))
        rows = "".join(self.step(st, anchor if st.index == bad else None) for st in steps)
        return f"""<section class="task{' bad' if failed else ''}">
<h3>{_t(name)} <small>{len(steps)} step{'s' if len(steps) != 1 else ''} · {took}</small></h3>
<table class="steps"><thead><tr><th>#<th>Step<th>Status<th>Time<th>Tier<th>Screens</thead>\
{rows}</table></section>"""

    def step(self, st: StepRecord, at_fault: str | None) -> str:
        """A step's row; ``at_fault``: the anchor of the step the case failed at."""
        # Lean markup on purpose: a 500-case run has thousands of these rows.
        label = _t(st.label)
        if st.line:
            label += f" <i>line {st.line}</i>"
        if st.error:
            label += f'<div class="serr">{_t(cut_long(st.error))}</div>'
        for note in st.notes:       # it passed, and says so all the same (a stale xpath)
            label += f'<div class="snote"><b>Note:</b> {_t(cut_long(note))}</div>'
        if st.usage and st.usage.calls:
            label += f'<div class="out">{_e(_usage_text(st.usage))}</div>'
        if isinstance(st.output, dict) and isinstance(st.output.get("steps"), list):
            label += _agent_summary(st.output, bool(at_fault))
        elif st.output is not None or _answered(st):
            out = json.dumps(st.output, ensure_ascii=False, default=str)
            out = out if len(out) <= 200 else out[:199] + "…"
            label += f'<div class="out">→ {_t(out)}</div>'
        shots = self.marked(st) or self.thumb(st.before, "before")
        shots += self.thumb(st.after, "after") or self.no_image(st)
        if st.status == "skipped":     # it never ran: the screen it would have met is not its
            shots = self.no_image(st)
        classes = [] if st.status == "passed" else [f"s-{st.status}"]
        if at_fault:
            classes.append("at")
        tr = f'<tr class="{" ".join(classes)}">' if classes else "<tr>"
        if at_fault:
            tr = f'<tr id="{at_fault}" class="{" ".join(classes)}">'
        # End tags of td/tr are optional in HTML; leaving them out saves ~10% on big runs.
        return (f"{tr}<td>{st.index}<td>{label}<td>{_e(st.status)}"
                f"<td>{round(st.duration * 1000):,} ms<td>{_e(_seen(st))}<td>{shots}")


def render_html(summary: RunSummary, run_dir: Path | None = None,
                history_page: Path | None = None) -> str:
    """The report as a string. With ``run_dir``, screenshots missing on disk are not linked."""
    return _Renderer(summary, Path(run_dir) if run_dir is not None else None,
                     history_page).page()


def write_html(summary: RunSummary, run_dir: Path, history_page: Path | None = None) -> Path:
    """Write ``<run_dir>/report.html`` (self-contained but for the artifacts: screenshot JPEGs,
    marked copies' SVGs) and, for each case with a Midscene ``reportFileName``,
    ``<run_dir>/<that name>`` holding the cases of that name alone (a --matrix run's case once
    per device group: each group's page overwrote the one before, a failure on one group lost
    under another's pass); return the run report's path. Each page links ``report.css``,
    written first beside them (all the pages' styles: a policy blocking inline ones loads it;
    written anew by each rebuild, as the pages it goes with). ``history_page``: the run's
    state dir's ``history.html``, linked from the report's header when it exists."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    report = _Renderer(summary, run_dir, history_page)
    page = report.page()          # (its marked copies' JPEGs: rules of report.css)
    _write(run_dir / STYLESHEET, stylesheet() + _under(report.under))
    pages: dict[str, list[CaseResult]] = {}
    for case in summary.cases:
        if case.report_file and own_page(case.report_file):
            pages.setdefault(case.report_file, []).append(case)
    for name, cases in pages.items():
        own = summary.model_copy(update={"cases": cases, "deselected": []})
        own.recount()
        _write(run_dir / name, render_html(own, run_dir, history_page))
    return _write(run_dir / "report.html", page)


def _under(under: dict[str, str]) -> str:
    """report.css's rules showing each marked copy over its JPEG, as its ``style=""`` does
    where inline styles apply (a policy without 'unsafe-inline' drops it: the marks on
    nothing); keyed by the copy's src, so a case's own page, whose steps are the report's,
    needs none of its own. URLs are %-quoted: no quote or backslash to escape but in an
    absolute ``file:`` one, escaped anyway."""
    def css(text: str) -> str:
        return '"' + re.sub(r'["\\\n<>]', lambda m: f"\\{ord(m.group()):x} ", text) + '"'
    return "".join(f"img.marked[src={css(src)}]{{background-image:url({css(jpeg)})}}\n"
                   for src, jpeg in under.items())


def own_page(name: str) -> bool:
    """Whether ``name`` may be a case's own page: a plain ``*.html`` file name in the run dir,
    as the loader takes a reportFileName. A results.json `farm report` rebuilds from (a CI
    artifact, an edited file) may name any path: ``../x.html`` or ``/home/me/.bashrc`` was
    written over, outside the run dir."""
    return (name.endswith(".html") and name != "report.html" and Path(name).name == name
            and "/" not in name and "\\" not in name)


def _write(path: Path, text: str) -> Path:
    return replace_file(path, text.encode("utf-8", "replace"))


def _merged_text(s: RunSummary) -> str:
    """A merged run's Merged line: "from 4 shards (1/4, 2/4, 3/4, 4/4)", and what is
    missing."""
    n = len(s.shards)
    text = f"from {n} shard{'' if n == 1 else 's'} ({', '.join(x.shard for x in s.shards)})"
    if s.missing_shards:
        text += f"; missing: {', '.join(s.missing_shards)}"
    return text


def _devices_text(s: RunSummary) -> str:
    """The run's devices, those alike together with what they are, a line each: "browser-1,
    browser-2: Chromium 156.0… (chromium-headless-shell)"."""
    groups: dict[str, list[str]] = {}
    for name in sorted({*s.devices, *s.device_info}):
        groups.setdefault(s.device_info.get(name, ""), []).append(name)
    text = "\n".join(", ".join(names) + (f": {about}" if about else "")
                      for about, names in groups.items())
    return text or "—"


def _model_totals(s: RunSummary) -> list[tuple[str, str]]:
    """Run-wide model spend for the header: tokens (and of which kind), cost, model time, of
    every attempt (a retried case's earlier attempts were paid for too)."""
    usage = run_usage(s)
    tokens = Counter[str]()
    for attempt in (a for case in s.cases for a in (*case.previous, case)):
        tokens.update(attempt.tokens)
    if not (usage.spent or sum(tokens.values())):
        return []
    # tokens by kind from the cases (a hand-made results.json may have them without usage)
    said = usage.tokens_text() if usage.spent else tokens_text(sum(tokens.values()), False)
    if sum(tokens.values()):
        said += ": " + " · ".join(f"{k} {v:,}" for k, v in sorted(tokens.items()))
    return [("Tokens", said), ("Model cost", usage.cost_text()),
            ("Model time", format_duration(usage.latency_s))]


def _href_to(page: Path, folder: Path) -> str:
    """A link from a page in ``folder`` to ``page``: relative, or its file URL where no
    relative path leads there (Windows: another drive)."""
    return _relative_href(page, folder) or page.resolve().as_uri()


def _relative_href(path: Path, folder: Path) -> str | None:
    """``path`` relative to ``folder``, as a link from a page there writes it (``r#1``, ``50%``
    escaped); None where no relative path leads (Windows: another drive)."""
    try:
        rel = os.path.relpath(path.resolve(), folder.resolve())
    except ValueError:
        return None
    return urllib.parse.quote(rel.replace(os.sep, "/"), safe="/")


def _since_chip(since: tuple[str, str, str]) -> str:
    """A case's verdict against earlier runs, as its row and the Failures list show it."""
    words, key, said = since
    return (f'<span class="since v-{_e(key)}" title="against earlier runs: {_e(said)}">'
            f"{_e(words)}</span>")


def _unrun_chip(c: CaseResult) -> str:
    """A never-run case's chip: ``not run: no usable android device left`` (its error's
    cause, the part before the detail in brackets, which the case's body says whole)."""
    why = c.error.message if c.error else ""
    return "not run" + (f": {why.split(' (', 1)[0]}" if why else "")


def _took(attempt: CaseResult) -> str:
    """`` (3.1 s)``: an attempt's own time, where a retried case lists its attempts (the
    case's chip has their sum); none for one that took no time (never started)."""
    own = own_duration(attempt)
    return f" ({format_duration(own)})" if own > 0 else ""


def _attempts_tokens(c: CaseResult) -> Counter[str]:
    """A case's tokens by kind over every attempt, as its spend chip, the header and its
    junit.xml facts count them (its last attempt's alone read as the case's)."""
    tokens = Counter[str]()
    for attempt in (*c.previous, c):
        tokens.update(known_tokens(attempt))
    return tokens


def known_tokens(c: CaseResult) -> dict[str, int]:
    """A case's tokens by kind, none when no call's were known (their 0 is no count)."""
    unknown = c.usage is not None and c.usage.tokens_unknown
    return {} if unknown and not sum(c.tokens.values()) else c.tokens


def _data_table(data: dict) -> str:
    """Named outputs (aiQuery & co., javascript / shell with ``name:``) of a case."""
    rows = "".join(f"<tr><td><code>{_e(k)}</code><td><code>{_e(_cut(v, 2000))}</code>"
                   for k, v in data.items())
    return (f'<section class="data"><h3>Data</h3><table class="list"><thead><tr><th>Name'
            f"<th>Value</thead><tbody>{rows}</tbody></table></section>")


def _cut(value: object, limit: int) -> str:
    """``value`` as JSON, at most ``limit`` characters: one cut there ends in "…" (its
    whole value is in results.json)."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _img(url: str, alt: str, cls: str = "") -> str:
    """A screenshot (report.js makes it a tab stop that Enter opens full size, and says its
    step in its alt: "after step 3: aiTap "Sign in""; written here, a 500-case report grew
    by a tenth)."""
    klass = f' class="{cls}"' if cls else ""
    return f'<img{klass} loading="lazy" src="{_e(url)}" alt="{_e(alt)}">'


# a step's `no_image` when the --screenshots policy kept it from one (farm.evidence.BY_POLICY):
# said once for the run (`_by_policy`), not on each of its steps
_POLICY = "--screenshots "
NO_IMAGE_SHOWN = 160     # characters of why a step has no image (the whole on hover)


def _by_policy(s: RunSummary) -> list[tuple[str, str]]:
    """The header's line for the steps the --screenshots policy left without an image (one
    line, not one per step: an `off` run's thousands of rows)."""
    kept_from = Counter(st.no_image for c in s.cases for a in (*c.previous, c)
                        for st in a.steps if st.no_image and st.no_image.startswith(_POLICY))
    return [("Images", "; ".join(f"{n} step{'s' if n != 1 else ''} without one: {why}"
                                 for why, n in sorted(kept_from.items())))] if kept_from else []


def _continued_after_failure(steps: list[StepRecord]) -> bool:
    """A step ran after a failed one (a continueOnError task failed and the case went on)."""
    first = next((i for i, s in enumerate(steps) if s.status == "failed"), None)
    return first is not None and any(s.status in ("passed", "failed") for s in steps[first + 1:])


def _anchor(case: CaseResult) -> str:
    """The id of the row of the step ``case`` failed at (from its id: the same in every
    report of the run, a link to it stays good)."""
    import hashlib
    return "at-" + hashlib.sha1(case.case_id.encode("utf-8", "replace")).hexdigest()[:12]


def _answered(step: StepRecord) -> bool:
    """Whether a step's output is an answer even when it is null: an aiQuery (aiBoolean, …)
    or a javascript step that ran, whose null the case's data keeps too (a null shown as
    nothing read as "showed nothing"); an action's None is no output."""
    kind = KINDS.get(step.kind)
    return step.status == "passed" and kind is not None and kind.data and kind.call is not None


def _seen(step: StepRecord) -> str:
    """Locate tier, plus what the device offered when it was not a usable UI tree, and what
    the cache did."""
    seen = step.tier or ""
    if step.observation in ("empty-tree", "black-frame"):
        seen = f"{seen} ({step.observation}: vision)".strip()
    if step.cache is not None:
        seen = f"{seen} (cache: {step.cache.summary()})".strip()
    return seen


def _usage_text(usage: Usage) -> str:
    retries = f", {usage.retries} retried" if usage.retries else ""
    tokens = usage.tokens_text(f"{usage.prompt_tokens:,} + {usage.completion_tokens:,}")
    return (f"model: {usage.calls} call(s){retries}, {tokens}, {usage.cost_text()}, "
            f"{usage.latency_s:.1f}s")


def _agent_summary(output: dict, is_open: bool = False) -> str:
    """An ai step's own account: what it did, round by round, and how it ended (open on the
    step the case failed at: its rounds are why)."""
    steps = "".join(f"<li>{_e(str(x))}</li>" for x in output["steps"][:60])
    head = f"{output.get('rounds', len(output['steps']))} round(s)"
    if output.get("message"):
        head += f" → {output['message']}"
    return (f'<details class="out"{" open" if is_open else ""}><summary>{_e(head)}</summary>'
            f"<ol>{steps}</ol></details>")


def _short(text: str, limit: int) -> str:
    """``text`` on one line, at most ``limit`` characters (a cut ends in "…")."""
    text = " ".join(one_line(text).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _older_shot(c: CaseResult, at: StepRecord | None) -> str:
    """For a case whose last screenshot is not its failing step's (that step took none: an
    unreadable tree with a secret, a device error, --screenshots): which step's it is and why
    the failing one has none, so an earlier screen is not read as the one it failed on."""
    if at is None or at.after == c.screenshot or not at.no_image:
        return ""
    before = next((st.index for st in c.steps if c.screenshot == st.before), None)
    of = next((st.index for st in c.steps if c.screenshot == st.after), before)
    if of == at.index and of == before:     # its own before image ("taken at step 1; step
        # 1 has none" read as a contradiction)
        return f" — taken before step {of} ran; none after it: {_e(at.no_image)}"
    taken = f"taken at step {of}" if of is not None else "taken earlier"
    return f" — {taken}; step {at.index} has none: {_e(at.no_image)}"


def _model_said(step: StepRecord, c: CaseResult) -> str:
    """The model's reasoning for the step a case failed at (a failed aiAssert's "the model:
    …"), under the case's error: with an ``errorMessage`` the error is the suite's words and
    the reasoning was only in the step's row, cut at 200 characters."""
    said = step.output if isinstance(step.output, str) else ""
    why = said.removeprefix("the model: ")
    if not said.startswith("the model: ") or (c.error and why in c.error.message):
        return ""
    return f'<p class="why"><b>The model:</b> {_e(cut_long(why))}</p>'


def _searched(c: CaseResult) -> str:
    """What the search finds a case by besides its summary's words (name, file, status,
    platform, device, verdict chip) and its tags, which report.js reads from the page (written
    twice they made a 500-case run's report 25 kB bigger): its id, what its device is
    ("Pixel, Android": its version numbers left out, `_device_words`), and why it did not pass: its reason, its and its steps' errors, its earlier
    attempts' (triage: "which cases broke on X?")."""
    said = [c.case_id, _device_words(c.device_info), c.reason or "", *_failures(c),
            *(x for p in c.previous for x in _failures(p))]
    return " ".join(x for x in said if x).lower()


def _device_words(info: str | None) -> str:
    """What a case's device is, for the search, without its dotted version numbers
    ("chromium (chromium-headless-shell)" of "Chromium 156.0.8078.129 (…)": a number searched
    for matched every case run on that browser); a phone's "Android 14 (API 34)" stays whole,
    the way a tester asks for it."""
    return " ".join(w for w in re.split(r"[\s,;]+", info or "")
                    if w and not re.search(r"\d\.\d", w))


def _why(c: CaseResult, at: StepRecord | None) -> str:
    """A failed case's reason on one line (at most 200 characters): its error, else its
    failing step's, else its reason."""
    said = (f"{c.error.kind}: {c.error.message}" if c.error else
            (at.error if at is not None and at.error else c.reason or ""))
    return _short(said.split("\n")[0], 200)


def _failures(c: CaseResult) -> list[str]:
    """What a case says about why it did not pass: its error and its steps' errors."""
    said = [c.error.kind, c.error.message] if c.error else []
    return [cut_long(x) for x in said + [s.error for s in c.steps if s.error]]


def cut_long(text: str, limit: int = ERROR_SHOWN) -> str:
    """``text`` up to ``limit`` characters, the cut saying how much more results.json holds:
    a page's error may be megabytes (a script that throws its data), and a case shows it in
    its error, its step's and its search text: one such case made a report of 12 MB."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit:,} more characters in results.json)"
