"""aiAssert, aiWaitFor, aiQuery / aiBoolean / aiNumber / aiString and the assertion model, with
the in-process scripted client on a FakeDevice.

* the judge sees the screen as it is now (not a cached frame), its reason is the failure
  message; with ``errorMessage`` it is worded as Midscene words it (the suite's words,
  then "Reason:" and the model's);
* aiWaitFor looks again until the statement holds, and when the time is up fails with the
  judge's last reason; time is a fake clock the wait's own sleeps move forward;
* query answers are typed by the step kind (a wrong type is sent back once, then it is a model
  error);
* FARM_ASSERT_MODEL builds a judge of its own: the planner is not asked to grade itself.
"""

import os
from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.agent.images import data_url
from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import AssertionFailed, CaseTimeout, ModelUnavailable
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet, build_models
from tests.support.model_server import message_texts, request_images

STATEMENT = "the welcome page is shown"


def app():
    """A page that is still loading, and the welcome page it becomes."""
    return FakeDevice(screens={"loading": UITree(source="dom", page_text="please wait"),
                               "welcome": UITree(source="dom", page_text="Welcome back")})


def shown(messages):
    """The screenshot a request carries."""
    (url,) = request_images({"messages": messages})
    return url


def asked(messages):
    return "\n".join(message_texts({"messages": messages}))


def judge_of(dev):
    """A judge that looks at the screenshot it was sent: passes on the welcome page only."""
    welcome = data_url(screenshot_of(dev, "welcome"))

    def judge(messages, i):
        if shown(messages) == welcome:
            return '{"pass": true, "thought": "the welcome text is there"}'
        return f'{{"pass": false, "thought": "a spinner is still shown (look {i + 1})"}}'
    return judge


def screenshot_of(dev, screen):
    now, dev.screen = dev.screen, screen
    try:
        return dev.screenshot()
    finally:
        dev.screen = now


def frozen_grabber(dev):
    """A screenshot cache that never expires by age: only farm's invalidation refreshes it."""
    return ScreenshotGrabber(dev, clock=lambda: 0.0)


# ---- aiAssert ---------------------------------------------------------------------------------
def test_the_judge_sees_the_screen_as_it_is_now():
    dev = app()
    judge = ScriptedModelClient(judge_of(dev))
    agent = Agent(dev, ModelSet.single(judge), grabber=frozen_grabber(dev))
    agent.grabber.grab()                        # a frame of the loading page is cached ...
    dev.screen = "welcome"                      # ... and the page changes on its own
    agent.ai_assert(STATEMENT)
    assert shown(judge.requests[0]) == data_url(dev.screenshot())
    assert f"Statement: {STATEMENT}" in asked(judge.requests[0])


def test_a_failed_assertion_says_why_in_the_model_s_words():
    dev = app()
    agent = Agent(dev, ModelSet.single(ScriptedModelClient(judge_of(dev))))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_assert(STATEMENT)
    assert str(failed.value) == (f'aiAssert "{STATEMENT}" failed: a spinner is still shown '
                                 "(look 1)")


def test_error_message_words_the_failure_with_the_model_s_reason():
    dev = app()
    agent = Agent(dev, ModelSet.single(ScriptedModelClient(judge_of(dev))))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_assert(STATEMENT, error_message="login is broken")
    assert str(failed.value) == ("Assertion failed: login is broken\n"
                                 "Reason: a spinner is still shown (look 1)")


def test_an_unreadable_verdict_is_asked_again_then_a_model_error():
    dev = app()
    judge = ScriptedModelClient(['{"pass": "maybe"}', '{"pass": true, "thought": "ok"}'])
    Agent(dev, ModelSet.single(judge)).ai_assert(STATEMENT)
    assert len(judge.requests) == 2 and 'expected {"pass": true|false' in asked(judge.requests[1])
    for garbage in ("I think so", "[" * 100_000):       # the second: deeper than json can go
        judge = ScriptedModelClient([garbage])
        with pytest.raises(ModelUnavailable, match="assert reply could not be parsed twice"):
            Agent(dev, ModelSet.single(judge)).ai_assert(STATEMENT)


def test_ai_assert_steps_in_a_case(tmp_path):
    """Through run_case: a pass, a failure with the model's reason, one with errorMessage."""
    from farm.suite.model import Step
    dev = app()
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT)])
    assert res.status == "failed"
    assert "a spinner is still shown (look 1)" in res.error.message
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken"})])
    assert res.status == "failed" and "login is broken" in res.error.message
    assert "Reason: a spinner is still shown" in res.error.message
    dev = app()
    dev.start = "welcome"
    res = run_steps(tmp_path, dev, ScriptedModelClient(judge_of(dev)), [
        Step(kind="aiAssert", value=STATEMENT, options={"errorMessage": "login is broken"})])
    assert res.status == "passed", res.error


