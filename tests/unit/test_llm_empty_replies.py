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


def test_a_reply_cut_at_the_token_limit_is_logged(server, caplog):
    srv = serve(server, [cut("<thought>I see")])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, max_tokens=64)
    with caplog.at_level(logging.WARNING, logger="farm.llm"):
        reply = client.complete([{"role": "user", "content": "go"}])
    assert reply.text == "<thought>I see" and reply.usage.completion_tokens == 64
    assert ("model openai/scripted: its reply was cut at its token limit (finish_reason "
            "length, max_tokens 64)") in caplog.text


@pytest.mark.parametrize("text", [None, "", " \n"])
def test_a_reply_cut_before_any_answer_says_so(server, caplog, text):
    """An endpoint that stopped a reasoning model at its token limit before it wrote anything
    ended the step "its reply could not be parsed twice: the reply was empty" (the limit was
    only in farm.log), after asking again for the same."""
    from farm.errors import ModelUnavailable
    srv = serve(server, [cut(text)])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, max_tokens=64)
    with caplog.at_level(logging.WARNING, logger="farm.llm"):
        with pytest.raises(ModelUnavailable) as info:
            client.complete([{"role": "user", "content": "go"}])
    assert str(info.value) == ("model openai/scripted reached its token limit before writing "
                               "an answer (finish_reason length, max_tokens 64: a reasoning "
                               "model can spend it all thinking)")
    spent = info.value.usage                        # type: ignore[attr-defined]
    assert (spent.calls, spent.completion_tokens, spent.tokens_unknown) == (1, 64, False)
    assert "nothing written" in caplog.text and len(srv.requests) == 1
