"""A ``vars:`` value built from a credential (``AUTH: "Bearer ${API_TOKEN}"``, the token from
the environment or .env) is as secret as the credential: a case or task name may not take it
(`farm run --collect-only` printed the token, and the report, results and junit.xml kept it),
and a load error quoting it (a number field given it by a typo) shows ``***``."""

from __future__ import annotations

import pytest

from farm.suite.vars import LoadValues
from tests.support.farm_cli import run_main

TOKEN = "tok-built-in-12345"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)


def _suite(tmp_path, case: str, dotenv: bool = False):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "farm.yaml").write_text('vars:\n  AUTH: "Bearer ${API_TOKEN}"\n')
    (suite / "a.yaml").write_text(case)
    if dotenv:
        (tmp_path / ".env").write_text(f"API_TOKEN={TOKEN}\n")
    return suite


@pytest.mark.parametrize("dotenv", [False, True], ids=["environment", ".env"])
def test_a_name_may_not_take_a_value_built_from_a_credential(tmp_path, monkeypatch, capsys,
                                                             dotenv):
    if not dotenv:
        monkeypatch.setenv("API_TOKEN", TOKEN)
    suite = _suite(tmp_path, "name: login with ${AUTH}\nweb:\n  url: about:blank\n"
                             "tasks:\n  - name: t\n    flow:\n      - javascript: '1'\n", dotenv)
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only")
    assert code == 4, out + err
    assert TOKEN not in out + err
    assert ("a.yaml:1:7: name: ${AUTH} holds the value of ${API_TOKEN}, a secret (its name "
            "marks a credential)") in err


def test_a_load_error_quoting_a_value_built_from_a_credential_masks_it(tmp_path, monkeypatch,
                                                                       capsys):
    monkeypatch.setenv("API_TOKEN", TOKEN)
    suite = _suite(tmp_path, "name: x\nweb:\n  url: about:blank\ntasks:\n  - name: t\n"
                             "    flow:\n      - javascript: '1'\n        timeout: ${AUTH}\n")
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only")
    assert code == 4, out + err
    assert TOKEN not in out + err
    assert "got ${AUTH} = *** (from vars:)" in err


def test_which_values_hold_a_credential():
    values = LoadValues(env={"API_TOKEN": TOKEN, "SHORT_KEY": "abc", "HOME": "/root"},
                        vars={"AUTH": "Bearer ${API_TOKEN}", "SITE_KEY": "site-key-9876"},
                        secrets=frozenset({"DECLARED"}))
    assert values.credential_in(f"Bearer {TOKEN}") == "API_TOKEN"
    assert values.credential_in("uses site-key-9876 here") == "SITE_KEY"
    assert values.credential_in("abc /root") is None     # too short to be one; not one
