"""JUnit XML for CI systems: one <testsuite> per suite, one <testcase> per case.

Valid against the strict Jenkins xUnit schema (junit-10.xsd, tests/schemas/): no attributes
or elements it does not know, so a case's facts (title, case id, platform, device, attempt,
flaky, model spend, tokens) are ``name: value`` lines at the top of its <system-out>, followed
by the step log and, for a case that did not pass, ``[[ATTACHMENT|<absolute path>]]`` of its last
screenshot (the Jenkins attachments convention; under a name no other case of its folder
attaches, as the plugin keeps a class's files by name: `distinct_names`). ``classname`` is the case's folder, so CI
groups by folder; ``name`` is the rest of the case id (its file, or agent.testId), not its
title: CI servers key a test's history on classname + name, so two files with one title stay
two tests, and renaming a title keeps the history. Text is shown as the console shows it
(`farm.text.printable`: a control character becomes ``\\x1b``).

Status mapping (what Jenkins, GitLab and GitHub annotators understand):

    passed        no result element; earlier attempts (a device broke: retried on another
                  one, the case is not flaky) are ``earlier_attempt:`` lines in <system-out>
    flaky         passed, a ``flaky: true`` fact and one <flakyFailure>/<flakyError> per
                  earlier attempt (xunit2 / Surefire convention; the strict schema has no
                  <properties> on a <testcase>)
    failed        <failure message=...>, body names the failing step and its line
    error         <error type=<error kind> message=...>  (infrastructure, timeout)
    interrupted   <error type="Interrupted">
    skipped       <skipped message=<reason>>

Earlier attempts of a case that still did not pass become <rerunFailure>/<rerunError>.
"""

from __future__ import annotations

import itertools
import os
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence

from farm.report.html import cut_long, known_tokens
from farm.report.paths import replace_file, run_file
from farm.results import (CaseResult, RunSummary, case_usage, failing_step, never_ran,
                          own_duration, since_last_words, timestamp)
from farm.run_log import one_line, verdict_line
from farm.text import printable

if TYPE_CHECKING:
    from farm.errors import SuiteError

# Everything XML 1.0 cannot carry: control characters but tab, LF and CR, lone surrogates,
# U+FFFE and U+FFFF (the complement of its Char production, which is faster to compile).
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_MESSAGE_LIMIT = 500


def xml_safe(text: object, instead: str = "") -> str:
    """``str(text)`` with every character XML 1.0 cannot represent removed (or replaced by
    ``instead``)."""
    return _INVALID_XML.sub(instead, str(text))


def suite_name(case: CaseResult) -> str:
    """Suite a case belongs to: the first path segment of its id (``<suite>/<path>``)."""
    return case.case_id.split("/", 1)[0] or "farm"


