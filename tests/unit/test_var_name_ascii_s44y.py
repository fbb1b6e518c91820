"""`vars: 用户: 张三` said "'用户' is not a valid variable name (letters, digits and _, …)":
用户 is letters. The rule is ASCII letters, and the message says so, with the ASCII name to
write where one is plain (ＵＳＥＲ, café, user-name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = """\
name: 变量
vars:
  用户: 张三
  ＵＳＥＲ: x
  café: y
  user-name: z
secrets: [密码]
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: return 1
"""


@pytest.fixture
def said(tmp_path: Path) -> str:
    (tmp_path / "变量.yaml").write_text(CASE, encoding="utf-8")
    with pytest.raises(SuiteErrors) as caught:
        load_suites([tmp_path / "变量.yaml"], env={}, dotenv=None)
    return str(caught.value)


RULE = "(ASCII letters A-Z and a-z, digits and _, not starting with a digit"


def test_a_chinese_name_is_said_to_need_ascii_letters(said):
    assert (f"变量.yaml:3:3: vars: '用户' is not a valid variable name {RULE}; 用户 is not "
            "ASCII: name it in ASCII letters)") in said
    assert (f"变量.yaml:7:11: secrets: '密码' is not a valid variable name {RULE}; 密码 is not "
            "ASCII: name it in ASCII letters)") in said


def test_a_name_with_a_plain_ascii_spelling_is_offered_it(said):
    assert f"vars: 'ＵＳＥＲ' is not a valid variable name {RULE}): write 'USER'" in said
    assert f"vars: 'café' is not a valid variable name {RULE}): write 'cafe'" in said
    assert f"vars: 'user-name' is not a valid variable name {RULE}): write 'user_name'" in said
