"""What a step says when nothing on the page is its target: `farm run` of an ``aiTap`` with an
``xpath:`` that matches nothing, on real Chromium, the model the scripted OpenAI-compatible
server. The page has a "Blue Mug" link; the steps ask for "Blue Mugs" (a renamed link, a stale
XPath).

What a user sees: when the model answers "not there", the step's error says the model's answer
and the closest element once each (it said the model's answer twice, and the closest element
twice); when the model is down (its locate reply unreadable twice), the case stays an
infrastructure error (ModelUnavailable) and its message keeps what the tiers that need no
model found: the XPath that matched nothing and the closest element on the page (it said only
that the model's reply could not be parsed).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import ModelServer
from tests.support.per_case_model import PerCase

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body><h1>Shop</h1>
<a id="mug" href="#mug">Blue Mug</a><p>Red Cup</p></body></html>"""
CASE = """\
web:
  url: ${SITE_URL}/index.html
tasks:
  - name: tap
    flow:
      - aiTap: PROMPT
        xpath: //*[@id="blue-mug-link"]
"""
NOT_THERE = '{"bbox": [], "error": "not there"}'
UNREADABLE = '<complete success="true">done</complete>'
XPATH_MISSED = 'XPath //*[@id="blue-mug-link"] matched nothing'


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> dict[str, dict]:
    """The run's cases by name: ``not_there`` (the model answers "not there") and ``down``
    (the model's locate replies cannot be parsed)."""
    tmp = tmp_path_factory.mktemp("miss")
    suite = tmp / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "index.html").write_text(PAGE)
    (suite / "farm.yaml").write_text("apps:\n  site:\n    serve: site\n    env: SITE_URL\n")
    (suite / "not_there.yaml").write_text(CASE.replace("PROMPT", "Blue Mugs"))
    (suite / "down.yaml").write_text(CASE.replace("PROMPT", "Blue mugs"))
    model = PerCase(not_there=("Find the element: Blue Mugs.", [NOT_THERE]),
                    down=("Find the element: Blue mugs.", [UNREADABLE]))
    with ModelServer(model) as srv:
        done = FarmCli(tmp).run("run", suite, "--devices", "browser:2", "--no-progress",
                                "--report-dir", tmp / "run", "--model", "openai/scripted",
                                "--model-base-url", srv.base_url)
    assert done.returncode == 1, done.stdout + done.stderr    # a failure beside the error
    assert not model.unrouted, model.unrouted
    return by_name(results(Path(tmp / "run")))


def test_a_model_miss_says_each_thing_once(cases):
    case = cases["not_there"]
    assert case["status"] == "failed", case
    message = case["error"]["message"]
    answer = "the model did not find 'Blue Mugs': not there"
    assert message.count(answer) == 1, message
    assert message.count('"Blue Mug"') == 1, message
    assert message.startswith(f'no element matches "Blue Mugs"; {answer}; the closest on '
                              'screen is "Blue Mug"'), message
    assert XPATH_MISSED in message, message      # (said once, on its seen: line)


def test_a_model_down_keeps_what_the_free_tiers_found(cases):
    case = cases["down"]
    assert case["status"] == "error", case
    assert case["error"]["kind"] == "ModelUnavailable"      # still the model's error
    message = case["error"]["message"]
    assert message.startswith("model openai/scripted: its locate reply could not be parsed "
                              "twice"), message
    assert (f'; before it, no tier found "Blue mugs": {XPATH_MISSED}; the closest on screen '
            'is "Blue Mug"') in message, message