# ---- aiWaitFor ----------------------------------------------------------------------------------
class FakeClock:
    """Stands in for the ``time`` module of farm.agent.api: ``sleep`` moves the clock (and
    the app: the page loads once ``load_at`` is reached) instead of waiting."""

    def __init__(self, dev, load_at=float("inf")):
        self.now, self.dev, self.load_at, self.slept = 1000.0, dev, 1000.0 + load_at, []

    def monotonic(self):
        return self.now

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.now += seconds
        if self.now >= self.load_at:
            self.dev.screen = "welcome"


@pytest.fixture
def clock(monkeypatch):
    def install(dev, load_at=float("inf")):
        fake = FakeClock(dev, load_at)
        monkeypatch.setattr("farm.agent.api.time", fake)
        return fake
    return install


def test_ai_wait_for_looks_again_until_the_statement_holds(clock):
    dev = app()
    time = clock(dev, load_at=3)
    judge = ScriptedModelClient(judge_of(dev))
    agent = Agent(dev, ModelSet.single(judge), grabber=frozen_grabber(dev))
    agent.ai_wait_for(STATEMENT, timeout_s=30, interval_s=1)
    loading, welcome = data_url(screenshot_of(dev, "loading")), data_url(screenshot_of(dev, "welcome"))
    assert [shown(r) for r in judge.requests] == [loading, loading, loading, welcome]
    assert time.slept == [1, 1, 1]


def test_ai_wait_for_fails_with_the_judge_s_last_reason_when_the_time_is_up(clock):
    dev = app()
    time = clock(dev)                           # the page never loads
    judge = ScriptedModelClient(judge_of(dev))
    agent = Agent(dev, ModelSet.single(judge))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_wait_for(STATEMENT, timeout_s=5, interval_s=1)
    # looks at 0, 1, 2, 3, 4 and 5 s; another second would pass the 5 s limit
    assert str(failed.value) == (f'aiWaitFor "{STATEMENT}" not true within 5s: a spinner is '
                                 "still shown (look 6)")
    assert len(judge.requests) == 6 and time.now == 1005.0


def test_ai_wait_for_a_judge_that_cannot_tell_yet_is_looked_at_again(clock):
    """{"pass": null} is "not true yet" (a look at a loading screen), not a reply to ask
    again for true or false; when the time is up the step says the model could not tell."""
    dev = app()
    clock(dev)
    judge = ScriptedModelClient(['{"pass": null, "thought": "the page is blank"}'] * 3)
    agent = Agent(dev, ModelSet.single(judge))
    with pytest.raises(AssertionFailed) as failed:
        agent.ai_wait_for(STATEMENT, timeout_s=2, interval_s=1)
    assert str(failed.value) == (f'aiWaitFor "{STATEMENT}" not true within 2s: the model could '
                                 "not tell whether it holds (it answered null): the page is "
                                 "blank")
    assert all("Answer only the JSON" not in asked(r) for r in judge.requests)


def test_ai_wait_for_past_the_case_deadline_is_a_timeout_not_a_failure(clock):
    dev = app()
    time = clock(dev)
    judge = ScriptedModelClient(judge_of(dev))
    agent = Agent(dev, ModelSet.single(judge), deadline=lambda: 1002.5)
    with pytest.raises(CaseTimeout, match=f'case timed out waiting for "{STATEMENT}"'):
        agent.ai_wait_for(STATEMENT, timeout_s=30, interval_s=1)
    # looks at 0, 1 and 2 s; the next one would be past the case's deadline: no sleep into it
    assert len(judge.requests) == 3 and time.now == 1002.0


# ---- aiQuery and its typed forms ----------------------------------------------------------------
@pytest.mark.parametrize("kind, replies, value", [
    ("aiQuery", ['{"data": {"items": ["Blue Mug"], "total": 12.5}}'],
     {"items": ["Blue Mug"], "total": 12.5}),
    ("aiBoolean", ['{"data": false, "thought": "no badge"}'], False),
    ("aiBoolean", ['{"data": "perhaps"}', '{"data": true}'], True),
    ("aiNumber", ['{"data": "$1,234.50"}'], 1234.5),
    ("aiNumber", ['{"data": 3}'], 3),
    ("aiNumber", ['{"data": "lots"}', '{"data": 7}'], 7),
    ("aiNumber", ['{"data": true}', '{"data": 0}'], 0),
    ("aiString", ['{"data": 42}'], "42"),
    ("aiString", ['{"data": "Blue Mug"}'], "Blue Mug"),
    # answers quoted as strings, a list for a string: what a user reads in the output file
    ("aiBoolean", ['{"data": "false"}'], False),
    ("aiBoolean", ['{"data": " True "}'], True),
    ("aiNumber", ['{"data": "3"}'], 3),
    ("aiNumber", ['{"data": "3.0"}'], 3.0),
    ("aiString", ['{"data": ["a", "b"]}'], '["a", "b"]'),
    ("aiString", ['{"data": true}'], "true"),
])
def test_query_answers_are_typed_by_the_step_kind(kind, replies, value):
    client = ScriptedModelClient(replies)
    got = Agent(app(), ModelSet.single(client)).ai_query("the cart", kind)
    assert got == value and type(got) is type(value)
    assert len(client.requests) == len(replies)          # a wrong type was sent back once
    if len(replies) == 2:
        assert "expected" in message_texts({"messages": client.requests[1]})[-1]


