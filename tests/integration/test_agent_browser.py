"""The agent in real Chromium on the demo shop, driven by a scripted OpenAI-compatible server
that litellm calls over HTTP: three grammars, failures, retries, deepLocate, secrets."""

from __future__ import annotations

import json

import pytest

from farm.agent.api import Agent
from farm.agent.loop import LoopLimits
from farm.errors import ModelUnavailable, StepFailed
from farm.llm.families import FAMILIES, from_rect
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from farm.suite.model import WebTarget
from tests.support.agent_scripts import DONE_XML, XML_FLOW, by_progress, xml
from tests.support.model_server import ModelServer, Reply, image_size, message_texts

pytestmark = pytest.mark.integration

SECRET = "farm-demo-pass"
TASK = "log in as demo with password ${DEMO_PASSWORD}, search for mug, add the Blue Mug to the cart"


def agent_for(device, srv: ModelServer, family: str = "gpt", **kw) -> Agent:
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, family=family,
                           backoff=0.05, **kw)
    return Agent(device, ModelSet.single(client), limits=LoopLimits(),
                 resolve=lambda t: t.replace("${DEMO_PASSWORD}", SECRET))


def assert_in_cart(device) -> None:
    import time
    deadline = time.monotonic() + 30          # the page updates the cart after the click
    while "Cart (1)" not in device.hierarchy().visible_text():
        if time.monotonic() > deadline:
            raise AssertionError(device.hierarchy().visible_text()[:500])
        time.sleep(0.1)


def assert_no_secret(srv: ModelServer) -> None:
    assert srv.raw and all(SECRET.encode() not in raw for raw in srv.raw)


def test_xml_flow_runs_to_complete_and_never_leaks_the_secret(page, model_server):
    srv = model_server(by_progress(XML_FLOW))
    agent = agent_for(page, srv)
    out = agent.ai_act(TASK)
    assert out["message"] == "added" and len(out["steps"]) == 7
    assert_in_cart(page)
    assert_no_secret(srv)
    assert "${DEMO_PASSWORD}" in srv.texts(0)            # the model saw the placeholder
    assert agent.usage.calls == len(srv.requests) and agent.usage.prompt_tokens > 0
    assert set(agent.last_tiers) == {"text"}


@pytest.fixture(scope="module")
def layout(browser, demo_app):
    """Element boxes of the shop at 1280x800, measured once with zero-token locates."""
    device = browser
    device.start_session(WebTarget(url=demo_app + "/index.html"))
    a = Agent(device)
    boxes = {"Username": a.ai_locate("Username").rect, "Password": a.ai_locate("Password").rect,
             "Sign in": a.ai_locate("Sign in").rect}
    a.ai_input("Username", "demo")
    a.ai_input("Password", SECRET)
    a.ai_tap("Sign in")
    a.wait_for_text("Welcome back, demo", 5)
    boxes["Search products"] = a.ai_locate("Search products").rect
    a.ai_input("Search products", "mug")
    a.ai_keyboard_press("Enter")
    a.wait_for_text("Blue Mug", 5)
    boxes["Blue Mug"] = a.ai_locate("Blue Mug").rect
    a.ai_tap("Blue Mug")
    a.wait_for_text("Back to products", 5)
    boxes["Add to cart"] = a.ai_locate("Add to cart").rect
    device.end_session()
    return boxes


def point(rect, family: str) -> str:
    x1, y1, x2, y2 = from_rect(rect, FAMILIES[family], (1280, 800))
    return f"{(x1 + x2) // 2},{(y1 + y2) // 2}"


def test_autoglm_flow(page, layout, model_server):
    p = {k: point(r, "auto-glm") for k, r in layout.items()}
    do = lambda body: f"<think>next</think><answer>do({body})</answer>"   # noqa: E731
    flow = [do(f'action="Tap", element=[{p["Username"]}]'), do('action="Type", text="demo"'),
            do(f'action="Tap", element=[{p["Password"]}]'),
            do('action="Type", text="${DEMO_PASSWORD}"'),
            do(f'action="Tap", element=[{p["Sign in"]}]'),
            do(f'action="Tap", element=[{p["Search products"]}]'),
            do('action="Type", text="mug"'),
            do(f'action="Tap", element=[{p["Blue Mug"]}]'),
            do(f'action="Tap", element=[{p["Add to cart"]}]'),
            '<think>done</think><answer>finish(message="added")</answer>']
    srv = model_server(by_progress(flow))
    out = agent_for(page, srv, family="auto-glm").ai_act(TASK)
    assert out["message"] == "added"
    assert_in_cart(page)
    assert_no_secret(srv)


