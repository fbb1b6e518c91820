"""What the planner is sent from one ai_act's history: prompt size must not grow with the rounds.

* past 50 messages the history keeps its newest 20;
* a request carries the last 3 rounds, only the newest screenshot (2 with deepThink): older
  images become a text placeholder, and their text stays;
* the executed-step log keeps its newest 10 entries and counts the rest.
"""

from farm.agent.api import Agent
from farm.agent.history import IMAGE_PLACEHOLDER, ConversationHistory
from farm.agent.images import data_url
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet


def image(i):
    return f"data:image/png;base64,ROUND{i}"


def rounds(h, n, start=0):
    """``n`` planning rounds: a user message with its screenshot, then the model's reply."""
    for i in range(start, start + n):
        h.add_user(f"round {i}", image(i))
        h.add_assistant(f"reply {i}")


def texts(messages):
    out = []
    for m in messages:
        content = m["content"]
        out += [content] if isinstance(content, str) else [
            p["text"] for p in content if p["type"] == "text"]
    return out


def images(messages):
    return [p["image_url"]["url"] for m in messages if isinstance(m["content"], list)
            for p in m["content"] if p["type"] == "image_url"]


# ---- 50 → 20 ------------------------------------------------------------------------------------
def test_past_50_messages_the_newest_20_are_kept():
    h = ConversationHistory()
    rounds(h, 25)                                   # 50 messages: nothing dropped yet
    assert len(h.messages) == 50 and texts(h.messages)[:2] == ["round 0", "reply 0"]
    h.add_user("round 25", image(25))               # the 51st
    assert texts(h.messages) == [t for i in range(15, 25) for t in (f"round {i}", f"reply {i}")
                                 ][1:] + ["round 25"]
    assert len(h.messages) == 20
    h.add_assistant("reply 25")
    rounds(h, 14, start=26)
    h.add_user("round 40", image(40))               # back up to 50 ...
    assert len(h.messages) == 50
    h.add_assistant("reply 40")                     # ... and past it again
    assert texts(h.messages) == [t for i in range(31, 41) for t in (f"round {i}", f"reply {i}")]


def test_the_request_is_the_same_size_after_compression():
    """What is sent (the last 3 rounds and the new prompt) does not depend on how many
    rounds came before, compressed or not."""
    h = ConversationHistory()
    rounds(h, 5)
    h.add_user("round 5", image(5))
    early = h.snapshot()
    h.add_assistant("reply 5")
    rounds(h, 40, start=6)
    h.add_user("round 46", image(46))
    late = h.snapshot()
    assert len(early) == len(late) == 7
    assert [t for t in texts(late) if t != IMAGE_PLACEHOLDER] == [
        "round 43", "reply 43", "round 44", "reply 44", "round 45", "reply 45", "round 46"]
    assert images(late) == [image(46)]


# ---- screenshots --------------------------------------------------------------------------------
def test_only_the_newest_screenshot_is_sent_older_ones_become_a_placeholder():
    h = ConversationHistory()
    rounds(h, 6)
    h.add_user("round 6", image(6))
    snap = h.snapshot(max_images=1)
    assert images(snap) == [image(6)]
    # the 3 earlier rounds in the window keep their text, their images become the placeholder
    assert texts(snap) == ["round 3", IMAGE_PLACEHOLDER, "reply 3", "round 4", IMAGE_PLACEHOLDER,
                           "reply 4", "round 5", IMAGE_PLACEHOLDER, "reply 5", "round 6"]


def test_deep_think_sends_the_two_newest_screenshots():
    h = ConversationHistory()
    rounds(h, 6)
    h.add_user("round 6", image(6))
    snap = h.snapshot(max_images=2)
    assert images(snap) == [image(5), image(6)]
    assert texts(snap).count(IMAGE_PLACEHOLDER) == 2


def test_a_snapshot_leaves_the_history_as_it_was():
    h = ConversationHistory()
    rounds(h, 3)
    h.add_user("round 3", image(3))
    h.snapshot(max_images=1)
    assert images(h.snapshot(max_images=2)) == [image(2), image(3)]
    assert images(h.messages) == [image(i) for i in range(4)]


def test_the_step_log_keeps_its_newest_ten_and_counts_the_rest():
    h = ConversationHistory()
    for i in range(30):
        h.log(f"step {i}")
    state = h.state_text(show_goals=False)
    assert "(20 earlier steps)" in state
    assert "- step 29" in state and "- step 20" in state and "- step 19" not in state


# ---- what the ai_act loop sends -----------------------------------------------------------------
def shop():
    login = UITree(source="dom", page_text="login", nodes=[
        UINode(id=0, role="input", placeholder="Password", editable=True,
               rect=Rect(x=10, y=10, width=200, height=30)),
        UINode(id=1, role="button", text="Sign in", clickable=True,
               rect=Rect(x=10, y=60, width=100, height=30))])
    return FakeDevice(screens={"login": login, "home": UITree(source="dom", page_text="hi")},
                      transitions={"Sign in": "home"})


def xml(action, params):
    import json
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


SIGN_IN = [xml("Input", {"value": "pw", "locate": {"prompt": "Password"}}),
           xml("Tap", {"locate": {"prompt": "Sign in"}}),
           '<complete success="true">in</complete>']


def test_each_round_sends_the_screen_as_it_is_now():
    """Round 3 (after "Sign in" opened home) carries the home screen, and only it."""
    dev = shop()
    login_png = data_url(dev.screenshot())
    client = ScriptedModelClient(SIGN_IN)
    Agent(dev, ModelSet.single(client)).ai_act("sign in")
    home_png = data_url(dev.screenshot())
    assert dev.screen == "home" and home_png != login_png
    sent = [images(r) for r in client.requests]
    assert sent == [[login_png], [login_png], [home_png]]
    assert str(client.requests[2]).count(IMAGE_PLACEHOLDER) == 2


def test_deep_think_rounds_send_the_previous_and_the_current_screen():
    dev = shop()
    login_png = data_url(dev.screenshot())
    client = ScriptedModelClient(SIGN_IN)
    Agent(dev, ModelSet.single(client)).ai_act("sign in", deep_think=True)
    home_png = data_url(dev.screenshot())
    assert [images(r) for r in client.requests] == [
        [login_png], [login_png, login_png], [login_png, home_png]]


def test_a_long_act_sends_bounded_requests():
    """30 UI-TARS rounds (past the 50-message compression): every request from the fourth on
    is the system prompt, 3 rounds and the new prompt, with one screenshot."""
    replies = [f"Thought: try\nAction: click(start_box='({10 + 20 * i},500)')" for i in range(29)]
    client = ScriptedModelClient(replies + ["Thought: ok\nAction: finished(content='done')"],
                                 family="ui-tars")
    out = Agent(shop(), ModelSet.single(client)).ai_act("look around")
    assert out["rounds"] == 30 and len(client.requests) == 30
    assert {len(r) for r in client.requests[3:]} == {8}
    assert {len(images(r)) for r in client.requests} == {1}
    assert "(19 earlier steps)" in texts(client.requests[-1])[-1]
