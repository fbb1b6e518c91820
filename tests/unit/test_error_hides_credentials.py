"""An error that quotes a value given in the wrong place (the API key pasted into
FARM_MODEL_RETRIES, a token passed to --timeout): the value of a credential-named variable
was printed in clear in "farm: error: ... got 'sk-...'", into a CI log. Every error farm
prints on the way out hides it."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main as farm

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(autouse=True)
def key(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_a_setting_error_quoting_the_key_hides_it(monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL_RETRIES", KEY)
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 4
    assert KEY not in out + err
    assert "FARM_MODEL_RETRIES" in err and "'***' is not a number" in err, err


def test_a_usage_error_quoting_the_key_hides_it(monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", ".", "--timeout", KEY)
    assert code == 4
    assert KEY not in out + err
    assert "Invalid value for '--timeout': '***'" in err, err
