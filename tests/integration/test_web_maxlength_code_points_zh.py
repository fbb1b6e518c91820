"""The note of a value a field's maxlength cut counts characters as the step's value is
counted: ``张三🙂李四`` into maxlength="4" keeps ``张三🙂`` (4 UTF-16 units, 3 characters), and
the note said "kept 4 of the 5 characters". Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<label>姓名 <input id="name" type="text" maxlength="4"></label>
<p>结账</p>
</body></html>"""


def test_a_cut_note_counts_characters_not_utf16_units(tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE, encoding="utf-8")
    (tmp_path / "c.yaml").write_text(
        "name: c\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: 姓名\n        value: 张三🙂李四\n"
        "      - javascript: document.getElementById('name').value\n        name: held\n",
        encoding="utf-8")
    farm.run("run", tmp_path / "c.yaml", "--devices", "browser:1",
             "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert case["status"] == "passed", case
    typed = case["steps"][0]
    notes = " ".join(typed.get("notes", []))
    assert 'kept 3 of the 5 characters of "张三🙂李四"' in notes, typed
    assert "maxlength is 4" in notes, typed
