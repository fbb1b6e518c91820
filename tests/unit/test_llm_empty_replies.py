"""An empty reply is named as one ("the reply was empty", where the parse error quoted '' after
a hint about tags), and a reply the endpoint cut at its token limit is said so in farm.log (a
reasoning model can spend its whole budget before writing anything)."""

from __future__ import annotations

import json
import logging

import pytest

from farm.llm.litellm_client import LiteLLMClient
from farm.llm.plan import ReplyParseError, loads_lenient, parse_plan
from tests.support.model_server import Reply, serve


@pytest.mark.parametrize("grammar", ["xml", "autoglm", "uitars"])
@pytest.mark.parametrize("reply", ["", "  \n "])
def test_an_empty_plan_is_named_so(grammar, reply):
    with pytest.raises(ReplyParseError, match="^the reply was empty$"):
        parse_plan(reply, grammar)


def test_an_empty_json_answer_is_named_so():
    with pytest.raises(ReplyParseError, match="^the reply was empty$"):
        loads_lenient(" ")


def cut(text: str | None) -> Reply:
    return Reply(raw=json.dumps({
        "id": "x", "object": "chat.completion", "created": 1, "model": "scripted",
        "choices": [{"index": 0, "finish_reason": "length",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 64, "total_tokens": 74}}).encode())


@pytest.mark.parametrize("text, said", [(None, ", nothing written"), ("<thought>I see", "")])
def test_a_reply_cut_at_the_token_limit_is_logged(server, caplog, text, said):
    srv = serve(server, [cut(text)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, max_tokens=64)
    with caplog.at_level(logging.WARNING, logger="farm.llm"):
        reply = client.complete([{"role": "user", "content": "go"}])
    assert reply.text == (text or "") and reply.usage.completion_tokens == 64
    assert (f"model openai/scripted: its reply was cut at its token limit (finish_reason "
            f"length, max_tokens 64){said}") in caplog.text
