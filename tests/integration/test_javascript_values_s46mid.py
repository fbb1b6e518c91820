"""A `javascript` step whose value JSON cannot hold whole (a BigInt, a DOM element) was kept as
String(value), '[object Object]' / '[object HTMLButtonElement]', in the case's data and output:
file, the step passing with no word; now what can be kept is, and the step says what was
stored instead. Real Chromium, through `farm run`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import FarmCli, results
from tests.support.suites import demo_copy

CASE = """name: values
web:
  url: ${FARM_DEMO_URL}/index.html
  output: OUT
tasks:
  - name: t
    flow:
      - javascript: "({a: 1, big: 10n, more: [2n]})"
        name: big
      - javascript: "document.body"
        name: el
      - javascript: "const o = {a: 1}; o.self = o; o"
        name: loop
      - javascript: "({a: 1, b: [1, 2]})"
        name: plain
"""


def test_a_value_json_cannot_hold_is_kept_as_far_as_it_can_be_and_said(tmp_path: Path,
                                                                        farm: FarmCli):
    suite = demo_copy(tmp_path / "demo")
    out = tmp_path / "out.json"
    (suite / "values.yaml").write_text(CASE.replace("OUT", str(out)))
    done = farm.run("run", suite / "values.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert data["big"] == {"a": 1, "big": "10", "more": ["2"]}
    body = '<body data-page="login" class="login-page">'
    assert data["el"] == body
    assert data["loop"] == {"a": 1, "self": "[circular]"}
    assert data["plain"] == {"a": 1, "b": [1, 2]}
    assert "[object" not in out.read_text()
    steps = results(tmp_path / "run")["cases"][0]["steps"]
    notes = [s.get("notes") or [] for s in steps]
    assert notes[0] == ["the script's value is or holds a BigInt (10n), which JSON has not: "
                        "kept as the string \"10\" (and 1 more)"]
    assert notes[1] == ["the script's value is or holds a DOM element, which is not JSON: "
                        f"kept as the text '{body}' (return what the case needs of it: "
                        "el.textContent, el.value, …)"]
    assert "reference back to an object holding it (under 'self')" in notes[2][0]
    assert notes[3] == []
