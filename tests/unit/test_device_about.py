"""What a phone is, as results, the report and `farm devices` say it: from getprop (Android) and
WebDriverAgent's /status and /wda/device/info (iOS), as real devices answer them."""

from __future__ import annotations

import pytest

from farm.devices.android import android_about
from farm.devices.ios import ios_about


@pytest.mark.parametrize("out, about", [
    ("samsung\nSM-G991B\n14\n34\n", "samsung SM-G991B, Android 14 (API 34)"),
    ("Google\nPixel 7\n15\n35\n", "Google Pixel 7, Android 15 (API 35)"),
    ("Xiaomi\nXiaomi 13\n13\n33\n", "Xiaomi 13, Android 13 (API 33)"),     # no "Xiaomi Xiaomi"
    ("unknown\r\nAndroid SDK built for x86\r\n7.1.1\r\n25\r\n",              # old adb: CRLF
     "unknown Android SDK built for x86, Android 7.1.1 (API 25)"),
    ("Google\nPixel\n\n\n", "Google Pixel"),                                  # props unset
    ("", ""),
])
def test_android_about_reads_getprop_as_phones_answer_it(out, about):
    assert android_about(out) == about


@pytest.mark.parametrize("status, info, about", [
    ({"os": {"name": "iOS", "version": "17.4", "sdkVersion": "17.4"}, "ready": True},
     {"name": "QA iPhone 12", "model": "iPhone", "isSimulator": False},
     "QA iPhone 12 (iPhone), iOS 17.4"),
    ({"os": {"name": "iPadOS", "version": "16.6"}}, {"model": "iPad"}, "iPad, iPadOS 16.6"),
    ({"os": {"version": "16.0"}}, {}, "iOS 16.0"),                  # an older WDA: no info
    ({}, {"name": "iPhone", "model": "iPhone"}, "iPhone"),
    ({}, {}, ""),
])
def test_ios_about_reads_wda_status_and_device_info(status, info, about):
    assert ios_about(status, info) == about
