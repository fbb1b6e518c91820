"""A scripted OpenAI-compatible chat server for tests: litellm talks to it over real HTTP.

    with ModelServer(["<action-type>Tap</action-type>…", Reply(status=429), "…"]) as srv:
        client = LiteLLMClient("openai/scripted", base_url=srv.base_url)

A script is a list (one entry per request, in order; the last repeats) or a function
``(body: dict, index: int) -> entry``. An entry is reply text or a `Reply` (status code, delay,
raw body, a model that never answers, a huge streamed body). Every request body is kept in
``.requests`` (parsed JSON), ``.raw`` (bytes) and ``.headers``: the server logs what a model
would read.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Iterator, Sequence


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay: float = 0.0           # seconds before answering (timeouts)
    raw: bytes | None = None     # a broken body instead of JSON
    prompt_tokens: int | None = None
    hang: bool = False           # never answer: hold the request until the server stops
    stream_bytes: int = 0        # this many bytes of garbage, sent in chunks with no
    #                              Content-Length (the body ends when the connection closes)
    headers: dict[str, str] | None = None   # extra response headers (Retry-After, ...)


NEVER_ANSWERS = Reply(hang=True)


Entry = str | Reply
Script = Sequence[Entry] | Callable[[dict, int], Entry]


class ModelServer:
    def __init__(self, script: Script = ("<complete success=\"true\">done</complete>",),
                 port: int = 0) -> None:
        """``port``: 0 for a free one; a stopped server's port to start it again there."""
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.raw: list[bytes] = []
        self.headers: list[dict[str, str]] = []     # each request's HTTP headers, names lower-case
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:   # /v1/models: some clients probe it
                self._send(200, json.dumps({"data": [{"id": "scripted"}]}).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(length)
                try:
                    body = json.loads(data)
                except ValueError:
                    body = {}
                with server._lock:
                    index = len(server.requests)
                    server.requests.append(body)
                    server.raw.append(data)
                    server.headers.append({k.lower(): v for k, v in self.headers.items()})
                entry = server._entry(body, index)
                reply = entry if isinstance(entry, Reply) else Reply(text=entry)
                if reply.hang:
                    server._stopping.wait()
                    return
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.stream_bytes:
                    self._stream(reply.stream_bytes)
                elif reply.raw is not None:
                    self._send(reply.status, reply.raw, reply.headers)
                elif reply.status != 200:
                    err = {"error": {"message": f"scripted {reply.status}", "type": "scripted",
                                     "code": reply.status}}
                    self._send(reply.status, json.dumps(err).encode(), reply.headers)
                else:
                    self._send(200, json.dumps(_completion(body, reply, index)).encode(),
                               reply.headers)

            def _stream(self, size: int) -> None:
                chunk = b"<thought>" + b"garbage " * 8190
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    for start in range(0, size, len(chunk)):
                        self.wfile.write(chunk[:size - start])
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client stopped reading (the size cap)

            def _send(self, status: int, payload: bytes,
                      headers: dict[str, str] | None = None) -> None:
                try:
                    self.send_response(status)
                    for name, value in (headers or {}).items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass   # the client gave up (timeout test)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _entry(self, body: dict, index: int) -> Entry:
        if callable(self.script):
            return self.script(body, index)
        return self.script[min(index, len(self.script) - 1)]

    def start(self) -> "ModelServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()         # requests held by NEVER_ANSWERS return
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "ModelServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    # -- what tests look at ----------------------------------------------------------------
    def texts(self, index: int) -> str:
        """All text parts of request ``index`` joined (what the model read)."""
        return "\n".join(message_texts(self.requests[index]))

    def images(self, index: int) -> list[str]:
        """The data URLs of the images in request ``index``."""
        return request_images(self.requests[index])


def message_texts(body: dict) -> list[str]:
    out = []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(p.get("text", "") for p in content if p.get("type") == "text")
    return out


def request_images(body: dict) -> list[str]:
    out = []
    for m in body.get("messages", []):
        content = m.get("content")
        if isinstance(content, list):
            for p in content:
                if p.get("type") == "image_url":
                    url = p["image_url"]
                    out.append(url["url"] if isinstance(url, dict) else url)
    return out


def image_size(data_url: str) -> tuple[int, int]:
    """Width and height of a base64 PNG/JPEG data URL."""
    import base64
    import io

    from PIL import Image
    raw = base64.b64decode(data_url.split(",", 1)[1])
    return Image.open(io.BytesIO(raw)).size


def _completion(body: dict, reply: Reply, index: int) -> dict:
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = sum(len(t) for t in message_texts(body)) // 4 + 765 * len(request_images(body))
    return {
        "id": f"chatcmpl-{index}", "object": "chat.completion", "created": int(time.time()),
        "model": body.get("model", "scripted"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": reply.text}}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": max(len(reply.text) // 4, 1),
                  "total_tokens": prompt + max(len(reply.text) // 4, 1)},
    }


def main() -> None:
    """``python -m tests.support.model_server SCRIPT.json``: serve a list of replies (for
    trying the CLI by hand). Prints the base URL."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m tests.support.model_server",
        description="A scripted OpenAI-compatible model server on a free loopback port (its "
                    "base URL printed): each request gets the next reply of SCRIPT.")
    parser.add_argument("script", nargs="?", metavar="SCRIPT.json",
                        help="a JSON list of reply texts (default: one reply saying done)")
    path = parser.parse_args().script
    script = json.loads(open(path).read()) if path else [
        '<complete success="true">done</complete>']
    srv = ModelServer(script).start()
    print(srv.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":
    main()


def serve(started: list["ModelServer"], script: Any) -> "ModelServer":
    """A server started on ``script`` and added to ``started`` (the unit tests' ``server``
    fixture stops every one at the end of the test)."""
    srv = ModelServer(script).start()
    started.append(srv)
    return srv


@contextlib.contextmanager
def cut_mid_body(reply: dict) -> Iterator[str]:
    """An endpoint that answers every request 200 with ``reply`` as JSON, its whole
    Content-Length announced, and closes half-way through the body (it did the work: a real
    endpoint bills it); its base URL."""
    import re
    import socket
    payload = json.dumps(reply).encode()
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    data += conn.recv(65536)
                head, _, body = data.partition(b"\r\n\r\n")
                size = int(re.search(rb"(?i)content-length:\s*(\d+)", head).group(1))
                while len(body) < size:
                    body += conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: %d\r\n\r\n" % len(payload)
                             + payload[:len(payload) // 2])
                conn.shutdown(socket.SHUT_RDWR)
    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    finally:
        listener.close()
