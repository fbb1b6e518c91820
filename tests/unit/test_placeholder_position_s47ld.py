"""An error about a placeholder (an undefined ``${count}``, a malformed ``${G``) inside a value
written over several lines -- a ``|`` or ``>`` block (``aiAssert: |``, ``assertText: |``), a
quoted or plain value folded across lines -- is said at the placeholder's own line and column,
not at the block's ``|`` several lines above it."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from farm.suite.vars import PLACEHOLDER
from farm.suite.yamlpos import compose_text

CASE = """\
web:
  url: about:blank
tasks:
  - name: t
    flow:
      - aiAssert: |  # ${NOT_TEXT}: a comment, not the value
          the page shows
          a list of items

          and exactly ${count} of them, ${A:-x}
          ${B} too
      - assertText: >-
          folded ${C}
          line ${D}
      - aiTap: "quoted
          over ${E}"
      - aiTap: plain
          over ${F} and ${G
      - assertText: one ${H}
"""
UNDEFINED = ("undefined variable ${{{}}} (set it in the environment, a .env file in the "
             "working directory, vars:, or a secrets dir)")
MALFORMED = ("malformed placeholder '${G': expected ${NAME} or ${NAME:-default} "
             "(write $${ for a literal ${)")
EXPECTED = [f"s/case.yaml:10:23: {UNDEFINED.format('count')}",
            f"s/case.yaml:11:11: {UNDEFINED.format('B')}",
            f"s/case.yaml:13:18: {UNDEFINED.format('C')}",
            f"s/case.yaml:14:16: {UNDEFINED.format('D')}",
            f"s/case.yaml:16:16: {UNDEFINED.format('E')}",
            f"s/case.yaml:18:16: {UNDEFINED.format('F')}",
            f"s/case.yaml:18:25: {MALFORMED}",
            f"s/case.yaml:19:25: {UNDEFINED.format('H')}"]   # one line: at its ${


def errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> list[str]:
    monkeypatch.chdir(tmp_path)          # messages name s/case.yaml; no stray .env is read
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "case.yaml").write_bytes(text.encode())
    with pytest.raises(SuiteErrors) as raised:
        load_suites(["s/case.yaml"], env={})
    return sorted((str(e) for e in raised.value.errors),
                  key=lambda s: tuple(int(n) for n in s.split(":")[1:3]))


def test_a_placeholder_in_a_block_is_said_at_its_own_line_and_column(tmp_path, monkeypatch):
    assert errors(tmp_path, monkeypatch, CASE) == EXPECTED


def test_windows_line_ends_give_the_same_places(tmp_path, monkeypatch):
    assert errors(tmp_path, monkeypatch, CASE.replace("\n", "\r\n")) == EXPECTED


def test_a_place_that_cannot_be_matched_up_is_where_the_value_starts():
    """(a double-quoted ``\\x24{X}`` is ``${X}`` in the value, but not as written)"""
    root, said = compose_text('a: "one\n  \\x24{X} ${Y}"\nb: |\n  ${Z}\n', "f.yaml")
    assert not said
    quoted, block = root.value["a"], root.value["b"]
    assert quoted.place(PLACEHOLDER, quoted.text.index("${Y}")) == (1, 4)
    assert block.place(PLACEHOLDER, 0) == (4, 3)


@pytest.mark.parametrize("eol", ["\r", "\u2028", "\x85"])
def test_a_syntax_error_in_a_file_of_other_line_breaks_is_said(eol):
    """libyaml counts CR (old Mac), U+2028 and NEL as line breaks: the hint for the row it
    blames read a row past the end of the file (an internal error instead of the message)."""
    text = eol.join(["web:", "  url: about:blank", "tasks:", "  - assertText: Total: 5", ""])
    root, said = compose_text(text, "f.yaml")
    assert root is None and [str(e) for e in said] == [
        "f.yaml:4:22: invalid YAML: mapping values are not allowed in this context; a value "
        "holding ': ' must be quoted: assertText: \"Total: 5\""]
