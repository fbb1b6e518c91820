"""The ai_act loop on a FakeDevice with the in-process scripted client: the TaskRunner's task
states, failures fed back to the model, where the planner's box is trusted (not with deepThink,
not from a separate planner, only a search area with deepLocate), and what model text expands
to. (What each request carries of the history: test_agent_history.py.)"""

import json

import pytest

from farm.agent.actions import (ActionContext, DragAndDrop, GoBack, Input, locator_fields,
                                registry)
from farm.agent.api import Agent
from farm.agent.locator import LocateHit
from farm.agent.loop import LoopLimits, strict_steps
from farm.agent.tasks import PlanError, TaskRunner, build_tasks
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost, LocateError, NeedsModel, StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.llm.plan import PlannedAction
from tests.support.model_server import image_size, message_texts, request_images


def texts(messages):
    """The text parts of a request, as the model reads them."""
    return message_texts({"messages": messages})


def images(messages):
    return request_images({"messages": messages})


def xml(action, params):
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def shop():
    login = UITree(source="dom", page_text="login", nodes=[
        UINode(id=0, role="input", placeholder="Password", editable=True,
               rect=Rect(x=10, y=10, width=200, height=30)),
        UINode(id=1, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=60, width=100, height=30))])
    return FakeDevice(screens={"login": login, "home": UITree(source="dom", page_text="hi")},
                      transitions={"Sign in": "home"})


def test_locator_fields_found_by_schema_scan():
    assert locator_fields(DragAndDrop) == ["from_", "to"]
    assert locator_fields(Input) == ["locate"] and locator_fields(GoBack) == []
    tasks = build_tasks(PlannedAction(type="DragAndDrop", params={
        "from": {"prompt": "a"}, "to": {"prompt": "b"}}), registry("web"))
    assert [t.kind for t in tasks] == ["locate", "locate", "action"]
    with pytest.raises(PlanError, match="unknown action"):
        build_tasks(PlannedAction(type="Fly"), registry("web"))
    assert "AndroidBackButton" in registry("android") and "GoBack" not in registry("android")


def test_act_types_secret_on_device_only_and_counts_usage():
    dev = shop()
    client = ScriptedModelClient([
        xml("Input", {"value": "${PW}", "locate": {"prompt": "Password"}}),
        xml("Tap", {"locate": {"prompt": "Sign in"}}), '<complete success="true">in</complete>'])
    agent = Agent(dev, ModelSet.single(client), resolve=lambda t: t.replace("${PW}", "s3cr3t"))
    out = agent.ai_act("sign in with ${PW}")
    assert out["message"] == "in" and dev.screen == "home"
    assert ("type_text", "s3cr3t") in dev.actions
    assert "s3cr3t" not in repr(client.requests) and "${PW}" in repr(client.requests)
    assert agent.usage.calls == 3 and agent.last_tiers == ["text", "text"]


def test_failed_action_is_fed_back_and_errors_are_capped():
    # the AI locate tier answers "not found" for the one thing the planner keeps asking for
    client = ScriptedModelClient(lambda m, i: '{"bbox": []}' if "Find the element" in str(m)
                                 else xml("Tap", {"locate": {"prompt": "Nowhere at all"}}))
    agent = Agent(shop(), ModelSet.single(client), limits=LoopLimits(max_errors=2))
    with pytest.raises(StepFailed, match="more than 2 execution errors"):
        agent.ai_act("tap it")
    plans = [r for r in client.requests if "Find the element" not in str(r)]
    assert "Feedback on the last action" in str(plans[-1]) and "failed" in str(plans[-1])


def test_model_gives_up_is_a_failure_not_a_pass():
    agent = Agent(shop(), ModelSet.single(ScriptedModelClient(
        ['<complete success="false">no such item</complete>'])))
    with pytest.raises(StepFailed, match="no such item"):
        agent.ai_act("buy a unicorn")


def test_strict_steps_run_one_at_a_time():
    assert strict_steps("1. open\n2) tap") == ["open", "tap"]
    assert strict_steps("just do it") == []
    client = ScriptedModelClient(['<complete success="true">ok</complete>'])
    Agent(shop(), ModelSet.single(client)).ai_act("1. look\n2. look again")
    assert len(client.requests) == 2 and "step 2 of 2" in str(client.requests[1])


def test_no_model_still_skips():
    with pytest.raises(NeedsModel):
        Agent(shop()).ai_act("anything")


