"""A secret the page shows is blacked out of its screenshots, in a real `farm run` on
Chromium: the report's JPEGs, the marked SVGs built from them and the image a model is sent
(the AI locate tier is asked: the zero-token tiers cannot find "the little grey square").
Checked by pixels, not OCR: the secret's box is solid black, the text beside it and a text
elsewhere are not; and no text output holds the secret."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

from PIL import Image

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, message_texts, request_images

SECRET = "Hunter2-Secret!"

# 800x600 CSS pixels; a monospace font of 20px: a character is 12 px wide, so the label
# "Your password is " (17 characters) ends near x = 40 + 204 and the secret follows it.
PAGE = f"""<!doctype html><html><head><style>
body {{ margin: 0; font: 20px monospace; background: #fff; color: #000; }}
div, input {{ position: absolute; left: 40px; white-space: nowrap; }}
</style></head><body>
<div id="pw" style="top: 40px">Your password is {SECRET}</div>
<input id="field" style="top: 100px; width: 300px; height: 30px; font: 20px monospace">
<div id="up" style="top: 160px">TOKEN {SECRET.upper()}</div>
<div id="other" style="top: 220px">Nothing to hide here at all</div>
<div id="sq" style="top: 300px; width: 40px; height: 40px; background: #888"
     onclick="document.getElementById('other').textContent = 'Nothing to hide, tapped'"></div>
<script>document.getElementById('field').value = 'pin {SECRET}';</script>
</body></html>"""

SUITE = """\
name: shown secret
web:
  url: ${APP_URL}/page.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: look
    flow:
      - aiTap: the little grey square
      - waitForText: tapped
        timeout: 5000
      - assertText: Your password is wrong
"""

FARM_YAML = "secrets: [LOGIN_PASSWORD]\napps:\n  app:\n    serve: app\n    env: APP_URL\n"

# (x1, y1, x2, y2) CSS pixels: inside the secret's glyphs, inside the field, the upper-cased
# secret, the label before the secret, the text elsewhere
SECRET_AREAS = {"after the label": (250, 44, 40 + 12 * 31, 60),
                "the field's value": (45, 104, 335, 126),
                "upper-cased": (40 + 12 * 6 + 4, 164, 40 + 12 * 21, 180)}
OPEN_AREAS = {"the label": (40, 40, 230, 64), "the text elsewhere": (40, 220, 360, 244)}


def model(body: dict, index: int) -> str:
    if message_texts(body)[0].startswith("Find the element"):
        return json.dumps({"bbox": [45, 305, 75, 335]})
    return '{"bbox": [], "error": "not asked"}'


def blacked(img: Image.Image, area: tuple[int, int, int, int], scale: float) -> bool:
    """Every pixel of ``area`` (CSS pixels) near black (a JPEG's noise allowed)."""
    x1, y1, x2, y2 = (round(v * scale) for v in area)
    return img.convert("L").crop((x1, y1, x2, y2)).getextrema()[1] < 60


def check(img: Image.Image, what: str) -> None:
    scale = img.size[0] / 800
    for name, area in SECRET_AREAS.items():
        assert blacked(img, area, scale), f"{what}: the secret {name} is not blacked out"
    for name, area in OPEN_AREAS.items():
        assert not blacked(img, area, scale), f"{what}: {name} is blacked out"
        lo, hi = img.convert("L").crop(tuple(round(v * scale) for v in area)).getextrema()
        assert lo < 100 < hi, f"{what}: {name} shows no text"


def test_a_secret_the_page_shows_is_blacked_out_of_every_image(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(model)
    suite = tmp_path / "suite"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "page.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    (suite / "shown.yaml").write_text(SUITE)
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url, LOGIN_PASSWORD=SECRET)
    case = by_name(results(run_dir))["shown"]
    assert done.returncode == 1, done.stdout + done.stderr
    steps = case["steps"]
    assert steps[0]["tier"] == "ai" and steps[1]["status"] == "passed", steps
    assert "Your password is wrong" in steps[2]["error"]

    jpegs = sorted(run_dir.glob("artifacts/**/*.jpg"))
    assert len(jpegs) >= 2, jpegs
    for path in jpegs:
        check(Image.open(path), path.name)
    svgs = sorted(run_dir.glob("artifacts/**/*.svg"))
    assert svgs
    for path in svgs:      # a marked copy shows a JPEG beside it, checked above, by name
        linked = re.search(r'<image href="([^"/]+\.jpg)"', path.read_text())
        assert linked and (path.parent / linked[1]) in jpegs, path
    sent = [url for body in srv.requests for url in request_images(body)]
    assert sent
    for url in sent:
        check(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))), "model image")

    # the text outputs never held it either (the text masking's promise)
    for path in run_dir.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".xml", ".html", ".log",
                                              ".prom", ".txt", ".svg"):
            assert SECRET.lower() not in path.read_text(errors="replace").lower(), path
    assert SECRET.lower() not in (done.stdout + done.stderr).lower()
    assert "holding a secret blacked out" in (run_dir / "farm.log").read_text()
