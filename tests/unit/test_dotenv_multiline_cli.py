""".env read as Midscene's CLI reads it (npm dotenv 16): a quoted value may span lines (a PEM
key, a certificate), and ``NAME: value`` is a line too. farm read the file line by line, so
``KEY="-----BEGIN…`` gave ``"-----BEGIN…`` (its opening quote and first line only) without a
word, and the case typed or compared the wrong text."""

from __future__ import annotations

from pathlib import Path

from farm.suite.dotenv import read_dotenv

PEM = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\nkqhkiG9w0BAQE=\n-----END PRIVATE KEY-----"


def _read(tmp_path: Path, text: str) -> dict[str, str]:
    (tmp_path / ".env").write_text(text, encoding="utf-8", newline="")
    return read_dotenv(tmp_path / ".env")


def test_a_double_quoted_value_spans_lines(tmp_path):
    values = _read(tmp_path, f'KEY="{PEM}"\nNEXT=1\n')
    assert values == {"KEY": PEM, "NEXT": "1"}


def test_single_and_back_quoted_values_span_lines_and_crlf_is_a_newline(tmp_path):
    values = _read(tmp_path, "A='one\r\ntwo' # note\r\nB=`x\r\ny`\r\nC=3\r\n")
    assert values == {"A": "one\ntwo", "B": "x\ny", "C": "3"}


def test_the_colon_form_and_what_single_lines_gave_before(tmp_path):
    values = _read(tmp_path, "# c\nexport E1=one\nE2=\"two\\nlines\"  # c\nE3=a#b\n"
                             "E4: four\nE5=\nbad line\nF.G=1\nH=\"unclosed\nI=2\n")
    assert values == {"E1": "one", "E2": "two\nlines", "E3": "a", "E4": "four", "E5": "",
                      "H": '"unclosed', "I": "2"}
