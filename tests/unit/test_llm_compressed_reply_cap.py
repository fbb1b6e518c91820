"""FARM_MODEL_MAX_REPLY_BYTES holds for a compressed reply: the cap counted the bytes on the
wire, so a gzip body of 50 KB (50 MB of text once decoded, a model looping on one word behind
a compressing proxy) was read whole, decoded and parsed before anything said no. Now reading
stops once the decoded text passes the cap; a compressed reply under it reads as sent."""

from __future__ import annotations

import gzip
import json
import zlib
from typing import Iterator

import httpx
import pytest

from farm.llm.capped_http import CappedTransport, ReplyTooLarge
from tests.support.model_server import Reply, serve

CAP = 100_000


def compressed(encoding: str, body: bytes, chunk: int = 4096) -> tuple[list[int], httpx.Client]:
    """A client capped at CAP over a mock transport answering ``body`` compressed, in chunks;
    the list holds the size of each chunk it sent."""
    packed = gzip.compress(body) if encoding == "gzip" else zlib.compress(body)
    sent: list[int] = []

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(packed), chunk):
            sent.append(len(packed[start:start + chunk]))
            yield packed[start:start + chunk]

    mock = httpx.MockTransport(lambda request: httpx.Response(
        200, headers={"Content-Encoding": encoding}, content=chunks()))
    return sent, httpx.Client(transport=CappedTransport(CAP, mock))


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_reply_over_the_cap_stops_being_read_at_the_cap(encoding):
    body = b"garbage " * 6_000_000        # 48 MB decoded, some 50 KB on the wire
    sent, http = compressed(encoding, body)
    with http, pytest.raises(ReplyTooLarge, match=f"over {CAP} bytes"):
        http.get("http://model/v1/chat/completions")
    assert sum(sent) < len(zlib.compress(body)) // 2, sent    # not read to its end


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_compressed_reply_under_the_cap_reads_as_sent(encoding):
    body = json.dumps({"text": "ok " * 30_000}).encode()     # 90 KB decoded: under the cap
    sent, http = compressed(encoding, body, chunk=512)
    with http:
        assert http.get("http://model/").content == body


def test_a_gzip_answer_through_litellm_still_reads(server):
    """A model behind a compressing proxy answers as before (real HTTP, real litellm)."""
    from farm.llm.litellm_client import LiteLLMClient
    answer = {"id": "x", "object": "chat.completion", "created": 1, "model": "scripted",
              "choices": [{"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": "done " * 1000}}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 1000, "total_tokens": 1005}}
    srv = serve(server, [Reply(raw=gzip.compress(json.dumps(answer).encode()),
                               headers={"Content-Encoding": "gzip"})])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url, max_reply_bytes=CAP)
    reply = client.complete([{"role": "user", "content": "hi"}])
    assert reply.text == "done " * 1000 and reply.usage.completion_tokens == 1000
