"""JUnit XML for CI systems: one <testsuite> per suite, one <testcase> per case.

Valid against the strict Jenkins xUnit schema (junit-10.xsd, tests/schemas/): no attributes
or elements it does not know, so a case's facts (case id, platform, device, attempt, flaky,
tokens) are ``name: value`` lines at the top of its <system-out>, followed by the step log and,
for a case that did not pass, ``[[ATTACHMENT|<absolute path>]]`` of its last screenshot (the
Jenkins attachments convention). ``classname`` is the case's folder, so CI groups by folder.

Status mapping (what Jenkins, GitLab and GitHub annotators understand):

    passed        no result element
    flaky         passed, property ``flaky=true`` and one <flakyFailure>/<flakyError> per
                  earlier attempt (xunit2 / Surefire convention)
    failed        <failure message=...>, body names the failing step and its line
    error         <error type=<error kind> message=...>  (infrastructure, timeout)
    interrupted   <error type="Interrupted">
    skipped       <skipped message=<reason>>

Earlier attempts of a case that still did not pass become <rerunFailure>/<rerunError>.
"""

from __future__ import annotations

import re
from pathlib import Path

from farm.report.paths import discard
from farm.results import CaseResult, RunSummary, StepRecord

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


def failing_step(case: CaseResult) -> StepRecord | None:
    """The step a case failed on: the one its error names, else the first bad step."""
    if case.error is not None and case.error.step is not None:
        for step in case.steps:
            if step.index == case.error.step:
                return step
    return next((s for s in case.steps if s.status in ("failed", "error")), None)


