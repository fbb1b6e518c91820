"""`farm config show` says when the working directory's .env is not UTF-8, as `farm run`
refuses it: a GBK .env setting MIDSCENE_MODEL_NAME showed "model (not set)" without a word,
while the run said ``.env:2: not UTF-8 … save it as UTF-8``."""
from __future__ import annotations

import pytest

from farm import config
from farm.midscene_env import NAMES
from tests.support.farm_cli import run_main


@pytest.fixture
def cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                  # no farm.toml of the checkout
    monkeypatch.setattr(config, "_TOLD", set())
    for name in (*NAMES, "FARM_MODEL", "FARM_MODEL_BASE_URL", "FARM_MODEL_API_KEY",
                 "FARM_MODEL_FAMILY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.mark.parametrize("encoding, at", [("gbk", ".env:2: not UTF-8"),
                                          ("utf-16", ".env: saved as UTF-16")])
def test_config_show_warns_of_a_dotenv_that_is_not_utf8(cwd, monkeypatch, capsys, encoding,
                                                         at):
    (cwd / ".env").write_bytes("A=1\nMIDSCENE_MODEL_NAME=qwen3-vl-plus  # 通义千问模型\n"
                               .encode(encoding))
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0
    warning = next(line for line in err.splitlines() if line.startswith("farm: warning: .env"))
    assert warning.startswith(f"farm: warning: {at}")
    assert "save it as UTF-8" in warning and "MIDSCENE_MODEL_NAME" in warning


def test_a_utf8_dotenv_gives_no_such_warning(cwd, monkeypatch, capsys):
    (cwd / ".env").write_text("MIDSCENE_MODEL_NAME=qwen3-vl-plus  # 通义千问模型\n",
                              encoding="utf-8")
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0 and "UTF-8" not in err
    assert "openai/qwen3-vl-plus" in out
