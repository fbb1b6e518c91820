"""Allure results (``--alluredir DIR``), written with allure-python-commons' own model: one
result per attempt (earlier attempts share the case's historyId, so Allure shows them as
retries; each file is named after a uuid of its run, case and attempt, so writing a run again
replaces its files), one step per case step with its screenshot, labels for suite, device,
platform and tags.

Status mapping: passed → passed (earlier attempts, where its device broke, named in its
statusDetails message, not results of their own); flaky → passed with statusDetails.flaky; failed → failed
(statusDetails.known when it was already failing last run); error → broken (infrastructure);
skipped → skipped; interrupted → broken at stage "interrupted", with a message (it did not
finish, as junit.xml's <error type="Interrupted">; allure-java's model has no "unknown" status,
so Allure's reader would drop such a result). Names and messages are shown as the console shows
them (`farm.text.printable`: a page's ESC or BEL becomes ``\\x1b``, ``\\x07``).
"""

from __future__ import annotations

import hashlib
import posixpath
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from farm.report.html import cut_long
from farm.results import CaseResult, RunSummary, StepRecord, own_duration, timestamp
from farm.run_log import one_line
from farm.text import printable

if TYPE_CHECKING:
    from farm.errors import SuiteError

_STATUS = {"passed": "passed", "flaky": "passed", "failed": "failed", "error": "broken",
           "skipped": "skipped", "interrupted": "broken"}


def _ms(iso: str, plus: float = 0.0) -> int | None:
    at = timestamp(iso)
    return None if at is None else round((at + plus) * 1000)


def _message(c: CaseResult) -> str | None:
    """A result's statusDetails message: its error, else its reason; an interrupted case says
    so even without one (as an error does, through its error)."""
    if c.error is not None:
        lines = [f"{c.error.kind}: {c.error.message}"]
        lines += [f"later attempt {p.attempt} {p.status}: " + (
            f"{p.error.kind}: {p.error.message[:200]}" if p.error else p.reason or p.status)
            for p in c.previous if p.attempt > c.attempt]  # (write_allure: none)
        if c.reason and len(lines) == 1:    # "not retried: the model budget is spent"
            lines.append(c.reason)
        return printable("\n".join(lines))
    if c.status == "passed":        # a continueOnError step's failure; the devices that broke
        said = [c.reason or ""] + [_earlier(p) for p in c.previous]
        return printable("\n".join(line for line in said if line)) or None
    why = c.reason or ("interrupted" if c.status == "interrupted" else None)
    return printable(why) if why else None


def _earlier(previous: CaseResult) -> str:
    """An earlier attempt of a case that passed (its device broke: retried on another one),
    as junit.xml's ``earlier_attempt:`` fact says it."""
    why = (f"{previous.error.kind}: {previous.error.message}" if previous.error else
           previous.reason or previous.status)
    return (f"earlier attempt {previous.attempt} {previous.status} on "
            f"{previous.device or '?'} (a device error, not the case's): {why}")


def _lane(device: str | None) -> list[tuple[str, str]]:
    """Allure's Timeline lanes (host, then thread, as allure-pytest labels them): the machine
    (a cluster device's ``@host``, else this one) and the device; none for a case that ran on
    none (skipped before it started)."""
    if not device:
        return []
    import socket
    host = device.rpartition("@")[2] if "@" in device else socket.gethostname()
    return [("host", host), ("thread", device)]


def _uuid(*parts: object) -> str:
    """The same uuid for the same run, case, attempt (and file): writing a run's results into
    one --alluredir again (`farm report RUN_DIR --alluredir`) replaces its files instead of
    adding copies, which Allure would show as retries (and a failed case as flaky)."""
    name = "\x00".join(str(p) for p in parts).encode("utf-8", "surrogatepass")
    return str(uuid.UUID(bytes=hashlib.sha1(b"farm allure\x00" + name).digest()[:16],
                         version=5))


