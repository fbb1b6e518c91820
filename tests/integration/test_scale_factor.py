"""A case's ``deviceScaleFactor`` holds for the whole case in every ``--screenshots`` mode: the
report's screenshots must not reset the page to a scale of 1 (they did: a capture over farm's
own DevTools session with a clip undid Playwright's emulation, so a page at
``deviceScaleFactor: 2`` reported ``devicePixelRatio`` 1 from the first screenshot on).

The page is green only while it is shown at 2 device pixels per CSS pixel (a media query),
red otherwise, so the report's image shows which scale the page was drawn at. Report images are
in CSS pixels (800x600 for an 800x600 viewport at any scale), as the locator's and the model's
screenshots are: the size the report's marks are drawn in.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from farm.devices.browser import BrowserDevice
from farm.suite.model import WebTarget
from tests.support.farm_cli import FarmCli, by_name, results

WIDTH, HEIGHT, SCALE = 800, 600, 2
PAGE = """<!doctype html><title>Scale</title>
<style>body { margin: 0; height: 100vh; background: #d00000 }
@media (resolution: 2dppx) { body { background: #00c000 } }</style>
<body><h1 id="h">Scale page</h1></body>"""
READ_SCALE = "window.devicePixelRatio + ' ' + matchMedia('(resolution: 2dppx)').matches"
AT_SCALE_2 = "2 true"


def _green(image: bytes) -> bool:
    r, g, b = Image.open(io.BytesIO(image)).convert("RGB").getpixel((WIDTH // 2, HEIGHT - 10))
    return g > 150 and r < 80 and b < 80


def _case(folder: Path) -> Path:
    """A case on PAGE at deviceScaleFactor 2: it reads the scale, changes the page (so the next
    report image is a new capture), reads the scale again."""
    folder.mkdir(parents=True)
    (folder / "scale.html").write_text(PAGE)
    read = f'javascript: "return {READ_SCALE}"'
    flow = [read, "javascript: \"document.getElementById('h').textContent = 'Changed'\"",
            read, "assertText: Changed", read]
    steps = "".join(f"      - {line}\n" for line in flow)
    (folder / "scale.yaml").write_text(
        f"name: scale\nweb:\n  url: scale.html\n  deviceScaleFactor: {SCALE}\n"
        f"  viewportWidth: {WIDTH}\n  viewportHeight: {HEIGHT}\n"
        f"tasks:\n  - name: steps\n    flow:\n{steps}")
    return folder


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The case run by `farm run` in the default screenshot mode (all), on-failure and off:
    {mode: run dir}."""
    tmp = tmp_path_factory.mktemp("scale")
    suite = _case(tmp / "suite")
    farm = FarmCli(tmp)
    out = {}
    try:
        for mode, extra in (("default", ()), ("on-failure", ("--screenshots", "on-failure")),
                            ("off", ("--screenshots", "off"))):
            run_dir = tmp / mode
            proc = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                            *extra)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            out[mode] = run_dir
    finally:
        farm.close()
    return out


@pytest.mark.parametrize("mode", ["default", "on-failure", "off"])
def test_the_page_keeps_its_scale_factor_in_every_screenshot_mode(runs, mode):
    case = by_name(results(runs[mode]))["scale"]
    assert case["status"] == "passed", case["error"]
    reads = [s["output"] for s in case["steps"] if s["index"] in (1, 3, 5)]
    assert reads == [AT_SCALE_2] * 3


def test_report_images_show_the_page_at_its_scale_in_css_pixels(runs):
    run_dir = runs["default"]
    steps = by_name(results(run_dir))["scale"]["steps"]
    images = {steps[0]["before"]} | {s["after"] for s in steps}
    assert len(images) >= 2            # before the change and after it: two captures
    for name in images:
        data = (run_dir / name).read_bytes()
        image = Image.open(io.BytesIO(data))
        assert image.format == "JPEG" and image.size == (WIDTH, HEIGHT), name
        assert _green(data), f"{name}: the page was drawn at another scale than {SCALE}"


def test_evidence_and_screenshots_leave_the_device_scale_as_it_was(browser: BrowserDevice,
                                                                  tmp_path: Path) -> None:
    """On the device itself: every kind of screenshot, taken again and again, and the page
    still reports its scale (a capture's own late effect would show in the last read)."""
    page = tmp_path / "scale.html"
    page.write_text(PAGE)
    browser.start_session(WebTarget(url=page.as_uri(), viewport_width=WIDTH,
                                    viewport_height=HEIGHT, device_scale_factor=SCALE))
    try:
        assert browser.run_script(READ_SCALE, 5) == AT_SCALE_2
        for i in range(3):
            browser.run_script(f"document.getElementById('h').textContent = 'step {i}'", 5)
            jpeg = browser.capture_evidence()()
            assert jpeg is not None and Image.open(io.BytesIO(jpeg)).size == (WIDTH, HEIGHT)
            assert _green(jpeg)
            assert browser.run_script(READ_SCALE, 5) == AT_SCALE_2
            png = browser.screenshot()
            assert Image.open(io.BytesIO(png)).size == (WIDTH, HEIGHT) and _green(png)
            assert browser.run_script(READ_SCALE, 5) == AT_SCALE_2
    finally:
        browser.end_session()
