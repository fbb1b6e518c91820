"""`aiTap: Peru` on a page whose only "Peru" is an option of a closed <select>: the tap matched
the select's <label>, whose text listed every option ("Country France Japan Peru"), and passed
having chosen nothing. The label now reads as shown ("Country Japan") and the step fails at
once saying how to choose the option. A link of that name elsewhere is still tapped. Real
`farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import FarmCli, results

PAGE = """<!doctype html><html><body>
<label>Country <select onchange="document.getElementById('o').textContent = 'chose ' +
  this.value"><option>France</option><option selected>Japan</option><option>Peru</option>
</select></label>
<p id="o"></p>{extra}
</body></html>"""

CASE = """name: {name}
web:
  serve: .
  url: {page}
tasks:
  - name: t
    flow:
      - aiTap: Country
      - aiTap: Peru
      - assertText: {expect}
"""


def test_a_tap_on_a_select_s_option_says_how_to_choose_it(tmp_path: Path, farm: FarmCli):
    (tmp_path / "only.html").write_text(PAGE.format(extra=""))
    (tmp_path / "link.html").write_text(PAGE.format(
        extra="<a href='#' onclick=\"o.textContent = 'Peru page'\">Peru</a>"))
    (tmp_path / "only.yaml").write_text(CASE.format(name="only", page="only.html",
                                                    expect="chose Peru"))
    (tmp_path / "link.yaml").write_text(CASE.format(name="link", page="link.html",
                                                    expect="Peru page"))
    done = farm.run("run", tmp_path, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    assert done.returncode == 1, done.stdout + done.stderr
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["link"]["status"] == "passed", cases["link"]["steps"]
    tap = cases["only"]["steps"][1]
    assert tap["status"] == "failed", tap
    assert tap["error"].splitlines()[0] == (
        '"Peru" is an option of the select "Country", not an element a tap reaches (a '
        "select's list is the browser's own): aiInput: Country with value: Peru chooses it")
