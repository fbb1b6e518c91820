"""aiInput on phones, through the real drivers (adbutils, facebook-wda) against the
simulators and the demo shop:

- typing into something that is no text field (a heading) fails the step, as on the web: it
  used to pass, the text going nowhere (the simulators report the focus as phones do:
  uiautomator's ``focused="true"``, WDA's ``GET /element/active``);
- a field is found by its label, as on the web: the label's text node and the field both
  match "Search products", and a step that types takes the one text field.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from farm.agent.api import Agent
from farm.devices.android import AndroidDevice
from farm.devices.ios import IosDevice
from farm.devices.sim import AndroidSimulator, IosSimulator
from farm.errors import StepFailed
from farm.suite.model import AndroidTarget, IosTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


@pytest.fixture(scope="module", params=["android", "ios"])
def phone(request: Any, demo_app: str) -> Iterator[Any]:
    """An open driver on a simulated phone of each kind, the demo shop installed."""
    apps = {PKG: demo_app + "/"}
    if request.param == "android":
        with AndroidSimulator(1, apps) as sim:
            dev = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
            dev.open()
            yield dev, AndroidTarget(launch=PKG)
            dev.close()
    else:
        with IosSimulator(1, apps) as sim:
            dev = IosDevice("i1", None, sim.urls[0])
            dev.open()
            yield dev, IosTarget(launch=PKG)
            dev.close()


def fresh(phone: Any) -> tuple[Any, Agent]:
    dev, target = phone
    dev.start_session(target)
    return dev, Agent(dev)


def test_input_into_a_heading_fails_saying_nothing_has_the_focus(phone):
    dev, agent = fresh(phone)
    with pytest.raises(StepFailed, match="no text field took the text: nothing has the focus"):
        agent.ai_input("Log in to continue shopping.", "demo")
    agent.ai_input("Enter your username", "demo")         # a field still takes it
    assert "demo" in dev.hierarchy().visible_text()


def test_a_field_is_found_by_its_label(phone):
    dev, agent = fresh(phone)
    agent.ai_input("Enter your username", "demo")
    agent.ai_input("Enter your password", "farm-demo-pass")
    agent.ai_tap("Sign in")
    agent.wait_for_text("Welcome back, demo", timeout_s=8)
    hit = agent.ai_input("Search products", "mug")       # its <label> reads the same
    assert hit is not None and hit.tier == "text"
    field = [n for n in dev.hierarchy().nodes if n.editable and n.rect == hit.rect]
    assert field and "mug" in (field[0].text + field[0].name), field
