"""-k with the long expressions CI scripts generate (``-k "id1 or id2 or …"`` from a list of
a thousand failing or changed case ids): selected as written, not an internal error."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import ConfigError
from farm.select import KeywordExpr
from tests.support.farm_cli import run_main

ROOT = Path(__file__).resolve().parents[2]


def test_a_thousand_ids_joined_by_or_select_the_one_that_matches():
    words = [f"case_{n}" for n in range(3000)]
    expr = KeywordExpr(" or ".join(words) + " or login_success")
    assert expr.matches("demo/login_success")
    assert not expr.matches("demo/logout")


def test_a_long_and_chain_and_repeated_not_are_evaluated_as_written():
    assert KeywordExpr(" and ".join(["demo"] * 3000)).matches("demo/logout")
    assert KeywordExpr("not " * 1201 + "logout").matches("demo/login")
    assert not KeywordExpr("not " * 1201 + "logout").matches("demo/logout")
    assert KeywordExpr("not " * 1200 + "logout").matches("demo/logout")


def test_parentheses_nested_past_reason_are_a_usage_error_naming_them():
    with pytest.raises(ConfigError, match="nested too deeply"):
        KeywordExpr("(" * 2000 + "login" + ")" * 2000)


def test_farm_run_collects_with_a_generated_or_list(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    expr = " or ".join(f"no_such_case_{n}" for n in range(2000)) + " or demo/logout"
    code, out, err = run_main(monkeypatch, capsys, "run", ROOT / "suites" / "demo",
                              "--collect-only", "-k", expr)
    assert "internal error" not in err
    assert code == 0, err
    assert "demo/logout" in out
