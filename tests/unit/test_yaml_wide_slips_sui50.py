"""YAML typed with a Chinese input method: `name：键名全角` (a full-width colon) was "line 2:
mapping values are not allowed …; a value holding ': ' must be quoted", `- aiTap：登录按钮`
"got the string 'aiTap：登录按钮' (did you mean 'aiTap'?)", an indent of ideographic spaces
"unknown key '　　　- aiTap'". Each is said at its line:column, naming the character and what
to type instead; a full-width colon in a quoted, block or value text still loads."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

HEAD = "page:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"


def _load(tmp_path, text: str):
    (tmp_path / "s").mkdir(exist_ok=True)
    (tmp_path / "s" / "键名全角.yaml").write_text(text, encoding="utf-8")
    return load_suites([tmp_path / "s"], env={}, dotenv=None)


def _said(tmp_path, text: str) -> str:
    with pytest.raises(SuiteErrors) as refused:
        _load(tmp_path, text)
    return str(refused.value)


def test_a_full_width_colon_after_a_top_key_is_named_at_its_line_sui50(tmp_path):
    said = _said(tmp_path, "name：键名全角\n" + HEAD + "      - sleep: 1\n")
    assert "键名全角.yaml:1:5: a full-width colon '：' (U+FF1A) after name" in said
    assert "type ':'" in said and "must be quoted" not in said


def test_a_full_width_colon_after_a_step_kind_is_named_sui50(tmp_path):
    said = _said(tmp_path, HEAD + "      - aiTap：登录按钮\n")
    assert "键名全角.yaml:6:14: a full-width colon '：' (U+FF1A) after aiTap" in said
    assert "did you mean" not in said


def test_ideographic_spaces_in_the_indentation_are_named_sui50(tmp_path):
    said = _said(tmp_path, HEAD + "      - sleep: 1\n\u3000\u3000\u3000- aiTap: 登录\n")
    assert "键名全角.yaml:7:1: an ideographic space (U+3000" in said
    assert "indent with spaces" in said and "unknown key" not in said


def test_full_width_colons_inside_texts_still_load_sui50(tmp_path):
    suites = _load(tmp_path, HEAD + "      - aiTap: 登录：按钮\n      - aiTap: \"Note：x\"\n"
                             "      - aiAction: |\n          Step：one\n")
    assert [c.name for s in suites for c in s.cases] == ["键名全角"]