@pytest.mark.parametrize("kind, reply", [("aiBoolean", '{"data": "maybe"}'),
                                         ("aiNumber", '{"data": "a few"}'),
                                         ("aiNumber", '{"data": [1, 2]}'),
                                         ("aiQuery", '{"answer": 1}')])
def test_a_query_answer_of_the_wrong_type_twice_is_a_model_error(kind, reply):
    client = ScriptedModelClient([reply])
    with pytest.raises(ModelUnavailable, match="query reply could not be parsed twice"):
        Agent(app(), ModelSet.single(client)).ai_query("the cart", kind)


def test_typed_shortcuts_and_the_step_s_name(tmp_path):
    from farm.suite.model import Step
    client = ScriptedModelClient(lambda m, i: '{"data": "12.50"}' if "number" in asked(m)
                                 else '{"data": true}')
    agent = Agent(app(), ModelSet.single(client))
    assert agent.ai_number("the total") == 12.5 and agent.ai_boolean("a cart") is True
    assert "Answer only JSON" in asked(client.requests[0])
    res = run_steps(tmp_path, app(), client, [
        Step(kind="aiNumber", value="the total", options={"name": "total"})])
    assert res.status == "passed" and res.data == {"total": 12.5}


# ---- the assertion model ------------------------------------------------------------------------
def test_the_judge_grades_assertions_and_the_planner_is_not_asked():
    dev = app()
    dev.start = dev.screen = "welcome"
    planner = ScriptedModelClient(['<complete success="true">done</complete>'], name="planner")
    judge = ScriptedModelClient(['{"pass": true, "thought": "yes"}'], name="judge")
    agent = Agent(dev, ModelSet(plan=planner, locate=planner, judge=judge))
    agent.ai_assert(STATEMENT)
    agent.ai_wait_for(STATEMENT, timeout_s=1)
    assert planner.calls == 0 and judge.calls == 2
    agent.ai_act("look")
    assert planner.calls == 1 and judge.calls == 2


class BuiltClient(ScriptedModelClient):
    """What build_models gets instead of a LiteLLMClient: records how it was configured and
    answers as the model it was built for would."""

    REPLIES = {"openai/planner": '<complete success="true">done</complete>',
               "openai/judge": '{"pass": false, "thought": "the judge says no"}'}

    def __init__(self, model, base_url=None, api_key=None, family="gpt", **options):
        super().__init__([self.REPLIES[model]], family=family, name=model)
        self.base_url, self.api_key, self.options = base_url, api_key, options


@pytest.fixture
def built(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                 # no farm.toml of the checkout
    monkeypatch.setattr("farm.llm.litellm_client.LiteLLMClient", BuiltClient)
    for name in [n for n in os.environ if n.startswith("FARM_") and "MODEL" in n]:
        monkeypatch.delenv(name)
    return monkeypatch


def test_farm_assert_model_is_a_judge_of_its_own(built):
    built.setenv("FARM_MODEL", "openai/planner")
    built.setenv("FARM_MODEL_BASE_URL", "http://planner.test/v1")
    built.setenv("FARM_MODEL_FAMILY", "qwen3-vl")
    built.setenv("FARM_ASSERT_MODEL", "openai/judge")
    built.setenv("FARM_ASSERT_MODEL_BASE_URL", "http://judge.test/v1")
    models = build_models(Settings())
    assert models.judge is not models.plan and models.locate is models.plan
    assert models.planner_locates                 # the planner still locates: only judging moved
    assert (models.plan.name, models.plan.base_url, models.plan.family) == (
        "openai/planner", "http://planner.test/v1", "qwen3-vl")
    assert (models.judge.name, models.judge.base_url, models.judge.family) == (
        "openai/judge", "http://judge.test/v1", "gpt")

    dev = app()
    agent = Agent(dev, Settings())                # the way run_case builds it
    with pytest.raises(AssertionFailed, match="the judge says no"):
        agent.ai_assert(STATEMENT)
    assert agent.models.judge.calls == 1 and agent.models.plan.calls == 0


def test_without_assert_model_the_main_model_judges_and_the_judge_shares_its_endpoint(built):
    built.setenv("FARM_MODEL", "openai/planner")
    built.setenv("FARM_MODEL_BASE_URL", "http://planner.test/v1")
    models = build_models(Settings())
    assert models.judge is models.plan
    built.setenv("FARM_ASSERT_MODEL", "openai/judge")       # no base URL of its own
    models = build_models(Settings())
    assert models.judge is not models.plan and models.judge.base_url == "http://planner.test/v1"


# ---- helpers ----------------------------------------------------------------------------------
def run_steps(tmp_path, dev, client, steps):
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Task, WebTarget
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)])
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "art"),
                        run_id="r1", env={}, model=ModelSet.single(client))
    return run_case(Job(case.id, "web", 1), case, dev, services)
