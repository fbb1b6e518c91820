"""FARM_MODEL_RETRIES (farm.toml's model_retries) had no upper bound: 100000 was taken, and
one model call that kept failing could re-send for days (backoff up to 30 s each). It is now
at most 10, as the other retry settings, and a value past it is a setting error (exit 4)
naming where it was set."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main as farm


@pytest.fixture(autouse=True)
def _here(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)


def test_too_many_model_retries_from_the_environment_is_a_setting_error(monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL_RETRIES", "100000")
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 4, out + err
    assert ("setting 'model_retries' (env FARM_MODEL_RETRIES): must be between 0 and 10, "
            "got '100000'") in err
    assert "Traceback" not in err


def test_too_many_model_retries_in_farm_toml_names_its_line(monkeypatch, capsys, tmp_path):
    (tmp_path / "farm.toml").write_text("model_timeout = 30\nmodel_retries = 11\n")
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 4, out + err
    assert "setting 'model_retries' (farm.toml:2): must be between 0 and 10, got 11" in err


def test_the_bound_itself_is_taken(monkeypatch, capsys):
    monkeypatch.setenv("FARM_MODEL_RETRIES", "10")
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 0, err
    assert any(line.split() == ["model_retries", "10"] for line in out.splitlines()), out
