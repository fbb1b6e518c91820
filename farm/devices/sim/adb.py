"""A simulated adb server: speaks the adb host protocol (what adbutils and Debian's ``adb``
client send to port 5037) and answers for N simulated devices backed by `PhoneScreen`s.

Requests are 4 hex digits of length + payload; answers ``OKAY`` or ``FAIL`` + hex length +
message. After ``host:transport``/``host:tport`` the same socket carries one device service:
``shell:`` (raw output), ``shell,v2:`` (framed stdout/stderr/exit), ``exec:`` or ``sync:``.
A phone whose shell's ``shell_v2`` is False answers as an Android 6 one: no shell_v2 in its
features, and its ``shell:`` output through a terminal (LF sent as CRLF).
"""

from __future__ import annotations

import logging
import socket
import socketserver
import struct
import threading
from functools import partial
from typing import Any

from farm.devices.sim.androidshell import AndroidShell
from farm.devices.sim.screen import ScreensStopped

log = logging.getLogger(__name__)

SERVER_VERSION = 41          # Debian's adb 1.0.41 client accepts it without restarting us
FEATURES = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir,apex,abb,fixed_push_symlink_timestamp"
OLD_FEATURES = "cmd,stat_v2,ls_v2"      # an Android 6 phone's: no shell_v2


def _features(shell: AndroidShell) -> str:
    return FEATURES if shell.shell_v2 else OLD_FEATURES


class _Closed(Exception):
    pass


