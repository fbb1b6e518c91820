"""The locator chain on real screens: whole-word text matches and scroll-into-view on the web
and both simulated phones, the OCR tier on a <canvas> page, and the simulated phones' trees
agreeing with their screenshots (read back by OCR)."""

from __future__ import annotations

import difflib
from typing import Any, Iterator

import pytest

from farm.agent.api import Agent
from farm.agent.ocr import OcrLine, read_lines, squash
from farm.devices.android import AndroidDevice
from farm.devices.base import Rect, UITree
from farm.devices.ios import IosDevice
from farm.devices.sim import AndroidSimulator, IosSimulator
from farm.errors import LocateError
from farm.suite.model import AndroidTarget, IosTarget, WebTarget
from tests.support.farm_cli import ROOT

APPS = ROOT / "tests" / "integration" / "apps" / "locator"
DEMO, FOOTERS, LONG = "com.farm.demo.shop", "com.example.bakery", "com.example.longlist"


@pytest.fixture(scope="module")
def locator_app() -> Iterator[str]:
    """Base URL of tests/integration/apps/locator (pages written like third-party apps)."""
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    with AppServer() as apps:
        apps.serve([AppSpec(name="locator", serve=APPS, env="LOCATOR_APP")])
        yield apps.env["LOCATOR_APP"]


@pytest.fixture(scope="module")
def phone_apps(demo_app: str, locator_app: str) -> dict[str, str]:
    return {DEMO: demo_app + "/", FOOTERS: locator_app + "/index.html",
            LONG: locator_app + "/long.html"}


@pytest.fixture(scope="module")
def phones(phone_apps: dict[str, str]) -> Iterator[dict[str, Any]]:
    """One simulated Android phone and one iPhone, opened through farm's own drivers."""
    with AndroidSimulator(1, phone_apps) as android, IosSimulator(1, phone_apps) as ios:
        devices = {"android": AndroidDevice("a1", None, android.serials[0], port=android.port),
                   "ios": IosDevice("i1", None, ios.urls[0])}
        for dev in devices.values():
            dev.open()
        yield devices
        for dev in devices.values():
            dev.close()


def _launch(dev: Any, app: str) -> Any:
    dev.start_session(AndroidTarget(launch=app) if dev.platform == "android"
                      else IosTarget(launch=app))
    return dev


# ---- tree / screen agreement ---------------------------------------------------------------
def _inside(line: Rect, node: Rect, slack: int) -> bool:
    cx, cy = line.x + line.width / 2, line.y + line.height / 2
    return (node.x - slack <= cx <= node.x + node.width + slack
            and node.y - slack <= cy <= node.y + node.height + slack)


def _same_text(read: str, shown: str) -> bool:
    a, b = squash(read), squash(shown)
    return a in b or b in a or difflib.SequenceMatcher(None, a, b).ratio() >= 0.7


def disagreements(tree: UITree, lines: list[OcrLine], screen: tuple[int, int],
                  image: tuple[int, int]) -> list[str]:
    """Every text node wholly on screen has its text read inside its bounds, and every line
    read on the screenshot lies inside a visible node showing that text."""
    sx, sy = screen[0] / image[0], screen[1] / image[1]
    read = [(line.text, Rect(x=round(line.rect.x * sx), y=round(line.rect.y * sy),
                             width=round(line.rect.width * sx),
                             height=round(line.rect.height * sy))) for line in lines]
    slack = screen[0] // 100
    shown = [n for n in tree.nodes if n.visible and len(squash(n.text)) >= 3]
    bad = []
    for n in shown:
        r = n.rect
        if r.x < 0 or r.y < 0 or r.x + r.width > screen[0] or r.y + r.height > screen[1]:
            continue
        if not any(_same_text(text, n.text) and _inside(rect, r, slack) for text, rect in read):
            bad.append(f"tree has {n.text[:40]!r} at {r.as_list()}, not read there")
    strings = [(n, f) for n in tree.nodes if n.visible
               for f in (n.text, n.placeholder, n.name) if f]   # an empty field shows a hint
    for text, rect in read:
        if len(squash(text)) < 3:
            continue
        if not any(_same_text(text, f) and _inside(rect, n.rect, slack) for n, f in strings):
            bad.append(f"screen shows {text!r} at {rect.as_list()}, no tree node there says so")
    return bad


def _halve(png: bytes) -> bytes:
    """Android's 1080x2400 frame at half size (still larger than the iPhone's in points)."""
    import io

    from PIL import Image
    img = Image.open(io.BytesIO(png))
    if img.width < 1000:
        return png
    out = io.BytesIO()
    img.reduce(2).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_simulated_trees_agree_with_their_screens(phones, platform):
    """A third-party page with no viewport meta tag (zoomed out, as phones show it), a flex
    footer and an absolutely positioned one; and the demo shop."""
    dev = phones[platform]
    from farm.agent.images import png_size
    for app, expect in ((FOOTERS, "Privacy"), (DEMO, "Sign in")):
        _launch(dev, app)
        tree, png = dev.hierarchy(), _halve(dev.screenshot())   # OCR costs by the pixel
        assert tree is not None
        lines = read_lines(png)
        assert any(squash(expect) in squash(line.text) for line in lines), lines
        assert disagreements(tree, lines, dev.size(), png_size(png)) == [], app
        # the footer link the user sees is found and tapping it works
        if app == FOOTERS:
            hit = Agent(dev).ai_locate("Imprint")
            assert hit.tier == "text" and hit.rect.y < dev.size()[1]


# ---- whole-word match and scroll into view -----------------------------------------------
def _scroll_and_substring(dev: Any) -> None:
    agent = Agent(dev)
    assert not agent.shows("Terms opened")
    hit = agent.ai_tap("terms of service")       # reads "Terms of service (updated)", below
    assert hit.tier == "text" and "scrolled into view" in hit.description
    agent.wait_for_text("Terms opened", timeout_s=20)
    with pytest.raises(LocateError) as info:     # "Row 1", "Row 10" … each contain "Row"
        agent.ai_tap("Row")
    assert "ambiguous" in str(info.value) and len(info.value.candidates) > 1


@pytest.mark.parametrize("platform", ["android", "ios"])
def test_phones_scroll_a_partial_text_match_into_view(phones, platform):
    _scroll_and_substring(_launch(phones[platform], LONG))


def test_web_scrolls_a_partial_text_match_into_view_and_ocr_reads_a_canvas(browser,
                                                                           locator_app):
    browser.start_session(WebTarget(url=locator_app + "/long.html", viewport_width=800,
                                    viewport_height=600))
    try:
        _scroll_and_substring(browser)
        # the OCR tier: a <canvas> page has no text in its tree; "Start game" is drawn
        browser.launch(locator_app + "/canvas.html")
        agent = Agent(browser)
        hit = agent.ai_tap("Start game")
        assert hit.tier == "ocr"
        assert browser.run_script("document.title", 5) == "started"
        with pytest.raises(LocateError) as info:   # "Level 1", "Level 2": a miss, no guess
            agent.ai_locate("Level")
        assert "ambiguous" in str(info.value) and len(info.value.candidates) == 2
    finally:
        browser.end_session()
