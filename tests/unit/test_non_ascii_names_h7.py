"""A variable named in Chinese: a ``.env`` line ``用户=张三`` is left out with a warning naming
its line (it was dropped without a word, where the same name under ``vars:`` is an error),
and ``${登录密码}`` in a step says the name must be ASCII, not just "malformed placeholder"."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = ("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n    flow:\n"
        "      - assertText: ${SHOP_USER}\n")


def test_a_dotenv_name_that_is_not_ascii_is_a_warning_at_its_line(tmp_path: Path):
    (tmp_path / "c.yaml").write_text(CASE, encoding="utf-8")
    dotenv = tmp_path / ".env"
    dotenv.write_text('# shop\nSHOP_USER=赵六\n用户=张三\nPEM="one\n注意=inside a value\n"\n'
                      "a.b=1\nexport 密码: x\n", encoding="utf-8")
    warnings: list[str] = []
    [suite] = load_suites([tmp_path / "c.yaml"], env={}, dotenv=dotenv, warnings=warnings)
    assert suite.cases[0].vars["SHOP_USER"] == "赵六"
    rule = "a variable name is ASCII letters, digits and _; left out"
    assert [w for w in warnings if ".env:" in w] == [
        f"{dotenv}:3: 用户: {rule}", f"{dotenv}:7: a.b: {rule}", f"{dotenv}:8: 密码: {rule}"], warnings


def test_a_placeholder_named_in_chinese_says_the_name_must_be_ascii(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text(CASE.replace("${SHOP_USER}", "${登录密码} ${ＵＳＥＲ} ${A"),
                    encoding="utf-8")
    with pytest.raises(SuiteErrors) as info:
        load_suites([path], env={}, dotenv=None)
    assert [(e.column, e.message) for e in info.value.errors] == [
        (21, "placeholder '${登录密码}': '登录密码' is not a valid variable name (ASCII letters "
             "A-Z and a-z, digits and _, not starting with a digit; 登录密码 is not ASCII: name "
             "it in ASCII letters)"),
        (29, "placeholder '${ＵＳＥＲ}': 'ＵＳＥＲ' is not a valid variable name (ASCII letters "
             "A-Z and a-z, digits and _, not starting with a digit): write 'USER'"),
        (37, "malformed placeholder '${A': expected ${NAME} or ${NAME:-default} (write $${ for "
             "a literal ${)")]
