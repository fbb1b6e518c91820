"""A phone's input field named by its hint, typed into twice: uiautomator (before Android 16)
and WDA show an empty field's hint as its text and drop it once the field holds text, so the
second `aiInput: <hint>` must still find the field the first one filled. Real adbutils /
facebook-wda against the simulators."""

from __future__ import annotations

import pytest

from farm.agent.api import Agent
from farm.devices.android import AndroidDevice
from farm.devices.sim import AndroidSimulator
from farm.errors import LocateError
from farm.suite.model import AndroidTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


def test_a_field_named_by_its_hint_is_found_again_once_filled(demo_app):
    with AndroidSimulator(1, {PKG: demo_app + "/"}) as sim:
        dev = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        dev.open()
        try:
            dev.start_session(AndroidTarget(launch=PKG))
            agent = Agent(dev)
            first = agent.ai_input("Enter your username", "demo")
            tree = dev.hierarchy()
            assert tree is not None and "Enter your username" not in tree.visible_text()
            again = agent.ai_input("Enter your username", "alice")
            assert again is not None and again.tier == "text" and again.rect == first.rect
            assert "named before it was filled" in again.description
            assert "alice" in dev.hierarchy().visible_text()
            with pytest.raises(LocateError):     # a new case's agent knows nothing of it
                Agent(dev).ai_input("Enter your username", "bob")
        finally:
            dev.close()
