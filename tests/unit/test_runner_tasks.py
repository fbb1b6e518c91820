"""How a case's tasks add up to its verdict (farm.runner): a `continueOnError` task that needs
a model or fails (optional, as in Midscene's player), the steps a case without a model runs,
the step a failed case names, the results a case keeps for Midscene's `output:` file, and the
image of a logScreenshot step. Fake devices; a scripted model where a step needs one."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree

import pytest

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.report.html import render_html
from farm.report.junit import write_junit
from farm.results import ArtifactStore, RunSummary
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.run_console import failure_lines
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.farm_cli import run_main

LOGIN = UITree(source="dom", page_text="Shop", nodes=[
    UINode(id=0, role="input", label="Username", editable=True, clickable=True,
           rect=Rect(x=10, y=10, width=200, height=30)),
    UINode(id=1, role="button", text="Sign in", clickable=True,
           rect=Rect(x=10, y=60, width=100, height=30)),
])
HOME = UITree(source="dom", page_text="Welcome back, demo Log out", nodes=[
    UINode(id=0, role="button", text="Log out", clickable=True,
           rect=Rect(x=10, y=10, width=100, height=30)),
])
COOKIES = "//button[@id='accept-cookies']"


def shop(**scripts: object) -> FakeDevice:
    return FakeDevice(screens={"login": LOGIN, "home": HOME}, start="login",
                      transitions={"Sign in": "home"}, scripts=scripts)


def banner(continue_on_error: bool = True) -> Task:
    """The optional step of the audit: a banner that is not there; no zero-token tier finds
    it (its xpath matches nothing, no text like it on screen), so only a model could."""
    return Task(name="optional banner", continue_on_error=continue_on_error, steps=[
        Step(kind="aiTap", target="Accept cookies banner button", xpath=COOKIES, line=8)])


def sign_in(welcome: str = "Welcome back, demo") -> Task:
    return Task(name="sign in", steps=[
        Step(kind="aiInput", target="Username", value="demo", line=12),
        Step(kind="aiTap", target="Sign in", line=14),
        Step(kind="assertText", value=welcome, line=15)])


def case(*tasks: Task) -> Case:
    return Case(id="s/cont", name="cont", file=Path("/tmp/s/cont.yaml"),
                suite_root=Path("/tmp/s"), platform="web",
                web=WebTarget(url="http://127.0.0.1:1/"), tasks=list(tasks))


def run(tmp_path: Path, c: Case, device: FakeDevice | None = None, model: object = None):
    svc = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1", env={},
                   model=model)
    return run_case(Job(c.id, "web", 1), c, device or shop(), svc)


def statuses(res) -> list[tuple[str, str]]:
    return [(s.kind, s.status) for s in res.steps]


# ---- a continueOnError task that needs a model -----------------------------------------------

def test_an_optional_task_that_needs_a_model_ends_only_itself(tmp_path):
    """The audit's case: the skipped banner used to end the whole case and the login after it
    never ran. Now the login runs (a failure in it would fail the case); the case is skipped,
    not passed, for the banner's check never ran (as Midscene's CLI does not count a file
    with a continued failure as passed)."""
    dev = shop()
    res = run(tmp_path, case(banner(), sign_in()), dev)
    assert res.status == "skipped" and res.error is None
    assert res.reason == res.steps[0].error
    assert statuses(res) == [("aiTap", "skipped"), ("aiInput", "passed"), ("aiTap", "passed"),
                             ("assertText", "passed")]
    assert dev.screen == "home"                    # the login really ran
    assert res.steps[0].error == (
        'needs a model (set FARM_MODEL): no zero-token match for "Accept cookies banner '
        f'button" on screen, and its xpath {COOKIES} matched nothing')


def test_after_an_optional_skip_a_later_failure_fails_the_case(tmp_path):
    """What CI must not miss: the login check after the skipped banner is a real check."""
    res = run(tmp_path, case(banner(), sign_in(welcome="Welcome back, admin")))
    assert res.status == "failed"
    assert (res.error.kind, res.error.step) == ("AssertionFailed", 4)
    assert statuses(res)[0] == ("aiTap", "skipped")


def test_an_optional_model_step_is_skipped_and_the_case_goes_on(tmp_path):
    """An `aiAssert` (always a model's) in a continueOnError task, when the case reaches the
    runner: skipped with its reason, the login after it still runs; the case is skipped."""
    optional = Task(name="optional", continue_on_error=True, steps=[
        Step(kind="aiAssert", value="there is no cookie banner", line=8)])
    res = run(tmp_path, case(optional, sign_in()))
    assert res.status == "skipped"
    assert [s.status for s in res.steps[1:]] == ["passed"] * 3
    assert res.steps[0].status == "skipped" and "needs a model" in res.steps[0].error


def test_without_continue_on_error_a_step_that_needs_a_model_still_skips_the_case(tmp_path):
    dev = shop()
    res = run(tmp_path, case(banner(continue_on_error=False), sign_in()), dev)
    assert res.status == "skipped"
    assert res.reason.endswith(f"and its xpath {COOKIES} matched nothing")
    assert statuses(res) == [("aiTap", "skipped"), ("aiInput", "skipped"),
                             ("aiTap", "skipped"), ("assertText", "skipped")]
    assert dev.screen == "login"                   # nothing after it ran


def test_without_a_model_the_case_runs_up_to_its_first_model_step(tmp_path):
    """The audit's checkout smoke the other way round: the login runs; the aiAssert after it
    and every step after that are skipped, named with its line; the case is skipped (it was
    not fully checked), never passed."""
    dev = shop()
    visual = Task(name="visual check", steps=[
        Step(kind="aiAssert", value="the avatar is round", line=18),
        Step(kind="assertText", value="Welcome back", line=19)])
    res = run(tmp_path, case(sign_in(), visual), dev)
    assert res.status == "skipped"
    assert res.reason == "needs a model (set FARM_MODEL): aiAssert at line 18"
    assert statuses(res) == [("aiInput", "passed"), ("aiTap", "passed"),
                             ("assertText", "passed"), ("aiAssert", "skipped"),
                             ("assertText", "skipped")]
    assert res.steps[3].error == res.reason and dev.screen == "home"


def test_a_case_whose_first_step_needs_a_model_opens_no_session(tmp_path):
    """What a worker without a model decides, as `farm run` does up front: no browser for a
    case that can do nothing; its steps listed as skipped."""
    dev = shop()
    first = Task(name="look", steps=[Step(kind="aiQuery", value="the user name", line=7)])
    res = run(tmp_path, case(first, sign_in()), dev)
    assert res.status == "skipped"
    assert res.reason == "needs a model (set FARM_MODEL): aiQuery at line 7"
    assert [s.status for s in res.steps] == ["skipped"] * 4
    assert not [a for a in dev.actions if a[0] == "start_session"]


def test_a_case_whose_only_task_needs_a_model_is_skipped_not_passed(tmp_path):
    """continueOnError lets later tasks run; with nothing else in the case nothing was
    checked, and a green "passed" would say otherwise."""
    res = run(tmp_path, case(banner()))
    assert res.status == "skipped" and "needs a model" in res.reason


# ---- the step a failed case names ------------------------------------------------------------

def soft_check() -> Task:
    return Task(name="soft check", continue_on_error=True, steps=[
        Step(kind="assertText", value="This text is not there", line=10)])


def test_a_failed_case_names_the_step_that_ended_it_not_an_allowed_failure(tmp_path):
    """The audit's fail/cont: the soft check (continueOnError) fails at step 1, the hard check
    fails for real at step 5. The headline, results.json's error and the evidence image are
    step 5's."""
    hard = Task(name="hard check", steps=[Step(kind="assertNoText", value="Log out", line=20)])
    never = Task(name="never reached", steps=[Step(kind="assertText", value="Log out", line=23)])
    res = run(tmp_path, case(soft_check(), sign_in(), hard, never))
    assert res.status == "failed"
    assert (res.error.kind, res.error.step) == ("AssertionFailed", 5)
    assert "Log out" in res.error.message and "not there" not in res.error.message
    assert res.screenshot == res.steps[4].after != res.steps[0].after   # after the login
    assert statuses(res) == [("assertText", "failed"), ("aiInput", "passed"),
                             ("aiTap", "passed"), ("assertText", "passed"),
                             ("assertNoText", "failed"), ("assertText", "skipped")]
    [line] = failure_lines(RunSummary(run_id="r1", started="", cases=[res]))
    assert line.startswith(f"FAILED s/cont ({res.file}:20) — step 5: ")


def test_a_failure_in_an_optional_task_fails_the_case_and_the_later_tasks_are_kept(tmp_path):
    """Midscene's player runs the tasks after a failed continueOnError task, and its CLI counts
    the file partialFailed (not a success, exit 1). farm runs them too and fails the case at
    the optional check: its error and screenshot are that step's, the later steps' results
    are kept, the reason, JUnit's failure and the report's case row say the case went on."""
    res = run(tmp_path, case(soft_check(), sign_in()))
    assert res.status == "failed"
    assert (res.error.kind, res.error.step) == ("AssertionFailed", 1)
    assert res.screenshot == res.steps[0].after
    assert statuses(res)[0] == ("assertText", "failed")
    assert [s.status for s in res.steps[1:]] == ["passed"] * 3
    assert res.reason == ('continued after: step 1 failed: expected text "This text is not '
                          'there" is not on screen')
    summary = RunSummary(run_id="r1", started="", cases=[res])
    [line] = failure_lines(summary)
    assert line.startswith(f"FAILED s/cont ({res.file}:10) — step 1: ")
    write_junit(summary, tmp_path / "junit.xml")
    failure = ElementTree.parse(tmp_path / "junit.xml").find(".//testcase/failure")
    assert failure is not None and res.reason in failure.text.splitlines()
    row = render_html(summary).split('<details class="case st-failed"')[1].split("</summary>")[0]
    assert "continued after a failed step" in row     # the collapsed row says so


def test_an_error_in_an_optional_task_still_ends_the_case_as_an_error(tmp_path):
    """continueOnError forgives the app, not farm's environment: a device that died in an
    optional task is an error (retried elsewhere), never a pass."""
    probe = Task(name="optional probe", continue_on_error=True, steps=[
        Step(kind="javascript", value="probe", line=9)])
    res = run(tmp_path, case(probe, sign_in()), shop(probe=DeviceLost("browser crashed")))
    assert res.status == "error" and res.error.kind == "DeviceLost"
    assert res.steps[0].status == "error"
    assert [s.status for s in res.steps[1:]] == ["skipped"] * 3


def test_an_optional_failure_before_a_step_that_needs_a_model_fails_the_case(tmp_path):
    """A failure before a step that needs a model still fails the case (not skipped): at the
    optional check, with the steps after it kept and the model step skipped."""
    later = Task(name="visual", steps=[Step(kind="aiAssert", value="it looks right", line=30)])
    res = run(tmp_path, case(soft_check(), sign_in(), later))
    assert res.status == "failed" and res.error.step == 1
    assert res.reason.startswith("continued after: step 1 failed: ")
    assert statuses(res)[-1] == ("aiAssert", "skipped")


# ---- the results kept for the output: file ---------------------------------------------------

def test_unnamed_results_are_kept_under_midscene_numbers(tmp_path):
    """Midscene's script player keeps a result without `name:` under the number of the unnamed
    results so far ("0", "1", …); javascript keeps its number and its value when that is
    null. Named results keep their name; steps that return no data (taps, checks) take no
    number and add no key."""
    dev = shop(title="Shop", nothing=None, cart={"items": 2}, user="demo")
    js = lambda code, **kw: Step(kind="javascript", value=code, **kw)  # noqa: E731
    c = case(Task(name="t", steps=[
        js("title"), js("user", options={"name": "who"}), Step(kind="aiTap", target="Sign in"),
        js("nothing"), Step(kind="assertText", value="Welcome back"), js("cart")]))
    res = run(tmp_path, c, dev)
    assert res.status == "passed"
    assert res.data == {"0": "Shop", "who": "demo", "1": None, "2": {"items": 2}}


def test_a_null_answer_is_kept_under_its_name_or_number(tmp_path):
    """The audit's coupon: an aiQuery (and a javascript) answering null is kept as null, so a
    script reading the output: file tells "answered null" from "never ran"; a named tap that
    returned nothing adds no key (Midscene keeps an action's result only when it has one)."""
    model = ModelSet.single(ScriptedModelClient(['{"data": null}', '{"data": "Shop"}']))
    c = case(Task(name="t", steps=[
        Step(kind="aiQuery", value="the coupon code, or null", options={"name": "coupon"}),
        Step(kind="aiString", value="the heading", options={"name": "heading"}),
        Step(kind="javascript", value="nothing"),
        Step(kind="aiTap", target="Sign in", options={"name": "tapped"})]))
    res = run(tmp_path, c, shop(nothing=None), model=model)
    assert res.status == "passed", res.error
    assert res.data == {"coupon": None, "heading": "Shop", "0": None}


# ---- the image of a step that is there to take one -------------------------------------------

@pytest.mark.parametrize("mode", ["on-failure", "off"])
def test_log_screenshot_takes_its_image_whatever_the_screenshots_mode(tmp_path, mode):
    """logScreenshot / recordToReport exist to put the screen in the report: they get their
    image even when the run keeps no others; the steps around them get none."""
    c = case(Task(name="t", steps=[
        Step(kind="logScreenshot", value="the login page"),
        Step(kind="aiInput", target="Username", value="demo"),
        Step(kind="recordToReport", value="after typing")]))
    svc = Services(settings=Settings(screenshots=mode), artifacts=ArtifactStore(tmp_path),
                   run_id="r1", env={})
    res = run_case(Job(c.id, "web", 1), c, shop(), svc)
    svc.artifacts.flush()
    assert res.status == "passed"
    shots = [s.after for s in res.steps]
    assert shots[0] and shots[2] and shots[1] is None
    assert all((tmp_path / shot).is_file() for shot in (shots[0], shots[2]))


# ---- as the user runs it ---------------------------------------------------------------------

BANNER_THEN_LOGIN = """\
web:
  url: http://app.invalid/
tasks:
  - name: optional banner
    continueOnError: true
    flow:
      - {optional}
  - name: sign in
    flow:
      - assertText: Welcome back, demo
"""


@pytest.mark.parametrize("optional", [
    f"aiTap: Accept cookies banner button\n        xpath: \"{COOKIES}\"",
    "aiAssert: the cookie banner is gone",      # a step that always needs a model
])
def test_farm_run_fails_when_the_check_after_a_skipped_optional_task_fails(
        tmp_path, monkeypatch, capsys, optional):
    """`farm run` on the audit's suite (a fake device shows an empty page, so the login check
    fails): exit 1 and the failure named, no longer "1 skipped", exit 0 -- also when the
    optional step is one only a model can run (not skipped up front with its case)."""
    text = BANNER_THEN_LOGIN.format(optional=optional)
    check = text.splitlines().index("      - assertText: Welcome back, demo") + 1
    code, out = farm_run(tmp_path, monkeypatch, capsys, text)
    assert code == 1
    assert "farm: 1 failed" in out
    assert f"FAILED s/coe (s/coe.yaml:{check}) — step 2: " in out


def farm_run(tmp_path, monkeypatch, capsys, text: str) -> tuple[int, str]:
    """`farm run` of the case ``text`` (as s/coe.yaml) on a fake device, without a model."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "coe.yaml").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_MODEL", "FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL",
                 "CELERY_BROKER_URL", "FARM_TEST_FAKE_JOURNAL"):
        monkeypatch.delenv(name, raising=False)
    code, out, _ = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                            "--no-progress", "--report-dir", "r")
    return code, out


CHECK_THEN_LOOK = """\
web:
  url: http://app.invalid/
tasks:
  - name: deterministic part
    flow:
      - assertText: Searched for teapot
  - name: visual check
    flow:
      - aiAssert: the result line is bold
"""


def test_farm_run_without_a_model_runs_the_checks_before_a_model_step(tmp_path, monkeypatch,
                                                                      capsys):
    """The audit's checkout smoke: its deterministic check is wrong, its last task an
    aiAssert. Without a model the check runs and fails the run (exit 1), instead of the whole
    case being skipped up front with exit 0."""
    code, out = farm_run(tmp_path, monkeypatch, capsys, CHECK_THEN_LOOK)
    assert code == 1, out
    assert "FAILED s/coe (s/coe.yaml:6) — step 1: " in out and "farm: 1 failed" in out


def test_farm_run_fails_a_case_whose_optional_task_failed(tmp_path, monkeypatch, capsys):
    """The audit's optional promo check on a fake device (its page is empty, its scripts
    answer null): exit 1, as Midscene's CLI for a partialFailed file, the FAILED line at the
    optional check, no PASSED warning."""
    text = BANNER_THEN_LOGIN.format(optional="assertText: 20% off today").replace(
        "assertText: Welcome back, demo", "javascript: document.title")
    code, out = farm_run(tmp_path, monkeypatch, capsys, text)
    assert code == 1, out
    assert "farm: 1 failed" in out
    assert "FAILED s/coe (s/coe.yaml:7) — step 1: " in out and "warning: PASSED" not in out