def test_uitars_flow(page, layout, model_server):
    p = {k: point(r, "ui-tars") for k, r in layout.items()}
    act = lambda a: f"Thought: next\nAction: {a}"   # noqa: E731
    flow = [act(f"click(start_box='({p['Username']})')"), act("type(content='demo')"),
            act(f"click(start_box='<|box_start|>({p['Password']})<|box_end|>')"),
            act("type(content='${DEMO_PASSWORD}')"),
            act(f"click(start_box='({p['Sign in']})')"),
            act(f"click(start_box='({p['Search products']})')"),
            act("type(content='mug\\n')"),
            act(f"click(start_box='({p['Blue Mug']})')"),
            act(f"click(start_box='({p['Add to cart']})')"),
            "Thought: done\nAction：finished(content='added')"]
    # type(content='mug\n') is two actions (type, Enter): both count as done steps
    flow.insert(7, flow[7])
    srv = model_server(by_progress(flow))
    out = agent_for(page, srv, family="ui-tars").ai_act(TASK)
    assert out["message"] == "added"
    assert_in_cart(page)
    assert_no_secret(srv)


def test_loop_cap_fails_the_step(page, model_server):
    flip = [xml("Sleep", {"timeMs": 1}), xml("Sleep", {"timeMs": 2})]
    srv = model_server(lambda body, i: flip[i % 2])
    with pytest.raises(StepFailed, match="replanning limit 20 reached"):
        agent_for(page, srv).ai_act("wait forever")
    assert len(srv.requests) == 20


def test_same_action_on_unchanged_screen_is_stuck(page, model_server):
    # (a key that changes nothing; a Sleep repeated is waiting, which the round cap ends)
    srv = model_server([xml("KeyboardPress", {"keyName": "Shift"})])
    with pytest.raises(StepFailed, match="agent stuck: KeyboardPress repeated"):
        agent_for(page, srv).ai_act("wait")
    assert "Do something different" in srv.texts(3)


def test_garbage_reply_retried_once_then_a_model_error(page, model_server):
    srv = model_server(["I would probably click the button."])
    with pytest.raises(ModelUnavailable, match="could not be parsed twice"):
        agent_for(page, srv).ai_act("log in")
    assert len(srv.requests) == 2
    assert "could not be read" in srv.texts(1)


def test_429_then_success_counts_the_retry(page, model_server):
    srv = model_server([Reply(status=429), DONE_XML])
    agent = agent_for(page, srv)
    agent.ai_act("nothing to do")
    assert agent.usage.retries == 1 and agent.usage.calls == 1 and len(srv.requests) == 2


def test_model_timeout_is_an_infra_error(page, model_server):
    srv = model_server([Reply(delay=2, text=DONE_XML)])
    with pytest.raises(ModelUnavailable, match=r"did not answer within 0\.4 s "
                                               r"\(FARM_MODEL_TIMEOUT\) in 2 attempts"):
        agent_for(page, srv, timeout=0.4, retries=1).ai_act("anything")


def test_wrong_plan_bbox_misses_then_feedback_corrects_it(page, layout, model_server):
    agent = Agent(page)
    agent.ai_input("Username", "demo")
    agent.ai_input("Password", SECRET)
    page.tap(22, 787)       # leave the field first: a miss there then changes nothing at all
    right = layout["Sign in"]
    good = [right.x, right.y, right.x + right.width, right.y + right.height]

    def script(body: dict, index: int) -> str:
        last = message_texts(body)[-1]
        if "Welcome back" in last or index >= 2:
            return DONE_XML
        if "did not change" in last:
            return xml("Tap", {"locate": {"prompt": "Sign in", "bbox": good}})
        return xml("Tap", {"locate": {"prompt": "Sign in", "bbox": [5, 780, 40, 795]}})

    srv = model_server(script)
    agent = agent_for(page, srv)
    agent.ai_act("sign in")
    assert "did not change" in srv.texts(1)
    assert agent.last_tiers == ["plan-bbox", "plan-bbox"]
    agent.wait_for_text("Welcome back, demo", 5)


def test_deep_locate_sends_the_cropped_image_second(page, layout, model_server):
    card = layout["Sign in"]
    section = [card.x - 40, card.y - 120, card.x + card.width + 40, card.y + card.height + 20]

    def script(body: dict, index: int) -> str:
        if index == 0:
            return json.dumps({"bbox": section})
        # the button, in pixels of the zoomed crop (crop origin = section - 32 px margin, ×2)
        ox, oy = section[0] - 32, section[1] - 32
        return json.dumps({"bbox": [2 * (card.x - ox), 2 * (card.y - oy),
                                    2 * (card.x + card.width - ox), 2 * (card.y + card.height - oy)]})

    srv = model_server(script)
    hit = agent_for(page, srv).ai_locate("the primary submit control", deep_locate=True)
    assert image_size(srv.images(0)[0]) == (1280, 800)
    w, h = image_size(srv.images(1)[0])
    crop_w = section[2] - section[0] + 1 + 2 * 32
    assert (w, h) == (2 * crop_w, 2 * (section[3] - section[1] + 1 + 2 * 32))
    assert hit.tier == "deep-locate"
    assert card.contains(type(card)(x=hit.rect.center[0], y=hit.rect.center[1], width=1, height=1))
