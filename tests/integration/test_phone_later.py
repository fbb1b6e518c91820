"""On phones too a target that comes after the step before (a button the app adds once its
request answers) is waited for: the UI tree is read again until it changes, for 5 s at most
(no model here). Before, the step was skipped at once ("needs a model: no zero-token match").
Both simulators, over the real adbutils / facebook-wda paths."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import run
from tests.support.farm_cli import results

pytestmark = pytest.mark.integration

FARM_YAML = """\
timeout: 60
apps:
  site:
    serve: site
    env: SITE_URL
"""

PAGE = """<!doctype html><html><body>
<button onclick="setTimeout(() => { document.getElementById('later').innerHTML =
  '<button onclick=&quot;say(\\'Timer button tapped\\')&quot;>Timer button</button>'; }, 200)"
  style="font-size: 24px">Load later</button>
<div id="later"></div><p id="out"></p>
<script>function say(t) { document.getElementById('out').textContent = t }</script>
</body></html>"""

CASE = """{platform}:
  launch: ${{SITE_URL}}/later.html
tasks:
  - name: later
    flow:
      - aiTap: Load later
      - aiTap: Timer button
      - assertText: Timer button tapped
"""


def test_a_button_that_comes_later_is_waited_for_on_both_phones(tmp_path: Path):
    suite = tmp_path / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "later.html").write_text(PAGE)
    (suite / "farm.yaml").write_text(FARM_YAML)
    for platform in ("android", "ios"):
        (suite / f"{platform}.yaml").write_text(CASE.format(platform=platform))
    out = io.StringIO()
    settings = load_settings(report_dir=tmp_path / "run", state_dir=tmp_path / "state")
    code = run([suite], "android-sim:1,ios-sim:1", settings, progress=False, out=out)
    assert code == 0, out.getvalue()
    for case in results(tmp_path / "run")["cases"]:
        taps = [(s["label"], s["status"], s["tier"]) for s in case["steps"]
                if s["kind"] == "aiTap"]
        assert taps == [('aiTap "Load later"', "passed", "text"),
                        ('aiTap "Timer button"', "passed", "text")], case["platform"]
