"""The ai_act loop on a FakeDevice with the in-process scripted client."""

import pytest

from farm.agent.actions import DragAndDrop, GoBack, Input, locator_fields, registry
from farm.agent.api import Agent
from farm.agent.history import IMAGE_PLACEHOLDER, ConversationHistory
from farm.agent.loop import LoopLimits, strict_steps
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import NeedsModel, StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.llm.plan import PlannedAction
from farm.agent.tasks import PlanError, build_tasks


def xml(action, params):
    import json
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


def test_history_keeps_newest_image_and_bounded_window():
    h = ConversationHistory()
    for i in range(30):
        h.add_user(f"round {i}", "data:image/png;base64,AAAA")
        h.add_assistant("reply")
        h.log(f"step {i}")
    snap = h.snapshot(1)
    images = [p for m in snap if isinstance(m["content"], list) for p in m["content"]
              if p["type"] == "image_url"]
    assert len(images) == 1 and IMAGE_PLACEHOLDER in str(snap)
    assert len(snap) <= 7 and "(20 earlier steps)" in h.state_text(False)
    assert len(h.messages) <= 50


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


def test_only_the_newest_screenshot_is_sent_without_deep_think():
    client = ScriptedModelClient([
        xml("Input", {"value": "pw", "locate": {"prompt": "Password"}}),
        xml("Tap", {"locate": {"prompt": "Sign in"}}), '<complete success="true">in</complete>'])
    Agent(shop(), ModelSet.single(client)).ai_act("sign in")
    assert str(client.requests[2]).count("'type': 'image_url'") == 1


# ---- what a model's text may expand to (run_case wires the restricted resolver) ------------------
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
