"""An aiInput value holding a tab ("a\\tb") on Android: `input` types the tab as the Tab key,
which moves the focus to the next field, so the field held "a" and the step passed. The
step now fails saying what the field holds."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.example.form"
FORM = """<!doctype html><html><head><meta charset="utf-8"><meta name="viewport"
content="width=device-width"></head><body style="font:20px sans-serif;padding:24px">
<input id="first" placeholder="First name" style="font-size:20px;width:90%"><br><br>
<input id="last" placeholder="Last name" style="font-size:20px;width:90%">
</body></html>"""


def test_a_tab_that_moved_the_focus_fails_the_step_saying_what_the_field_holds(farm: FarmCli):
    suite = farm.tmp / "form"
    (suite / "app").mkdir(parents=True)
    (suite / "app" / "index.html").write_text(FORM)
    (suite / "farm.yaml").write_text(f"timeout: 120\napps:\n  app:\n    serve: app\n"
                                     f"    android: {PKG}\n")
    (suite / "tab.yaml").write_text(f"""\
android:
  launch: {PKG}
tasks:
  - name: t
    flow:
      - aiInput: First name
        value: "a\\tb"
""")
    (suite / "plain.yaml").write_text(f"""\
android:
  launch: {PKG}
tasks:
  - name: t
    flow:
      - aiInput: First name
        value: "a b"
""")
    done = farm.run("run", suite, "--devices", "android-sim:1", "--report-dir",
                    farm.tmp / "run")
    got = by_name(results(farm.tmp / "run"))
    assert got["plain"]["status"] == "passed", (got["plain"].get("error"), done.stdout)
    tab = got["tab"]
    assert tab["status"] == "failed", (tab.get("error"), done.stdout)
    said = tab["error"]["message"]
    assert "moved the focus out of the field: the field holds 'a'" in said, said
