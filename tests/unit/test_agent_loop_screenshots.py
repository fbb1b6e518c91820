"""When the ai loop takes a screenshot (TTL 300 ms: one capture serves every look within it,
an action makes the next look take a new one): each round plans on the screen as it is,
including after an action that touched the device and then failed. A frozen clock keeps
every look within the TTL, so only what the loop does decides a capture."""

from __future__ import annotations

import json

from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.grabber import ScreenshotGrabber
from farm.errors import StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from tests.support.model_server import message_texts, request_images

DONE_XML = '<complete success="true">done</complete>'


def xml(action: str, params: dict) -> str:
    return (f"<action-type>{action}</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


class Phone(FakeDevice):
    """A phone whose 'Notes' row opens a screen instead of taking the text: the tap lands,
    then the focus check fails the Input (as a phone's check_text_focus does)."""

    def check_text_focus(self) -> None:
        raise StepFailed("the tap did not focus a text field")


def notes_phone() -> Phone:
    lists = UITree(source="dom", page_text="Lists", nodes=[
        UINode(id=0, role="text", text="Notes", editable=True, clickable=True,
               rect=Rect(x=20, y=100, width=300, height=40))])
    notes = UITree(source="dom", page_text="Notes", nodes=[
        UINode(id=0, role="text", text="No notes yet", rect=Rect(x=20, y=300, width=300,
                                                                 height=40))])
    return Phone(screens={"lists": lists, "notes": notes}, transitions={"Notes": "notes"},
                 size=(400, 800))


def frozen(dev: FakeDevice) -> ScreenshotGrabber:
    return ScreenshotGrabber(dev, clock=lambda: 100.0)


def test_a_round_after_a_failed_action_that_moved_the_app_sees_the_new_screen():
    """The Input tapped the row (the app opened Notes) and then failed: the next round was
    sent the cached screenshot of the screen before the tap, and told it did not change."""
    dev = notes_phone()
    lists_png = dev.screenshot()
    client = ScriptedModelClient([xml("Input", {"value": "milk", "locate": {"prompt": "Notes"}}),
                                  DONE_XML])
    Agent(dev, ModelSet.single(client), grabber=frozen(dev)).ai_act("write milk in Notes")
    assert dev.screen == "notes"
    first, second = (request_images({"messages": r}) for r in client.requests)
    assert first != second and len(second) == 1
    assert "did not change" not in "\n".join(message_texts({"messages": client.requests[1]}))
    assert dev.screenshot() != lists_png


def test_within_the_ttl_a_round_whose_action_failed_before_acting_takes_no_new_capture():
    """A locate that found nothing touched nothing: the next round's look reuses the
    capture (same screen, no second screenshot of it)."""
    dev = notes_phone()
    client = ScriptedModelClient(lambda m, i: '{"bbox": []}' if "Find the element" in str(m)
                                 else xml("Tap", {"locate": {"prompt": "Settings"}})
                                 if i < 2 else DONE_XML)
    grabber = frozen(dev)
    Agent(dev, ModelSet.single(client), grabber=grabber).ai_act("open settings")
    assert grabber.captures == 1 and not [a for a in dev.actions if a[0] == "tap"]


def test_each_round_after_an_action_takes_a_new_capture():
    dev = notes_phone()
    client = ScriptedModelClient([xml("Tap", {"locate": {"prompt": "Notes"}}),
                                  xml("Sleep", {"timeMs": 1}), DONE_XML])
    grabber = frozen(dev)
    Agent(dev, ModelSet.single(client), grabber=grabber).ai_act("open notes")
    assert grabber.captures == 3 and dev.screen == "notes"
