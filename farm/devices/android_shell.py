"""A suite's own shell command on a phone (runAdbShell): run under the step's whole timeout
and kept as the tail of what it printed.

adbutils reads a command's output whole, and its timeout is a socket's, between two reads: a
command that prints without end (a busy phone's plain ``logcat``, ``top``, ``yes``) was read
until the case's timeout, when the watchdog stopped the phone (the phone's loss, retried
elsewhere), and farm's memory grew by hundreds of MB a second. Here the read ends at the
step's timeout, whatever the command prints (without one, once it is silent for as long as a
command may be, or at the case's end), and only the last `READ_KEEP` bytes of each stream are
held; closing the connection ends the command on the phone (adbd hangs up its shell).
"""

from __future__ import annotations

import socket
import time
from contextlib import contextmanager
from typing import Any, Iterator

from farm.devices.base import OUTPUT_KEEP_CHARS, kept_tail

# bytes of each stream held while a command runs: OUTPUT_KEEP_CHARS characters of UTF-8 at most
READ_KEEP = 4 * OUTPUT_KEEP_CHARS
EXIT_MARK = b"X4EXIT:"        # an older phone's exit status, echoed after the command (adbutils')


class PastDeadline(Exception):
    """The command was still running at its deadline (``silent``: it had printed nothing for
    the time a command may be silent); ``printed``: bytes it wrote."""

    def __init__(self, printed: int, silent: bool) -> None:
        super().__init__(f"still running ({printed} bytes printed)")
        self.printed, self.silent = printed, silent
        self.said = ""          # the tail of what it printed by then (stdout, then stderr)


class ShellCut(Exception):
    """An older phone's shell ended before its exit status came (the phone went away)."""


class Tail:
    """The last ``keep`` bytes of a stream, and how many came in all."""

    def __init__(self, keep: int = READ_KEEP) -> None:
        self.keep, self.data, self.total = keep, bytearray(), 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.data += chunk
        if len(self.data) > 2 * self.keep:
            del self.data[:-self.keep]

    def text(self, crlf: bool = False) -> str:
        """What the step keeps of it (`kept_tail`), bytes cut as they came counted too."""
        data = bytes(self.data[-self.keep:])
        text = data.decode("utf-8", "replace")
        text = text.replace("\r\n", "\n") if crlf else text
        return kept_tail(text, before=self.total - len(data))


class _Clock:
    """When a command must end: ``within`` seconds in all (a step's timeout), and ``silent``
    seconds between two reads (one with no timeout: it may print for as long as it runs)."""

    def __init__(self, within: float | None, silent: float) -> None:
        self.end = time.monotonic() + within if within is not None else float("inf")
        self.silent = silent

    def wait(self) -> tuple[float, bool]:
        """How long the next read may wait, and whether that is the silence's limit."""
        left = self.end - time.monotonic()
        return (self.silent, True) if self.silent < left else (left, False)


def run_bounded(dev: Any, cmd: str, within_s: float | None, silent_s: float | None,
                v2: bool) -> tuple[str, str, int]:
    """(stdout, stderr, exit code) of ``cmd`` on adbutils device ``dev``, over shell_v2 or an
    older phone's one stream (``v2`` False: stderr in stdout, the exit status echoed after
    it). PastDeadline once ``within_s`` has passed, or when it printed nothing for
    ``silent_s`` (None: no such limit), whichever comes first; ShellCut when an older phone's
    shell ends early; adbutils' and the socket's own errors as they come (the caller maps
    them)."""
    clock = _Clock(within_s, silent_s if silent_s is not None else float("inf"))
    limits = [t for t in (within_s, silent_s) if t is not None]
    with _answered(clock):
        conn = dev.open_transport(timeout=min(limits) if limits else None)
    out, err = Tail(), Tail()
    try:
        return _run(conn, cmd, v2, out, err, clock)
    except PastDeadline as late:
        late.said = (out.text(crlf=not v2) + err.text()).strip()
        raise
    finally:
        conn.close()


def _run(conn: Any, cmd: str, v2: bool, out: Tail, err: Tail,
         clock: _Clock) -> tuple[str, str, int]:
    """`run_bounded` on the open transport ``conn``."""
    if v2:
        conn.send_command("shell,v2:" + cmd)
        with _answered(clock):
            conn.check_okay()
        code = _frames(conn.conn, out, err, clock)
        return out.text(), err.text(), code
    conn.send_command(f"shell:{cmd}; echo {EXIT_MARK.decode()}$?")
    with _answered(clock):
        conn.check_okay()
    while _read(conn.conn, 4096, clock, out, err, exact=False):
        pass
    return _with_status(out)


@contextmanager
def _answered(clock: _Clock) -> Iterator[None]:
    """The adb server's first answers (the transport, its OKAY), waited for within the
    command's limits as its output is: none by then is the command's PastDeadline (the step's
    failure), not adbutils' AdbTimeout, which read as a phone that stopped answering (a short
    step timeout, the case's last 0.1 s, is no sign of that)."""
    from adbutils.errors import AdbTimeout
    try:
        yield
    except (AdbTimeout, TimeoutError):
        raise PastDeadline(0, clock.wait()[1]) from None


def _frames(sock: socket.socket, out: Tail, err: Tail, clock: _Clock) -> int:
    """shell_v2's frames (kind, length, data) until the exit status frame."""
    while True:
        header = _read(sock, 5, clock, out, err)
        kind, length = header[0], int.from_bytes(header[1:5], "little")
        data = _read(sock, length, clock, out, err) if length else b""
        if kind == 1:
            out.add(data)
        elif kind == 2:
            err.add(data)
        elif kind == 3:
            return data[0] if data else 255


def _read(sock: socket.socket, n: int, clock: _Clock, out: Tail, err: Tail,
          exact: bool = True) -> bytes:
    """``n`` bytes (any up to ``n`` when not ``exact``: b"" at the end), waiting as long as
    ``clock`` allows. An older phone's stream goes to ``out`` as it comes."""
    got = b""
    while len(got) < n:
        wait, silence = clock.wait()
        if wait <= 0:
            raise PastDeadline(out.total + err.total, silence)
        sock.settimeout(wait)
        try:
            chunk = sock.recv(n - len(got))
        except socket.timeout:
            raise PastDeadline(out.total + err.total, silence) from None
        if not exact:
            out.add(chunk)
            return chunk
        if not chunk:
            raise EOFError(f"Expected {n} bytes, got {len(got)}")
        got += chunk
    return got


def _with_status(out: Tail) -> tuple[str, str, int]:
    """An older phone's output and the exit status echoed at its end."""
    at = out.data.rfind(EXIT_MARK)
    if at < 0:
        raise ShellCut()
    status = bytes(out.data[at + len(EXIT_MARK):]).strip()
    out.total -= len(out.data) - at
    del out.data[at:]
    return out.text(crlf=True), "", int(status) if status.isdigit() else 255