def test_deep_think_sub_goals_are_tracked_and_shown_to_the_model():
    """deepThink: the plan's sub-goals come back in the next prompt with their status, and
    marking one done updates it; without deepThink they are not sent."""
    plan = ('<update-plan-content><sub-goal index="1" status="pending">enter password'
            '</sub-goal><sub-goal index="2" status="pending">sign in</sub-goal>'
            '</update-plan-content>'
            + xml("Input", {"value": "pw", "locate": {"prompt": "Password"}}))
    done = '<mark-sub-goal-done><sub-goal index="1" /></mark-sub-goal-done>' + xml(
        "Tap", {"locate": {"prompt": "Sign in"}})
    client = ScriptedModelClient([plan, done, '<complete success="true">in</complete>'])
    dev = shop()
    Agent(dev, ModelSet.single(client)).ai_act("sign in", deep_think=True)
    second, third = str(client.requests[1]), str(client.requests[2])
    assert "1. [pending] enter password" in second and "2. [pending] sign in" in second
    assert "1. [finished] enter password" in third and "2. [pending] sign in" in third
    assert dev.screen == "home"
    assert third.count("'type': 'image_url'") == 2          # deepThink keeps the two newest images


# ---- TaskRunner: pending → running → finished / failed ------------------------------------------
SIGN_IN_RECT = Rect(x=10, y=60, width=100, height=30)     # the shop's button; centre (60, 75)


def tap_tasks():
    return build_tasks(PlannedAction(type="Tap", params={"locate": {"prompt": "Sign in"}}),
                       registry("web"))


def test_tasks_run_in_order_and_the_locate_result_is_what_the_action_taps():
    dev = shop()
    tasks = tap_tasks()
    find, tap = tasks
    seen = []
    hit = LocateHit(SIGN_IN_RECT, "text", "Sign in")

    def locate(loc):
        seen.append(("locate", find.status, tap.status, loc.rect))
        return hit

    device_tap = dev.tap
    dev.tap = lambda x, y: (seen.append(("tap", find.status, tap.status,
                                         tap.action.locate.rect)), device_tap(x, y))
    runner = TaskRunner(locate=locate, ctx=ActionContext(dev, lambda text: text))
    assert [t.status for t in tasks] == ["pending", "pending"]
    assert runner.run(tasks) is None
    assert seen == [("locate", "running", "pending", None),
                    ("tap", "finished", "running", SIGN_IN_RECT)]
    assert [t.status for t in tasks] == ["finished", "finished"] and runner.done == tasks
    assert find.hit == hit and tap.action.locate.tier == "text"
    assert ("tap", 60, 75) in dev.actions and dev.screen == "home"


def test_a_failed_locate_stops_the_action():
    dev = shop()
    tasks = build_tasks(PlannedAction(type="DragAndDrop", params={
        "from": {"prompt": "Sign in"}, "to": {"prompt": "the bin"}}), registry("web"))

    def locate(loc):
        if loc.prompt == "the bin":
            raise LocateError('no element matches "the bin"', ['"Sign in" (button)'])
        return LocateHit(SIGN_IN_RECT, "text")

    failed = TaskRunner(locate=locate, ctx=ActionContext(dev, lambda t: t)).run(tasks)
    assert failed is tasks[1]
    assert [t.status for t in tasks] == ["finished", "failed", "pending"]
    assert failed.error == 'no element matches "the bin" (seen: "Sign in" (button))'
    assert failed.label == 'Locate "the bin"'
    assert not [a for a in dev.actions if a[0] in ("tap", "swipe")]


def test_a_failing_action_is_failed_and_an_infra_error_propagates():
    hit = LocateHit(SIGN_IN_RECT, "text")
    dev = FakeDevice(shop().tree, errors={"tap": StepFailed("the button is disabled")})
    tasks = tap_tasks()
    failed = TaskRunner(locate=lambda loc: hit, ctx=ActionContext(dev, lambda t: t)).run(tasks)
    assert failed is tasks[1] and [t.status for t in tasks] == ["finished", "failed"]
    assert failed.error == "the button is disabled"
    dev = FakeDevice(shop().tree, errors={"tap": DeviceLost("the phone went away")})
    tasks = tap_tasks()
    with pytest.raises(DeviceLost):
        TaskRunner(locate=lambda loc: hit, ctx=ActionContext(dev, lambda t: t)).run(tasks)
    assert [t.status for t in tasks] == ["finished", "failed"]


def test_a_failed_locate_is_fed_back_to_the_next_round_and_nothing_is_tapped():
    def model(messages, i):
        if "Find the element" in str(messages):
            return '{"bbox": [], "error": "no such thing"}'
        last = str(messages[-1])
        if "Steps done so far" in last:
            return '<complete success="true">in</complete>'
        if "Feedback on the last action" in last:
            return xml("Tap", {"locate": {"prompt": "Sign in"}})
        return xml("Tap", {"locate": {"prompt": "Nowhere at all"}})

    client = ScriptedModelClient(model)
    dev = shop()
    Agent(dev, ModelSet.single(client)).ai_act("sign in")
    plans = [texts(r)[-1] for r in client.requests if "Find the element" not in str(r)]
    assert len(plans) == 3
    assert ('Feedback on the last action:\nLocate "Nowhere at all" failed: no element matches '
            '"Nowhere at all"') in plans[1]
    assert "Nowhere at all" not in plans[2]            # told once, not again
    assert [a for a in dev.actions if a[0] == "tap"] == [("tap", 60, 75)]
    assert dev.screen == "home"


