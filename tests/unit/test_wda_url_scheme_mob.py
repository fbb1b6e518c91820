"""A WebDriverAgent URL without its http:// (FARM_IOS_WDA_URLS=127.0.0.1:8100, as iproxy
prints it) is refused before any device starts, saying what to write: the run ended with
exit 3 and `could not start: Invalid URL: '127.0.0.1:8100'`, and `farm devices` said `not
answering: unknown scheme:`."""

from __future__ import annotations

import pytest

from farm.config import Settings
from farm.devices.ios import unreachable_why
from farm.devices.specs import attach_targets
from farm.errors import ConfigError


@pytest.mark.parametrize("url, words", [
    ("127.0.0.1:8100", "127.0.0.1:8100: no scheme: write http://127.0.0.1:8100"),
    ("ws://10.0.0.2:8100", "speaks http, https, http+usbmux, not ws"),
])
def test_a_wda_url_farm_cannot_reach_is_a_configuration_error(url, words):
    # (Settings refuses these itself now: a Settings built around that check still is)
    settings = Settings.model_construct(ios_wda_urls=["http://127.0.0.1:8100", url])
    with pytest.raises(ConfigError) as refused:
        attach_targets("ios", 1, settings)
    assert str(refused.value).startswith("FARM_IOS_WDA_URLS: ") and words in str(refused.value)


def test_farm_devices_says_the_scheme_is_missing():
    said = unreachable_why("127.0.0.1:8100", ValueError("unknown scheme: "))
    assert said.startswith("no scheme: write http://127.0.0.1:8100"), said
    assert attach_targets("ios", 1, Settings(ios_wda_urls=["http+usbmux://abc:8100"])) == \
        ["http+usbmux://abc:8100"]
