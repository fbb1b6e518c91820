"""An httpx transport that stops reading a reply body past a size cap.

A broken or hostile endpoint can answer with megabytes of garbage; read whole, it costs
memory (litellm and the SDK copy it several times) and parsing time before anything can say
no. `CappedTransport` refuses a declared Content-Length over the cap before reading, and
stops a body without one as soon as it passes the cap.
"""

from __future__ import annotations

from typing import Iterator

import httpx


class ReplyTooLarge(Exception):
    """The reply body is over ``limit`` bytes (raised from inside the HTTP stack; the client
    finds it in the exception chain)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the reply is over {limit} bytes")


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, limit: int) -> None:
        self.inner, self.limit = inner, limit

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self.inner:
            read += len(chunk)
            if read > self.limit:
                raise ReplyTooLarge(self.limit)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class CappedTransport(httpx.BaseTransport):
    """``httpx.HTTPTransport`` whose response bodies may hold at most ``limit`` bytes."""

    def __init__(self, limit: int, inner: httpx.BaseTransport | None = None) -> None:
        self.limit = limit
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            response.close()
            raise ReplyTooLarge(self.limit)
        assert isinstance(response.stream, httpx.SyncByteStream)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_CappedStream(response.stream, self.limit),
                              extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()
