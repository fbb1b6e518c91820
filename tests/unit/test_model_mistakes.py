"""What a model gets wrong is told as it is, never passed off as the app's doing or as a pass:

* a box with no pixel on the screenshot is no location: the AI locate tier misses and says why
  (such a box used to be clamped onto the corner pixel, tapped there, and the step passed);
  the planner's such box goes back to the model as an error it can correct;
* an ai step whose execution errors were all the model planning what farm cannot run (an
  unknown action, bad params, a box off the screen) is a model error (ModelUnavailable), not
  the app's failure;
* a plan from a case that did not pass is not kept, and a replayed one is dropped, so the next
  run asks the model again (it used to be replayed with no model call, failing, forever);
* a failed case's error kind is its failed step's class (AssertionFailed, LocateError, ...).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import LocateError, ModelUnavailable, StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts

DONE = '<complete success="true">done</complete>'


def xml(action, params):
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def screens():
    login = UITree(source="dom", page_text="login", nodes=[
        UINode(id=0, role="input", placeholder="Password", editable=True,
               rect=Rect(x=10, y=10, width=200, height=30)),
        UINode(id=1, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=60, width=100, height=30))])
    home = UITree(source="dom", page_text="Welcome", nodes=[
        UINode(id=0, role="p", text="Welcome", rect=Rect(x=10, y=10, width=200, height=30))])
    return {"login": login, "home": home}


def shop():
    """A 1280×800 login page; tapping "Sign in" opens "home" (which says Welcome)."""
    return FakeDevice(screens=screens(), transitions={"Sign in": "home"})


def tapped(dev):
    return [a[1:] for a in dev.actions if a[0] == "tap"]


def last_text(messages):
    return "\n".join(message_texts({"messages": messages[-1:]}))


# ---- a box off the screenshot -------------------------------------------------------------------
@pytest.mark.parametrize("box", [[5000, 5000, 5100, 5100], [-300, -300, -200, -200]])
def test_an_ai_locate_box_off_the_screen_is_not_found_and_nothing_is_tapped(box):
    dev = shop()
    agent = Agent(dev, ModelSet.single(ScriptedModelClient([json.dumps({"bbox": box})])))
    with pytest.raises(LocateError) as failed:
        agent.ai_tap("the big primary button")
    said = f"the model's box [{','.join(map(str, box))}] is outside the 1280×800 screen"
    assert said in failed.value.candidates, failed.value.candidates
    assert tapped(dev) == [] and dev.screen == "login"


def test_an_ai_locate_box_partly_off_the_screen_is_clipped_to_the_overlap():
    dev = shop()
    # x −50..60 → 0..60, y 55..95: centre (30, 75), on "Sign in"
    agent = Agent(dev, ModelSet.single(ScriptedModelClient(['{"bbox": [-50, 55, 60, 95]}'])))
    hit = agent.ai_tap("the big primary button")
    assert hit.tier == "ai" and tapped(dev) == [(30, 75)] and dev.screen == "home"


def test_the_planner_s_box_off_the_screen_goes_back_to_the_model_which_corrects_it():
    def model(messages, i):
        if "Steps done so far" in last_text(messages):
            return DONE
        if "is outside the 1280×800 screen" in last_text(messages):
            return xml("Tap", {"locate": {"prompt": "Sign in", "bbox": [20, 65, 100, 85]}})
        return xml("Tap", {"locate": {"prompt": "the thing", "bbox": [5000, 5000, 5100, 5100]}})

    client, dev = ScriptedModelClient(model), shop()
    out = Agent(dev, ModelSet.single(client)).ai_act("sign in")
    assert out["steps"] == ['Tap "Sign in" at [20, 65, 81, 21]']
    assert tapped(dev) == [(60, 75)] and dev.screen == "home"      # never the corner pixel
    assert ('Locate "the thing" failed: bad bbox for "the thing": the model\'s box '
            '[5000,5000,5100,5100] is outside the 1280×800 screen') in last_text(
                client.requests[1])


# ---- the model's own planning errors ----------------------------------------------------------
def test_a_model_that_only_invents_actions_is_a_model_error_not_the_app_s_failure():
    client, dev = ScriptedModelClient([xml("Fly", {"locate": {"prompt": "Sign in"}})]), shop()
    with pytest.raises(ModelUnavailable, match=r"^the model scripted kept planning actions farm "
                       r"cannot run \(6 times; last: unknown action 'Fly'"):
        Agent(dev, ModelSet.single(client)).ai_act("sign in")
    assert client.calls == 6 and dev.actions == []


def test_bad_params_and_boxes_off_the_screen_are_the_model_s_errors_too():
    replies = [xml("Tap", {}), xml("Fly", {}),
               xml("Tap", {"locate": {"prompt": "Sign in", "bbox": [9000, 0, 9100, 50]}})]
    client = ScriptedModelClient(lambda m, i: replies[i % 3])
    with pytest.raises(ModelUnavailable, match=r"\(6 times; last: bad bbox for \"Sign in\": the "
                       r"model's box \[9000,0,9100,50\] is outside"):
        Agent(shop(), ModelSet.single(client)).ai_act("sign in")


def test_when_an_action_failed_on_the_page_too_the_step_failed():
    """One real action that failed on the app among the errors: the app's failure, as before."""
    def model(messages, i):
        if "Find the element" in str(messages):
            return '{"bbox": []}'                       # the AI locate tier: not there
        if i == 0:
            return xml("Tap", {"locate": {"prompt": "Nowhere at all"}})
        return xml("Fly", {})

    with pytest.raises(StepFailed, match="more than 5 execution errors in one ai step"):
        Agent(shop(), ModelSet.single(ScriptedModelClient(model))).ai_act("sign in")