def _short(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= _MESSAGE_LIMIT else first[: _MESSAGE_LIMIT - 1] + "…"


def _message(case: CaseResult) -> str:
    if case.error is not None:
        return case.error.message
    return case.reason or case.status


def _body(case: CaseResult) -> str:
    """Failure/error body: where it broke, the full message and the evidence."""
    lines: list[str] = []
    step = failing_step(case)
    if step is not None:
        where = f"step {step.index}" + (f", line {step.line}" if step.line else "")
        lines.append(f"Failed at {where} [{step.task}]: {step.label}")
    if case.error is not None:
        lines.append(f"{case.error.kind}: {case.error.message}")
    elif case.reason:
        lines.append(case.reason)
    if case.screenshot:
        lines.append(f"screenshot: {case.screenshot}")
    return "\n".join(lines)


def _step_log(case: CaseResult) -> str:
    rows = []
    for s in case.steps:
        row = f"{s.index:>3} {s.status:<11} {round(s.duration * 1000):>6} ms  [{s.task}] {s.label}"
        if s.tier:
            row += f"  (tier={s.tier})"
        if s.error:
            row += f"\n      {s.error}"
        rows.append(row)
    return "\n".join(rows)


def folder(case: CaseResult) -> str:
    """A case's folder path (``demo/checkout`` for ``demo/checkout/pay``): its classname."""
    return case.case_id.rsplit("/", 1)[0] if "/" in case.case_id else suite_name(case)


def _facts(case: CaseResult) -> str:
    facts = {"case_id": case.case_id, "file": case.file + (f":{case.line}" if case.line else ""),
             "platform": case.platform, "device": case.device,
             "device_info": case.device_info, "attempt": str(case.attempt),
             "flaky": "true" if case.status == "flaky" else None,
             "since_last": case.since_last,
             "tags": ",".join(case.tags) or None,
             **{f"tokens.{k}": str(v) for k, v in sorted(case.tokens.items())}}
    return "\n".join(f"{k}: {v}" for k, v in facts.items() if v)


def _attachment(case: CaseResult, run_dir: Path | None) -> str:
    if not case.screenshot or case.status in ("passed", "skipped"):
        return ""
    path = Path(case.screenshot)
    if run_dir is not None and not path.is_absolute():
        path = (run_dir / path).resolve()
    return f"[[ATTACHMENT|{path}]]"


# ---- the document: elements written as the xUnit tools expect them ----------------------------
# (tag, [(attribute, value)], text, children); None attributes are left out
Element = tuple[str, list[tuple[str, "str | None"]], str, list["Element"]]


def _element(tag: str, attrs: list[tuple[str, str | None]], text: str = "",
             children: list[Element] | None = None) -> Element:
    return tag, attrs, text, children or []


def _result_for(case: CaseResult) -> tuple[str, Element] | None:
    """(which count it adds to, its element) of a case that did not pass."""
    msg = xml_safe(_short(_message(case))) or None
    if case.status == "skipped":
        return "skipped", _element("skipped", [
            ("message", xml_safe(_short(case.reason or _message(case))) or None)])
    if case.status == "failed":
        count, tag, kind = "failures", "failure", case.error.kind if case.error else "Failure"
    elif case.status == "error":
        count, tag, kind = "errors", "error", case.error.kind if case.error else "Error"
    elif case.status == "interrupted":
        count, tag, kind, msg = "errors", "error", "Interrupted", msg or "interrupted"
    else:
        return None
    return count, _element(tag, [("message", msg), ("type", kind or None)], xml_safe(_body(case)))


def _interim_for(previous: CaseResult, final_passed: bool) -> Element:
    """An earlier attempt: flaky* when the case passed in the end, rerun* otherwise."""
    infra = previous.status in ("error", "interrupted")
    tag = ("flaky" if final_passed else "rerun") + ("Error" if infra else "Failure")
    kind = previous.error.kind if previous.error else previous.status
    head = f"attempt {previous.attempt} {previous.status} on {previous.device or '?'}"
    return _element(tag, [("message", xml_safe(_short(f"{head}: {_message(previous)}")) or None),
                          ("type", xml_safe(kind) or None)],
                    children=[_element("stackTrace", [], xml_safe(_body(previous)))])


def _testcase(case: CaseResult, run_dir: Path | None) -> tuple[str | None, Element]:
    """(the count its result adds to, if any; the <testcase>)."""
    children: list[Element] = []
    result = _result_for(case)
    if result is not None:
        children.append(result[1])
    final_passed = case.status in ("passed", "flaky")
    children += [_interim_for(prev, final_passed) for prev in case.previous]
    out = "\n\n".join(x for x in (_facts(case), _step_log(case), _attachment(case, run_dir)) if x)
    children.append(_element("system-out", [], xml_safe(out)))
    return (result[0] if result else None,
            _element("testcase", [("name", xml_safe(case.name)),
                                  ("classname", xml_safe(folder(case))),
                                  ("time", str(round(case.duration, 3)))], children=children))


def build_junit(summary: RunSummary, run_dir: Path | None = None) -> str:
    """The JUnit document of a run (suites in first-seen order, cases in run order) as text;
    with ``run_dir``, screenshot attachments are absolute paths."""
    suites: dict[str, tuple[dict[str, float], list[Element]]] = {}
    for case in summary.cases:
        name = suite_name(case)
        if name not in suites:
            suites[name] = ({"tests": 0, "errors": 0, "failures": 0, "skipped": 0, "time": 0}, [])
        counts, cases = suites[name]
        count, element = _testcase(case, run_dir)
        counts["tests"] += 1
        counts["time"] += round(case.duration, 3)
        if count:
            counts[count] += 1
        cases.append(element)
    total = {"tests": 0, "failures": 0, "errors": 0, "time": 0}   # (no skipped there: the schema)
    elements = []
    for name, (counts, cases) in suites.items():
        counts["time"] = round(counts["time"], 3)
        for key in total:
            total[key] += counts[key]
        properties = [_element("property", [("name", "run_id"),
                                            ("value", xml_safe(summary.run_id))])]
        if summary.farm_version:
            properties.append(_element("property", [("name", "farm_version"),
                                                    ("value", xml_safe(summary.farm_version))]))
        elements.append(_element(
            "testsuite", [("name", xml_safe(name)), ("timestamp", xml_safe(summary.started)),
                          *((k, str(counts[k])) for k in ("tests", "errors", "failures",
                                                          "skipped", "time"))],
            children=[_element("properties", [], children=properties), *cases]))
    total["time"] = round(total["time"], 3)
    root = _element("testsuites", [("name", xml_safe(f"farm run {summary.run_id}")),
                                   *((k, str(v)) for k, v in total.items())], children=elements)
    lines = ['<?xml version="1.0" encoding="utf-8"?>']
    _write(root, "", lines)
    return "\n".join(lines) + "\n"


_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "\r": "&#13;"})
# in an attribute a parser turns a raw tab or line break into a space: kept as references
_ATTRIBUTE = {**_TEXT, **str.maketrans({"\t": "&#9;", "\n": "&#10;"})}


def _write(element: Element, indent: str, lines: list[str]) -> None:
    """One tab per level; an element holding only text has it inline, line breaks and all."""
    tag, attrs, text, children = element
    head = indent + "<" + tag + "".join(f' {k}="{v.translate(_ATTRIBUTE)}"'
                                         for k, v in attrs if v is not None)
    if children:
        lines.append(head + ">")
        for child in children:
            _write(child, indent + "\t", lines)
        lines.append(f"{indent}</{tag}>")
    elif text:
        lines.append(f"{head}>{text.translate(_TEXT)}</{tag}>")
    else:
        lines.append(head + "/>")


def write_junit(summary: RunSummary, path: Path, run_dir: Path | None = None) -> Path:
    """Write ``junit.xml`` for ``summary`` to ``path`` (UTF-8, XML-safe); return the path.
    ``run_dir`` (default: the folder of ``path``) resolves screenshot attachments."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(build_junit(summary, Path(run_dir or path.parent).resolve()),
                       encoding="utf-8", newline="\n")
        tmp.replace(path)
    except BaseException:
        discard(tmp)
        raise
    return path
