"""A secret made of digits (a PIN, an OTP seed) comes back from a page or a script as a
number as easily as as text: `javascript: Number(...)`, a field parsed with parseInt, an
aiQuery answer. A number is masked like a string where it is the secret (results.json, the
report, the case's `output:` file); other numbers keep their type."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PIN = "48213907"

CASE = """\
name: reads a pin back as a number
web:
  url: about:blank
  output: DATA_PATH
tasks:
  - name: read it
    flow:
      - javascript: "Number('${PIN}')"
        name: pin
      - javascript: "({pin: Number('${PIN}'), other: 42, ratio: 0.5, ok: true})"
        name: form
"""


def test_a_numeric_secret_returned_as_a_number_is_in_no_file_of_the_run(farm: FarmCli,
                                                                         tmp_path: Path):
    suite = tmp_path / "numeric"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [PIN]\n")
    (suite / "pin.yaml").write_text(CASE.replace("DATA_PATH", str(tmp_path / "data.json")))
    run_dir = tmp_path / "run"
    done = farm.run("run", suite, "--devices", "browser:1", "--report-dir", run_dir,
                    "--alluredir", tmp_path / "allure", PIN=PIN)
    assert done.returncode == 0, done.stdout + done.stderr
    case = results(run_dir)["cases"][0]
    assert [s["output"] for s in case["steps"]] == [
        "***", {"pin": "***", "other": 42, "ratio": 0.5, "ok": True}], case["steps"]
    assert case["data"]["pin"] == "***"
    written = [p for p in (*run_dir.rglob("*"), *(tmp_path / "allure").rglob("*"))
               if p.is_file() and p.suffix != ".jpg"]
    written += list(tmp_path.rglob("data.json"))
    assert any(p.name == "data.json" for p in written)
    for path in written:
        assert PIN not in path.read_text(errors="replace"), path.name
    assert PIN not in done.stdout + done.stderr
