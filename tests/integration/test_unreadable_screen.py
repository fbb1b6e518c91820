"""Text checks on a phone whose UI tree comes back empty (a Flutter app, a game, a black-box
WebView): what the screen shows is read by OCR, so assertNoText does not pass on a screen
showing the text, and assertText / waitForText pass when the text is there. Real adbutils and
facebook-wda against the simulators, real RapidOCR."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

import pytest

from farm.agent.api import Agent
from farm.devices.android import AndroidDevice
from farm.devices.ios import IosDevice
from farm.devices.sim import AndroidSimulator, IosSimulator
from farm.errors import AssertionFailed, StepFailed
from farm.suite.model import AndroidTarget, IosTarget

pytestmark = pytest.mark.integration

PKG = "com.farm.demo.shop"


def _checks_read_the_pixels(agent: Agent) -> None:
    assert agent.device.hierarchy() is None          # the tree says nothing
    ocr = r" \(read by OCR of a screenshot: the UI tree has too little text; OCR can misread\)$"
    with pytest.raises(AssertionFailed, match='"Sign in" is on screen but should not be: '
                                              'the screen shows it in "Sign in"' + ocr):
        agent.assert_no_text("Sign in")
    agent.assert_text("Sign in")
    agent.wait_for_text("Sign in", timeout_s=5)
    agent.assert_no_text("Welcome back")             # what is not shown still passes
    with pytest.raises(AssertionFailed, match='"Welcome back" is not on screen' + ocr):
        agent.assert_text("Welcome back")


@contextmanager
def _phone_with_an_empty_tree(demo_app: str, platform: str) -> Iterator[tuple[Any, Any]]:
    """(the simulator, an open device in a session on the demo app) whose UI tree comes back
    empty from now on."""
    simulator = AndroidSimulator if platform == "android" else IosSimulator
    with simulator(1, {PKG: demo_app + "/"}) as sim:
        if platform == "android":
            dev, target = (AndroidDevice("a1", None, sim.serials[0], port=sim.port),
                           AndroidTarget(launch=PKG))
        else:
            dev, target = IosDevice("i1", None, sim.urls[0]), IosTarget(launch=PKG)
        dev.open()
        try:
            dev.start_session(target)
            sim.fault(0, "empty_tree", -1)
            yield sim, dev
        finally:
            dev.close()


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_text_checks_on_an_empty_tree_read_the_screen(demo_app, platform):
    with _phone_with_an_empty_tree(demo_app, platform) as (_, dev):
        _checks_read_the_pixels(Agent(dev))


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_text_checks_on_a_black_screen_with_an_empty_tree_fail_as_unreadable(demo_app,
                                                                             platform):
    """A secure app (FLAG_SECURE: black screenshots) whose UI tree is empty too: farm cannot
    see the screen at all, so assertNoText must not pass on it (OCR reads nothing on black),
    and assertText says why it found nothing."""
    with _phone_with_an_empty_tree(demo_app, platform) as (sim, dev):
        sim.fault(0, "black", -1)
        agent = Agent(dev)
        unreadable = "cannot read the screen's text: the screenshot is black"
        with pytest.raises(StepFailed, match=unreadable):
            agent.assert_no_text("Sign in")
        with pytest.raises(StepFailed, match=unreadable):
            agent.assert_text("Sign in")


def test_a_wait_looks_past_one_black_frame(demo_app):
    """A black frame with an empty tree may be a moment's (an app starting): waitForText looks
    again, where it failed the step at its first look; it fails as unreadable only at its end."""
    with _phone_with_an_empty_tree(demo_app, "android") as (sim, dev):
        agent = Agent(dev)
        sim.fault(0, "black", 1)                 # the next screenshot only
        agent.wait_for_text("Sign in", timeout_s=30)
        sim.fault(0, "black", -1)
        with pytest.raises(StepFailed, match="cannot read the screen's text: the screenshot"):
            agent.wait_for_text("Sign in", timeout_s=1)
