"""What a phone step keeps of a long answer (`farm.devices.base.kept_tail`)."""

from __future__ import annotations

from farm.devices.base import kept_tail


def test_a_short_answer_is_kept_as_it_is():
    assert kept_tail("a\nb\n", keep=4) == "a\nb\n"


def test_a_long_one_keeps_whole_last_lines_and_says_how_much_was_cut():
    text = "".join(f"line {i}\n" for i in range(1000))     # 8,890 characters
    kept = kept_tail(text, keep=20)
    assert kept == "[farm: 8,872 characters of 8,890 cut; the last 18 kept]\nline 998\nline 999\n"


def test_one_huge_line_is_cut_inside_it():
    assert kept_tail("y" * 100 + "z", keep=5) == \
        "[farm: 96 characters of 101 cut; the last 5 kept]\nyyyyz"
