"""A model reached through the environment's proxy (HTTPS_PROXY / HTTP_PROXY, as a corporate
network needs): farm's client capped reply sizes with a transport of its own, and an httpx
client given a transport ignores the environment's proxies, so every request went straight to
the endpoint ("Name or service not known") where the OpenAI SDK's own client used the proxy.
The proxy and NO_PROXY are honoured now, and the size cap still holds through the proxy."""

from __future__ import annotations

import pytest

from farm.errors import ModelUnavailable
from farm.llm.litellm_client import LiteLLMClient
from tests.support.model_server import Reply, serve

MSGS = [{"role": "user", "content": "hi"}]
BEHIND_PROXY = "http://model.invalid/v1"        # resolvable only by the proxy


def _proxy(monkeypatch, url: str, no_proxy: str = "") -> None:
    for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
                 "all_proxy", "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", url)
    if no_proxy:
        monkeypatch.setenv("NO_PROXY", no_proxy)


def test_requests_go_through_the_environment_proxy(server, monkeypatch):
    proxy = serve(server, ["through the proxy"])
    _proxy(monkeypatch, proxy.base_url.rsplit("/v1", 1)[0])
    client = LiteLLMClient("openai/scripted", base_url=BEHIND_PROXY, retries=0)
    assert client.complete(MSGS).text == "through the proxy"
    assert proxy.headers[0]["host"] == "model.invalid"


def test_no_proxy_hosts_are_reached_directly(server, monkeypatch):
    proxy, direct = serve(server, ["through the proxy"]), serve(server, ["direct"])
    _proxy(monkeypatch, proxy.base_url.rsplit("/v1", 1)[0], no_proxy="127.0.0.1")
    client = LiteLLMClient("openai/scripted", base_url=direct.base_url, retries=0)
    assert client.complete(MSGS).text == "direct" and not proxy.requests


def test_the_reply_size_cap_holds_through_the_proxy(server, monkeypatch):
    proxy = serve(server, [Reply(stream_bytes=50_000)])
    _proxy(monkeypatch, proxy.base_url.rsplit("/v1", 1)[0])
    client = LiteLLMClient("openai/scripted", base_url=BEHIND_PROXY, retries=0,
                           max_reply_bytes=10_000)
    with pytest.raises(ModelUnavailable, match="over 10000 bytes"):
        client.complete(MSGS)
