"""A real `farm run` (Chromium) of a case with a tap: the step's marked copy is a small SVG that
links to its before JPEG (it held a base64 copy of it, a third larger: 20 MB of a 150-case
run's 49 MB), report.html shows the marks over that JPEG in the table and the lightbox, the SVG
opened on its own shows the whole picture, and the Allure export embeds the JPEG (its viewer
shows an attachment alone)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest
from PIL import Image

pytestmark = pytest.mark.integration

CASE = """\
name: Sign in
web:
  url: {url}/index.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: sign in
    flow:
      - aiInput: Username
        value: demo
      - aiTap: Sign in
"""


@pytest.fixture(scope="module")
def run(demo_app, tmp_path_factory):
    """The case run once: (run dir, allure dir, its results.json case)."""
    from tests.support.farm_cli import FarmCli
    tmp = tmp_path_factory.mktemp("marked")
    (tmp / "suite").mkdir()
    (tmp / "suite" / "sign_in.yaml").write_text(CASE.format(url=demo_app))
    farm = FarmCli(tmp)
    try:
        proc = farm.run("run", tmp / "suite", "--devices", "browser:1", "--report-dir",
                        tmp / "run", "--alluredir", tmp / "allure")
    finally:
        farm.close()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (case,) = json.loads((tmp / "run" / "results.json").read_text())["cases"]
    return tmp / "run", tmp / "allure", case


def _tapped(case: dict) -> dict:
    (step,) = [s for s in case["steps"] if s["kind"] == "aiTap"]
    assert step["marked"] and step["before"]
    return step


def _href(svg: bytes) -> str:
    found = re.findall(rb'<image href="([^"]*)"', svg)
    assert len(found) == 1
    return found[0].decode()


def _red(pixel) -> bool:
    r, g, b = pixel[:3]
    return r > 180 and g < 90 and b < 120


def _far_dark_pixel(jpeg: Image.Image, tap: list[int], scale: float) -> tuple[int, int]:
    """A pixel of the screenshot clearly not white and well away from the marks, in image
    pixels."""
    w, h = jpeg.size
    best, at = 255 * 3, (0, 0)
    for y in range(0, h, 7):
        for x in range(0, w, 7):
            if abs(x - tap[0] / scale) + abs(y - tap[1] / scale) < w / 4:
                continue
            v = sum(jpeg.getpixel((x, y)))
            if v < best:
                best, at = v, (x, y)
    assert best < 500, "the screenshot has nothing but white to compare"
    return at


def test_the_marked_copy_links_to_its_jpeg_and_is_small(run):
    run_dir, _, case = run
    step = _tapped(case)
    svg = (run_dir / step["marked"]).read_bytes()
    assert b"data:" not in svg and len(svg) < 3000
    href = _href(svg)
    assert "/" not in href
    assert (run_dir / step["marked"]).parent / href == run_dir / step["before"]
    assert (run_dir / step["before"]).is_file()


def test_the_report_shows_the_jpeg_under_the_marks(run, viewer_page, page_errors):
    run_dir, _, case = run
    step = _tapped(case)
    page = viewer_page
    page.goto((run_dir / "report.html").as_uri() + "#case=" + case["case_id"])
    thumb = page.locator(f'.steps img.marked[src="{step["marked"]}"]')
    thumb.wait_for()
    assert step["before"] in thumb.evaluate("i => getComputedStyle(i).backgroundImage")

    thumb.click()                   # the lightbox, full size: the JPEG and the marks
    box = page.locator("#lightbox img")
    page.wait_for_function("() => { const i = document.querySelector('#lightbox img');"
                           " return i.complete && i.naturalWidth > 0; }")
    assert step["before"] in box.evaluate("i => getComputedStyle(i).backgroundImage")
    shown = Image.open(io.BytesIO(box.screenshot())).convert("RGB")
    jpeg = Image.open(run_dir / step["before"]).convert("RGB")
    tap = step["marks"][0]["points"][0]
    scale = step["screen"][0] / jpeg.width               # screen units per image pixel
    k = shown.width / jpeg.width                          # shown pixels per image pixel
    assert _red(shown.getpixel((round(tap[0] / scale * k), round(tap[1] / scale * k))))
    x, y = _far_dark_pixel(jpeg, tap, scale)
    seen, want = shown.getpixel((round(x * k), round(y * k))), jpeg.getpixel((x, y))
    assert all(abs(a - b) < 60 for a, b in zip(seen, want)), (seen, want)

    # opened on its own (a browser tab), the SVG loads its JPEG: the whole picture
    page.goto((run_dir / step["marked"]).as_uri())
    alone = Image.open(io.BytesIO(page.screenshot())).convert("RGB")
    k = alone.width / jpeg.width if alone.width < jpeg.width else 1
    seen = alone.getpixel((round(x * k), round(y * k)))
    assert all(abs(a - b) < 60 for a, b in zip(seen, want)), (seen, want)
    assert page_errors == []


def test_the_allure_export_embeds_the_jpeg(run):
    run_dir, allure, case = run
    step = _tapped(case)
    svgs = [p.read_bytes() for p in allure.glob("*-attachment.svg")]
    assert svgs
    hrefs = [_href(s) for s in svgs]
    assert all(h.startswith("data:image/jpeg;base64,") for h in hrefs)
    jpeg = (run_dir / step["before"]).read_bytes()
    assert jpeg in [base64.b64decode(h.partition(",")[2]) for h in hrefs]
