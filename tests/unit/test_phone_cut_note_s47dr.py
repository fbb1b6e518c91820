"""`farm.devices.android.cut_note`: the note of a value a phone's field kept only a start of."""

from __future__ import annotations

from farm.devices.android import cut_note


def dump(text: str, password: str = "false") -> str:
    return ("<hierarchy><node class='android.widget.EditText' focused='true' "
            f"password='{password}' text='{text}' bounds='[0,0][10,10]' /></hierarchy>")


def test_a_field_holding_a_start_of_the_value_is_noted() -> None:
    assert cut_note(dump("1234"), "123456", '"123456"') == (
        'the EditText kept 4 of the 6 characters of "123456" typed into it (a maxlength, '
        "most likely)")


def test_a_whole_value_another_one_or_an_unreadable_field_is_not() -> None:
    assert cut_note(dump("123456"), "123456", "x") is None
    assert cut_note(dump("(123) 456"), "123456", "x") is None      # formatted, not cut
    assert cut_note(dump(""), "123456", "x") is None
    assert cut_note(dump("1234", password="true"), "123456", "x") is None
    assert cut_note(None, "123456", "x") is None
