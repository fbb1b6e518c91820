"""A value a phone's text field cut at its maxlength is said on the step that typed it, as the
web says it: real `farm run` on a simulated Android phone (`AndroidSimulator`), its app a page
with a 4-character code field.

What a user sees: the aiInput step passes with a note "the EditText kept 4 of the 6 characters
of "123456" typed into it" in results.json (the report's step row, the console's end of run),
where it passed silently; a secret's value is not said, its length alone; a value that fits
gets no note.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.android_sims import iphones_with_page, phones_with_page
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PACKAGE = "com.qa.codes"
PAGE = """<!doctype html><html><head><meta name="viewport" content="width=device-width">
</head><body><h1>Codes</h1>
<label>Code <input id="code" type="text" maxlength="4" placeholder="Code"></label>
<label>Name <input id="name" type="text" placeholder="Name"></label>
</body></html>"""


def case(value: str, platform: str = "android") -> str:
    return (f"{platform}:\n  launch: {PACKAGE}\ntasks:\n  - name: t\n    flow:\n"
            f"      - aiInput: Code\n        value: \"{value}\"\n"
            f"      - aiInput: Name\n        value: \"Ada Lovelace\"\n")


def test_a_value_a_phones_field_cut_is_a_note_of_its_step(tmp_path: Path,
                                                           farm: FarmCli) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text("secrets: [PIN]\nvars:\n  PIN: '987654'\n")
    (suite / "cut.yaml").write_text(case("123456"))
    (suite / "secret.yaml").write_text(case("${PIN}"))
    (suite / "fits.yaml").write_text(case("1234"))
    with phones_with_page(tmp_path, 1, PACKAGE, PAGE, "codes") as sim:
        done = farm.run("run", suite, "--devices", "android:1", "--report-dir",
                        tmp_path / "run", ANDROID_ADB_SERVER_PORT=str(sim.port))
    cases = by_name(results(tmp_path / "run"))
    assert done.returncode == 0, done.stdout + done.stderr
    said = 'the EditText kept 4 of the 6 characters of "123456" typed into it'
    code, name = cases["cut"]["steps"]
    assert code["status"] == "passed" and any(said in n for n in code.get("notes", [])), code
    assert not name.get("notes"), name         # a value that fits says nothing
    secret = cases["secret"]["steps"][0]
    assert [n for n in secret.get("notes", []) if "kept 4 of the 6 characters of the text "
            "typed into it" in n], secret
    assert "9876" not in (tmp_path / "run" / "results.json").read_text()
    assert not cases["fits"]["steps"][0].get("notes"), cases["fits"]
    assert said in done.stdout + done.stderr


def test_a_value_an_iphones_field_cut_is_a_note_of_its_step(tmp_path: Path,
                                                             farm: FarmCli) -> None:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "cut.yaml").write_text(case("123456", "ios"))
    with iphones_with_page(tmp_path, 1, PACKAGE, PAGE, "codes") as sim:
        done = farm.run("run", suite, "--devices", "ios:1", "--report-dir", tmp_path / "run",
                        FARM_IOS_WDA_URLS=sim.urls[0])
    assert done.returncode == 0, done.stdout + done.stderr
    code, name = by_name(results(tmp_path / "run"))["cut"]["steps"]
    said = 'the field kept 4 of the 6 characters of "123456" typed into it'
    assert code["status"] == "passed" and any(said in n for n in code.get("notes", [])), code
    assert not name.get("notes"), name
