"""A mistyped ``${NAME}`` says which defined variable it may have meant, as farm does for
steps, keys and flags: ``${QA_URLL}`` gave "undefined variable ${QA_URLL}" and nothing more
beside a served app's QA_URL. Only names are said, never a value (a secret's)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.suite.vars import UndefinedVariable, Variables
from tests.support.farm_cli import run_main
from tests.support.load_errors import problems

WHERE = ("(set it in the environment, a .env file in the working directory, vars:, or a "
         "secrets dir)")


def _collect(tmp_path: Path, monkeypatch, capsys, flow: str, url: str = "${QA_URL}"):
    suite = tmp_path / "s"
    suite.mkdir(exist_ok=True)
    (suite / "app").mkdir()
    (suite / "farm.yaml").write_text(
        "apps:\n  qa:\n    serve: app\n    env: QA_URL\n"
        "vars:\n  SHOP_PASSWORD: hunter2-s43\n")
    (suite / "c.yaml").write_text(f"name: c\nweb:\n  url: {url}/index.html\ntasks:\n"
                                  "  - name: t\n    flow:\n" + flow)
    (tmp_path / ".env").write_text("CHECKOUT_COUPON=FREE-s43\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4 and "hunter2" not in out + err and "FREE-s43" not in out + err
    return problems(err)[1:]


def test_the_served_app_s_url_mistyped(tmp_path, monkeypatch, capsys):
    assert _collect(tmp_path, monkeypatch, capsys, "      - sleep: 1\n", "${QA_URLL}") == [
        f"  s/c.yaml:3:8: undefined variable ${{QA_URLL}}: did you mean ${{QA_URL}}? {WHERE}"]


def test_a_var_a_secret_and_a_dotenv_name_mistyped(tmp_path, monkeypatch, capsys):
    said = _collect(tmp_path, monkeypatch, capsys,
                    "      - aiInput: Password\n        value: ${SHOP_PASWORD}\n"
                    "      - aiInput: Coupon\n        value: ${checkout_coupon}\n"
                    "      - aiInput: Name\n        value: ${ZQXW_NOTHING_LIKE}\n")
    assert said == [
        f"  s/c.yaml:8:16: undefined variable ${{SHOP_PASWORD}}: did you mean "
        f"${{SHOP_PASSWORD}}? {WHERE}",
        f"  s/c.yaml:10:16: undefined variable ${{checkout_coupon}}: did you mean "
        f"${{CHECKOUT_COUPON}}? {WHERE}",
        f"  s/c.yaml:12:16: undefined variable ${{ZQXW_NOTHING_LIKE}} {WHERE}"]


def test_at_run_time_too_with_no_value_shown():
    values = Variables({"QA_URL": "http://127.0.0.1:8000", "API_TOKEN": "tok-s43"})
    with pytest.raises(UndefinedVariable) as info:
        values.resolve("${API_TOKN}")
    assert str(info.value) == (f"undefined variable ${{API_TOKN}}: did you mean ${{API_TOKEN}}? "
                               f"{WHERE}")


def test_a_dotenv_beside_the_suite_that_sets_it_is_said_instead(tmp_path, monkeypatch, capsys):
    """${SHOP_PASSWORDS} is set by s/.env, which farm does not read from another folder:
    that is what to say, not "did you mean ${SHOP_PASSWORD}?"."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / ".env").write_text("SHOP_PASSWORDS=x\n")
    said = _collect(tmp_path, monkeypatch, capsys,
                    "      - aiInput: Password\n        value: ${SHOP_PASSWORDS}\n")
    assert said == [
        f"  s/c.yaml:8:16: undefined variable ${{SHOP_PASSWORDS}} {WHERE}; s/.env sets it, "
        "but farm reads .env from the working directory only, as Midscene's CLI does (run "
        "farm in s, or set SHOP_PASSWORDS in the environment)"]
