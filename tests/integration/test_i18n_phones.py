"""A Chinese app on the simulated phones, through adbutils and facebook-wda as on real ones:
a stray control character in the app's text keeps the UI tree readable, Chinese and emoji are
typed (ADBKeyBoard on Android, WDA's /value on iOS), and a phone without ADBKeyBoard fails the
case that types Chinese, without the phone being counted broken."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from farm.devices.sim.androidshell import GBOARD, IME
from farm.errors import StepFailed
from tests.support.farm_cli import FarmCli, by_name, results

pytestmark = pytest.mark.integration

PKG = "com.farm.zh.shop"
PAGE = """<!doctype html><html lang="zh-CN"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>农场</title></head>
<body><h1>欢迎来到农场商店</h1><label for="u">用户名</label>
<input id="u" placeholder="请输入用户名"><p id="ctl"></p>
<script>document.getElementById('ctl').textContent = '控制\\u0001字符\\u001b[31m红';</script>
</body></html>"""
TEXT = "张三，你好。👍🏽家👨‍👩‍👧"


@pytest.fixture(scope="module")
def app_url(tmp_path_factory) -> Iterator[str]:
    from farm.appserver import AppServer
    from farm.suite.model import AppSpec
    app = tmp_path_factory.mktemp("zh-app")
    (app / "index.html").write_text(PAGE, encoding="utf-8")
    with AppServer() as served:
        served.serve([AppSpec(name="zh", serve=app)])
        yield served.urls[app.resolve()] + "/"


@pytest.fixture(scope="module")
def android(app_url):
    from farm.devices.sim import AndroidSimulator
    with AndroidSimulator(2, {PKG: app_url}) as sim:
        yield sim


def _phone(android: Any, index: int) -> Any:
    from farm.devices.android import AndroidDevice
    from farm.suite.model import AndroidTarget
    phone = AndroidDevice(f"a{index}", None, android.serials[index], port=android.port)
    phone.open()
    phone.start_session(AndroidTarget(launch=PKG))
    return phone


def _field(device: Any) -> Any:
    return next(n for n in device.hierarchy().nodes if n.editable)


def test_android_reads_the_chinese_screen_and_types_chinese_and_emoji(android):
    phone = _phone(android, 0)
    try:
        texts = [n.text for n in phone.hierarchy().nodes]
        assert "欢迎来到农场商店" in texts and "控制.字符.[31m红" in texts   # as uiautomator writes it
        phone.tap(*_field(phone).rect.center)
        phone.check_text_focus()
        phone.type_text(TEXT)
        assert _field(phone).text == TEXT
    finally:
        phone.close()


def test_android_without_adbkeyboard_fails_the_step_naming_what_to_install(android):
    phone = _phone(android, 1)
    try:
        assert GBOARD in phone.shell(f"ime set {GBOARD}")
        phone.tap(*_field(phone).rect.center)
        with pytest.raises(StepFailed, match="cannot type non-ASCII text on a1: .*ADBKeyBoard"):
            phone.type_text("张三")
        phone.type_text("zhang san")               # ASCII still goes through `input text`
        assert _field(phone).text == "zhang san"
    finally:
        phone.shell(f"ime set {IME}")
        phone.close()


def test_a_fleet_without_adbkeyboard_fails_chinese_cases_and_is_not_quarantined(
        android, tmp_path):
    """Each such case was an infrastructure error: retried on the other phone, both phones
    quarantined after three, the remaining cases never run ("no usable android device")."""
    suite = tmp_path / "套件"
    suite.mkdir()
    for i in range(1, 5):
        value = "zhang" if i == 4 else f"张三{i}"
        (suite / f"输入{i}.yaml").write_text(
            f"name: 输入 {i}\nandroid:\n  launch: {PKG}\ntasks:\n  - name: 输入\n    flow:\n"
            f"      - aiInput: 请输入用户名\n        value: {value}\n", encoding="utf-8")
    cli = FarmCli(tmp_path)
    try:
        for serial in android.serials:
            _adb_shell(android, serial, f"ime set {GBOARD}")
        done = cli.run("run", suite, "--devices", "android:2", "--report-dir", tmp_path / "run",
                       ANDROID_ADB_SERVER_PORT=str(android.port))
    finally:
        for serial in android.serials:
            _adb_shell(android, serial, f"ime set {IME}")
        cli.close()
    summary = results(tmp_path / "run")
    cases = by_name(summary)
    assert done.returncode == 1, done.stdout + done.stderr
    assert [cases[f"输入{i}"]["status"] for i in range(1, 5)] == ["failed"] * 3 + ["passed"]
    assert "install ADBKeyBoard" in cases["输入1"]["error"]["message"]
    assert not summary.get("quarantined")


def _adb_shell(android: Any, serial: str, command: str) -> str:
    import adbutils
    client = adbutils.AdbClient(host="127.0.0.1", port=android.port)
    return client.device(serial).shell(command)


def test_ios_reads_the_chinese_screen_and_fills_chinese_and_emoji(app_url):
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    from farm.suite.model import IosTarget
    with IosSimulator(1, {PKG: app_url}) as sim:
        phone = IosDevice("i1", None, sim.urls[0])
        phone.open()
        try:
            phone.start_session(IosTarget(launch=PKG))
            names = [n.text or n.name for n in phone.hierarchy().nodes]
            assert "欢迎来到农场商店" in names and "控制字符[31m红" in names  # WDA drops them
            phone.tap(*_field(phone).rect.center)
            assert phone.fill(TEXT)
            assert _field(phone).text == TEXT
        finally:
            phone.close()

