"""A runWdaRequest with a parameter missing or of the wrong kind is refused by the simulated
WebDriverAgent as WDA refuses it ("invalid argument"), so the step's failure says what is
wrong: a missing "y" read "unknown command (Unhandled endpoint: y)", a bad number WDA's own
"unknown error", and an unknown button was taken as pressed."""

from __future__ import annotations

import pytest

from farm.devices.ios import IosDevice
from farm.devices.sim import IosSimulator
from farm.errors import StepFailed
from farm.suite.model import IosTarget


@pytest.fixture(scope="module")
def phone():
    with IosSimulator(1, {"com.x": "about:blank"}) as sim:
        device = IosDevice("i1", None, sim.urls[0])
        device.open()
        device.start_session(IosTarget(launch="com.x"))
        yield device
        device.close()


@pytest.mark.parametrize("endpoint, data, said", [
    ("/wda/tap", {"x": 10}, "invalid argument (/wda/tap: a parameter is missing or not of "
                            "its kind (KeyError: 'y'))"),
    ("/wda/tap", {"x": "ten", "y": 1}, "invalid argument (/wda/tap: a parameter is missing "
                                       "or not of its kind (ValueError: "),
    ("/wda/pressButton", {"name": "mute"}, "invalid argument (The button 'mute' is unknown "
                                           "to this device)"),
])
def test_a_bad_parameter_is_an_invalid_argument(phone, endpoint, data, said):
    with pytest.raises(StepFailed) as failed:
        phone.wda_request("POST", "/session/{sessionId}" + endpoint, data)
    assert said in str(failed.value), failed.value
    assert phone.wda_request("POST", "/session/{sessionId}/wda/pressButton",
                             {"name": "volumeUp"}) is None
