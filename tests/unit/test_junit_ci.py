"""junit.xml as a CI server reads it: each case keeps its own history (classname + name from the
case id, never its title), the run's and each suite's time are wall time, a page's control
characters show as the console shows them, and a suite that does not load still leaves a
report that says why. Runs use the in-memory ``fake`` device kind (tests/support/devices.py):
``javascript`` passes, ``assertText`` fails; no browser."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import xmlschema

from farm.report.junit import build_junit, write_junit
from farm.results import CaseError, CaseResult, RunSummary, StepRecord
from farm.text import printable
from tests.support.farm_cli import run_main as farm
from tests.support.load_errors import NOT_RUN, problems as listed

XSD = Path(__file__).parents[1] / "schemas" / "junit-10.xsd"
TITLE = "Log in with valid credentials"
PASSES = f"name: {TITLE}\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - javascript: \"1\"\n"
FAILS = PASSES.replace('- javascript: "1"', "- assertText: Welcome back")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def valid(path: Path) -> ET.Element:
    """``path`` checked against the strict Jenkins xUnit schema; its root element."""
    xmlschema.XMLSchema(str(XSD)).validate(str(path))
    return ET.parse(path).getroot()


def cases_of(root: ET.Element) -> dict[tuple[str, str], ET.Element]:
    """Each <testcase> by what CI servers key its history on: (classname, name)."""
    keys = [(tc.get("classname"), tc.get("name")) for tc in root.iter("testcase")]
    assert len(set(keys)) == len(keys), keys
    return dict(zip(keys, root.iter("testcase")))


def facts(testcase: ET.Element) -> dict[str, str]:
    """The ``name: value`` lines that open a testcase's system-out."""
    head = (testcase.findtext("system-out") or "").split("\n\n", 1)[0]
    return dict(line.split(": ", 1) for line in head.splitlines())


# -- #1: one history per case, whatever its title -----------------------------------------------

def test_two_files_with_one_title_are_two_tests_in_ci(here, monkeypatch, capsys):
    """s/a.yaml passes and s/b.yaml fails under the same title: both results reach CI, each
    under its own file's name, the title still shown with it."""
    for rel, text in {"a.yaml": PASSES, "b.yaml": FAILS, "mobile/a.yaml": PASSES}.items():
        (here / "s" / rel).parent.mkdir(parents=True, exist_ok=True)
        (here / "s" / rel).write_text(text)
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:2", "--no-progress",
                          "--report-dir", "r", "--junit-xml", "ci/junit.xml")
    assert code == 1, out + err
    cases = cases_of(valid(here / "ci" / "junit.xml"))
    assert set(cases) == {("s", "a"), ("s", "b"), ("s/mobile", "a")}
    assert cases[("s", "a")].find("failure") is None
    assert cases[("s", "b")].find("failure") is not None
    assert {facts(tc)["title"] for tc in cases.values()} == {TITLE}
    assert facts(cases[("s/mobile", "a")])["case_id"] == "s/mobile/a"


def test_a_renamed_title_keeps_the_case_s_history():
    summary = _summary(_case("shop/checkout/pay", "Pay by card"))
    before = cases_of(ET.fromstring(build_junit(summary)))
    summary.cases[0].name = "Pay with a card"
    after = cases_of(ET.fromstring(build_junit(summary)))
    assert list(before) == list(after) == [("shop/checkout", "pay")]
    assert facts(after[("shop/checkout", "pay")])["title"] == "Pay with a card"


def test_retries_stay_with_their_case_and_a_repeated_id_stays_apart(tmp_path):
    """Flaky and rerun elements belong to the case they retried; a results.json holding one id
    twice (two runs merged by hand) still gives CI two keys."""
    flaky = _case("s/login", "Login", status="flaky", attempt=2,
                  previous=[_case("s/login", "Login", status="failed")])
    failing = _case("s/pay", "Pay", status="failed", attempt=2,
                    previous=[_case("s/pay", "Pay", status="failed")])
    path = write_junit(_summary(flaky, failing, _case("s/pay", "Pay")), tmp_path / "j.xml")
    cases = cases_of(valid(path))
    assert list(cases) == [("s", "login"), ("s", "pay"), ("s", "pay [2]")]
    assert [e.tag for e in cases[("s", "login")]] == ["flakyFailure", "system-out"]
    assert [e.tag for e in cases[("s", "pay")]] == ["failure", "rerunFailure", "system-out"]


# -- #2: times are wall times -------------------------------------------------------------------

def test_suite_and_run_times_are_wall_times_not_sums(tmp_path):
    """Two devices ran overlapping cases: the suite took first start → last end (retries
    included), the run its measured duration, as pytest reports them."""
    cases = [_case("s/a", "A", started="2024-05-01T10:00:00+00:00", duration=5.0),
             _case("s/b", "B", started="2024-05-01T10:00:01+00:00", duration=5.0, attempt=2,
                   previous=[_case("s/b", "B", started="2024-05-01T09:59:58+00:00",
                                   duration=1.0, status="failed")]),
             _case("t/c", "C", started="2024-05-01T10:00:02+00:00", duration=2.5)]
    path = write_junit(_summary(*cases, duration=9.07), tmp_path / "j.xml")
    root = valid(path)
    assert root.get("time") == "9.07"
    assert {s.get("name"): s.get("time") for s in root.iter("testsuite")} == {
        "s": "8.0", "t": "2.5"}
    assert {tc.get("name"): tc.get("time") for tc in root.iter("testcase")} == {
        "a": "5.0", "b": "5.0", "c": "2.5"}


