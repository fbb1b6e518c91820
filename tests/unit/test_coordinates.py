"""Where a model's coordinates land on the device: UI-TARS answers 0-1000 and AutoGLM 0-999,
normalised to the screenshot (REFERENCE.md §3: pixel = round(v·(size−1)/N)); farm maps them to
screenshot pixels, then to device units, and taps there.

The screens are not square and the points are not symmetric, so a swapped x/y, a 1000 read as
999 (or as pixels) or a screenshot taken for device units each move the tap. Expected pixels
are worked out by hand in the comments, not with farm's own functions.
"""

import pytest

from farm.agent.api import Agent
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.families import FAMILIES, to_rect
from farm.llm.models import ModelSet

SCREEN = (1280, 800)      # landscape: x runs to 1279, y to 799


# ---- the map itself -----------------------------------------------------------------------------
@pytest.mark.parametrize("family, answer, pixel", [
    # 900·1279/1000 = 1151.1 → 1151;  600·799/1000 = 479.4 → 479
    ("ui-tars", [900, 600], (1151, 479)),
    # 250·1279/1000 = 319.75 → 320;   750·799/1000 = 599.25 → 599
    ("ui-tars", [250, 750], (320, 599)),
    # 900·1279/999 = 1152.25 → 1152;  600·799/999 = 479.88 → 480
    ("auto-glm", [900, 600], (1152, 480)),
    # 250·1279/999 = 320.07 → 320;    750·799/999 = 599.85 → 600
    ("auto-glm", [250, 750], (320, 600)),
])
def test_a_model_point_lands_on_its_pixel_of_a_landscape_screenshot(family, answer, pixel):
    rect = to_rect(answer, FAMILIES[family], SCREEN)
    assert rect.center == pixel


@pytest.mark.parametrize("family, full", [("ui-tars", 1000), ("auto-glm", 999)])
def test_the_whole_model_range_is_the_whole_screenshot(family, full):
    """0 is the first pixel and the family's top value the last one, on both axes."""
    assert to_rect([0, 0, full, full], FAMILIES[family], SCREEN) == Rect(
        x=0, y=0, width=1280, height=800)
    # one unit short of the top is no longer the last pixel (the scale is exact)
    short = to_rect([0, 0, full - 1, full - 1], FAMILIES[family], SCREEN)
    assert short.width < 1280 and short.height < 800


# ---- through the agent: the planned tap lands on the device -------------------------------------
def shop(device_cls=FakeDevice, size=SCREEN):
    """One small "Buy" button around device point (1152, 480); tapping it opens "bought"."""
    page = UITree(source="dom", page_text="shop", nodes=[
        UINode(id=0, role="button", text="Buy", clickable=True,
               rect=Rect(x=1146, y=474, width=12, height=12))])
    return device_cls(screens={"shop": page, "bought": UITree(source="dom", page_text="ok")},
                      transitions={"Buy": "bought"}, size=size)


FINISH = {"ui-tars": "Thought: bought\nAction: finished(content='ok')",
          "auto-glm": '<think>bought</think><answer>finish(message="ok")</answer>'}


def act(dev, family, reply):
    client = ScriptedModelClient([reply, FINISH[family]], family=family)
    agent = Agent(dev, ModelSet.single(client))
    agent.ai_act("buy it")
    return [a[1:] for a in dev.actions if a[0] == "tap"], agent


@pytest.mark.parametrize("family, reply, tap", [
    ("ui-tars", "Thought: the buy button\nAction: click(start_box='(900,600)')", (1151, 479)),
    # a box: 880..920 → 1125.5..1176.7 → 1126..1177, centre 1152; 580..620 → 463..495, 479
    ("ui-tars", "Thought: the buy button\nAction: click(start_box='[880,580,920,620]')",
     (1152, 479)),
    ("auto-glm", '<think>the buy button</think><answer>do(action="Tap", element=[900,600])'
                 "</answer>", (1152, 480)),
])
def test_the_planned_point_is_tapped_on_the_right_device_pixel(family, reply, tap):
    dev = shop()
    taps, agent = act(dev, family, reply)
    assert taps == [tap]
    assert dev.screen == "bought"                    # the button under that pixel was hit
    assert agent.last_tiers == ["plan-bbox"]         # the model's point was the answer


class HiDPIDevice(FakeDevice):
    """Screenshots in physical pixels, taps in points (an iPhone, a browser at DPR 2)."""

    def size(self):
        w, h = super().size()
        return w // 2, h // 2


@pytest.mark.parametrize("family, reply", [
    ("ui-tars", "Thought: the buy button\nAction: click(start_box='(900,600)')"),
    ("auto-glm", '<think>the buy button</think><answer>do(action="Tap", element=[900,600])'
                 "</answer>"),
])
def test_a_screenshot_twice_the_device_size_still_taps_the_same_spot(family, reply):
    """2560x1600 screenshot of a 1280x800-point screen: the model's 90%/75% point is device
    point (1152, 480) give or take the rounding of the halving, not screenshot pixel 2303."""
    dev = shop(HiDPIDevice, size=(2560, 1600))
    assert dev.size() == SCREEN
    (x, y), = act(dev, family, reply)[0]
    assert abs(x - 1152) <= 1 and abs(y - 480) <= 1, (x, y)
    assert dev.screen == "bought"
