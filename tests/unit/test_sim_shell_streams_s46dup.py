"""The simulated phone's shell streams each command's output as it ends, in order, and a
nested ``sh -c`` (its ``exit`` ending only that shell) streams too: an `adb shell` line on the
simulator shows what a phone's would, and the exit status is the line's last command's."""

from __future__ import annotations

from tests.unit.test_sim_rm_h2 import shell as _shell    # (its fake screen)


def test_a_line_streams_each_commands_output_in_order_and_returns_its_status():
    sh = _shell()
    seen: list[tuple[bytes, bytes]] = []
    line = "echo a; cat /nope; sh -c 'echo b; exit 3; echo x'; echo $?; false"
    out, err, code = sh.run_in_order(line, lambda o, e: seen.append((o, e)))
    assert seen == [(b"a\n", b""),
                    (b"", b"cat: /nope: No such file or directory\n"),
                    (b"b\n", b""), (b"3\n", b"")]
    assert (out, err, code) == (b"a\nb\n3\n", b"cat: /nope: No such file or directory\n", 1)
    assert sh.run(line) == (out, err, code)


def test_a_syntax_error_is_status_2_with_its_message():
    sh = _shell()
    out, err, code = sh.run("echo 'unterminated")
    assert (out, code) == (b"", 2) and err.startswith(b"/system/bin/sh: syntax error")
