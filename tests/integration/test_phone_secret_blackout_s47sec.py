"""A secret typed into a phone's plain text field is blacked out of the report's images, in a
real `farm run` on a simulated Android phone (adbutils, `uiautomator dump`) and iPhone
(facebook-wda, WDA's /source), as the browser's are: the field's box in the step's after-image
is solid black where the same run without the secret declared shows the typed text there,
and a text elsewhere on the screen is not blacked out. Before, a phone's images showed what was
typed (README: "a phone's screen shows what was typed"). A case that refers to no secret reads
no UI tree for its images, whatever credentials farm and the machine have (a model key, a
GITHUB_TOKEN): its dumps are as many with --screenshots all as with off; one that types a
credential-named variable's value reads them."""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from farm.config import credential_name
from tests.support.android_sims import iphones_with_page, phones_with_page
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import image_size, message_texts, request_images

pytestmark = pytest.mark.integration

APP = "com.qa.vault"
SECRET = "Hunter2-Secret!"
PAGE = """<!doctype html><html><head>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body { margin: 0; font: 20px sans-serif; background: #fff; color: #000; }
input { position: absolute; left: 20px; top: 60px; width: 300px; height: 40px;
        font: 20px monospace; color: #000; background: #fff; border: 1px solid #888; }
#note { position: absolute; left: 20px; top: 200px; }</style></head><body>
<input id="user" placeholder="Username" aria-label="Username">
<div id="note">Nothing to hide here</div>
<div id="sq" style="position: absolute; left: 40px; top: 300px; width: 80px; height: 80px;
     background: #888"></div>
</body></html>"""

SUITE = """\
{platform}:
  launch: {app}
tasks:
  - name: log in
    flow:
      - aiInput: Username
        value: ${{{name}}}
      - aiTap: Nothing to hide here
"""


def _unnamed() -> dict[str, str]:
    """The environment's credentials a case does not name, set here whatever the test's
    machine has: farm's model key and a CI runner's token (long enough to be masked
    everywhere), the machine's other credential-named variables emptied."""
    return {**{name: "" for name in os.environ if credential_name(name)},
            "FARM_MODEL_API_KEY": "sk-test-0123456789abcdef0123",
            "GITHUB_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ"}


def _run(farm: FarmCli, tmp: Path, name: str, platform: str, env: dict[str, str],
         secret: bool, screenshots: str = "all",
         typed: str = "TYPED") -> tuple[dict[str, Any], Path]:
    suite = tmp / name
    suite.mkdir()
    (suite / "vault.yaml").write_text(SUITE.format(platform=platform, app=APP, name=typed))
    if secret and typed == "TYPED":
        (suite / "farm.yaml").write_text("secrets: [TYPED]\n")
    run_dir = tmp / f"{name}-run"
    done = farm.run("run", suite, "--devices", f"{platform}:1", "--no-progress",
                    "--screenshots", screenshots, "--report-dir", run_dir,
                    **{**_unnamed(), typed: SECRET, **env})
    case = by_name(results(run_dir))["vault"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
    assert SECRET not in done.stdout + done.stderr or not secret
    return case, run_dir


def _area(case: dict[str, Any], run_dir: Path, step: int) -> tuple[Image.Image, tuple]:
    """The after-image of ``step`` in grey and its located element's box in its pixels
    (a few pixels inside: the field's border)."""
    rec = case["steps"][step]
    img = Image.open(run_dir / rec["after"]).convert("L")
    scale = img.size[0] / rec["screen"][0]
    x, y, w, h = rec["rect"]
    return img, (round((x + 3) * scale), round((y + 3) * scale),
                 round((x + w - 3) * scale), round((y + h - 3) * scale))


def _shows_text(img: Image.Image, box: tuple) -> bool:
    lo, hi = img.crop(box).getextrema()
    return lo < 100 < hi


def _check(farm: FarmCli, tmp: Path, platform: str, env: dict[str, str]) -> None:
    shown, shown_dir = _run(farm, tmp, "plain", platform, env, secret=False)
    img, field = _area(shown, shown_dir, 0)
    assert _shows_text(img, field), "the typed text does not show without a secret"

    hidden, hidden_dir = _run(farm, tmp, "secret", platform, env, secret=True)
    img, field = _area(hidden, hidden_dir, 0)
    assert img.crop(field).getextrema()[1] < 60, "the secret typed shows in the report"
    img, note = _area(hidden, hidden_dir, 1)
    assert _shows_text(img, note), "a text holding no secret is blacked out"
    log = (hidden_dir / "farm.log").read_text()
    assert "region(s) of the screen's text holding a secret blacked out of a screenshot" in log
    for path in hidden_dir.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".jsonl", ".xml", ".html", ".log"):
            assert SECRET not in path.read_text(errors="replace"), path