# ---- the planner's box: the answer, a hint, or a search area ------------------------------------
# The planner points at the Sign in button with a box and a prompt no tier can match; the
# locate model, when asked, answers a different box on the same button.
PLAN_BOX = [20, 65, 100, 85]          # centre (60, 75)
LOCATE_BOX = [12, 62, 52, 88]         # centre (32, 75)


def planner(messages, i):
    if "Find the element" in str(messages):
        return json.dumps({"bbox": LOCATE_BOX})
    if "Steps done so far" in str(messages[-1]):
        return '<complete success="true">in</complete>'
    return xml("Tap", {"locate": {"prompt": "the blue button", "bbox": PLAN_BOX}})


def locate_requests(client):
    return [r for r in client.requests if "Find the" in str(r)]


def tapped(dev):
    return [a[1:] for a in dev.actions if a[0] == "tap"]


def test_the_plan_box_is_the_answer_when_the_planner_locates():
    client, dev = ScriptedModelClient(planner), shop()
    agent = Agent(dev, ModelSet.single(client))
    agent.ai_act("sign in")
    assert agent.last_tiers == ["plan-bbox"] and tapped(dev) == [(60, 75)]
    assert locate_requests(client) == []


def test_with_deep_think_the_plan_box_is_not_trusted():
    client, dev = ScriptedModelClient(planner), shop()
    agent = Agent(dev, ModelSet.single(client))
    agent.ai_act("sign in", deep_think=True)
    assert agent.last_tiers == ["ai"] and tapped(dev) == [(32, 75)]
    assert len(locate_requests(client)) == 1


def test_a_separate_planner_s_box_is_not_trusted_the_locate_model_finds_the_element():
    plan, locate = ScriptedModelClient(planner, name="planner"), ScriptedModelClient(
        [json.dumps({"bbox": LOCATE_BOX})], name="locator")
    dev = shop()
    agent = Agent(dev, ModelSet(plan=plan, locate=locate, judge=locate, planner_locates=False))
    agent.ai_act("sign in")
    assert agent.last_tiers == ["ai"] and tapped(dev) == [(32, 75)]
    assert locate_requests(plan) == [] and len(locate.requests) == 1
    assert "Find the element: the blue button" in str(locate.requests[0])


def test_with_deep_locate_the_plan_box_is_only_the_search_area():
    """No section request: the plan box (plus a 32 px margin, ×2) is the zoomed image; the
    answer is read in that image and mapped back to the screen."""
    def model(messages, i):
        if "Find the" in str(messages):
            return json.dumps({"bbox": [40, 60, 120, 100]})    # in the zoomed image
        return planner(messages, i)

    client, dev = ScriptedModelClient(model), shop()
    agent = Agent(dev, ModelSet.single(client))
    agent.ai_act("sign in", deep_locate=True)
    asked = locate_requests(client)
    assert len(asked) == 1 and "zoomed-in part of the screen" in str(asked[0])
    # box 20..100 x 65..85 → crop 0..133 x 33..118 (margin 32, clamped) → 266 x 170
    assert image_size(images(asked[0])[0]) == (266, 170)
    # [40,60,120,100] / 2 + (0, 33) → x 20..60, y 63..83: centre (40, 73)
    assert agent.last_tiers == ["deep-locate"] and tapped(dev) == [(40, 73)]


def test_deep_locate_without_a_plan_box_asks_for_the_section_first():
    def model(messages, i):
        text = str(messages)
        if "Find the section" in text:
            return json.dumps({"bbox": PLAN_BOX})
        if "Find the element" in text:
            return json.dumps({"bbox": [40, 60, 120, 100]})
        if "Steps done so far" in str(messages[-1]):
            return '<complete success="true">in</complete>'
        return xml("Tap", {"locate": {"prompt": "the blue button"}})

    client, dev = ScriptedModelClient(model), shop()
    agent = Agent(dev, ModelSet.single(client))
    agent.ai_act("sign in", deep_locate=True)
    asked = [texts(r)[0][:16] for r in locate_requests(client)]
    assert asked == ["Find the section", "Find the element"]
    assert agent.last_tiers == ["deep-locate"] and tapped(dev) == [(40, 73)]