def _read_exact(sock: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise _Closed()
        buf += chunk
    return buf


def _block(text: str | bytes) -> bytes:
    data = text.encode() if isinstance(text, str) else text
    return b"%04x" % len(data) + data


def _command(req: str) -> str:
    """The command line of a ``shell[,v2,...]:CMD`` / ``exec:CMD`` service request ("" for
    other services)."""
    head, _, cmd = req.partition(":")
    return cmd if head.split(",")[0] in ("shell", "exec") else ""


def _okay(sock: socket.socket, payload: str | None = None) -> None:
    sock.sendall(b"OKAY" + (_block(payload) if payload is not None else b""))


def _fail(sock: socket.socket, message: str) -> None:
    sock.sendall(b"FAIL" + _block(message))


def _print_until_closed(sock: socket.socket, line: bytes, v2: bool, crlf: bool) -> None:
    """A command that prints ``line`` until it is stopped (`AndroidShell.endless`): 4 KB at a
    time as fast as the client reads, until it hangs up (which ends the command on a phone);
    the OSError that then comes ends the request."""
    data = line * (4096 // len(line) + 1)
    data = data.replace(b"\n", b"\r\n") if crlf and not v2 else data
    frame = b"\x01" + struct.pack("<I", len(data)) + data if v2 else data
    while True:
        sock.sendall(frame)


def _stream(sock: socket.socket, v2: bool, crlf: bool, out: bytes, err: bytes) -> None:
    """One command's output, sent as it ends: shell_v2's stdout and stderr frames, or the
    one stream of a v1 shell (stderr first, as `run_in_order` orders it; an older phone's
    through a terminal: every LF as CRLF)."""
    if v2:
        sock.sendall(b"".join(bytes([kind]) + struct.pack("<I", len(data)) + data
                              for kind, data in ((1, out), (2, err)) if data))
        return
    both = err + out
    sock.sendall(both.replace(b"\n", b"\r\n") if crlf else both)


class _Handler(socketserver.BaseRequestHandler):
    server: "AdbServer"

    def handle(self) -> None:
        sock: socket.socket = self.request
        try:
            self._serve(sock)
        except (_Closed, ConnectionError, OSError):
            pass
        except Exception as exc:  # a bug in the simulator: close like a dead device would
            if isinstance(exc, ScreensStopped) or self.server.stopping:
                # a request the simulator's stop cut off (SIGTERM, Ctrl-C): no bug of its own
                log.debug("adb sim: request cut off by the stop: %s", exc)
                return
            if type(exc).__name__ == "TargetClosedError":   # Chromium went (a Ctrl-C to the
                if not self.server.said_closed:     # process group ends it with farm): once
                    self.server.said_closed = True
                    log.warning("adb sim: request failed: the screens' browser closed")
                return
            log.exception("adb sim: request failed")

    def _serve(self, sock: socket.socket) -> None:
        shell: AndroidShell | None = None
        while True:
            size = int(_read_exact(sock, 4), 16)
            req = _read_exact(sock, size).decode("utf-8", "replace")
            if shell is None:
                shell = self._host_request(sock, req)
                if shell is None:      # a host request answered (or refused): done
                    return
                continue
            self._service(sock, shell, req)
            return

    def _host_request(self, sock: socket.socket, req: str):
        srv = self.server
        if req == "host:version":
            _okay(sock, "%04x" % SERVER_VERSION)
            return None
        if req in ("host:devices", "host:devices-l"):
            lines = []
            for i, d in enumerate(srv.shells):
                state = "offline" if d.faults.offline else "device"    # a listing uses none
                line = f"{d.serial}\t{state}"
                if req.endswith("-l"):
                    line = (f"{d.serial:<22} {state} product:farm_sim model:{d.model} "
                            f"device:farm_sim transport_id:{i + 1}")
                lines.append(line + "\n")
            _okay(sock, "".join(lines))
            return None
        if req == "host:features":
            _okay(sock, FEATURES)
            return None
        if req == "host:kill":      # we are not adb's own server: nothing to restart
            _okay(sock)
            return None
        if req.startswith(("host:tport:", "host:transport")):
            shell = self._select(req)
            if shell is None:
                _fail(sock, "device not found" if "serial" in req or ":" in req[15:]
                      else "more than one device/emulator" if self.server.shells
                      else "no devices/emulators found")
                return None
            _okay(sock)         # `drop` hits the service asked for next (see _service)
            if req.startswith("host:tport:"):
                sock.sendall(struct.pack("<Q", srv.shells.index(shell) + 1))
            return shell
        if req.startswith(("host-serial:", "host-transport-id:", "host-usb:", "host-local:")):
            parts = req.split(":")
            shell = self._select(req)
            cmd = parts[-1]
            if shell is None:
                _fail(sock, f"device '{parts[1]}' not found")
                return None
            # the server answers `features` from what it knows of the transport (`adb shell
            # farm-sim fault drop 0` asks it first): a dropping device does not reach it
            if cmd != "features" and shell.faults.hit("drop"):
                sock.close()           # the cable was pulled
                return None
            state = "offline" if cmd == "get-state" and shell.faults.hit("offline") \
                else "device"
            answers = {"features": _features(shell), "get-state": state,
                       "get-serialno": shell.serial, "get-devpath": "usb:farm-sim"}
            if cmd in answers:
                _okay(sock, answers[cmd])
            elif cmd.startswith("wait-for-"):
                sock.sendall(b"OKAYOKAY")
            else:
                _fail(sock, f"unsupported operation: {cmd}")
            return None
        _fail(sock, f"unknown host service: {req}")
        return None

    def _select(self, req: str) -> AndroidShell | None:
        shells = self.server.shells
        if req in ("host:transport-any", "host:tport:any", "host:transport-usb",
                   "host:tport:usb", "host:transport-local", "host:tport:local"):
            return shells[0] if len(shells) == 1 else None
        if req.startswith("host:transport-id:") or req.startswith("host-transport-id:"):
            tid = req.split(":")[2] if req.startswith("host:") else req.split(":")[1]
            try:
                return shells[int(tid) - 1]
            except (ValueError, IndexError):
                return None
        serial = req.split(":")[-1] if req.startswith("host:") else req.split(":")[1]
        if req.startswith("host-serial:"):
            # host-serial:<serial>:<cmd>; a serial like "127.0.0.1:5555" holds a colon itself
            serial = req[len("host-serial:"):].rsplit(":", 1)[0]
        return next((s for s in shells if s.serial == serial), None)

    def _service(self, sock: socket.socket, shell: AndroidShell, req: str) -> None:
        # the fault switches' own command is never faulted: `farm-sim fault drop 0` must get
        # through to switch `drop` off
        if not AndroidShell.is_control(_command(req)) and shell.faults.hit("drop"):
            return             # closed unanswered: the cable was pulled
        if not AndroidShell.is_control(_command(req)) and shell.faults.hit("offline"):
            _fail(sock, "device offline")      # (adb refuses its transport; `offline` too)
            return
        if req.startswith("shell"):
            head, _, cmd = req.partition(":")
            v2 = "v2" in head.split(",")
            if v2 and not shell.shell_v2:
                _fail(sock, "unknown service: shell,v2")      # what an Android 6 adbd says
                return
            _okay(sock)
            endless = shell.endless(cmd)
            if endless is not None:
                _print_until_closed(sock, endless, v2, crlf=not shell.shell_v2)
            # each command's output goes as it ends, as a phone's shell streams it
            _out, _err, code = shell.run_in_order(
                cmd, partial(_stream, sock, v2, not shell.shell_v2))
            if v2:
                sock.sendall(b"\x03" + struct.pack("<I", 1) + bytes([code & 0xFF]))
            return
        if req.startswith("exec:"):
            _okay(sock)
            out, _err, _code = shell.run(req[5:])
            sock.sendall(out)
            return
        if req == "sync:":
            _okay(sock)
            self._sync(sock, shell)
            return
        _fail(sock, f"unknown service: {req.split(':')[0]}")

    def _sync(self, sock: socket.socket, shell: AndroidShell) -> None:
        while True:
            cmd = _read_exact(sock, 4)
            size = struct.unpack("<I", _read_exact(sock, 4))[0]
            arg = _read_exact(sock, size).decode("utf-8", "replace")
            if cmd == b"QUIT":
                return
            if cmd in (b"STAT", b"STA2", b"LST2"):
                sock.sendall(cmd + _stat(cmd, shell.files.get(arg), arg, shell.mtime))
            elif cmd == b"LIST":
                sock.sendall(b"DONE" + b"\0" * 16)
            elif cmd == b"RECV":
                data = shell.files.get(arg)
                if data is None:
                    msg = b"No such file or directory"
                    sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                    continue
                for i in range(0, len(data), 65536):
                    chunk = data[i:i + 65536]
                    sock.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
                sock.sendall(b"DONE" + struct.pack("<I", 0))
            elif cmd == b"SEND":
                path = arg.rsplit(",", 1)[0]
                buf = b""
                while True:
                    kind = _read_exact(sock, 4)
                    n = struct.unpack("<I", _read_exact(sock, 4))[0]
                    if kind == b"DONE":
                        break
                    buf += _read_exact(sock, n)
                shell.files[path] = buf
                sock.sendall(b"OKAY" + struct.pack("<I", 0))
            else:
                msg = f"unknown sync command {cmd!r}".encode()
                sock.sendall(b"FAIL" + struct.pack("<I", len(msg)) + msg)
                return


def _stat(cmd: bytes, data: bytes | None, path: str, mtime: int) -> bytes:
    """The answer to a sync ``STAT`` (mode, size, mtime) or ``STA2``/``LST2`` (adb's
    sync_stat_v2: error, dev, ino, mode, nlink, uid, gid, size, atime, mtime, ctime) of a file
    holding ``data`` (None: none there; ``/`` and a ``.../tmp`` are folders). Debian's adb
    pulls with STA2: a mode of 0 was a "special file" it skipped."""
    mode = 0o100644 if data is not None else (0o40755 if path.endswith("/tmp") or path == "/"
                                              else 0)
    size, when = len(data or b""), mtime if mode else 0
    if cmd == b"STAT":
        return struct.pack("<III", mode, size, when)
    if not mode:
        return struct.pack("<I", 2) + b"\0" * 64        # ENOENT
    return struct.pack("<IQQIIIIQqqq", 0, 0, 0, mode, 1, 2000, 2000, size, when, when, when)


class AdbServer(socketserver.ThreadingTCPServer):
    """Threaded TCP server on 127.0.0.1:``port`` answering for ``shells``."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, shells: list[AndroidShell], port: int = 0) -> None:
        self.shells = shells
        super().__init__(("127.0.0.1", port), _Handler)
        self.port = self.server_address[1]
        self._thread: threading.Thread | None = None
        self._open: set[socket.socket] = set()      # connections being answered
        self._open_lock = threading.Lock()
        self.connections = 0        # taken since it started (an adb client opens one a command)
        self.stopping = False       # stop() began: a request it cuts off ends quietly
        self.said_closed = False    # a request found the screens' browser gone: said once

    def start(self) -> None:
        self._thread = threading.Thread(target=self.serve_forever, name="adb-sim", daemon=True)
        self._thread.start()

    def finish_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
            self.connections += 1
        try:
            super().finish_request(request, client_address)
        finally:
            with self._open_lock:
                self._open.discard(request)

    def stop(self) -> None:
        """Stop answering; the connections in progress close too, as when an adb server's
        process ends (`adb kill-server`): a client in a long shell command sees it at once."""
        self.stopping = True
        self.shutdown()
        self.server_close()
        with self._open_lock:
            conns = list(self._open)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:     # (closed already)
                pass

