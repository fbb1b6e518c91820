"""The simulated phones' browser error page names the host, as a phone's browser does, never
the URL's user:password@: `launch: http://admin:${PW}@host/` on a site that did not answer put
the password on the screen in clear, in every report image after it and in the screenshots a
model is sent (the text mask cannot reach pixels)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.integration

URL = "http://admin:hunter2pass@127.0.0.1:9/private?token=abc123XYZ"


def shown_text(tree) -> str:
    return "\n".join(n.text or n.name for n in tree.nodes)


def test_android_browser_error_names_the_host_alone():
    from farm.devices.android import AndroidDevice
    from farm.devices.sim import AndroidSimulator

    with AndroidSimulator(1) as sim:
        phone = AndroidDevice("a1", None, sim.serials[0], port=sim.port)
        phone.open()
        try:
            phone.open_url(URL)
            said = shown_text(phone.hierarchy())
        finally:
            phone.close()
    assert "This site can’t be reached" in said and "127.0.0.1" in said, said
    assert "hunter2pass" not in said and "abc123XYZ" not in said, said


def test_ios_browser_error_names_the_host_alone():
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator

    with IosSimulator(1) as sim:
        phone = IosDevice("i1", None, sim.urls[0])
        phone.open()
        try:
            phone.open_url(URL)
            said = shown_text(phone.hierarchy())
        finally:
            phone.close()
    assert "This site can’t be reached" in said and "127.0.0.1" in said, said
    assert "hunter2pass" not in said and "abc123XYZ" not in said, said
