"""A model base URL with ``user:password@``: the password goes as basic auth, and neither it nor
the base64 of ``user:password`` the header carries (a decodable copy) appears in a message when
the endpoint echoes the header. With an API key set as well, one Authorization header cannot
carry both: farm stops before sending anything, saying so, instead of sending the password and
silently never the key."""

from __future__ import annotations

import base64
import json

import pytest

from farm.config import Settings
from farm.errors import ConfigError, ModelMisconfigured
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import check_models
from tests.support.model_server import ModelServer, Reply

_PASSWORD = "pw-Secret9x"
_BASIC = base64.b64encode(f"u:{_PASSWORD}".encode()).decode()


def _echo(server: ModelServer) -> Reply:
    said = server.headers[-1].get("authorization", "")
    return Reply(status=400, raw=json.dumps({"error": {"message": f"bad header {said}",
                                                       "type": "invalid"}}).encode())


def test_an_echoed_basic_auth_header_is_masked() -> None:
    server = ModelServer(lambda body, index: _echo(server))
    with server:
        url = f"http://u:{_PASSWORD}@127.0.0.1:{server.port}/v1"
        client = LiteLLMClient("openai/scripted", base_url=url, retries=0)
        with pytest.raises(Exception) as caught:
            client.complete([{"role": "user", "content": "hi"}])
    assert server.headers[0]["authorization"] == f"Basic {_BASIC}"   # it was sent, and echoed
    said = str(caught.value)
    assert "bad header" in said, said
    assert _BASIC not in said and _PASSWORD not in said, said


def test_a_key_beside_url_credentials_stops_the_run_before_anything_is_sent() -> None:
    server = ModelServer()
    with server:
        url = f"http://u:{_PASSWORD}@127.0.0.1:{server.port}/v1"
        settings = Settings(model="openai/scripted", model_base_url=url,
                            model_api_key="sk-farm-key-1234")
        with pytest.raises(ConfigError) as caught:
            check_models(settings)
        client = LiteLLMClient("openai/scripted", base_url=url, api_key="sk-farm-key-1234")
        with pytest.raises(ModelMisconfigured) as refused:      # a worker's client
            client.complete([{"role": "user", "content": "hi"}])
    said = str(caught.value)
    assert "carries a user:password and FARM_MODEL_API_KEY is set too" in said, said
    assert f"http://u:***@127.0.0.1:{server.port}/v1" in said, said
    assert _PASSWORD not in said and "sk-farm-key-1234" not in said
    assert "carries a user:password" in str(refused.value)
    assert server.requests == []


def test_the_runs_mask_hides_the_endpoint_password_and_its_basic_auth_header() -> None:
    """What the model says (an aiAssert's reason) goes through the run's mask, not the
    client's: the endpoint echoing its Authorization header into a reply is masked there too."""
    from farm.config import model_keys
    from farm.suite.vars import Variables
    settings = Settings(model="openai/scripted",
                        model_base_url=f"http://u:{_PASSWORD}@127.0.0.1:9/v1")
    keys = model_keys(settings)
    run_mask = Variables.from_sources(defaults={}, env={}, provided=keys, secrets=keys).mask
    said = run_mask(f"your key is Basic {_BASIC} and the password {_PASSWORD}")
    assert _BASIC not in said and _PASSWORD not in said, said
    assert said.startswith("your key is Basic ***"), said
