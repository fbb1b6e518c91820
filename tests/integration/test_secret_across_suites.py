"""Every secret a run knows is masked in every case of it: in a real `farm run` of two suites
(Chromium, the scripted model server keeping every request body, the default read-write
cache), suite "alpha" declares ACCESS_CODE secret, and suite "beta", which does not, opens a
page that shows that code. Beta's model feedback and its cache entries quote the page; the
code reaches neither the model nor any file of the run or of farm's state (the cache)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.agent_scripts import DONE_XML, xml
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer, image_size, message_texts, request_images

CODE = "alpha-access-7731"      # not a credential by its name: a secret by alpha's secrets:

ALPHA_YAML = f"""\
secrets: [ACCESS_CODE]
vars:
  ACCESS_CODE: {CODE}
"""
ALPHA_CASE = """\
name: alpha signs in
web:
  url: about:blank
tasks:
  - name: uses its code
    flow:
      - javascript: "'${ACCESS_CODE}'.length"
"""

BETA_YAML = """\
apps:
  portal:
    serve: app
    env: PORTAL_URL
"""
# CSS pixels at 800x600; the model answers in pixels of the screenshot it saw.
BUTTON = (40, 40, 440, 80)
PAGE = f"""<!doctype html><html><head><style>
body {{ margin: 0; font: 16px sans-serif; }}
button {{ position: absolute; left: 40px; top: 40px; width: 400px; height: 40px; }}
p {{ position: absolute; left: 40px; top: 120px; }}
</style></head><body>
<button onclick="this.dataset.copied='yes'">Copy {CODE}</button>
<p>Access code: {CODE}</p>
</body></html>"""
BETA_CASE = """\
name: beta reads the portal
web:
  url: ${PORTAL_URL}/page.html
  viewportWidth: 800
  viewportHeight: 600
tasks:
  - name: the page quotes alpha's code
    flow:
      - aiTap: the button that copies the code
      - javascript: "document.querySelector('button').dataset.copied"
      - ai: open the access code
"""


def box(css: tuple[int, int, int, int], body: dict) -> str:
    """``css`` in pixels of the screenshot this request carries, as a locate answer."""
    w, h = image_size(request_images(body)[-1])
    sx, sy = w / 800, h / 600
    return json.dumps({"bbox": [round(css[0] * sx), round(css[1] * sy),
                                round(css[2] * sx), round(css[3] * sy)]})


def model(body: dict, index: int) -> str:
    """The copy button is found where it is; the ai step's target is not found anywhere, so
    the text tier's near candidates (the access code line) become the planner's feedback."""
    texts = message_texts(body)
    if texts[0].startswith("Find the element: the button that copies the code"):
        return box(BUTTON, body)
    if texts[0].startswith("Find the element"):
        return '{"bbox": [], "error": "not there"}'
    if "Feedback on the last action" in texts[-1]:
        return DONE_XML
    return xml("Tap", {"locate": {"prompt": "access code line"}})


def write_suites(root: Path) -> tuple[Path, Path]:
    alpha, beta = root / "alpha", root / "beta"
    (beta / "app").mkdir(parents=True)
    alpha.mkdir()
    (alpha / "farm.yaml").write_text(ALPHA_YAML)
    (alpha / "signs_in.yaml").write_text(ALPHA_CASE)
    (beta / "farm.yaml").write_text(BETA_YAML)
    (beta / "app" / "page.html").write_text(PAGE)
    (beta / "portal.yaml").write_text(BETA_CASE)
    return alpha, beta


def test_one_suites_secret_is_masked_in_another_suites_prompt_and_cache(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(model)
    run_dir = tmp_path / "run"
    done = farm.run("run", *write_suites(tmp_path), "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir, "--model", "openai/scripted-vlm",
                    "--model-base-url", srv.base_url)
    cases = by_name(results(run_dir))
    assert done.returncode == 0, json.dumps(cases, indent=1)[:4000] + done.stderr

    # The leaks were provoked: beta's tap found the button showing the code (a locate the
    # cache keeps), and its ai step's feedback quoted the page's text to the model.
    steps = cases["portal"]["steps"]
    assert steps[0]["tier"] == "ai" and steps[1]["output"] == "yes", steps
    plans = [" ".join(message_texts(b)) for b in srv.requests
             if "Feedback on the last action" in " ".join(message_texts(b))]
    assert plans and "Access code: ***" in plans[0], plans

    # ... and masked there, as in every file of the run and the cache in farm's state dir.
    leaked = [i for i, raw in enumerate(srv.raw) if CODE.encode() in raw]
    assert not leaked, f"requests {leaked} hold alpha's secret"
    written = [p for p in (*run_dir.rglob("*"), *(tmp_path / "state").rglob("*"))
               if p.is_file() and p.suffix != ".jpg"]
    assert any(p.name.startswith("cache.db") for p in written), written
    for path in written:
        assert CODE.encode() not in path.read_bytes(), path
    assert CODE not in done.stdout + done.stderr


SHOWS_OTHER = """\
name: {name} shows the other's
web:
  url: ${{PAGES_URL}}/page.html
tasks:
  - name: reads the page
    flow:
      - javascript: document.body.innerText
"""


def test_suites_that_name_their_secrets_alike_have_each_value_masked(farm: FarmCli,
                                                                     tmp_path: Path) -> None:
    """Two suites each declare DEMO_PASSWORD, with their own values; each one's page shows
    the other's password. Both values are secrets of the run: neither shows anywhere."""
    values = {"alpha": "alpha-pass-1111", "beta": "beta-pass-2222"}
    suites = []
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        suite = tmp_path / name
        (suite / "app").mkdir(parents=True)
        (suite / "farm.yaml").write_text(
            f"secrets: [DEMO_PASSWORD]\nvars:\n  DEMO_PASSWORD: {values[name]}\n"
            "apps:\n  pages:\n    serve: app\n    env: PAGES_URL\n")
        (suite / "app" / "page.html").write_text(f"<p>{other}'s password: {values[other]}</p>")
        (suite / "shows.yaml").write_text(SHOWS_OTHER.format(name=name))
        suites.append(suite)
    run_dir = tmp_path / "run"
    done = farm.run("run", *suites, "--devices", "browser:1", "--no-progress",
                    "--report-dir", run_dir)
    cases = results(run_dir)["cases"]
    assert done.returncode == 0, json.dumps(cases, indent=1)[:4000] + done.stderr
    outputs = sorted(c["steps"][0]["output"] for c in cases)
    assert outputs == ["alpha's password: ***", "beta's password: ***"], outputs
    for path in (p for p in run_dir.rglob("*") if p.is_file() and p.suffix != ".jpg"):
        text = path.read_text(errors="replace")
        assert not [v for v in values.values() if v in text], path
    assert not [v for v in values.values() if v in done.stdout + done.stderr]
