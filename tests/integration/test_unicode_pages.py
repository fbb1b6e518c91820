"""Half an emoji on a page: a lone UTF-16 surrogate (``"😀".slice(0, 1)``,
``String.fromCharCode(0xD800)``) reaches farm through the DOM, a `javascript` step or a model
reply. It becomes U+FFFD where it enters, so the case keeps its verdict, every file of the run
is written and no other case is lost (issue 9, item 1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import StepFailed
from tests.support.farm_cli import FarmCli, by_name, results
from tests.support.model_server import Reply

HALF = "\ud83d"          # the first UTF-16 unit of 😀, what the page's slice leaves
PAGE = """\
<!doctype html>
<html><head><meta charset="utf-8"><title>moods</title></head>
<body>
  <h1>Moods</h1>
  <button id="smile"></button>
  <p id="note"></p>
  <script>
    const half = "😀".slice(0, 1);            // a careless truncation: half a surrogate pair
    document.getElementById("smile").textContent = "Smile " + half;
    document.getElementById("note").textContent = "cut " + half + " here";
  </script>
</body></html>
"""
FARM_YAML = """\
apps:
  moods:
    serve: app
    env: MOODS_URL
"""


def case(name: str, url: str, *steps: str) -> str:
    flow = "".join(f"      - {s}\n" for s in steps)
    return f"name: {name}\nweb:\n  url: {url}\ntasks:\n  - name: steps\n    flow:\n{flow}"


def moods_suite(root: Path) -> Path:
    """The page above served as an app, and three cases on one device."""
    (root / "app").mkdir(parents=True)
    (root / "app" / "index.html").write_text(PAGE, encoding="utf-8")
    (root / "farm.yaml").write_text(FARM_YAML)
    url = "${MOODS_URL}/index.html"
    # the step's failure lists what it saw on screen: "Smile <half an emoji>"
    (root / "tap_near_miss.yaml").write_text(case("tap near miss", url, "aiTap: Smile please"))
    (root / "assert_missing.yaml").write_text(case("assert missing", url,
                                                   "assertText: Frown"))
    (root / "lone_js.yaml").write_text(case("lone js", url, "javascript: "
                                            "String.fromCharCode(0xD800)"))
    return root


@pytest.fixture(scope="module")
def moods_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("moods")
    cli = FarmCli(tmp)
    done = cli.run("run", moods_suite(tmp / "moods"), "--devices", "browser:1",
                   "--report-dir", tmp / "run", "--junit-xml", tmp / "junit.xml")
    return done, tmp / "run"


def test_a_failure_that_quotes_half_an_emoji_is_reported(moods_run):
    done, run_dir = moods_run
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    cases = by_name(results(run_dir))
    tap = cases["tap_near_miss"]
    assert tap["status"] == "failed"
    assert tap["error"]["message"].startswith('no element matches "Smile please"')
    assert '"Smile \ufffd" (button)' in tap["error"]["message"]
    assert cases["assert_missing"]["status"] == "failed"
    assert cases["assert_missing"]["error"]["message"] == 'expected text "Frown" is not on screen'
    for name in ("results.json", "results.jsonl", "junit.xml", "report.html"):
        assert "Smile \ufffd" in (run_dir / name).read_text(encoding="utf-8"), name


def test_one_device_keeps_every_case_after_half_an_emoji(moods_run):
    done, run_dir = moods_run
    summary = results(run_dir)
    assert sorted(by_name(summary)) == ["assert_missing", "lone_js", "tap_near_miss"]
    assert summary["counts"]["total"] == 3 and summary["counts"]["failed"] == 2
    assert summary["counts"]["passed"] == 1, done.stdout


def test_a_javascript_step_returning_a_lone_surrogate_passes(tmp_path, farm):
    suite = tmp_path / "js"
    suite.mkdir()
    (suite / "lone.yaml").write_text(case("lone", "about:blank",
                                          "javascript: String.fromCharCode(0xD800)"))
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    [only] = results(tmp_path / "run")["cases"]
    assert only["status"] == "passed" and only["steps"][0]["output"] == "\ufffd"


# ---- where the text enters: the browser device and the model client -------------------------
@pytest.fixture
def page_target(tmp_path):
    from farm.suite.model import WebTarget
    (tmp_path / "moods.html").write_text(PAGE, encoding="utf-8")
    return WebTarget(url=(tmp_path / "moods.html").as_uri())


def test_the_dom_tree_carries_no_lone_surrogate(page):
    tree = page.hierarchy()
    assert "cut \ufffd here" in tree.visible_text()
    assert any(n.text == "Smile \ufffd" and n.clickable for n in tree.nodes)
    tree.model_dump_json()


@pytest.mark.parametrize("code, value", [
    ("String.fromCharCode(0xD800)", "\ufffd"),
    ('({mood: "😀".slice(0, 1), list: [String.fromCharCode(0xDC00), "😀"]})',
     {"mood": "\ufffd", "list": ["\ufffd", "😀"]}),
])
def test_javascript_values_are_valid_unicode(page, code, value):
    assert page.run_script(code, timeout_s=10) == value


def test_a_javascript_error_quoting_half_an_emoji_is_readable(page):
    with pytest.raises(StepFailed) as caught:
        page.run_script('throw new Error("no mood " + "😀".slice(0, 1))', timeout_s=10)
    assert str(caught.value) == "javascript error: no mood \ufffd"


def test_a_model_reply_with_half_an_emoji_is_valid_unicode(model_server):
    from farm.llm.litellm_client import LiteLLMClient
    srv = model_server([Reply(text=f"<thought>smile {HALF}</thought>")])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, retries=0)
    reply = client.complete([{"role": "user", "content": "how is the page?"}])
    assert reply.text == "<thought>smile \ufffd</thought>"
