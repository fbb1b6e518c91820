"""iOS findings of a tester on `farm sim` (`farm.devices.ios`, `farm.devices.phone_edges`)."""

from __future__ import annotations

import pytest

from farm.devices.ios import wda_phone_key


@pytest.mark.parametrize("spelling", [
    "http://127.1:58367", "http://127.3.4.5:58367", "http://[::1]:58367",
    "http://127.0.0.1:58367/", "http://LOCALHOST:58367", "http://0.0.0.0:58367",
    "http://[::ffff:127.0.0.1]:58367", "HTTP://Localhost:58367//"])
def test_every_spelling_of_this_machine_claims_one_iphone(spelling):
    assert wda_phone_key(spelling) == wda_phone_key("http://127.0.0.1:58367")


def test_other_hosts_and_ports_are_other_iphones():
    keys = {wda_phone_key(u) for u in ("http://127.0.0.1:58367", "http://127.0.0.1:58368",
                                       "http://10.0.0.5:58367", "http://abc:58367")}
    assert len(keys) == 4


# -- an app the phone does not have, a key iOS does not press --------------------------------
from types import SimpleNamespace  # noqa: E402

from farm.devices.android import AndroidDevice  # noqa: E402
from farm.devices.ios import IosDevice  # noqa: E402
from farm.devices.phone_edges import not_installed  # noqa: E402
from farm.errors import StepFailed  # noqa: E402


def test_a_missing_app_names_what_names_it_and_the_nearest_installed_one():
    said = str(not_installed("com.farm.demo.shpo", "a1", False, "monkey: no activities",
                             ("com.android.chrome", "com.farm.demo.shop"), " (lists)"))
    assert said == ("com.farm.demo.shpo is not installed on a1 (monkey: no activities) (did "
                    "you mean com.farm.demo.shop?); check this launch step's app id (lists)")
    said = str(not_installed("com.nope.app", "a1", True, installed=("com.farm.demo.shop",)))
    assert said == "com.nope.app is not installed on a1; check the case's launch: value"


class _Session:
    def app_state(self, bundle: str) -> SimpleNamespace:
        return SimpleNamespace(value=0)         # WDA knows no such app


def _iphone() -> IosDevice:
    dev = IosDevice("i1", None, "http://127.0.0.1:1")
    dev._client, dev._session, dev._size = object(), _Session(), (200, 400)
    return dev


@pytest.mark.parametrize("starting, where", [(True, "the case's launch: value"),
                                             (False, "this launch step's app id")])
def test_an_iphone_s_missing_app_names_the_case_s_launch_or_the_step(starting, where):
    with pytest.raises(StepFailed, match=f"^com.nope.app is not installed on i1; check {where}"
                                         r" \(`ideviceinstaller -l`"):
        _iphone()._check_installed("com.nope.app", starting=starting)


def test_an_android_phone_s_missing_app_says_the_nearest_package(monkeypatch):
    dev = AndroidDevice.__new__(AndroidDevice)
    dev.name = "a1"
    answers = {"pm path 'com.farm.demo.shpo'": "", "pm path com.farm.demo.shpo": "",
               "pm list packages": "package:com.android.chrome\npackage:com.farm.demo.shop\n"}
    monkeypatch.setattr(dev, "_run", lambda cmd, **kw: (answers[cmd], "", 0), raising=False)
    with pytest.raises(StepFailed) as failed:
        dev._check_installed("com.farm.demo.shpo", "pm clear: Failed", starting=True)
    assert str(failed.value) == (
        "com.farm.demo.shpo is not installed on a1 (pm clear: Failed) (did you mean "
        "com.farm.demo.shop?); check the case's launch: value (adb shell pm list packages "
        "lists the installed ones)")


def test_a_key_ios_does_not_press_lists_back_with_the_others():
    with pytest.raises(StepFailed) as failed:
        _iphone().press("Escape")
    assert str(failed.value).endswith("volumedown, and back (the swipe from the screen's left "
                                      "edge)")
    assert "enter" in str(failed.value)
