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


def test_an_empty_answer_to_typed_text_does_not_show_the_text():
    """facebook-wda's WDAEmptyResponseError holds the request's body: an iPhone whose WDA
    answered `/wda/keys` with nothing was lost "('POST', '…/wda/keys', {'value': ['Z', 'q',
    '9', ' ', 's', …]})": a password typed key by key, one character at a time, which no mask
    finds (results.json, the report, the console)."""
    from wda.exceptions import WDAEmptyResponseError

    url = "http://127.0.0.1:8100"
    phone = IosDevice("iphone-2", None, url)
    phone._client = object()            # (open: `_call` maps what the call raised)

    def keys() -> None:
        raise WDAEmptyResponseError("POST", f"{url}/session/AB12/wda/keys",
                                    {"value": list("Zq9 sec%ret")})

    with pytest.raises(DeviceLost) as lost:
        phone._call(keys, "type", session=False)
    assert str(lost.value) == ("iphone-2 lost (type): WebDriverAgent answered POST "
                               "/session/AB12/wda/keys with nothing (it may have crashed) "
                               "(WebDriverAgent at http://127.0.0.1:8100)")
    assert lost.value.__cause__ is None and lost.value.__suppress_context__
