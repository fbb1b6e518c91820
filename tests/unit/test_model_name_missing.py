"""FARM_MODEL=openai/ (the model's name left out, a variable that expanded to nothing after
the provider) was taken: litellm sent model "" to the endpoint and every case ended an error
on whatever the endpoint said of it, three attempts each. `farm run` now refuses it before any
device starts, naming the setting (exit 4)."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main


@pytest.mark.parametrize("model", ["openai/", "openai/  "])
def test_a_model_without_a_name_is_a_setting_error(tmp_path, monkeypatch, capsys, model):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_MODEL", model)
    monkeypatch.setenv("FARM_MODEL_BASE_URL", "http://127.0.0.1:9/v1")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text("web:\n  url: http://127.0.0.1:9/\ntasks:\n"
                                           "  - name: t\n    flow:\n      - aiAssert: ok\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--no-progress",
                              "--report-dir", "out")
    assert code == 4, out + err
    assert f"FARM_MODEL={model.strip()}: no model name after openai/: write it as" in err, err
    assert "Traceback" not in out + err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("results.json"))
