"""A Qwen2.5-VL model answers in pixels of the image it saw: its requests ask DashScope to keep
the image whole (``vl_high_resolution_images``), as Midscene's do; DashScope otherwise shrinks
an image above ~1M pixels (an Android screenshot, a 1280x800 page padded to 28) and every box
comes back short of its target. Other families' requests carry no such field. Through litellm,
over HTTP, to the scripted model server."""

from __future__ import annotations

import pytest

from farm.llm.families import family_for
from farm.llm.litellm_client import LiteLLMClient

pytestmark = pytest.mark.integration

ASK = [{"role": "user", "content": "where is the Sign in button?"}]


@pytest.mark.parametrize("model, asks", [("openai/qwen2.5-vl-72b-instruct", True),
                                         ("openai/qwen3-vl-plus", False),
                                         ("openai/gpt-4o", False)])
def test_only_a_qwen25_request_asks_to_keep_the_image_whole(model_server, model, asks):
    srv = model_server(['<complete success="true">done</complete>'])
    client = LiteLLMClient(model, base_url=srv.base_url, family=family_for(None, model).name,
                           retries=0)
    client.complete(ASK)
    assert len(srv.requests) == 1
    sent = srv.requests[0]
    assert sent["model"] == model.split("/", 1)[1]
    if asks:
        assert sent.get("vl_high_resolution_images") is True, sorted(sent)
    else:
        assert "vl_high_resolution_images" not in sent, sorted(sent)
