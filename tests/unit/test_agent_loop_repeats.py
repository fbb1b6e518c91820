"""The stuck check (same action, same target, on a screen that did not change: nudge at 3, fail
at 5) against repeats that are not a loop: "next" through a carousel, a long list scrolled
page by page, and the same repeats in one reply (UI-TARS answers several actions at once). It
still fires where the page stops changing. FakeDevice and the in-process scripted client."""

from __future__ import annotations

import json

import pytest

from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts

NUDGE = ("did not change", "You repeated")
DONE_XML = '<complete success="true">done</complete>'


def slide(i: int) -> UITree:
    """Slide ``i``: its caption moves along, the Next button stays where it is."""
    return UITree(source="dom", page_text=f"Slide {i}", nodes=[
        UINode(id=0, role="button", text="Next", clickable=True,
               rect=Rect(x=600, y=700, width=80, height=40)),
        UINode(id=1, role="text", text=f"Slide {i}",
               rect=Rect(x=100 + 40 * i, y=100, width=100, height=30))])


def carousel(slides: int, start: int = 0) -> FakeDevice:
    """Next moves to the following slide; on the last slide it does nothing."""
    moves = {(f"s{i}", "Next"): f"s{i + 1}" for i in range(slides - 1)}
    return FakeDevice(screens={f"s{i}": slide(i) for i in range(slides)}, start=f"s{start}",
                      transitions=moves)


class LongList(FakeDevice):
    """A list of ``pages`` screens: each scroll shows the next one until the end."""

    def __init__(self, pages: int) -> None:
        super().__init__(screens={f"p{i}": UITree(source="dom", page_text=f"row {i}", nodes=[
            UINode(id=0, role="text", text=f"Row {i}",
                   rect=Rect(x=50, y=50 + 30 * i, width=300, height=25))])
            for i in range(pages)}, start="p0")
        self.pages = pages

    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool:
        super().scroll(x, y, dx, dy)
        at = int(self.screen[1:])
        self.screen = f"p{min(at + 1, self.pages - 1)}"
        return True


def xml(action: str, params: dict) -> str:
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def sent(client: ScriptedModelClient, i: int) -> str:
    return "\n".join(message_texts({"messages": client.requests[i]}))


NEXT_XML = xml("Tap", {"locate": {"prompt": "Next"}})
# UI-TARS, 0-1000: the middle of the Next button of a 1280x800 screen
NEXT_TARS = "click(start_box='(500,900)')"


def test_pressing_next_through_a_carousel_round_after_round_is_not_stuck():
    dev = carousel(10)
    client = ScriptedModelClient([NEXT_XML] * 8 + [DONE_XML])
    out = Agent(dev, ModelSet.single(client)).ai_act("go to slide 8")
    assert dev.screen == "s8" and len(out["steps"]) == 8
    assert not [i for i in range(9) for words in NUDGE if words in sent(client, i)]


def test_next_repeated_on_the_last_slide_is_nudged_then_stuck():
    dev = carousel(3)
    client = ScriptedModelClient([NEXT_XML])
    with pytest.raises(StepFailed, match='^agent stuck: Tap repeated 5 times on "Next"'):
        Agent(dev, ModelSet.single(client)).ai_act("go to slide 9")
    # s0 -> s1 -> s2, then Next changes nothing: the 3rd, 4th and 5th taps there count
    assert dev.screen == "s2" and client.calls == 7
    assert "You repeated" not in sent(client, 4)
    assert "You repeated" in sent(client, 5)


def test_scrolling_a_long_list_page_by_page_is_not_stuck_until_its_end():
    dev = LongList(pages=8)
    down = xml("Scroll", {"scrollType": "singleAction", "direction": "down"})
    client = ScriptedModelClient([down])
    with pytest.raises(StepFailed, match="^agent stuck: Scroll repeated 5 times"):
        Agent(dev, ModelSet.single(client)).ai_act("find row 99")
    # 7 scrolls that moved the list, then 5 on its last page
    assert len([a for a in dev.actions if a[0] == "scroll"]) == 12 and client.calls == 12
    assert not [i for i in range(9) for words in NUDGE if words in sent(client, i)]


def test_one_reply_pressing_next_five_times_through_a_carousel_is_not_stuck():
    """Five clicks in one UI-TARS reply, each moving the carousel on, were failed 'agent
    stuck: Tap repeated 5 times ... with no change' (all five were judged against the
    round's one screenshot)."""
    dev = carousel(10)
    reply = "Thought: five more\nAction: " + "\n\n".join([NEXT_TARS] * 5)
    client = ScriptedModelClient([reply, "Thought: ok\nAction: finished(content='on 5')"],
                                 family="ui-tars")
    out = Agent(dev, ModelSet.single(client)).ai_act("go to slide 5")
    assert dev.screen == "s5" and out["message"] == "on 5" and len(out["steps"]) == 5
    assert not [words for words in NUDGE if words in sent(client, 1)]


def test_one_reply_pressing_next_five_times_on_the_last_slide_is_stuck():
    dev = carousel(2, start=1)
    reply = "Thought: more\nAction: " + "\n\n".join([NEXT_TARS] * 5)
    client = ScriptedModelClient([reply], family="ui-tars")
    with pytest.raises(StepFailed, match="^agent stuck: Tap repeated 5 times"):
        Agent(dev, ModelSet.single(client)).ai_act("go to slide 5")
    assert client.calls == 1 and len([a for a in dev.actions if a[0] == "tap"]) == 5


class EndedList(LongList):
    """A long list whose scroll, at its last page, moves nothing and says so (as the web's
    does: no scroll event came)."""

    def scroll(self, x: int, y: int, dx: int, dy: int) -> bool:
        at = self.screen
        super().scroll(x, y, dx, dy)
        return self.screen != at


def test_a_planned_scroll_that_moved_nothing_is_told_to_the_model_not_called_a_miss():
    """The planner scrolled at the end of a list and read only the same screenshot again
    (or, with a target, "the target was probably missed"): it is told nothing scrolled."""
    dev = EndedList(pages=2)
    down = xml("Scroll", {"scrollType": "singleAction", "direction": "down",
                          "locate": {"prompt": "Row 0"}})
    client = ScriptedModelClient([down, xml("Scroll", {"direction": "down", "locate": {
        "prompt": "Row 1"}}), DONE_XML])
    Agent(dev, ModelSet.single(client)).ai_act("find row 99")
    assert "nothing scrolled" not in sent(client, 1)          # the first one moved the list
    third = sent(client, 2)
    assert "nothing scrolled: nothing at (" in third and "scrolls down any further" in third
    assert "probably missed" not in third
