"""What a security audit of farm's masking found, as the mask and `farm config show` now
treat it (the runs themselves: tests/integration/test_secret_audit_s43s.py)."""

from __future__ import annotations

import pytest

from farm.config import mask_url
from farm.suite.vars import Variables, secret_warnings
from tests.support.farm_cli import run_main

PW = "Hunter2-Secret!"


def masked(secret: str, text: str) -> str:
    return Variables({"S": secret}, ["S"]).mask(text)


@pytest.mark.parametrize("text, shown", [
    ("Preview: Hunter2- / line x", "Preview: *** / line x"),    # a maxlength=8 field's value
    ("Hunter2-", "***"),                                        # the field read back
    ('{"pin": "Hunter2-Se"}', '{"pin": "***"}'),
    ("Hunter2-Secret!", "***"),
])
def test_the_start_of_a_secret_a_page_kept_is_masked(text: str, shown: str) -> None:
    assert masked(PW, text) == shown


@pytest.mark.parametrize("secret, text", [
    (PW, "xHunter2- y"),                                # inside a word: another word
    (PW, "Hunter2 only"),                               # 7 characters: fewer than 8
    ("Password-91x!", "Your Password is"),              # a start of letters alone: a label
    ("correct horse battery staple", "the correct horse battery"),   # words of a passphrase
    ("https://hooks.example.com/T0/abc", "posted to https://hooks.example.com/ now"),
])
def test_a_start_that_is_ordinary_text_is_left_alone(secret: str, text: str) -> None:
    assert masked(secret, text) == text


@pytest.mark.parametrize("shown", [
    "correct\u00a0horse\u00a0\u00a0battery\u00a0staple",     # &nbsp; as the page has it
    "correct&nbsp;horse&nbsp;battery&nbsp;staple",             # ... as its HTML
    "correct\nhorse\nbattery\nstaple",                          # a <pre>, one word a line
    "correct \t horse  battery staple",
    "correct%C2%A0horse%20battery+staple",
])
def test_a_passphrase_is_masked_whatever_whitespace_separates_its_words(shown: str) -> None:
    assert masked("correct horse  battery staple", f"[{shown}]") == "[***]"


def test_a_passphrase_is_a_secret_by_its_name() -> None:
    v = Variables({"LOGIN_PASSPHRASE": "correct horse battery staple"})
    assert v.mask("Phrase: correct\u00a0horse battery\nstaple.") == "Phrase: ***."


def test_a_passphrase_is_not_masked_where_its_words_are_joined() -> None:
    assert masked("correct horse battery staple", "correcthorse battery staple") \
        == "correcthorse battery staple"


def test_a_secret_percent_encoded_twice_is_masked() -> None:
    # next=/login?pw=Hunter2-Secret! carried in another URL's query
    assert masked(PW, "?next=%2Flogin%3Fpw%3DHunter2-Secret%2521") == "?next=%2Flogin%3Fpw%3D***"


def test_a_short_credential_is_masked_only_where_a_text_is_it_alone() -> None:
    v = Variables({"DB_PASSWORD": "Sh0rt!7", "SKIP_PASS": "true", "API_KEY": "abc"})
    assert v.mask("Sh0rt!7") == v.mask(" Sh0rt!7\n") == "***"     # typed, read back
    assert v.mask("Your password is Sh0rt!7") == "Your password is Sh0rt!7"
    assert v.mask("true") == "true" and v.mask("abc") == "abc"     # a flag, 3 characters


def test_the_load_warns_of_a_short_credential_and_of_secrets_its_steps_hold() -> None:
    v = Variables({"DB_PASSWORD": "Sh0rt!7", "PIN": "2026", "LABEL": "username",
                   "CODE": "Zq-19c", "OTHER_PASS": "abcd"}, ["PIN", "LABEL", "CODE"])
    said = secret_warnings(v, {"a.yaml:3": "${DB_PASSWORD}",
                               "a.yaml:5": "Released in 2026 edition",
                               "b.yaml:9": "Enter your Username", "b.yaml:12": "username"})
    assert said == [
        "${DB_PASSWORD} is not masked: its name marks a credential, but its value has 7 "
        "characters (a value of fewer than 8 is masked only where a text is that value "
        "alone; a field it is typed into is drawn as discs): name it under secrets: to mask "
        "it everywhere",
        "secret ${CODE}'s value has 6 characters: wherever a page, a message or a result "
        "holds the same characters (a year, a word), they are masked as *** too",
        "secret ${LABEL}'s value also stands in 2 step texts of this suite (b.yaml:9, "
        "b.yaml:12): those are masked too (***); if it is no secret, take it out of "
        "secrets: (or the secrets dir)",
        "secret ${PIN}'s value also stands in 1 step text of this suite (a.yaml:5): those "
        "are masked too (***); if it is no secret, take it out of secrets: (or the secrets "
        "dir)",
        "secret ${PIN}'s value has 4 characters: wherever a page, a message or a result "
        "holds the same characters (a year, a word), they are masked as *** too",
    ]
    assert not any(value in line for line in said
                   for value in ("Sh0rt!7", "2026", "username", "Zq-19c"))


def test_farm_config_show_hides_every_query_value_of_a_url_setting(monkeypatch, capsys):
    url = "https://gw.example.com/v1?code=AzureFnKey12345&x=1#frag=AzureFnKey12345"
    monkeypatch.setenv("FARM_MODEL_BASE_URL", url)
    code, out, err = run_main(monkeypatch, capsys, "config", "show")
    assert code == 0, err
    assert "https://gw.example.com/v1?code=***&x=***#frag=***" in out
    assert "AzureFnKey12345" not in out + err


def test_a_model_url_in_a_message_hides_azure_s_code_and_keeps_other_values() -> None:
    assert mask_url("https://gw.example.com/v1?code=k1&country_code=US&page=2") \
        == "https://gw.example.com/v1?code=***&country_code=US&page=2"
