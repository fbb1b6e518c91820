"""`farm cache export`'s header says what the export runs with: a case with an aiAssert (no cache
entry can answer it) was headed "runs with no model" and then skipped with "needs a model".
Now the header names each step that always asks a model, with its line; "runs with no model"
is said only of an export that has none."""

from __future__ import annotations

from pathlib import Path

from farm.cache.export import export_case
from farm.cache.store import MemoryStore
from farm.suite.loader import load_case_file

HEAD = "web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"


def _export(tmp_path: Path, flow: str) -> str:
    case_file = tmp_path / "assert_buy.yaml"
    case_file.write_text(HEAD + flow, encoding="utf-8")
    return export_case(load_case_file(case_file), MemoryStore())


def _header(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("#")]


def test_an_export_with_an_ai_assert_says_it_still_needs_a_model(tmp_path):
    text = _export(tmp_path, "      - aiAssert: the page shows a blue buy button\n"
                             "      - aiQuery: the rows' names\n"
                             "      - assertText: Ready\n")
    first = _header(text)[0]
    assert "assert_buy.yaml: runs with no model" not in first
    assert first == ("# Exported by `farm cache export` from assert_buy.yaml: still needs a "
                     "model for the 2 steps that always ask one (assert_buy.yaml:6 `aiAssert: "
                     "the page shows a blue buy button`; assert_buy.yaml:7 `aiQuery: the rows' "
                     "names`); the rest runs with no model.")


def test_one_such_step_is_named_alone(tmp_path):
    text = _export(tmp_path, "      - aiAssert: the page shows a blue buy button\n")
    assert _header(text)[0] == ("# Exported by `farm cache export` from assert_buy.yaml: still "
                                "needs a model for the step that always asks one "
                                "(assert_buy.yaml:6 `aiAssert: the page shows a blue buy "
                                "button`); the rest runs with no model.")


def test_an_export_with_no_step_that_asks_a_model_runs_with_none(tmp_path):
    text = _export(tmp_path, "      - assertText: Ready\n")
    assert _header(text)[0] == ("# Exported by `farm cache export` from assert_buy.yaml: "
                                "runs with no model.")