def _short(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= _MESSAGE_LIMIT else first[: _MESSAGE_LIMIT - 1] + "…"


def _message(case: CaseResult) -> str:
    """The ``message`` attribute a CI's summary shows: the error's first line, and for an
    error whose retry could not run, why (``…; not retried: no usable ios device left``, as
    the console's line and results.json's reason say), the error cut to leave it room."""
    if case.error is None:
        return case.reason or case.status
    why = (case.reason or "").strip()
    if case.status != "error" or not why.startswith("not retried:") or "\n" in why:
        return case.error.message
    room = max(_MESSAGE_LIMIT - len(why) - 2, 40)
    first = _short(case.error.message)
    first = first if len(first) <= room else first[:room - 1] + "…"
    return f"{first}; {why}"


def _body(case: CaseResult) -> str:
    """Failure/error body: where it broke, the full message and the evidence."""
    lines: list[str] = []
    step = failing_step(case)
    if case.status == "interrupted":    # the step farm was stopped in
        step = next((s for s in case.steps if s.status == "interrupted"), step)
    if step is not None:
        where = f"step {step.index}" + (f", line {step.line}" if step.line else "")
        verb = "Interrupted" if case.status == "interrupted" else "Failed"
        lines.append(f"{verb} at {where} [{step.task}]: {step.label}")  # (whole: a body)
    if case.error is not None:
        lines.append(f"{case.error.kind}: {case.error.message}")
    if case.reason:     # (with an error: "…; attempt 2 was skipped: …", "not retried: …")
        lines.append(case.reason)
    if case.screenshot:
        lines.append(f"screenshot: {case.screenshot}")
    return "\n".join(lines)


def _step_log(case: CaseResult) -> str:
    rows = []
    for s in case.steps:
        row = (f"{s.index:>3} {s.status:<11} {round(s.duration * 1000):>6} ms  [{s.task}] "
               f"{one_line(s.label)}")
        if s.tier:
            row += f"  (tier={s.tier})"
        if s.error:     # (the failure's text holds the case's error whole: no second copy)
            row += f"\n      {cut_long(s.error)}"
        rows.append(row)
    return "\n".join(rows)


def folder(case: CaseResult) -> str:
    """A case's folder path (``demo/checkout`` for ``demo/checkout/pay``): its classname."""
    return case.case_id.rsplit("/", 1)[0] if "/" in case.case_id else suite_name(case)


def case_name(case: CaseResult) -> str:
    """A case's testcase name: its id after the classname (``pay`` for ``demo/checkout/pay``,
    an agent.testId as it is written), so classname + name is the case id: unique in a run and
    the same however the case's title changes."""
    head = folder(case) + "/"
    return case.case_id[len(head):] if case.case_id.startswith(head) else case.case_id


def _spend(case: CaseResult) -> dict[str, str]:
    """The ``model`` and ``tokens.<kind>`` facts: every attempt's, as the console's summary
    line, results.json's run totals and the history page count a retried case (an earlier
    attempt was paid for too); worded as the console words it ("1 call(s), tokens unknown,
    cost unknown"), tokens by kind only when some are known (an unknown count's 0 is none)."""
    paid = [a for a in (*case.previous, case) if a.usage is not None and a.usage.spent]
    over = f" ({len(paid)} attempts)" if len(paid) > 1 else ""
    tokens: Counter = Counter()
    for attempt in (*case.previous, case):
        tokens.update(known_tokens(attempt))
    return {"model": case_usage(case).summary() + over if paid else "",
            **{f"tokens.{k}": str(v) for k, v in sorted(tokens.items())}}


def _where(case: CaseResult) -> str:
    """``file:line`` of a case: the line its verdict is about (`verdict_line`)."""
    line = verdict_line(case)
    return case.file + (f":{line}" if line else "")


def _facts(case: CaseResult) -> str:
    facts = {"title": " ".join(case.name.split()),      # one line: a fact per line
             "case_id": case.case_id, "file": _where(case),
             "platform": case.platform, "device": case.device,
             "device_info": case.device_info,
             "attempt": "none (not run)" if never_ran(case) else str(case.attempt),
             "flaky": "true" if case.status == "flaky" else None,
             # as the report and the terminal say it: a red case's "unstable across runs",
             # not "flaky" (a pass on a retry: the "flaky: true" fact)
             "since_last": since_last_words(case.since_last),
             "note": case.reason if case.status == "passed" else None,   # continued after …
             "tags": ",".join(case.tags) or None,
             "attempt_times": _attempt_times(case),
             **_spend(case)}
    lines = [f"{k}: {v}" for k, v in facts.items() if v]
    if case.status == "passed":     # only the device's errors came before: not flaky
        lines += [f"earlier_attempt: {_short(f'{_attempt_head(p)}: {_message(p)}')}"
                  for p in case.previous]
    return "\n".join(lines)


def _attempt_times(case: CaseResult) -> str | None:
    """A retried case's time by attempt (its ``time`` is their sum): ``1: 8.02 s, 2: 3.1 s``."""
    if not case.previous:
        return None
    attempts = sorted((*case.previous, case), key=lambda a: a.attempt)
    return ", ".join(f"{a.attempt}: {round(own_duration(a), 3):g} s" for a in attempts)


def _attachment(case: CaseResult, run_dir: Path | None, twins: Twins) -> str:
    """The CI attachment of a failed case's screenshot: only a file of the run (its plugin
    copies the file named, so a results.json naming one elsewhere must not get it copied)."""
    path = _screenshot(case, run_dir)
    path = twins.get((case.case_id, case.attempt), path)
    return f"[[ATTACHMENT|{path}]]" if path is not None else ""


def _screenshot(case: CaseResult, run_dir: Path | None) -> Path | None:
    """A failed case's screenshot, when it is a file of the run (relative without a run dir)."""
    if not case.screenshot or case.status in ("passed", "skipped"):
        return None
    if run_dir is None:
        path = Path(case.screenshot)
        return None if path.is_absolute() or ".." in path.parts else path
    return run_file(run_dir, case.screenshot)


# A screenshot linked under a name of its own, by (case id, attempt): see `distinct_names`.
Twins = Mapping[tuple[str, int], Path]


def distinct_names(summary: RunSummary, run_dir: Path) -> dict[tuple[str, int], Path]:
    """Jenkins' junit-attachments plugin keeps a test class's attachments by file name, the
    first of a name for every test naming it: two failed cases of one folder whose screenshots
    are both ``003-after.jpg`` (in folders of their own) both showed the first one's. Each
    such later screenshot gets a hard link (or a copy) beside it, named after its case
    (``pay-003-after.jpg``, ``密码错误-003-after.jpg``) and, when that name is taken too, its
    case's short hash; the attachment names that; one that cannot be made keeps the shared
    name."""
    seen: set[tuple[str, str]] = set()
    later: list[tuple[CaseResult, Path]] = []
    for case in (a for c in summary.cases for a in (*c.previous, c)):
        path = _screenshot(case, run_dir)
        if path is None:
            continue
        if (folder(case), path.name) in seen:
            later.append((case, path))
        seen.add((folder(case), path.name))
    twins: dict[tuple[str, int], Path] = {}
    for case, path in later:
        name = next(n for n in _twin_names(case, path.name) if (folder(case), n) not in seen)
        twin = path.with_name(name)
        if _twin(path, twin):
            twins[(case.case_id, case.attempt)] = twin
            seen.add((folder(case), name))
    return twins


def _twin_names(case: CaseResult, name: str) -> Iterator[str]:
    """Names for a case's copy of screenshot ``name``, most readable first: its test name in
    any script's letters (file systems and Jenkins take UTF-8 names; only ASCII made every
    Chinese name ``case``), then with its case's short hash, then its attempt too."""
    import hashlib
    slug = re.sub(r"[^\w.-]+", "_", case_name(case)).strip("._")[:40] or "case"
    digest = hashlib.sha256(case.case_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    yield f"{slug}-{name}"
    yield f"{slug}-{digest}-{name}"
    for n in itertools.count(case.attempt):
        yield f"{slug}-{digest}-{n}-{name}"


def _twin(path: Path, twin: Path) -> bool:
    """``twin`` is ``path``'s content under another name: already, or linked (copied) now
    (over an earlier run's twin in a reused --report-dir)."""
    import shutil
    try:
        if twin.exists():
            if twin.samefile(path) or twin.read_bytes() == path.read_bytes():
                return True
            twin.unlink()
        try:
            os.link(path, twin)
        except OSError:
            shutil.copyfile(path, twin)
        return True
    except OSError:
        return False


# ---- times: what a CI server shows as the run's and each suite's duration -----------------------

def wall_span(cases: Iterable[CaseResult]) -> float | None:
    """Seconds from the first start to the last end of ``cases`` (every attempt): cases on
    several devices overlap, so this is less than their sum. None when an attempt that took
    time has no readable start (an old or hand-made results.json)."""
    spans = []
    for case in cases:
        for attempt in (*case.previous, case):
            start = timestamp(attempt.started)
            if start is None:
                if own_duration(attempt):
                    return None
                continue
            spans.append((start, start + own_duration(attempt)))
    if not spans:
        return None
    return max(end for _, end in spans) - min(start for start, _ in spans)


def _seconds(value: float) -> str:
    return str(round(max(value, 0.0), 3))


# ---- the document: elements written as the xUnit tools expect them ----------------------------
# (tag, [(attribute, value)], text, children); None attributes are left out
Element = tuple[str, list[tuple[str, "str | None"]], str, list["Element"]]


def _element(tag: str, attrs: list[tuple[str, str | None]], text: str = "",
             children: list[Element] | None = None) -> Element:
    return tag, attrs, text, children or []


def _result_for(case: CaseResult) -> tuple[str, Element] | None:
    """(which count it adds to, its element) of a case that did not pass."""
    msg = _short(_message(case)) or None
    if case.status == "skipped":
        return "skipped", _element("skipped", [
            ("message", _short(case.reason or _message(case)) or None)])
    if case.status == "failed":
        count, tag, kind = "failures", "failure", case.error.kind if case.error else "Failure"
    elif case.status == "error":
        count, tag, kind = "errors", "error", case.error.kind if case.error else "Error"
    elif case.status == "interrupted":
        count, tag, kind, msg = "errors", "error", "Interrupted", msg or "interrupted"
    else:
        return None
    return count, _element(tag, [("message", msg), ("type", kind or None)], _body(case))


def _interim_for(previous: CaseResult, final_passed: bool) -> Element:
    """An earlier attempt: flaky* when the case passed in the end, rerun* otherwise."""
    infra = previous.status in ("error", "interrupted")
    tag = ("flaky" if final_passed else "rerun") + ("Error" if infra else "Failure")
    kind = previous.error.kind if previous.error else previous.status
    head = _attempt_head(previous)
    return _element(tag, [("message", _short(f"{head}: {_message(previous)}") or None),
                          ("type", kind or None)],
                    children=[_element("stackTrace", [], _body(previous))])


def _attempt_head(previous: CaseResult) -> str:
    """``attempt 1 failed on browser-1 at step 2 (s/pay.yaml:11)``: where it failed shown in
    its message, which is all some CI servers show of a <flakyFailure>."""
    head = f"attempt {previous.attempt} {previous.status} on {previous.device or '?'}"
    step = failing_step(previous) if previous.status != "passed" else None
    if step is not None:
        line = step.line or previous.line
        head += f" at step {step.index} ({previous.file}" + (f":{line})" if line else ")")
    return head


def _testcase(case: CaseResult, name: str, run_dir: Path | None,
              twins: Twins) -> tuple[str | None, Element]:
    """(the count its result adds to, if any; the <testcase>)."""
    children: list[Element] = []
    result = _result_for(case)
    if result is not None:
        children.append(result[1])
    earlier = [p for p in case.previous if p.attempt < case.attempt]
    if case.status != "passed":     # a pass after the device's errors is not flaky (_facts)
        # not an attempt after the verdict (a failure's retry that was skipped: no rerun
        # failure, its reason says it in the body)
        children += [_interim_for(prev, case.status == "flaky") for prev in earlier]
    else:
        earlier = []
    # each failed attempt's screenshot, the earlier ones' first (a flaky case's only one)
    shots = "\n".join(x for x in (_attachment(a, run_dir, twins) for a in (*earlier, case)) if x)
    out = "\n\n".join(x for x in (_facts(case), _step_log(case), shots) if x)
    children.append(_element("system-out", [], out))
    return (result[0] if result else None,
            _element("testcase", [("name", name), ("classname", folder(case)),
                                  ("time", _seconds(case.duration))], children=children))


def _suite(name: str, cases: list[CaseResult], summary: RunSummary, run_dir: Path | None,
           seen: Counter, twins: Twins) -> tuple[dict[str, int], Element]:
    """(its counts, the <testsuite>) of one suite's cases. Its time is their wall span (as
    pytest's testsuite time is wall time), their sum when the results cannot tell."""
    counts = {"tests": len(cases), "errors": 0, "failures": 0, "skipped": 0}
    elements = []
    for case in cases:
        key = (folder(case), case_name(case))
        seen[key] += 1      # ids are unique in a run; a merged results.json may repeat one
        unique = key[1] if seen[key] == 1 else f"{key[1]} [{seen[key]}]"
        count, element = _testcase(case, unique, run_dir, twins)
        if count:
            counts[count] += 1
        elements.append(element)
    span = wall_span(cases)
    took = span if span is not None else sum(round(c.duration, 3) for c in cases)
    properties = [_element("property", [("name", "run_id"), ("value", summary.run_id)])]
    if summary.shard:       # (a sharded pipeline's merged JUnit: which job a suite came from)
        properties.append(_element("property", [("name", "shard"), ("value", summary.shard)]))
    # a merged run's shards (`farm report --merge`): a CI counting fewer tests is told why
    for key, shards in (("merged_from", [s.shard for s in summary.shards]),
                        ("missing_shards", summary.missing_shards)):
        if shards:
            properties.append(_element("property", [("name", key),
                                                    ("value", ", ".join(shards))]))
    if summary.farm_version:
        properties.append(_element("property", [("name", "farm_version"),
                                                ("value", summary.farm_version)]))
    return counts, _element(
        "testsuite", [("name", name), ("timestamp", summary.started),
                      *((k, str(counts[k])) for k in ("tests", "errors", "failures", "skipped")),
                      ("time", _seconds(took))],
        children=[_element("properties", [], children=properties), *elements])


_LISTED = 50     # never-run cases a run's error names one by one


def _run_cut_short(summary: RunSummary) -> CaseResult | None:
    """The run's own error when it ended before some of its cases ran (killed between two
    cases, Ctrl-C, a CI time limit; the model budget spent): those are <skipped>, and a junit
    of passes and skips read green in CI (Jenkins, GitLab and GitHub show only testcases: no
    suite-level element is seen), as surefire's reports of a crashed fork did. One
    ``farm.run`` error (the id --junit-xml's placeholder had while the run went on) says how
    many never ran, and which. When every case ran (a case cut short is its own error), the
    error of a run --fail-on-skip failed (`_failed_by_skips`), or None."""
    from farm.budget import NOT_RUN
    from farm.results import NOT_RUN_INTERRUPTED, CaseError
    reasons = NOT_RUN_INTERRUPTED if summary.interrupted else (
        (NOT_RUN + summary.stopped,) if summary.stopped else ())
    ids = [c.case_id for c in summary.cases if c.status == "skipped" and c.reason in reasons]
    never = len(ids)
    if not never:
        return _failed_by_skips(summary)
    why = (f"farm run {summary.run_id} was interrupted (killed, Ctrl-C or a CI time limit)"
           if summary.interrupted else f"farm run {summary.run_id} stopped: {summary.stopped}")
    message = (f"{why} before it ran {never} of its {len(summary.cases)} case(s): each is "
               f"listed as skipped (not run); the others' results are what they did")
    more = [f"... and {len(ids) - _LISTED} more"] if len(ids) > _LISTED else []
    body = "\n".join(["never ran:", *(f"  {i}" for i in ids[:_LISTED]), *more])
    return CaseResult(run_id=summary.run_id, case_id="farm/run", name=f"farm run "
                     f"{summary.run_id}", file="", platform="", status="error",
                     started=summary.started, reason=body,
                     error=CaseError(kind="RunInterrupted" if summary.interrupted
                                     else "RunStopped", message=message))


def _failed_by_skips(summary: RunSummary) -> CaseResult | None:
    """The run's own error when --fail-on-skip made it fail (exit 1): a junit of passes and
    skips read green in CI while the job went red. A run that failed too has it as well (its
    skips, not a --maxfail stop's): fixing the failure would leave the job red. None
    otherwise."""
    from farm.results import CaseError
    from farm.run_log import skips_failed
    skipped = skips_failed(summary)
    if not skipped:
        return None
    ids = [c.case_id for c in summary.cases if c.status == "skipped"]
    if summary.counts.get("failed") or summary.counts.get("error"):
        from farm.select import skipped_themselves
        ids = skipped_themselves(summary.cases)
    more = [f"... and {len(ids) - _LISTED} more"] if len(ids) > _LISTED else []
    return CaseResult(run_id=summary.run_id, case_id="farm/run", name=f"farm run "
                      f"{summary.run_id}", file="", platform="", status="error",
                      started=summary.started,
                      reason="\n".join(["skipped:", *(f"  {i}" for i in ids[:_LISTED]), *more]),
                      error=CaseError(kind="RunFailedOnSkip", message=(
                          f"farm run {summary.run_id} failed (exit 1): {skipped} case(s) were "
                          f"skipped under --fail-on-skip")))


def build_junit(summary: RunSummary, run_dir: Path | None = None,
                twins: Twins | None = None) -> str:
    """The JUnit document of a run (suites in first-seen order, cases in run order) as text;
    with ``run_dir``, screenshot attachments are absolute paths (``twins``' instead of a
    case's own: `distinct_names`). <testsuites> time is the run's wall time
    (``summary.duration``; the cases' span or sum when it has none)."""
    by_suite: dict[str, list[CaseResult]] = {}
    for case in summary.cases:
        by_suite.setdefault(suite_name(case), []).append(case)
    total = {"tests": 0, "failures": 0, "errors": 0}   # (no skipped there: the schema)
    elements, seen = [], Counter()
    for name, cases in by_suite.items():
        counts, element = _suite(name, cases, summary, run_dir, seen, twins or {})
        for key in total:
            total[key] += counts[key]
        elements.append(element)
    cut = _run_cut_short(summary)
    if cut is not None:     # its own suite: a suite of the user's named "farm" keeps its own
        cut_counts, element = _suite("farm run", [cut], summary, run_dir, seen, {})
        for key in total:
            total[key] += cut_counts[key]
        elements.append(element)
    took = summary.duration or wall_span(summary.cases)
    if took is None:
        took = sum(round(c.duration, 3) for c in summary.cases)
    if not summary.cases and not summary.run_id and summary.shard:
        return _empty_shard(summary)
    root = _element("testsuites", [("name", f"farm run {summary.run_id}"),
                                   *((k, str(v)) for k, v in total.items()),
                                   ("time", _seconds(took))], children=elements)
    return _document(root)


def _empty_shard(summary: RunSummary) -> str:
    """The JUnit of a shard left with no case (a CI matrix wider than the selection): no run
    was made, so it names none; one empty suite holds its ``shard`` property, so a folder of
    every job's JUnit still has all N shards for --shard-timings."""
    name = f"farm: shard {summary.shard} had no case"
    properties = [_element("property", [("name", "shard"), ("value", summary.shard or "")])]
    suite = _element("testsuite", [("name", name), ("timestamp", summary.started),
                                   ("tests", "0"), ("errors", "0"), ("failures", "0"),
                                   ("skipped", "0"), ("time", _seconds(0))],
                     children=[_element("properties", [], children=properties)])
    return _document(_element("testsuites", [("name", name), ("tests", "0"), ("failures", "0"),
                                             ("errors", "0"), ("time", _seconds(0))],
                              children=[suite]))


def build_load_errors(errors: Sequence[SuiteError]) -> str:
    """The JUnit document of suites that did not load (as pytest reports collection errors):
    one <testcase classname="farm.load" name="<file>"> per file with problems, its <error>
    naming the first (``file:line:col: message``) and its text listing all of them."""
    by_file: dict[str, list[SuiteError]] = {}
    for error in errors:
        by_file.setdefault(error.file, []).append(error)
    cases = []
    for file, problems in by_file.items():
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        cases.append(_element("testcase", [("name", file), ("classname", "farm.load"),
                                           ("time", "0")], children=[
            _element("error", [("message", _short(str(problems[0])) + more),
                               ("type", type(problems[0]).__name__)],
                     "\n".join(str(p) for p in problems))]))
    counts = [("tests", str(len(cases))), ("failures", "0"), ("errors", str(len(cases)))]
    suite = _element("testsuite", [("name", "farm.load"), *counts, ("skipped", "0"),
                                   ("time", "0")], children=cases)
    return _document(_element("testsuites", [("name", "farm: suite load errors"), *counts,
                                             ("time", "0")], children=[suite]))


def _document(root: Element) -> str:
    lines = ['<?xml version="1.0" encoding="utf-8"?>']
    _write(root, "", lines)
    return "\n".join(lines) + "\n"


def _shown(text: str) -> str:
    """``text`` as the console shows it (control characters as ``\\x1b``), XML-safe."""
    return xml_safe(printable(text))


_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
# in an attribute a parser turns a raw tab or line break into a space: kept as references
# (a CR never gets here: `printable` shows it as \x0d, as the console and report.html do)
_ATTRIBUTE = {**_TEXT, **str.maketrans({"\t": "&#9;", "\n": "&#10;"})}


def _write(element: Element, indent: str, lines: list[str]) -> None:
    """One tab per level; an element holding only text has it inline, line breaks and all."""
    tag, attrs, text, children = element
    head = indent + "<" + tag + "".join(f' {k}="{_shown(v).translate(_ATTRIBUTE)}"'
                                         for k, v in attrs if v is not None)
    if children:
        lines.append(head + ">")
        for child in children:
            _write(child, indent + "\t", lines)
        lines.append(f"{indent}</{tag}>")
    elif text:
        lines.append(f"{head}>{_shown(text).translate(_TEXT)}</{tag}>")
    else:
        lines.append(head + "/>")


def _replace(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all (a temporary file, then renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return replace_file(path, text.encode("utf-8"))


def write_junit(summary: RunSummary, path: Path, run_dir: Path | None = None) -> Path:
    """Write ``junit.xml`` for ``summary`` to ``path`` (UTF-8, XML-safe); return the path.
    ``run_dir`` (default: the folder of ``path``) resolves screenshot attachments, each under
    a name no other attachment of its test class has (`distinct_names`)."""
    run_dir = Path(run_dir or Path(path).parent).resolve()
    return _replace(path, build_junit(summary, run_dir, distinct_names(summary, run_dir)))


def write_load_errors(errors: Sequence[SuiteError], path: Path) -> Path:
    """Write the JUnit document of suites that did not load (`build_load_errors`) to ``path``."""
    return _replace(path, build_load_errors(errors))
