"""A runAdbShell command of several lines (a YAML block) runs each line on the simulated
phone as a phone's sh does: the lines ran as one command ("echo a\\necho b" printed
"a echo b"), so a suite that worked on a phone gave other output on the simulator."""

from __future__ import annotations

import pytest

from tests.unit.test_android_shell import make


@pytest.mark.parametrize("line, out, code", [
    ("echo a\necho b\n", b"a\nb\n", 0),
    ("echo a\n\necho b && false\necho c", b"a\nb\nc\n", 0),
    ("false &&\necho no\necho yes", b"yes\n", 0),        # a line ending in && goes on
    ("true ||\n  echo no; echo end", b"end\n", 0),
    ("echo 'x\ny'", b"x\ny\n", 0),                        # a quoted line end is text
])
def test_each_line_is_a_command(line, out, code):
    sh, _ = make()
    assert sh.run(line) == (out, b"", code)
