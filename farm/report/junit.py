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

from junitparser import Error, Failure, JUnitXml, Skipped, xunit2

from farm.results import CaseResult, RunSummary, StepRecord

# Everything XML 1.0 cannot carry (control characters, lone surrogates, U+FFFE/U+FFFF).
_INVALID_XML = re.compile(
    "[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
)
_MESSAGE_LIMIT = 500


def xml_safe(text: object) -> str:
    """``str(text)`` with every character XML 1.0 cannot represent removed."""
    return _INVALID_XML.sub("", str(text))


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


def _result_for(case: CaseResult) -> Failure | Error | Skipped | None:
    msg = xml_safe(_short(_message(case)))
    if case.status == "failed":
        kind = case.error.kind if case.error else "Failure"
        result: Failure | Error | Skipped = Failure(msg, kind)
    elif case.status == "error":
        result = Error(msg, case.error.kind if case.error else "Error")
    elif case.status == "interrupted":
        result = Error(msg or "interrupted", "Interrupted")
    elif case.status == "skipped":
        return Skipped(xml_safe(_short(case.reason or _message(case))))
    else:
        return None
    result.text = xml_safe(_body(case))
    return result


def _interim_for(previous: CaseResult, final_passed: bool) -> xunit2.InterimResult:
    """An earlier attempt: flaky* when the case passed in the end, rerun* otherwise."""
    infra = previous.status in ("error", "interrupted")
    if final_passed:
        cls = xunit2.FlakyError if infra else xunit2.FlakyFailure
    else:
        cls = xunit2.RerunError if infra else xunit2.RerunFailure
    kind = previous.error.kind if previous.error else previous.status
    head = f"attempt {previous.attempt} {previous.status} on {previous.device or '?'}"
    interim = cls(xml_safe(_short(f"{head}: {_message(previous)}")), xml_safe(kind))
    interim.stack_trace = xml_safe(_body(previous))
    return interim


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
             "platform": case.platform, "device": case.device, "attempt": str(case.attempt),
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


def _testcase(case: CaseResult, run_dir: Path | None) -> xunit2.TestCase:
    tc = xunit2.TestCase(xml_safe(case.name), xml_safe(folder(case)), round(case.duration, 3))
    result = _result_for(case)
    if result is not None:
        tc.result = result
    final_passed = case.status in ("passed", "flaky")
    for prev in case.previous:
        tc.add_interim_result(_interim_for(prev, final_passed))
    out = "\n\n".join(x for x in (_facts(case), _step_log(case), _attachment(case, run_dir)) if x)
    tc.system_out = xml_safe(out)
    return tc


def build_junit(summary: RunSummary, run_dir: Path | None = None) -> JUnitXml:
    """Build the JUnit document for a run (suites in first-seen order, cases in run order);
    with ``run_dir``, screenshot attachments are absolute paths."""
    xml = JUnitXml(xml_safe(f"farm run {summary.run_id}"))
    suites: dict[str, xunit2.TestSuite] = {}
    for case in summary.cases:
        name = suite_name(case)
        suite = suites.get(name)
        if suite is None:
            suite = suites[name] = xunit2.TestSuite(xml_safe(name))
            suite.timestamp = xml_safe(summary.started)
            suite.add_property("run_id", xml_safe(summary.run_id))
            if summary.farm_version:
                suite.add_property("farm_version", xml_safe(summary.farm_version))
        suite._add_testcase_no_update_stats(_testcase(case, run_dir))
    for suite in suites.values():
        xml.append(suite)
    xml.update_statistics()
    for suite in suites.values():
        suite.time = round(suite.time, 3)        # the schema allows three decimals
    del xml._elem.attrib["skipped"]              # not an attribute of <testsuites> there
    return xml


def write_junit(summary: RunSummary, path: Path, run_dir: Path | None = None) -> Path:
    """Write ``junit.xml`` for ``summary`` to ``path`` (UTF-8, XML-safe); return the path.
    ``run_dir`` (default: the folder of ``path``) resolves screenshot attachments."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    build_junit(summary, Path(run_dir or path.parent).resolve()).write(str(tmp), pretty=True)
    tmp.replace(path)
    return path
