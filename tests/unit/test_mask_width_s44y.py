"""A secret is masked in any width farm's text matching takes as the same (NFKC): a Chinese
page shows "密码：芝麻开门123" as "密码:芝麻开门123" or with full-width digits."""

from farm.suite.vars import Variables

CHINESE = Variables({"LOGIN_PASS": "密码：芝麻开门123"}, ["LOGIN_PASS"])


def test_half_width_punctuation_and_full_width_digits_are_masked():
    assert CHINESE.mask("echo: 密码:芝麻开门123 | 密码：芝麻开门１２３") == "echo: *** | ***"


def test_any_mix_of_widths_is_masked_in_a_json_text():
    assert CHINESE.mask('{"v": "密码:芝麻开门１2３"}') == '{"v": "***"}'


def test_a_full_width_spelling_of_an_ascii_secret_is_masked():
    ascii_secret = Variables({"TOKEN": "hunter2-pass"}, ["TOKEN"])
    assert ascii_secret.mask("ｈｕｎｔｅｒ２－ｐａｓｓ / hunter2－pass") == "*** / ***"


def test_a_secret_written_full_width_is_masked_when_shown_half_width():
    full = Variables({"PIN": "ＡＢＣＤ１２３４"}, ["PIN"])
    assert full.mask("pin ABCD1234.") == "pin ***."


def test_a_width_spelling_cut_short_keeps_its_ellipsis():
    assert CHINESE.mask("密码:芝麻开…") == "***…"


def test_a_short_credential_typed_full_width_is_masked_whole():
    short = Variables({"DB_PASSWORD": "ab12"})
    assert short.mask("ａｂ１２") == "***"


def test_other_text_in_other_widths_is_left_alone():
    assert CHINESE.mask("密码：芝麻开门124 ＡＢＣ") == "密码：芝麻开门124 ＡＢＣ"
