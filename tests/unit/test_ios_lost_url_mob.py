"""An iPhone that does not answer is named with its WebDriverAgent URL: with several in
FARM_IOS_WDA_URLS, `lost: iphone-2 (could not start: iphone-2 lost (status): Connection
refused)` did not say which endpoint iphone-2 was (results.json, the report and farm.log
name no URL)."""

from __future__ import annotations

import pytest

from farm.devices.ios import IosDevice
from farm.errors import DeviceLost


def test_a_wda_that_does_not_answer_is_named_by_its_url():
    with pytest.raises(DeviceLost) as lost:
        IosDevice("iphone-2", None, "http://127.0.0.1:1").open()
    said = str(lost.value)
    assert said.startswith("iphone-2 lost (status): ") and "Connection refused" in said, said
    assert said.endswith("(WebDriverAgent at http://127.0.0.1:1)"), said
