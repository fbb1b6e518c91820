"""`--devices android:emulator-5554` (a phone named where the count goes) says how to choose
phones: it said only "expected KIND[:COUNT]", leaving a QA engineer to guess that
FARM_IOS_WDA_URLS chooses them. (`android:SERIAL` now names the phones a run takes:
tests/unit/test_devices_named_serials.py.)"""

from __future__ import annotations

import pytest

from farm.devices.specs import parse_device_specs
from farm.errors import ConfigError


@pytest.mark.parametrize("spec, hint", [
    ("browser:1,ios:http://127.0.0.1:8100", "choose them with FARM_IOS_WDA_URLS="
                                           "http://127.0.0.1:8100"),
])
def test_a_phone_named_in_devices_says_how_to_choose_phones(spec, hint):
    with pytest.raises(ConfigError) as refused:
        parse_device_specs(spec)
    assert "expected KIND[:COUNT]" in str(refused.value) and hint in str(refused.value)


def test_other_bad_specs_keep_their_plain_message():
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("browser:abc")
    assert str(refused.value) == ("bad device spec 'browser:abc': expected KIND[:COUNT], e.g. "
                                  "browser:2")
