"""The simulated phone's shell reads a line as a phone's sh does, so a test of how farm quotes
what it types means something: unquoted ``$(...)``, backticks and ``$NAME`` are expanded (a
command substitution runs), ``&`` and a ``|`` into any command run another command, ``~`` and
globs expand, ``(`` is a syntax error, ``<`` reads a file, a ``#`` starts a comment only at a
word's start; within single quotes nothing is, within double quotes ``$`` and backticks only.
It took all of them as plain text: ``input text "$(touch /tmp/pwned)"`` typed the text."""

from __future__ import annotations

import threading

import pytest

from farm.devices.sim.androidshell import AndroidShell, input_text
from farm.devices.sim.screen import Faults


class _Screen:
    dpr, app = 1.0, None

    def __init__(self) -> None:
        self.faults, self.lock, self.typed = Faults(), threading.Lock(), []

    def type(self, text: str) -> None:
        self.typed.append(text)


@pytest.fixture
def sh() -> AndroidShell:
    return AndroidShell("emulator-5554", _Screen(), dict, 1080, 2400)  # type: ignore[arg-type]


def out(sh: AndroidShell, line: str) -> str:
    return sh.run(line)[0].decode()


@pytest.mark.parametrize("line", ["touch /tmp/pwned", "echo $(touch /tmp/pwned)",
                                  "echo `touch /tmp/pwned`", 'echo "$(touch /tmp/pwned)"',
                                  "echo a&touch /tmp/pwned", "echo a|touch /tmp/pwned",
                                  "echo a;touch /tmp/pwned", "echo a\ntouch /tmp/pwned"])
def test_a_command_anywhere_sh_runs_one_is_run(sh, line):
    sh.run(line)
    assert "/tmp/pwned" in sh.files


@pytest.mark.parametrize("line", ["echo '$(touch /tmp/pwned)'", "echo '`touch /tmp/pwned`'",
                                  "echo \"\\$(touch /tmp/pwned)\"", "echo \\`touch /tmp/pwned\\`",
                                  "echo 'a;touch /tmp/pwned' 'a&touch /tmp/pwned'",
                                  "echo 'a'\\''|touch /tmp/pwned'", "echo a #; touch /tmp/pwned"])
def test_a_quoted_or_escaped_command_is_text(sh, line):
    sh.run(line)
    assert "/tmp/pwned" not in sh.files


def test_expansions_as_sh_makes_them(sh):
    assert out(sh, "echo $(echo a   b)x \"$(echo '  c')\"") == "a bx   c\n"
    assert out(sh, "echo $HOME ${UNSET}- ~ a~ \"$HOME\" '$HOME'") == "/ - / a~ / $HOME\n"
    assert out(sh, "echo a#b '#'c \"#\" #d") == "a#b #c #\n"
    assert out(sh, "echo \\$HOME \"\\$HOME\" \"it's\"") == "$HOME $HOME it's\n"
    assert out(sh, "echo b* '*' \\*") == "bin bugreports * *\n"        # (a phone's / )
    assert out(sh, "echo nomatch*") == "nomatch*\n"
    assert out(sh, "false; echo $? \"$?\" '$?'") == "1 1 $?\n"


def test_what_sh_refuses_is_refused(sh):
    assert sh.run("echo a(b")[1:] == (b"/system/bin/sh: syntax error: '(' unexpected\n", 2)
    said, code = sh.run("echo a<b")[1:]
    assert code == 1 and b"can't open b" in said


def test_input_text_types_its_quoted_argument_as_written(sh):
    text = "; & | $(id) `id` $HOME ( ) < > ' \" \\ * ? ~ # %"
    sh.run("input text " + "'" + text.replace("'", "'\\''") + "'")
    assert sh.screen.typed == [input_text(text)]
    sh.run('input text "$(echo hi)"')           # what double quotes would have done
    assert sh.screen.typed[-1] == "hi"
