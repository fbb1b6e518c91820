"""Midscene's model variables in ``.env`` read as farm reads the rest of the file: a quoted
value with a comment after it kept its quotes (the model server got ``Bearer "sk-…"``, a quoted
base URL was refused as no URL), because farm had a second, smaller .env reader for them."""
from __future__ import annotations

import pytest

from farm import config
from farm.config import Settings
from farm.midscene_env import NAMES, midscene_model
from farm.suite.dotenv import read_dotenv

KEY = "sk-quoted-secret-4444"
URL = "http://127.0.0.1:9/v1"


@pytest.fixture
def cwd(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)                  # no farm.toml of the checkout
    monkeypatch.setattr(config, "_TOLD", set())
    for name in (*NAMES, "FARM_MODEL", "FARM_MODEL_BASE_URL", "FARM_MODEL_API_KEY",
                 "FARM_MODEL_FAMILY"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_quoted_values_with_a_comment_after_them_lose_their_quotes(cwd):
    (cwd / ".env").write_text(f'MIDSCENE_MODEL_NAME=qwen3-vl-plus\n'
                              f'MIDSCENE_MODEL_API_KEY="{KEY}"  # from the console\n'
                              f"MIDSCENE_MODEL_BASE_URL='{URL}'   # local\n", encoding="utf-8")
    s = Settings()
    assert s.model_api_key.get_secret_value() == KEY
    assert s.model_base_url == URL


FORMS = {
    "export": "export MIDSCENE_MODEL_NAME=qwen3-vl-plus\n",
    "double quotes, comment": 'MIDSCENE_MODEL_NAME="qwen3-vl-plus" # the model\n',
    "back quotes, comment": "MIDSCENE_MODEL_NAME=`qwen3-vl-plus`#x\n",
    "colon": "MIDSCENE_MODEL_NAME: qwen3-vl-plus\n",
    "comment after unquoted": "MIDSCENE_MODEL_NAME=qwen3-vl-plus # x\n",
    "BOM, CRLF": "\ufeffMIDSCENE_MODEL_NAME=qwen3-vl-plus\r\nOPENAI_API_KEY='k#1' # c\r\n",
    "escape in double quotes": 'MIDSCENE_MODEL_NAME=qwen3-vl-plus\nOPENAI_API_KEY="a\\nb"\n',
    "multi-line quoted": 'MIDSCENE_MODEL_NAME=qwen3-vl-plus\nOPENAI_API_KEY="a\nb" #c\n',
}


@pytest.mark.parametrize("text", FORMS.values(), ids=FORMS)
def test_every_form_reads_as_a_suites_dotenv_reads_it(cwd, text):
    path = cwd / ".env"
    path.write_text(text, encoding="utf-8", newline="")
    whole = read_dotenv(path)
    got = midscene_model({}, path).values
    assert got["model"][0] == f"openai/{whole['MIDSCENE_MODEL_NAME']}" == "openai/qwen3-vl-plus"
    if "OPENAI_API_KEY" in whole:
        assert got["model_api_key"][0] == whole["OPENAI_API_KEY"]
