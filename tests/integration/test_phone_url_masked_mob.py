"""A phone case's URL no app opens is named as the web names a URL: with its token and
password as ***. `launch: myapp://login?token=…` failed "no app on android-sim-1 opens
myapp://login?token=abc123XYZ" (and iOS quoted WebDriverAgent's message with it too) on the
console, in results.json, the report and JUnit, where a web case's shows `token=***`."""

from __future__ import annotations

import pytest

from farm.errors import StepFailed

pytestmark = pytest.mark.integration

DEEP_LINK = "myapp://login?token=abc123XYZ&user=demo"


def test_android_names_the_url_masked():
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            with pytest.raises(StepFailed) as failed:
                phone.open_url(DEEP_LINK)
        finally:
            phone.close()
    assert str(failed.value) == ("no app on a1 opens myapp://login?token=***&user=demo (am "
                                 "start: unable to resolve the VIEW intent)")


def test_ios_names_the_url_masked():
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator

    with IosSimulator(1) as sim:
        phone = IosDevice("i1", None, sim.urls[0])
        phone.open()
        try:
            with pytest.raises(StepFailed) as failed:
                phone.open_url(DEEP_LINK)
        finally:
            phone.close()
    said = str(failed.value)
    assert said.startswith("i1 cannot open myapp://login?token=***&user=demo: "), said
    assert "abc123XYZ" not in said and "token=***" in said.split(": ", 1)[1], said
