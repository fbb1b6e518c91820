"""What a case on a simulated iPhone meets at its start, and what it is told when the app it
launched dies mid-case: the app crashing under a step that waits for its text is named (not a
miss read by OCR of the home screen), and a phone a case before turned landscape is upright
again."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.support.android_sims import iphones_with_page
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

BUNDLE = "com.example.crashy"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>Home</title></head><body><h1>QA Home</h1>
<button onclick="document.body.innerHTML = '<h1>Long list</h1>'">Open list</button>
</body></html>"""


@pytest.fixture
def simulator(tmp_path):
    with iphones_with_page(tmp_path, 1, BUNDLE, PAGE, "crashy") as sim:
        yield sim


def fault(url: str, name: str) -> None:
    body = json.dumps({"name": name, "count": 1}).encode()
    urllib.request.urlopen(urllib.request.Request(url + "/farm/fault", body, method="POST"),
                           timeout=10).read()


def test_an_app_crashing_under_a_text_wait_is_named_not_blamed_on_ocr(farm: FarmCli,
                                                                     simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "crash.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: open the list
    flow:
      - aiTap: Open list
      - waitForText: Long list
        timeout: 2000
""")
    fault(simulator.urls[0], "crash")
    farm.run("run", suite, "--devices", "ios:1", "--report-dir", farm.tmp / "run",
             FARM_IOS_WDA_URLS=simulator.urls[0])
    case = by_name(results(farm.tmp / "run"))["crash"]
    assert case["status"] == "failed"
    said = case["error"]["message"]
    assert f"{BUNDLE} is no longer running on" in said and "OCR" not in said, said


def test_a_case_after_one_that_turned_the_iphone_starts_upright(farm: FarmCli, simulator):
    suite = farm.tmp / "suite"
    suite.mkdir()
    (suite / "a_turn.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: turn the iPhone
    flow:
      - runWdaRequest:
          method: POST
          endpoint: /session/{{sessionId}}/orientation
          data: {{orientation: LANDSCAPE}}
""")
    (suite / "b_upright.yaml").write_text(f"""\
ios:
  launch: {BUNDLE}
tasks:
  - name: read how the iPhone is held
    flow:
      - runWdaRequest:
          method: GET
          endpoint: /session/{{sessionId}}/orientation
        name: held
""")
    done = farm.run("run", suite, "--devices", "ios:1", "--report-dir",
                    farm.tmp / "run", FARM_IOS_WDA_URLS=simulator.urls[0])
    cases = by_name(results(farm.tmp / "run"))
    assert [c["status"] for c in cases.values()] == ["passed", "passed"], \
        (cases, done.stdout, done.stderr)
    assert cases["b_upright"]["data"]["held"] == "PORTRAIT", cases["b_upright"]
