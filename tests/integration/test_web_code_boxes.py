"""aiInput into a verification code of one digit a box (maxlength=1 fields, each moving the
focus on as it gets its digit) fills every box, as Midscene's typing does. Before, the code
went into the first box at once: it kept one digit, the others stayed empty, and the step
passed. A field with a maxlength that keeps the focus still takes what fits, with no key
events. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<label for="d0">Verification code</label>
<div><input id="d0" maxlength="1"><input id="d1" maxlength="1"><input id="d2" maxlength="1">
<input id="d3" maxlength="1"></div>
<label>Coupon <input id="coupon" maxlength="4"></label>
<p id="out"></p>
<script>
const boxes = [0, 1, 2, 3].map((i) => document.getElementById('d' + i));
boxes.forEach((box, i) => box.addEventListener('input', () => {
  if (box.value && boxes[i + 1]) boxes[i + 1].focus();
  document.getElementById('out').textContent = 'code=' + boxes.map((b) => b.value).join('');
}));
window.keys = 0;
document.getElementById('coupon').addEventListener('keydown', () => window.keys++);
</script></body></html>"""


def test_a_code_of_one_digit_a_box_fills_every_box(tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "code.yaml").write_text(
        "name: code\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Verification code\n        value: '4821'\n"
        "      - assertText: code=4821\n"
        "      - aiTap: Coupon\n"          # (an action: the next fill taps the field first)
        "      - aiInput: Verification code\n        value: '1234'\n"
        "      - assertText: code=1234\n"
        "      - aiInput: Coupon\n        value: SAVE10\n"
        "      - javascript: \"[document.getElementById('coupon').value, window.keys]\"\n"
        "        name: coupon\n")
    done = farm.run("run", tmp_path / "code.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == 0, case["error"]
    assert case["data"]["coupon"] == ["SAVE", 0]
