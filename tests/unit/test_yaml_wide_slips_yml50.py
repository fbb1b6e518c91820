"""A full-width colon `：` or an ideographic space (U+3000) is a slip only where a key is meant:
`- Total：100` in a list of texts copied from a Chinese UI loads as the text it is, and one
inside a `|` block never hides (or replaces) the file's real syntax error."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

HEAD = "page:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"


def _load(tmp_path, text: str):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "wide.yaml").write_text(text, encoding="utf-8")
    return load_suites([tmp_path / "s"], env={}, dotenv=None)


def _said(tmp_path, text: str) -> str:
    with pytest.raises(SuiteErrors) as refused:
        _load(tmp_path, text)
    return str(refused.value)


def test_texts_with_a_full_width_colon_in_a_list_load_yml50(tmp_path):
    suites = _load(tmp_path, "tags:\n  - Total：100\n  - ID：123\n  - Email：a@b.com\n" + HEAD
                   + "      - sleep: 1\n")
    assert [c.tags for s in suites for c in s.cases] == [["Total：100", "ID：123",
                                                          "Email：a@b.com"]]


def test_a_full_width_colon_where_a_step_stands_is_still_named_yml50(tmp_path):
    said = _said(tmp_path, HEAD + "      - sleep: 1\n      - Email：a@b.com\n")
    assert "wide.yaml:7:14: a full-width colon '：' (U+FF1A) after Email" in said


def test_a_task_key_with_a_full_width_colon_is_named_yml50(tmp_path):
    said = _said(tmp_path, HEAD.replace("flow:", "flow：") + "      - sleep: 1\n")
    assert "wide.yaml:5:9: a full-width colon '：' (U+FF1A) after flow" in said


@pytest.mark.parametrize("inside", ["Status：ok", "\u3000\u3000第一段"])
def test_a_block_text_never_hides_the_syntax_error_yml50(tmp_path, inside):
    said = _said(tmp_path, HEAD + f"      - aiAction: |\n          {inside}\n"
                                  "      - aiTap: [oops\n")
    assert "did not find expected ',' or ']'" in said and "[ ] list that starts at line 8" in said
    assert "full-width" not in said and "ideographic" not in said


def test_a_slip_elsewhere_is_said_beside_the_syntax_error_yml50(tmp_path):
    said = _said(tmp_path, HEAD + "      - aiTap：登录\n      - sleep: 1\n"
                                  "      - aiTap: [oops\n      - sleep: 2\n")
    assert "wide.yaml:6:14: a full-width colon '：' (U+FF1A) after aiTap" in said
    assert "did not find expected ',' or ']'" in said


def test_the_key_words_are_the_case_and_task_keys_yml50():
    from farm.suite.casefile import CASE_KEYS, TASK_KEYS
    from farm.suite.yamlpos import _CASE_WORDS
    assert _CASE_WORDS == CASE_KEYS | TASK_KEYS
