"""A rich-text editor is found by the placeholder it shows, as a text field is: Quill's
`data-placeholder`, Tiptap's on its empty paragraph, an `aria-placeholder` textbox. Before,
`aiInput: Compose an epic...` (the grey text on screen) was "needs a model: no zero-token
match", and the case was skipped. Real `farm run`, real Chromium."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli, results

pytestmark = pytest.mark.integration

PAGE = """<!doctype html><html><body>
<div class="ql-container"><div class="ql-editor ql-blank" contenteditable="true"
  data-placeholder="Compose an epic..."><p><br></p></div></div>
<div class="tiptap ProseMirror" contenteditable="true" style="margin-top:20px">
  <p class="is-editor-empty" data-placeholder="Write something"><br></p></div>
<div role="textbox" contenteditable="true" aria-placeholder="Add a comment"
  style="margin-top:20px; min-height:20px"></div>
</body></html>"""


def test_editors_are_found_by_the_placeholder_they_show(tmp_path: Path, farm: FarmCli) -> None:
    (tmp_path / "page.html").write_text(PAGE)
    (tmp_path / "editors.yaml").write_text(
        "name: editors\nweb:\n  serve: .\n  url: page.html\ntasks:\n  - name: t\n    flow:\n"
        "      - aiInput: Compose an epic...\n        value: Quill text\n"
        "      - aiInput: Write something\n        value: Tiptap text\n"
        "      - aiInput: Add a comment\n        value: Comment text\n"
        "      - javascript: \"[...document.querySelectorAll('[contenteditable]')]"
        ".map((e) => e.innerText.trim())\"\n        name: texts\n")
    done = farm.run("run", tmp_path / "editors.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "run")
    (case,) = results(tmp_path / "run")["cases"]
    assert done.returncode == 0, case.get("error") or case.get("reason")
    assert case["data"]["texts"] == ["Quill text", "Tiptap text", "Comment text"]
