"""The load's warnings of a secret its steps hold, or of a short one: `.env`
`SHOP_PASSWORD=芝麻开门` with a step `assertText: 芝麻开门` said "take it out of secrets: (or
the secrets dir)" — it was in neither, a secret by its name; and `SHOP_PASSWORD=芝麻开门开门`
(6 characters, 12 as masking counts them) was called short while it is masked as any long
secret is."""

from __future__ import annotations

from farm.suite.vars import Variables, secret_warnings


def test_a_secret_by_its_name_is_told_to_rename_it_sui50():
    v = Variables({"SHOP_PASSWORD": "芝麻开门"})
    (said,) = secret_warnings(v, {"a.yaml:7": "芝麻开门"})
    assert "also stands in 1 step text of this suite (a.yaml:7)" in said
    assert "take it out of secrets" not in said
    assert "its name ends in 'PASSWORD'" in said and "rename the variable" in said
    assert "芝麻" not in said


def test_a_declared_secret_is_still_told_to_leave_secrets_sui50():
    v = Variables({"SHOP_PASSWORD": "芝麻开门"}, ["SHOP_PASSWORD"])
    (said,) = secret_warnings(v, {"a.yaml:7": "芝麻开门"})
    assert "take it out of secrets: (or the secrets dir)" in said
    assert "rename" not in said


def test_a_wide_secret_of_8_or_more_as_masking_counts_is_not_called_short_sui50():
    assert secret_warnings(Variables({"SHOP_PASSWORD": "芝麻开门开门"}),
                           {"a.yaml:3": "${SHOP_PASSWORD}"}) == []
    assert secret_warnings(Variables({"SHOP_CODE": "芝麻开门开门"}, ["SHOP_CODE"]),
                           {"a.yaml:3": "${SHOP_CODE}"}) == []


def test_a_short_wide_secret_says_how_masking_counts_it_sui50():
    (said,) = secret_warnings(Variables({"SHOP_CODE": "芝麻开"}, ["SHOP_CODE"]),
                              {"a.yaml:3": "${SHOP_CODE}"})
    assert said.startswith("secret ${SHOP_CODE}'s value has 3 characters (6 as masking "
                           "counts them: a Chinese, Japanese or Korean character counts as 2)")
