"""Which environment variables farm takes for credentials without being told (their values
masked in every output): DB_PASS, SMTP_PWD, FTP_PASSWD, GCP_CREDENTIALS and a bare PASSWORD
or TOKEN were printed in clear, as only ..._KEY/_TOKEN/_SECRET/_PASSWORD counted. The shell's
PWD (the working directory) is not one: masking it would hide every path."""

from __future__ import annotations

import pytest

from farm.config import environment_secrets, is_credential

VALUE = "s3cret-value-42"


@pytest.mark.parametrize("name", ["DEMO_PASSWORD", "PASSWORD", "TOKEN", "GITHUB_TOKEN",
                                  "APP_SECRET", "OPENAI_API_KEY", "DB_PASS", "SMTP_PWD",
                                  "FTP_PASSWD", "GCP_CREDENTIALS", "aws_credential",
                                  "db_pass"])
def test_credential_names(name):
    assert is_credential(name, VALUE)
    assert environment_secrets({name: VALUE + "\n"}) == [VALUE]


@pytest.mark.parametrize("name", ["PWD", "OLDPWD", "PASS", "KEY", "COMPASS", "BYPASS",
                                  "KEYBOARD_LAYOUT", "PASSPORT_NO", "TOKENS_PER_RUN",
                                  "SORT_KEYS"])
def test_not_credential_names(name):
    assert not is_credential(name, VALUE)
    assert environment_secrets({name: VALUE}) == []


def test_a_short_value_is_a_flag_not_a_secret():
    assert not is_credential("DB_PASS", "1")
