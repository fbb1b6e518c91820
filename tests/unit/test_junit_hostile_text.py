"""junit.xml stays a document every CI consumer reads whatever text a case carries: a case id (the
testcase's name and classname), a title, a step's label, a step's error holding a model's reply,
tags, a device's description and earlier attempts, with every C0 control character, DEL and the
C1 controls, U+FFFE / U+FFFF, lone surrogates, ``]]>``, quotes and markup. A single one of them
written raw makes the whole file unparseable, and Jenkins or GitLab then shows no test at all."""

from __future__ import annotations

from pathlib import Path

import xmlschema
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from junitparser import Error, Failure, JUnitXml, Skipped

from farm.report.junit import write_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.text import printable

XSD = xmlschema.XMLSchema(str(Path(__file__).parents[1] / "schemas" / "junit-10.xsd"))
HOSTILE = [chr(c) for c in range(0x20)] + ["\x7f", "\x85", "\x9b", "\ufffe", "\uffff",
                                          "]]>", "<![CDATA[", "&amp;", '"', "'", "<b>", "&#0;"]
# what may reach a report: no lone surrogate (farm.text.clean makes them U+FFFD where text
# enters farm; `test_a_lone_surrogate_is_left_out_not_a_broken_file` covers one anyway)
TEXT = st.lists(st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_categories=("Cs",))),
                min_size=1, max_size=12).map("".join)


def _summary(text: str) -> RunSummary:
    reply = f"the model's reply is not an action: {text}"
    steps = [StepRecord(task=text, index=1, kind="ai", label=f"aiTap {text}", status="failed",
                        error=reply, tier=text)]
    earlier = CaseResult(run_id="r", case_id=f"s/{text}/c", name=text, file=f"{text}.yaml",
                         platform="web", device=text, status="error", steps=steps,
                         error=CaseError(kind="ModelError", message=reply))
    cases = [CaseResult(run_id="r", case_id=f"s/{text}/{status}", name=text, file=f"{text}.yaml",
                        platform="web", device=text, device_info=text, status=status,
                        attempt=2, previous=[earlier], steps=steps, tags=[text], reason=text,
                        since_last=text,
                        error=CaseError(kind="StepFailed", message=reply, step=1)
                        if status in ("failed", "error") else None)
             for status in ("passed", "flaky", "failed", "error", "skipped", "interrupted")]
    summary = RunSummary(run_id=f"r{text}", started="2024-05-01T10:00:00+00:00", duration=1.0,
                         farm_version=text, cases=cases)
    summary.recount()
    return summary


def _read(path: Path) -> dict[str, object]:
    """The file as the strict Jenkins xUnit schema and junitparser read it: cases by name."""
    XSD.validate(str(path))
    return {case.name: case for suite in JUnitXml.fromfile(str(path)) for case in suite}


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXT)
def test_any_text_in_any_field_leaves_a_junit_file_ci_reads(tmp_path: Path, text: str) -> None:
    """Every case is there under its own name as the console shows it (a control character as
    ``\\x1b``), with its verdict and a message a CI server shows, in a file that parses."""
    path = write_junit(_summary(text), tmp_path / "junit.xml")
    raw = path.read_text(encoding="utf-8")
    assert not any(ord(c) < 0x20 and c not in "\t\n" for c in raw)
    cases = _read(path)
    folder = printable(f"s/{text}")
    assert {c.classname for c in cases.values()} == {folder}
    verdicts = {name: [type(r) for r in case.result] for name, case in cases.items()}
    assert verdicts == {"passed": [], "flaky": [], "failed": [Failure], "error": [Error],
                        "skipped": [Skipped], "interrupted": [Error]}
    failure = cases["failed"].result[0]
    assert failure.message.startswith("the model's reply is not an action:")
    assert f"aiTap {printable(text)}" in failure.text
    assert f"device_info: {printable(text)}" in cases["failed"].system_out


def test_a_lone_surrogate_is_left_out_not_a_broken_file(tmp_path: Path) -> None:
    """Half an emoji from a page (JavaScript's UTF-16 cut in two) that got past cleaning."""
    text = "a\ud83d]]>\x00b"
    cases = _read(write_junit(_summary(text), tmp_path / "junit.xml"))
    assert cases["failed"].classname == "s/a]]>\\x00b"