class _Writer:
    def __init__(self, run_dir: Path, out: Path) -> None:
        from allure_commons.logger import AllureFileLogger
        self.run_dir = run_dir
        self.out = Path(out).absolute()
        self.logger = AllureFileLogger(str(out))       # makes the folder; copies attachments

    def attach(self, rel: str | None, name: str, owner: str = "") -> list:
        """The screenshot ``rel`` (relative to the run dir) copied in, as an Attachment: a
        JPEG, or a marked copy's SVG (Allure shows both as images)."""
        from allure_commons.model2 import ATTACHMENT_PATTERN, Attachment
        from farm.report.paths import run_file
        path = run_file(self.run_dir, rel)     # a file of the run's only: Allure copies it
        if rel is None or path is None:
            return []
        svg = rel.lower().endswith(".svg")
        ext, kind = ("svg", "image/svg+xml") if svg else ("jpg", "image/jpeg")
        source = ATTACHMENT_PATTERN.format(prefix=_uuid(owner, name, rel), ext=ext)
        if svg:     # a marked copy links to its JPEG, which Allure's viewer would not load
            self.logger.report_attached_data(self.standalone(rel, path), source)
        else:
            self.logger.report_attached_file(str(path), source)
        return [Attachment(name=name, source=source, type=kind)]

    def standalone(self, rel: str, path: Path) -> bytes:
        """The marked copy at ``path`` with the screenshot it links to embedded (one of the
        run's files only, as attachments are)."""
        from farm.report.marks import standalone
        from farm.report.paths import run_file

        def read(href: str) -> bytes | None:
            image = run_file(self.run_dir, posixpath.join(posixpath.dirname(rel), href))
            try:
                return image.read_bytes() if image is not None else None
            except OSError:
                return None
        return standalone(path.read_bytes(), read)

    def step(self, st: StepRecord, owner: str):
        from allure_commons.model2 import Parameter, StatusDetails, TestStepResult
        start = _ms(st.started)
        result = TestStepResult(
            name=printable(f"{st.index}. {one_line(st.label)}"),
            status=_STATUS.get(st.status, "broken"),
            stage="finished", start=start,
            stop=start + round(st.duration * 1000) if start is not None else None,
            attachments=self.attach(st.marked or st.after, "screenshot", owner),
            parameters=[Parameter(name=k, value=str(v)) for k, v in
                        (("task", st.task), ("tier", st.tier), ("line", st.line),
                         ("step", st.label if one_line(st.label) != st.label else ""))
                        if v])      # (a multi-line step, a script: whole)
        if st.error:    # (the test's statusDetails hold the case's error whole)
            result.statusDetails = StatusDetails(message=printable(cut_long(st.error)))
        return result

    def case(self, c: CaseResult, summary: RunSummary) -> None:
        from allure_commons.model2 import Label, StatusDetails, TestResult
        digest = hashlib.sha256(c.case_id.encode("utf-8", "surrogatepass")).hexdigest()
        # the folder below the suite ("checkout" of demo/checkout/pay); none at its top, where
        # "demo" again would nest the suite's own cases one level under themselves in Allure
        folder = "/".join(c.case_id.split("/")[1:-1])
        labels = [("suite", c.case_id.split("/", 1)[0]), ("parentSuite", "farm"),
                  ("subSuite", folder), ("platform", c.platform), ("framework", "farm"),
                  ("device", c.device or ""), *_lane(c.device),
                  *[("tag", t) for t in c.tags]]
        start = _ms(c.started)
        own = _uuid(summary.run_id, c.case_id, c.attempt, c.started)
        result = TestResult(
            uuid=own, historyId=digest[:32], testCaseId=digest[32:],
            name=printable(c.name), fullName=c.case_id, status=_STATUS.get(c.status, "broken"),
            stage="finished" if c.status != "interrupted" else "interrupted",
            start=start, stop=start + round(own_duration(c) * 1000) if start is not None else None,
            labels=[Label(name=k, value=v) for k, v in labels if v],
            steps=[self.step(st, own) for st in c.steps],
            attachments=self.attach(c.screenshot, "last screenshot", own)
            if c.status != "passed" else [],
            titlePath=c.case_id.split("/")[:-1])
        message = _message(c)
        if message or c.status == "flaky" or c.since_last:
            result.statusDetails = StatusDetails(
                # flaky: passed on a retry in this run; a red case unstable across runs is
                # not (Allure finds that from its own history)
                message=message, flaky=c.status == "flaky" or None,
                known=c.since_last == "still failing" or None)
        self.result(result)

    def result(self, result) -> None:
        """``<uuid>-result.json``, as allure-python-commons' file logger writes one, but named
        after the result's own (stable) uuid, where the logger takes a random one each time."""
        import json

        from attr import asdict
        from farm.report.paths import replace_file
        data = asdict(result, filter=lambda _, v: v or v is False)
        replace_file(self.out / f"{result.uuid}-result.json",
                     json.dumps(data, ensure_ascii=False).encode("utf-8"))


def write_allure(summary: RunSummary, run_dir: Path, out: Path) -> Path:
    """Allure result files for every attempt of every case of ``summary`` into ``out``, but
    the earlier attempts of a case that passed: only its devices broke there, and Allure calls
    a test whose retries failed or broke flaky (its RetryPlugin, whatever statusDetails say),
    as farm, junit.xml and the console do not. Its statusDetails message names them."""
    writer = _Writer(Path(run_dir), Path(out))
    for case in summary.cases:
        if case.status != "passed":
            # not an attempt after the verdict (a failure's retry that was skipped: Allure
            # shows the latest attempt as the test's result); its message names it
            for earlier in (p for p in case.previous if p.attempt < case.attempt):
                writer.case(earlier, summary)
        writer.case(case, summary)
    return Path(out)


def write_load_errors_allure(errors: Sequence[SuiteError], out: Path) -> Path:
    """Allure results of suites that did not load, as junit.xml's ``farm.load`` cases
    (`farm.report.junit.build_load_errors`): one ``broken`` result per file with problems,
    its message naming the first (``file:line:col: message``), its trace listing all. Each is
    named after its file (a fixed uuid), so a later load error of that file replaces it: an
    Allure report of the folder shows the failed load red, not only last night's results."""
    import time

    from allure_commons.model2 import Label, StatusDetails, TestResult
    writer = _Writer(Path(out), Path(out))
    by_file: dict[str, list[SuiteError]] = {}
    for error in errors:
        by_file.setdefault(error.file, []).append(error)
    now = round(time.time() * 1000)
    for file, problems in by_file.items():
        digest = hashlib.sha256(f"farm.load\x00{file}".encode("utf-8", "surrogatepass"))
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        writer.result(TestResult(
            uuid=_uuid("farm.load", file), historyId=digest.hexdigest()[:32],
            testCaseId=digest.hexdigest()[32:], name=printable(file),
            fullName=f"farm.load/{file}", status="broken", stage="finished",
            start=now, stop=now,
            labels=[Label(name=k, value=v) for k, v in (
                ("suite", "farm.load"), ("parentSuite", "farm"), ("framework", "farm"))],
            statusDetails=StatusDetails(
                message=printable(f"{problems[0]}{more}"),
                trace=printable("\n".join(str(p) for p in problems))),
            titlePath=["farm.load"]))
    return Path(out)
