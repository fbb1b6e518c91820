"""The model's httpx client: it stops reading a reply body past a size cap, and ends the
connection of a request farm abandoned.

A broken or hostile endpoint can answer with megabytes of garbage; read whole, it costs
memory (litellm and the SDK copy it several times) and parsing time before anything can say
no. `capped_client` refuses a declared Content-Length over the cap before reading, and stops
a body without one as soon as it passes the cap. A reply that drips in is abandoned at its
request's time (`farm.llm.request_watch`); its connection is then shut, so the request's
thread ends, not when the endpoint stops sending.
"""

from __future__ import annotations

import socket
import threading
import zlib
from typing import Iterator

import httpx

from farm.llm.request_watch import on_abandon


class ReplyTooLarge(Exception):
    """The reply body is over ``limit`` bytes (raised from inside the HTTP stack; the client
    finds it in the exception chain)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"the reply is over {limit} bytes")


class _CappedStream(httpx.SyncByteStream):
    """The body's bytes as they come, counted as they will read once decoded: a gzip body
    of 50 KB holds 50 MB of text, all of which was read, parsed and copied past the cap."""

    def __init__(self, inner: httpx.SyncByteStream, limit: int, encoding: str = "") -> None:
        self.inner, self.limit = inner, limit
        self.inflate = (zlib.decompressobj(32 + zlib.MAX_WBITS)     # gzip or zlib header
                        if encoding.strip().lower() in ("gzip", "x-gzip", "deflate") else None)

    def __iter__(self) -> Iterator[bytes]:
        read = 0
        for chunk in self.inner:
            read += self._decoded(chunk)
            if read > self.limit:
                raise ReplyTooLarge(self.limit)
            yield chunk

    def _decoded(self, chunk: bytes) -> int:
        """How many bytes ``chunk`` decodes to, at most the cap and one (memory stays
        bounded); its own length when not compressed in a way counted here."""
        if self.inflate is None:
            return len(chunk)
        size = 0
        try:
            while chunk and size <= self.limit:
                size += len(self.inflate.decompress(chunk, self.limit + 1 - size))
                chunk = self.inflate.unconsumed_tail
        except zlib.error:      # (httpx says what is wrong with it) counted as sent from here
            self.inflate = None
            return size + len(chunk)
        return size

    def close(self) -> None:
        self.inner.close()


def _capped(response: httpx.Response, limit: int) -> httpx.SyncByteStream:
    """``response``'s body stream, capped; ReplyTooLarge now for a declared Content-Length
    over ``limit`` (nothing of the body read)."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        response.close()
        raise ReplyTooLarge(limit)
    assert isinstance(response.stream, httpx.SyncByteStream)
    return _CappedStream(response.stream, limit, response.headers.get("content-encoding", ""))


class _Abandonable(httpx.SyncByteStream):
    """A reply body whose connection is shut when the request is abandoned while it is read.
    Once the body has been read (or closed) the connection may serve another request: it is
    never shut then (``done`` under ``lock``, set before the connection goes back)."""

    def __init__(self, inner: httpx.SyncByteStream, sock: socket.socket) -> None:
        self.inner, self.sock = inner, sock
        self.lock = threading.Lock()
        self.done = False

    def __iter__(self) -> Iterator[bytes]:
        try:
            yield from self.inner
        finally:
            self._finish()

    def close(self) -> None:
        self._finish()
        self.inner.close()

    def _finish(self) -> None:
        with self.lock:
            self.done = True

    def shut(self) -> None:
        """Wakes the read that waits for the next bytes (it ends: the connection is gone)."""
        with self.lock:
            if not self.done:
                self.sock.shutdown(socket.SHUT_RDWR)


def _closes_when_abandoned(response: httpx.Response) -> None:
    """A response hook (its headers came; the body is still to read, in this thread)."""
    network = response.extensions.get("network_stream")
    sock = network.get_extra_info("socket") if network is not None else None
    if not isinstance(sock, socket.socket) or not isinstance(response.stream,
                                                              httpx.SyncByteStream):
        return     # (not a plain socket: a mock transport in tests)
    body = _Abandonable(response.stream, sock)
    response.stream = body
    on_abandon(body.shut)


def capped_client(limit: int, **kwargs: object) -> httpx.Client:
    """An ``httpx.Client`` whose reply bodies may hold at most ``limit`` bytes, and whose
    request abandoned while its reply drips in has its connection shut. The cap is a
    response hook, not a transport: a client given its own transport ignores the
    environment's proxies (HTTPS_PROXY, NO_PROXY), which the SDK's own client honours, so a
    model reached through a proxy was "Name or service not known"."""
    def cap(response: httpx.Response) -> None:
        response.stream = _capped(response, limit)
    hooks = {"response": [cap, _closes_when_abandoned]}
    return httpx.Client(event_hooks=hooks, **kwargs)  # type: ignore[arg-type]


class CappedTransport(httpx.BaseTransport):
    """``inner`` (an ``httpx.HTTPTransport`` by default), its response bodies capped at
    ``limit`` bytes (a mock transport in tests; farm's model client uses `capped_client`)."""

    def __init__(self, limit: int, inner: httpx.BaseTransport | None = None) -> None:
        self.limit = limit
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        return httpx.Response(response.status_code, headers=response.headers,
                              stream=_capped(response, self.limit),
                              extensions=response.extensions)

    def close(self) -> None:
        self.inner.close()