# ---- the plan cache keeps only what a passed case planned -------------------------------------
SIGN_IN = [xml("Tap", {"locate": {"prompt": "Sign in"}}), DONE]
WRONG = [xml("Input", {"value": "x", "locate": {"prompt": "Password"}}), DONE]   # no sign-in


def run(tmp_path, store, plans, steps, mode=None, transitions=None):
    """One attempt of a web case of ``steps`` through run_case on the fake shop."""
    from farm.config import Settings
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Task, WebTarget
    case = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=steps)])
    client = ScriptedModelClient(plans)
    services = Services(settings=Settings(cache=mode), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                        model=ModelSet.single(client))
    dev = FakeDevice(screens=screens(),
                     transitions={"Sign in": "home"} if transitions is None else transitions)
    return run_case(Job(case.id, "web", 1), case, dev, services), client


def ai_then_welcome():
    from farm.suite.model import Step
    return [Step(kind="ai", value="log in"), Step(kind="assertText", value="Welcome")]


def plan_entries(store):
    return [v for _, v in store.items() if v["type"] == "plan"]


def test_a_plan_from_a_failed_case_is_not_kept_and_the_next_run_asks_the_model(tmp_path,
                                                                                 caplog):
    store = MemoryStore()
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        first, c1 = run(tmp_path, store, WRONG, ai_then_welcome())
    assert first.status == "failed" and first.steps[0].status == "passed"
    assert plan_entries(store) == []
    assert "plan cache: 1 entry not kept: the case failed" in caplog.text
    assert first.steps[0].cache.written == 0          # counted at the step, then not kept
    second, c2 = run(tmp_path, store, SIGN_IN, ai_then_welcome())
    assert second.status == "passed" and c2.calls == 2          # asked, not replayed
    assert second.steps[0].cache.plan == "miss"
    [entry] = plan_entries(store)
    assert [a["type"] for a in entry["actions"]] == ["Tap"]


def test_a_replayed_plan_in_a_case_that_fails_is_dropped(tmp_path, caplog):
    store = MemoryStore()
    assert run(tmp_path, store, SIGN_IN, ai_then_welcome())[0].status == "passed"
    assert len(plan_entries(store)) == 1
    # the app changed: signing in no longer leads home; the replay runs, the check fails
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        failed, client = run(tmp_path, store, SIGN_IN, ai_then_welcome(), transitions={})
    assert failed.status == "failed" and failed.steps[0].cache.plan == "hit"
    assert client.calls == 0
    assert plan_entries(store) == []
    assert "plan cache: 1 entry replayed in this attempt dropped: the case failed" in caplog.text
    again, client = run(tmp_path, store, SIGN_IN, ai_then_welcome())
    assert again.status == "passed" and client.calls == 2


def test_read_only_changes_nothing_even_when_a_replayed_case_fails(tmp_path):
    store = MemoryStore()
    run(tmp_path, store, SIGN_IN, ai_then_welcome())
    before = list(store.items())
    failed, _ = run(tmp_path, store, SIGN_IN, ai_then_welcome(), mode="read-only",
                    transitions={})
    assert failed.status == "failed" and list(store.items()) == before


def test_a_plan_key_written_and_then_kept_on_a_pass_is_the_step_s(tmp_path):
    store = MemoryStore()
    first, _ = run(tmp_path, store, SIGN_IN, ai_then_welcome())
    assert first.steps[0].cache.written == 1                    # the plan
    assert store.get(Namespace("s/login", "web").key("plan", "log in", 0)) is not None


# ---- a failed case names its failed step's error class ------------------------------------------
@pytest.mark.parametrize("step, reply, kind", [
    ({"kind": "aiAssert", "value": "the cart is empty"}, '{"pass": false, "thought": "no"}',
     "AssertionFailed"),
    ({"kind": "aiTap", "target": "the unicorn"}, '{"bbox": []}', "LocateError"),
    ({"kind": "assertText", "value": "Goodbye"}, DONE, "AssertionFailed"),
])
def test_a_failed_case_s_error_kind_is_the_failed_step_s_class(tmp_path, step, reply, kind):
    from farm.suite.model import Step
    result, _ = run(tmp_path, MemoryStore(), [reply], [Step(**step)], mode="off")
    assert result.status == "failed" and result.error.kind == kind, result.error
