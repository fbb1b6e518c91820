"""A page's JavaScript alert() and confirm() on a simulated iPhone were dismissed at once
(Playwright's default): a case never saw them, where a phone shows a blocking alert WDA reads
(/alert/text, its buttons, an XCUIElementTypeAlert in /source) until a button answers it. Now
the simulator holds it in front, in an app and in Safari (``launch: http://…``)."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.dialogs"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Dialogs</title></head><body><h1>Items</h1>
<button onclick="alert('Item saved'); say('Saved and seen')">Save item</button>
<button onclick="say(confirm('Delete this item?') ? 'Deleted' : 'Kept')">Delete item</button>
<p id="said">Idle</p>
<script>function say(t) { document.getElementById('said').textContent = t; }</script>
</body></html>"""
FLOW = """\
tasks:
  - name: answer the page's dialogs
    flow:
      - aiTap: Save item
      - runWdaRequest:
          method: GET
          endpoint: /alert/text
        name: alert
      - assertText: Item saved
      - aiTap: OK
      - assertText: Saved and seen
      - aiTap: Delete item
      - runWdaRequest:
          method: GET
          endpoint: /wda/alert/buttons
        name: buttons
      - aiTap: Cancel
      - assertText: Kept
      - aiTap: Delete item
      - runWdaRequest:
          method: POST
          endpoint: /alert/accept
      - assertText: Deleted
"""


@pytest.fixture
def served(tmp_path):
    from farm.appserver import AppServer
    from farm.devices.sim import IosSimulator
    from farm.suite.model import AppSpec

    app = tmp_path / "app"
    app.mkdir()
    (app / "index.html").write_text(PAGE)
    with AppServer() as server:
        server.serve([AppSpec(name="dialogs", serve=app)])
        url = server.urls[app.resolve()] + "/"
        with IosSimulator(1, {BUNDLE: url}) as sim:
            yield sim.urls[0], url


@pytest.mark.parametrize("launch", ["app", "safari"])
def test_a_pages_dialogs_stay_in_front_until_answered(farm: FarmCli, served, launch):
    wda, page = served
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "dialogs.yaml").write_text(
        f"ios:\n  launch: {BUNDLE if launch == 'app' else page}\n" + FLOW)
    done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
                    FARM_IOS_WDA_URLS=wda)
    case = by_name(results(farm.tmp / "run"))["dialogs"]
    assert case["status"] == "passed", (case.get("error"), done.stdout, done.stderr)
    assert case["data"]["alert"] == "Item saved"
    assert case["data"]["buttons"] == ["Cancel", "OK"]