# ---- what a model's text may expand to (run_case wires the restricted resolver) -----------------
def run_ai(tmp_path, screens, plans, env, step_kinds=(), **case_fields):
    """One case: the given deterministic steps, then ``ai: do it`` planned by ``plans``."""
    from pathlib import Path

    from farm.config import Settings
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    steps = [*step_kinds, Step(kind="ai", value="do it")]
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)], **case_fields)
    client = ScriptedModelClient(plans)
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env=env, app_dirs={Path("/srv/shop"): "http://127.0.0.1:4321"},
                        model=ModelSet.single(client))
    dev = FakeDevice(screens=screens)
    return run_case(Job(case.id, "web", 1), case, dev, services), dev, client


def form():
    return {"form": UITree(source="dom", page_text="form", nodes=[
        UINode(id=0, role="input", placeholder="Note", editable=True,
               rect=Rect(x=10, y=10, width=200, height=30))])}


def test_model_output_expands_only_declared_variables(tmp_path):
    """A planned ``${DEPLOY_KEY}`` (only in farm's environment) is typed as written and the step
    says so; declared vars, secrets and app URLs expand; suite steps may use any variable."""
    from farm.suite.model import Step
    typed = ["${DEPLOY_KEY}", "${PW}", "${GREETING} ${SHOP_URL}/cart", "$${PW}"]
    plans = [xml("Input", {"value": v, "locate": {"prompt": "Note"}}) for v in typed]
    env = {"DEPLOY_KEY": "env-only-key", "PW": "hunter22", "SHOP_URL": "http://127.0.0.1:4321"}
    res, dev, _ = run_ai(tmp_path, form(), plans + ['<complete success="true">ok</complete>'],
                         env, [Step(kind="aiInput", target="Note", value="${DEPLOY_KEY}")],
                         secrets=["PW"], vars={"GREETING": "hi"})
    assert res.status == "passed", res.error
    assert [a[1] for a in dev.actions if a[0] == "type_text"] == [
        "env-only-key",                                    # the suite's own step: any variable
        "${DEPLOY_KEY}", "hunter22", "hi http://127.0.0.1:4321/cart", "${PW}"]
    assert res.steps[1].output["notes"] == ["not expanded: ${DEPLOY_KEY} is not declared"]


def test_a_failing_ai_step_still_names_what_was_not_expanded(tmp_path):
    res, dev, _ = run_ai(tmp_path, form(), [
        xml("Input", {"value": "${HOME}", "locate": {"prompt": "Note"}}),
        '<complete success="false">gave up</complete>'], {"HOME": "/root"})
    assert res.status == "failed" and ("type_text", "${HOME}") in dev.actions
    assert "gave up" in res.error.message
    assert "not expanded: ${HOME} is not declared" in res.error.message


def test_a_planned_target_is_matched_on_the_device_with_declared_variables_only(tmp_path):
    screen = {"s": UITree(source="dom", page_text="s", nodes=[
        UINode(id=0, role="button", text="env-only-key", clickable=True,
               rect=Rect(x=10, y=10, width=200, height=30))])}
    res, dev, client = run_ai(tmp_path, screen, lambda m, i: (
        '{"bbox": []}' if "Find the element" in str(m) else
        '<complete success="true">ok</complete>' if "Feedback" in str(m[-1]) else
        xml("Tap", {"locate": {"prompt": "${DEPLOY_KEY}"}})), {"DEPLOY_KEY": "env-only-key"})
    assert res.status == "passed", res.error
    assert not [a for a in dev.actions if a[0] == "tap"]   # "${DEPLOY_KEY}" matched nothing
    assert res.steps[0].output["notes"] == ["not expanded: ${DEPLOY_KEY} is not declared"]


def test_feedback_quoting_the_page_masks_secret_values(tmp_path):
    """The text tier's near candidates quote the page; when the model's target is not found
    they go back as feedback: a secret shown on the page is masked there."""
    screen = {"s": UITree(source="dom", page_text="s", nodes=[
        UINode(id=0, role="button", text="Account hunter22", clickable=True,
               rect=Rect(x=10, y=10, width=200, height=30))])}
    res, _, client = run_ai(tmp_path, screen, lambda m, i: (
        '{"bbox": []}' if "Find the element" in str(m) else
        '<complete success="true">ok</complete>' if "Feedback" in str(m[-1]) else
        xml("Tap", {"locate": {"prompt": "account ${PW} row"}})), {"PW": "hunter22"},
        secrets=["PW"])
    assert res.status == "passed", res.error
    feedback = [str(r) for r in client.requests if "Feedback on the last action" in str(r)]
    assert feedback and '"Account ***" (button)' in feedback[0]
    assert "hunter22" not in str(client.requests)
