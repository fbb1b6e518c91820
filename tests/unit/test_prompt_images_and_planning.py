"""{prompt, images} targets and aiAct's planningStrategy in the agent, on a FakeDevice with the
in-process scripted client: a pictured prompt skips the word-matching tiers and its images go
with every model request; each planning strategy changes the planner's requests and how its
targets are located. (The corpus runs the same through litellm: test_midscene_corpus.py.)"""

import json

import pytest

from farm.agent.api import Agent, zero_token_chain
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.store import MemoryStore
from farm.agent.images import data_url, images_key
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import NeedsModel
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts, request_images

PNG = data_url(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
LOGO = [{"name": "brand mark", "url": PNG}]
PICTURE = Rect(x=300, y=100, width=140, height=80)


def page():
    """A "Logo" button (its words match) and an unlabelled picture button (only an image
    says which it is); tapping the picture counts."""
    tree = UITree(source="dom", page_text="page", nodes=[
        UINode(id=0, role="button", text="Logo", clickable=True,
               rect=Rect(x=20, y=20, width=120, height=40)),
        UINode(id=1, role="button", clickable=True, rect=PICTURE)])
    return FakeDevice(screens={"page": tree})


def texts(messages):
    return "\n".join(message_texts({"messages": messages}))


def locator(messages, index):
    """The locate model: the picture when it was shown the reference image, else nothing."""
    shown = "Reference image 'brand mark':" in texts(messages)
    return json.dumps({"bbox": [300, 100, 440, 180] if shown else []})


def test_a_pictured_prompt_is_answered_by_the_model_that_sees_the_image():
    client = ScriptedModelClient(locator)
    agent = Agent(page(), ModelSet.single(client))
    assert agent.ai_locate("Logo").tier == "text"          # the words alone: the Logo button
    assert client.requests == []
    hit = agent.ai_locate("Logo", images=LOGO)
    assert hit.tier == "ai" and hit.rect.as_list() == [300, 100, 141, 81]
    [request] = client.requests
    assert PNG in request_images({"messages": request})   # the screenshot, then the reference
    assert len(request_images({"messages": request})) == 2


def test_without_a_model_a_pictured_prompt_needs_one():
    with pytest.raises(NeedsModel, match="has reference images"):
        Agent(page()).ai_locate("Logo", images=LOGO)


def test_the_locate_cache_answers_a_pictured_prompt_only_with_its_own_images():
    """An entry stored for the words "Logo" never answers "Logo" with images; one stored
    with the same images does."""
    other = [{"name": "brand mark", "url": PNG + "AA"}]
    assert images_key(None) == "" and images_key(LOGO) != images_key(other)
    ns = Namespace("c/t", "web", "1")
    store = MemoryStore()
    store.put(ns.key("locate", "Logo", 0), {"xpaths": ["//*[@id='word']"]})
    store.put(ns.key("locate", "Logo" + images_key(LOGO), 0), {"xpaths": ["//*[@id='pic']"]})
    dev = FakeDevice(screens=page().screens, xpaths={
        "//*[@id='word']": [Rect(x=20, y=20, width=120, height=40)], "//*[@id='pic']": [PICTURE]})

    def locate(images):
        cache = CaseCache(store, ns, "read-only")
        cache.begin_step()
        return zero_token_chain(lambda t: t, cache).locate("Logo", dev, images=images)
    assert locate(None).rect.x == 20
    hit = locate(LOGO)
    assert hit.tier == "cache" and hit.rect == PICTURE
    with pytest.raises(NeedsModel):
        locate(other)


def tap(box: bool, goals: str = "") -> str:
    locate = {"prompt": "the brand picture", **({"bbox": [300, 100, 440, 180]} if box else {})}
    return (f"{goals}<log>tap</log><action-type>Tap</action-type>"
            f"<action-param-json>{json.dumps({'locate': locate})}</action-param-json>")


def act(strategy, replies, images=None):
    """Run one ai_act on the picture page; (planner requests, locate requests, device)."""
    def script(messages, index):
        if "Find the element" in texts(messages):
            return locator(messages, index) if images else json.dumps(
                {"bbox": [300, 100, 440, 180]})
        return replies.pop(0)
    client = ScriptedModelClient(script)
    dev = page()
    Agent(dev, ModelSet.single(client)).ai_act("tap the picture twice",
                                              planning_strategy=strategy, images=images)
    plans = [r for r in client.requests if "Find the element" not in texts(r)]
    return plans, [r for r in client.requests if r not in plans], dev


DONE = '<complete success="true">done</complete>'


def test_fast_sends_one_screenshot_one_round_no_thought_and_trusts_the_box():
    plans, located, dev = act("fast", [tap(True), tap(True), DONE])
    assert "<thought>" not in plans[0][0]["content"] and '"bbox"' in plans[0][0]["content"]
    assert [len(p) for p in plans] == [2, 2, 2]              # system + this round only
    assert [len(request_images({"messages": p})) for p in plans] == [1, 1, 1]
    assert located == [] and [a for a in dev.actions if a[0] == "tap"] == [("tap", 370, 140)] * 2


def test_standard_describes_targets_that_are_located_separately():
    plans, located, _ = act("standard", [tap(True), tap(True), DONE])
    system = plans[0][0]["content"]
    assert "give no box" in system and "<thought>" in system
    assert [len(request_images({"messages": p})) for p in plans] == [1, 2, 2]
    assert len(located) == 2          # each planned tap located, even when a box came along


def test_max_plans_sub_goals_and_keeps_every_screenshot():
    goals = ('<update-plan-content><sub-goal index="1">first</sub-goal><sub-goal index="2">'
             'second</sub-goal></update-plan-content><mark-sub-goal-done>1</mark-sub-goal-done>')
    plans, located, _ = act("max", [tap(False, goals), tap(False), DONE])
    assert "<update-plan-content>" in plans[0][0]["content"]
    assert "1. [finished] first" in texts(plans[1])
    assert [len(request_images({"messages": p})) for p in plans] == [1, 2, 3]
    assert len(located) == 2


def test_reference_images_go_with_every_plan_and_its_locates():
    plans, located, dev = act("standard", [tap(False), tap(False), DONE], images=LOGO)
    assert all("Reference image 'brand mark':" in texts(p) for p in plans + located)
    assert [a for a in dev.actions if a[0] == "tap"] == [("tap", 370, 140)] * 2