def test_times_fall_back_to_sums_when_results_cannot_tell(tmp_path):
    """An old results.json: no start on a case that took time, no run duration."""
    cases = [_case("s/a", "A", started="", duration=1.25),
             _case("s/b", "B", started="2024-05-01T10:00:00+00:00", duration=2.5)]
    root = valid(write_junit(_summary(*cases, duration=0.0), tmp_path / "j.xml"))
    assert root.get("time") == "3.75" and root.find("testsuite").get("time") == "3.75"


# -- #3: text as the console shows it -----------------------------------------------------------

def test_a_page_s_control_characters_show_as_the_console_shows_them(tmp_path):
    """An ANSI colour, NUL and BEL from a page reach junit.xml escaped whole (``\\x1b[31m``),
    not with the ESC dropped and ``[31m`` left behind."""
    message = "javascript error: boom \x1b[31mred\x1b[0m \x00nul \x07bell"
    label = 'assertText "Cart (99) \x01\x1b[31m"'
    case = _case("s/js", "JS throws", status="failed",
                 error=CaseError(kind="StepFailed", message=message, step=1),
                 steps=[StepRecord(task="t", index=1, kind="javascript", label=label,
                                   status="failed", error=message)])
    path = write_junit(_summary(case), tmp_path / "j.xml")
    text = path.read_text(encoding="utf-8")
    assert not any(ord(c) < 32 and c not in "\t\n" for c in text)
    js = cases_of(valid(path))[("s", "js")]
    failure = js.find("failure")
    assert failure.get("message") == printable(message)
    assert printable(message) == "javascript error: boom \\x1b[31mred\\x1b[0m \\x00nul \\x07bell"
    assert f"StepFailed: {printable(message)}" in failure.text
    assert printable(label) in failure.text and printable(label) in js.findtext("system-out")


# -- #4: a suite that does not load -------------------------------------------------------------

BROKEN = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - aiTapp: go\n      - assertTextt: here\n"


def test_a_suite_that_does_not_load_leaves_a_junit_naming_each_problem(here, monkeypatch,
                                                                       capsys):
    """As pytest reports a collection error: CI shows why (file:line:col: message), not "no
    test report files were found"; the exit code and what stderr says are unchanged."""
    (here / "s").mkdir()
    (here / "s" / "ok.yaml").write_text(PASSES)
    (here / "s" / "bad.yaml").write_text(BROKEN)
    (here / "s" / "worse.yaml").write_text("name: [unclosed\n")
    plain = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress")
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                          "--no-progress", "--junit-xml", "ci/junit.xml")
    assert (code, out, err) == plain and code == 4
    problems = [line.strip() for line in listed(err, NOT_RUN)[1:]]
    assert len(problems) == 3 and problems[0].startswith("s/bad.yaml:6:")
    root = valid(here / "ci" / "junit.xml")
    cases = cases_of(root)
    assert list(cases) == [("farm.load", "s/bad.yaml"), ("farm.load", "s/worse.yaml")]
    assert (root.get("tests"), root.get("errors"), root.get("failures")) == ("2", "2", "0")
    suite = root.find("testsuite")
    assert (suite.get("tests"), suite.get("errors")) == ("2", "2")
    bad = cases[("farm.load", "s/bad.yaml")].find("error")
    assert bad.get("message") == f"{problems[0]} (and 1 more)"
    assert bad.text.splitlines() == problems[:2]
    assert cases[("farm.load", "s/worse.yaml")].find("error").get("message") == problems[2]


def test_a_load_error_with_a_junit_path_that_cannot_be_written_says_only_the_problems(
        here, monkeypatch, capsys):
    (here / "s").mkdir()
    (here / "s" / "bad.yaml").write_text(BROKEN)
    (here / "afile").write_text("hi\n")
    plain = farm(monkeypatch, capsys, "run", "s", "--no-progress")
    assert farm(monkeypatch, capsys, "run", "s", "--no-progress",
                "--junit-xml", "afile/j.xml") == plain
    assert plain[0] == 4 and (here / "afile").read_text() == "hi\n"


# -- helpers ------------------------------------------------------------------------------------

def _case(case_id: str, name: str, status: str = "passed", **kw) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=name, file=f"{case_id}.yaml",
                      platform="web", device="fake-1", status=status, **kw)


def _summary(*cases: CaseResult, duration: float = 1.0) -> RunSummary:
    summary = RunSummary(run_id="r1", started="2024-05-01T10:00:00+00:00", duration=duration,
                         cases=list(cases))
    summary.recount()
    return summary
