"""Serves a suite's web apps (``apps: {name: {serve: dir, env: VAR}}``) on loopback ports
for the length of a run."""

from __future__ import annotations

import codecs
import functools
import logging
import os
import re
import socket
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

from farm.errors import ConfigError
from farm.suite.model import AppSpec

log = logging.getLogger("farm.appserver")


# text types sent with a charset; UTF-8 unless the file says or shows it is something else
_TEXT = {".html": "text/html", ".htm": "text/html", ".css": "text/css",
         ".js": "text/javascript", ".mjs": "text/javascript", ".txt": "text/plain",
         ".json": "application/json", ".svg": "image/svg+xml"}
# a <meta charset=…> or <meta http-equiv content="…; charset=…">, as a browser's prescan finds it
_META_CHARSET = re.compile(rb"<meta\b[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9._:+-]{1,40})",
                           re.IGNORECASE)
_COMMENT = re.compile(rb"<!--.*?-->", re.DOTALL)


def text_charset(path: str, kind: str) -> str | None:
    """The charset to send a text file with: the one an HTML page declares in its first 1024
    bytes (a legacy GBK page's ``<meta charset="gbk">`` lost to the header's UTF-8 showed
    mojibake), UTF-8 for a file that declares none and is valid UTF-8 (a page without <meta>
    read as windows-1252 showed "â€¹ Inbox"), else None: no charset, so the browser's own
    sniffing (a BOM, ``@charset``, the page's encoding for its scripts) decides."""
    try:
        with open(path, "rb") as file:
            head = file.read(1024)
            declared = _META_CHARSET.search(_COMMENT.sub(b"", head)) if kind == "text/html" \
                else None
            if declared:
                return _known(declared.group(1).decode("ascii"))
            decoder = codecs.getincrementaldecoder("utf-8")()
            chunk = head
            while chunk:
                decoder.decode(chunk)
                chunk = file.read(1 << 20)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return None
    except OSError:             # unreadable: send_head says so as it opens it
        return "utf-8"
    return "utf-8"


def _known(label: str) -> str | None:
    """A declared charset as the header says it, or None where a browser reads the <meta>
    otherwise than the same label in a header (a page's "utf-16" means UTF-8) or not at all."""
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    return None if name.startswith(("utf-16", "utf-32")) else label.lower()


class _QuietHandler(SimpleHTTPRequestHandler):
    def guess_type(self, path):  # type: ignore[no-untyped-def]
        kind = _TEXT.get(os.path.splitext(str(path))[1].lower())
        if kind is None:
            return super().guess_type(path)
        charset = text_charset(str(path), kind)
        return f"{kind}; charset={charset}" if charset else kind

    def log_message(self, format: str, *args: object) -> None:   # keep the progress view clean
        pass

    def send_head(self):  # type: ignore[no-untyped-def]
        """A dot-file or dot-folder (``.env``, ``.git/config``, ``.npmrc``, ``.farm/``) is not
        served: a suite's folder served whole (``serve: .``) put its secrets on the network
        with ``FARM_SERVE_HOST=0.0.0.0``. ``.well-known/`` is public by design."""
        if _hidden(self.path):
            self.send_error(404, "File not found")
            return None
        return super().send_head()

    def list_directory(self, path):  # type: ignore[no-untyped-def]
        """A folder without an index.html is not listed (it showed every file of it, the
        ones no page links to too)."""
        self.send_error(404, "File not found")
        return None

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class _QuietServer(ThreadingHTTPServer):
    """A browser that goes away mid-response (a closed tab, a run stopped with SIGTERM) is
    no error of the app's: not printed. Any other error goes to farm.log, never raw stderr
    (socketserver's default prints a traceback over the progress view)."""

    def handle_error(self, request: object, client_address: tuple[str, int]) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):    # broken pipe, reset, aborted
            return
        log.warning("app server: request from %s:%s failed", *client_address[:2],
                    exc_info=True)


class _QuietServer6(_QuietServer):
    address_family = socket.AF_INET6        # FARM_SERVE_HOST=:: (or another IPv6 address)


def _hidden(request_path: str) -> bool:
    """Does a request's path name a dot-file or a dot-folder (other than ``.well-known``)?"""
    path = unquote(request_path.split("?", 1)[0].split("#", 1)[0])
    return any(part.startswith(".") and part not in (".", "..", ".well-known")
               for part in path.replace("\\", "/").split("/"))


def too_wide(folder: Path) -> str | None:
    """What ``folder`` is when it must not be served, else None: the filesystem root, the
    user's home directory or a folder holding it. Served, every file in it (keys, tokens,
    browser profiles) would answer whatever reaches the port: the loopback, or the cluster
    with FARM_SERVE_HOST=0.0.0.0; the dot-file refusal would not cover ``Documents/``."""
    real = Path(os.path.realpath(folder))
    if real == Path(real.anchor):
        return "the filesystem root"
    try:
        home = Path(os.path.realpath(Path.home()))
    except (RuntimeError, KeyError):        # no HOME and no password entry
        return None
    if real == home:
        return "the home directory"
    if real in home.parents:
        return f"a folder holding the home directory ({home})"
    return None


def _url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets (``http://[::1]:8000``)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


class AppServer:
    """One threaded static server per served directory."""

    def __init__(self, host: str = "127.0.0.1", url_host: str | None = None,
                 setting: str = "FARM_SERVE_HOST") -> None:
        self.host = host
        self.setting = setting              # where host was set, as its error names it
        self.url_host = url_host or host    # what other machines (cluster workers) dial
        self._servers: list[_QuietServer] = []
        self.urls: dict[Path, str] = {}     # served dir → base URL
        self.env: dict[str, str] = {}       # VAR → base URL

    def serve(self, apps: list[AppSpec]) -> None:
        for app in apps:
            if app.serve is None:
                continue
            folder = Path(app.serve).resolve()
            if folder not in self.urls:
                handler = functools.partial(_QuietHandler, directory=str(folder))
                server = self._server(handler)
                server.daemon_threads = True
                threading.Thread(target=server.serve_forever, name=f"app-{app.name}",
                                 daemon=True).start()
                self._servers.append(server)
                self.urls[folder] = (f"http://{_url_host(self.url_host)}:"
                                     f"{server.server_address[1]}")
            if app.env:
                self.env[app.env] = self.urls[folder]

    def _server(self, handler: functools.partial) -> _QuietServer:
        """A server on a free port of ``host``; a host that is no address of this machine
        (a typo, another machine's address) is the setting's mistake, said as one (exit 4),
        where it was an internal error (OSError: [Errno 99]) and a traceback file."""
        kind = _QuietServer6 if ":" in self.host else _QuietServer
        try:
            return kind((self.host.strip("[]"), 0), handler)
        except OSError as exc:
            raise ConfigError(
                f"{self.setting} {self.host}: cannot serve the suite's apps there "
                f"({exc.strerror or exc}): give an address of this machine (127.0.0.1, or "
                "0.0.0.0 for workers on other machines)") from None

    def close(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()

    def __enter__(self) -> "AppServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
