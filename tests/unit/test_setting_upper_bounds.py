"""Settings with no upper bound took any typo: FARM_MODEL_TEMPERATURE=5 was taken and every
model call of the run was refused by the endpoint (OpenAI's API takes 0 to 2), case by case;
FARM_LOCATE_MAX_SCROLLS=100000 let a locate swipe to its step's end. A value past the bound
is a setting error (exit 4) naming where it was set, before any device starts."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main as farm


@pytest.fixture(autouse=True)
def _here(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("name, value, said", [
    ("model_temperature", "5", "must be between 0 and 2, got '5'"),
    ("model_temperature", "-0.1", "must be between 0 and 2, got '-0.1'"),
    ("locate_max_scrolls", "100000", "must be between 0 and 1000, got '100000'"),
    ("max_execution_errors", "-1", "must be between 0 and 1000, got '-1'"),
])
def test_a_value_past_its_bound_is_a_setting_error(monkeypatch, capsys, name, value, said):
    env = f"FARM_{name.upper()}"
    monkeypatch.setenv(env, value)
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 4, out + err
    assert f"setting '{name}' (env {env}): {said}" in err
    assert "Traceback" not in err


def test_a_temperature_in_farm_toml_names_its_line(monkeypatch, capsys, tmp_path):
    (tmp_path / "farm.toml").write_text("model_timeout = 30\nmodel_temperature = 2.5\n")
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 4, out + err
    assert "setting 'model_temperature' (farm.toml:2): must be between 0 and 2, got 2.5" in err


@pytest.mark.parametrize("name, value", [("model_temperature", "2"),
                                         ("model_temperature", "0.7"),
                                         ("locate_max_scrolls", "1000"),
                                         ("max_execution_errors", "0")])
def test_values_within_the_bounds_are_taken(monkeypatch, capsys, name, value):
    monkeypatch.setenv(f"FARM_{name.upper()}", value)
    code, out, err = farm(monkeypatch, capsys, "config", "show")
    assert code == 0, err
    shown = float(value) if "." in value or name == "model_temperature" else int(value)
    assert any(line.split() == [name, str(shown)] for line in out.splitlines()), out
