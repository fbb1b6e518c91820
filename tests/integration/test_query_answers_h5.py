"""Midscene's data steps in a real `farm run` (Chromium, a scripted model over HTTP): answers a
model words rather than types, and aiWaitFor's default pace.

* aiBoolean answered "yes" and aiNumber "3 items" made the case an *error* (the reply
  "unreadable" twice, exit 3); they are true and 3 in the case's data and its output: file;
* aiWaitFor without checkIntervalMs judged the screen every second; it looks every 3 s, as
  Midscene does, and its failure names the condition and the model's last answer.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import FarmCli, results
from tests.support.model_server import ModelServer, message_texts

PAGE = "<!doctype html><h1>Shop</h1><p>Cart (3 items)</p><button>Buy</button>"

CASE = """\
web:
  url: page.html
  output: {output}
tasks:
  - name: read
    flow:
      - aiBoolean: is there a Buy button
        name: canBuy
      - aiNumber: how many items the cart holds
        name: items
  - name: wait
    flow:
      - aiWaitFor: the page says the order has shipped
        timeout: 4000
"""

ANSWERS = {"Buy button": '{"data": "yes", "thought": "a Buy button under the cart"}',
           "how many items": '{"data": "3 items", "thought": "the cart says Cart (3 items)"}',
           "shipped": '{"pass": false, "thought": "the page shows the cart, no order"}'}


def answer(body: dict, index: int) -> str:
    asked = message_texts(body)[0]
    return next(reply for key, reply in ANSWERS.items() if key in asked)


def test_worded_answers_are_read_and_a_wait_looks_every_3_seconds(
        farm: FarmCli, tmp_path: Path, model_server) -> None:
    srv: ModelServer = model_server(answer)
    suite = tmp_path / "shop"
    suite.mkdir()
    (suite / "page.html").write_text(PAGE)
    output = tmp_path / "out" / "read.json"
    (suite / "read.yaml").write_text(CASE.format(output=output))
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--no-progress", "--report-dir",
                    run_dir, "--model", "openai/scripted-vlm", "--model-base-url",
                    srv.base_url)
    [case] = results(run_dir)["cases"]

    # a failed case (its wait), not an error: the worded answers were read
    assert done.returncode == 1, done.stdout + done.stderr
    assert case["status"] == "failed" and case["error"]["kind"] == "AssertionFailed"
    assert case["data"] == {"canBuy": True, "items": 3}
    assert json.loads(output.read_text()) == {"canBuy": True, "items": 3}
    reads = [s for s in case["steps"] if s["kind"] in ("aiBoolean", "aiNumber")]
    assert [s["usage"]["calls"] for s in reads] == [1, 1]      # not sent back

    # the wait: the condition and the model's last answer, 3 s between looks
    # (checks start 3 s apart: the one at 3 s may still be out at 4 s, and the message then
    # says so after the last answer: "(the time ran out while the model … judged again)")
    assert case["error"]["message"].startswith(
        'aiWaitFor "the page says the order has shipped" not true within 4s: the page shows '
        "the cart, no order"), case["error"]["message"]
    wait = next(s for s in case["steps"] if s["kind"] == "aiWaitFor")
    # at 0 s, 3 s and one last look by 4 s (fewer when a check is slow) — a 1 s pace would
    # make 5, a last look faster than the one before another last one (a CI run counted 4)
    assert wait["usage"]["calls"] <= 3
