"""`adb shell 'echo "x'` on the simulator printed nothing where a phone's shell prints its
syntax error: the error was returned but never streamed (a phone's `adb shell` shows what the
stream carries). It is streamed as any command's stderr."""

from __future__ import annotations

from tests.unit.test_sim_rm_h2 import shell as _shell    # (its fake screen)


def test_a_syntax_error_is_streamed_as_the_shells_stderr():
    seen: list[tuple[bytes, bytes]] = []
    out, err, code = _shell().run_in_order('echo "x', lambda o, e: seen.append((o, e)))
    assert code == 2 and out == b""
    assert seen == [(b"", err)] and err.startswith(b"/system/bin/sh: syntax error")