def _count_dumps(sim: Any) -> list[int]:
    """A counter of the `uiautomator dump` commands the simulated phone is sent."""
    shell, count = sim._shells[0], [0]
    dump = shell._cmd_uiautomator

    def counted(args: list[str]) -> Any:
        count[0] += 1
        return dump(args)
    shell._cmd_uiautomator = counted
    return count


def test_android_a_typed_secret_is_blacked_out_of_the_report(farm: FarmCli, tmp_path: Path):
    with phones_with_page(tmp_path, 1, APP, PAGE, "vault") as sim:
        _check(farm, tmp_path, "android", {"ANDROID_ADB_SERVER_PORT": str(sim.port)})


def _square(body: dict, index: int) -> str:
    """The scripted model: the grey square's box in the pixels of the image it was sent
    (CSS 40..120 x 300..380 on a screen 432 CSS pixels wide)."""
    if not message_texts(body)[0].startswith("Find the element"):
        return '{"bbox": [], "error": "not asked"}'
    scale = image_size(request_images(body)[0])[0] / 432
    return json.dumps({"bbox": [round(v * scale) for v in (40, 300, 120, 380)]})


def test_android_the_model_is_sent_no_typed_secret(farm: FarmCli, tmp_path: Path,
                                                   model_server):
    srv = model_server(_square)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [TYPED]\n")
    (suite / "vault.yaml").write_text(SUITE.format(platform="android", app=APP, name="TYPED")
                                      + "      - aiTap: the little grey square\n")
    with phones_with_page(tmp_path, 1, APP, PAGE, "vault") as sim:
        done = farm.run("run", suite, "--devices", "android:1", "--no-progress",
                        "--report-dir", tmp_path / "run", "--model", "openai/scripted-vlm",
                        "--model-base-url", srv.base_url, TYPED=SECRET,
                        ANDROID_ADB_SERVER_PORT=str(sim.port))
    case = by_name(results(tmp_path / "run"))["vault"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
    assert case["steps"][2]["tier"] == "ai", case["steps"][2]
    x, y, w, h = case["steps"][0]["rect"]          # the field, in the screen's pixels
    sent = [url for body in srv.requests for url in request_images(body)]
    assert sent
    for url in sent:
        img = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("L")
        scale = img.size[0] / case["steps"][0]["screen"][0]
        field = tuple(round(v * scale) for v in (x + 3, y + 3, x + w - 3, y + h - 3))
        assert img.crop(field).getextrema()[1] < 60, "the model was sent the typed secret"


def test_android_without_a_secret_its_images_read_no_tree(farm: FarmCli, tmp_path: Path):
    """A model key and a GITHUB_TOKEN in the environment (`_unnamed`) are no secret of the
    case's: no tree read for its images. A credential-named variable it types is."""
    with phones_with_page(tmp_path, 1, APP, PAGE, "vault") as sim:
        dumps = _count_dumps(sim)
        env = {"ANDROID_ADB_SERVER_PORT": str(sim.port)}
        _run(farm, tmp_path, "off", "android", env, secret=False, screenshots="off")
        without_images = dumps[0]
        _run(farm, tmp_path, "all", "android", env, secret=False)
        with_images = dumps[0] - without_images
        _run(farm, tmp_path, "secret", "android", env, secret=True)
        with_secret = dumps[0] - without_images - with_images
        case, run_dir = _run(farm, tmp_path, "credential", "android", env, secret=True,
                             typed="VAULT_PASSWORD")
    assert without_images > 0
    assert with_images == without_images
    assert with_secret > with_images        # (the secret's run reads trees for its images)
    img, field = _area(case, run_dir, 0)
    assert img.crop(field).getextrema()[1] < 60, "the credential typed shows in the report"


def test_ios_a_typed_secret_is_blacked_out_of_the_report(farm: FarmCli, tmp_path: Path):
    with iphones_with_page(tmp_path, 1, APP, PAGE, "vault") as sim:
        _check(farm, tmp_path, "ios", {"FARM_IOS_WDA_URLS": sim.urls[0]})


def test_ios_without_a_secret_its_images_read_no_source(farm: FarmCli, tmp_path: Path):
    import urllib.request
    with iphones_with_page(tmp_path, 1, APP, PAGE, "vault") as sim:
        env = {"FARM_IOS_WDA_URLS": sim.urls[0]}

        def sources() -> int:
            with urllib.request.urlopen(sim.urls[0] + "/farm/requests", timeout=30) as got:
                asked = json.loads(got.read())["value"]
            return sum(1 for line in asked if line.startswith("GET ") and
                       line.endswith("/source"))
        _run(farm, tmp_path, "off", "ios", env, secret=False, screenshots="off")
        without_images = sources()
        _run(farm, tmp_path, "all", "ios", env, secret=False)
        with_images = sources() - without_images
        _run(farm, tmp_path, "secret", "ios", env, secret=True)
        with_secret = sources() - without_images - with_images
    assert without_images > 0 and with_images == without_images
    assert with_secret > with_images
