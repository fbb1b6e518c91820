"""A tap on a disabled control, or typing into a disabled field, fails the step saying so: the
click did nothing, and the step passed while the app ignored it (the next check then failed for
no reason anyone could see). Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<button disabled onclick="document.title='paid'">Pay now</button>
<fieldset disabled><button>Inside a fieldset</button></fieldset>
<div role="button" aria-disabled="true">Archive</div>
<label>Coupon <input disabled></label>
<button onclick="this.textContent='Saved'">Save</button>
</body></html>"""


def _case(folder: Path, stem: str, step: str) -> None:
    (folder / f"{stem}.yaml").write_text(
        f"name: {stem}\nweb:\n  url: ./page.html\ntasks:\n  - name: t\n    flow:\n"
        f"      - {step}\n")


def test_a_disabled_control_fails_the_step_saying_so(farm: FarmCli, tmp_path: Path) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "page.html").write_text(PAGE)
    _case(suite, "pay", "aiTap: Pay now")
    _case(suite, "fieldset", "aiTap: Inside a fieldset")
    _case(suite, "archive", "aiDoubleClick: Archive")
    _case(suite, "coupon", "aiInput: Coupon\n        value: SAVE10")
    _case(suite, "save", "aiTap: Save")          # an enabled control still works
    farm.run("run", suite, "--devices", "browser:1", "--report-dir", tmp_path / "run")
    cases = {c["name"]: c for c in results(tmp_path / "run")["cases"]}
    assert cases["save"]["status"] == "passed"
    said = {name: (c["status"], (c.get("error") or {}).get("message")) for name, c in
            cases.items() if name != "save"}
    assert said == {
        "pay": ("failed", '"Pay now" is disabled: a tap does nothing there'),
        "fieldset": ("failed", '"Inside a fieldset" is disabled: a tap does nothing there'),
        "archive": ("failed", '"Archive" is disabled: a double-click does nothing there'),
        "coupon": ("failed", '"Coupon" is disabled: no text can be typed there')}
