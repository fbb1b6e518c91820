"""`input text` as Android reads it: what farm sends for any ASCII line types exactly that
line (``%s`` is Android's space; a literal ``%`` must reach the phone as ``%``)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from farm.devices.android import input_text_words
from farm.devices.sim.androidshell import input_text

LINE = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126))


def test_android_reads_percent_s_as_a_space_and_keeps_any_other_percent():
    assert input_text("100%%soff%s&%smore") == "100% off & more"
    assert input_text("5%") + input_text("sale") == "5%sale"
    assert input_text("%%%s%") == "%% %"


def test_what_farm_sends_is_typed_as_written():
    words = input_text_words("100% off & more, 5%s too")
    assert "".join(input_text(w) for w in words) == "100% off & more, 5%s too"
    assert all(" " not in w for w in words)          # one shell word each, spaces as %s


@given(LINE)
def test_any_ascii_line_lands_exactly(line):
    assert "".join(input_text(w) for w in input_text_words(line)) == line
