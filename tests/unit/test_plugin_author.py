"""A device plugin as its author writes it from the README: every mistake the author makes is
said naming the plugin module, the kind or method, and what was expected; a configuration
mistake is a `farm: error:` line (exit 4, no traceback) before any device starts; a plugin
device that breaks is the device's fault (retried on another device, quarantined), not "an
internal error" of farm's.

Each test writes its plugin module into tmp_path and names it in FARM_DEVICE_PLUGINS."""

from __future__ import annotations

import importlib
import json
import sys
import threading
import uuid
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.base import Device, PluginDevice, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import build_device, parse_device_specs
from farm.errors import ConfigError, DeviceError, DeviceLost, StepFailed
from tests.support.farm_cli import run_main

# A working smart-TV plugin (platform android: cases with `android:` run on it). FAULT picks a
# staged mistake of the device class, FAILING the devices that make it.
TV = '''
import threading

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

FAULT = ""
FAILING = ("tv-1", "tv-2")
THIRD = threading.Event()       # set at the third failed session: the others may go on
FAILED = []


class TvDevice(FakeDevice):
    def __init__(self, name, settings, index):
        home = UITree(source="tv", nodes=[UINode(id=0, role="button", text="Play",
                                                 rect=Rect(x=100, y=100, width=150, height=60),
                                                 clickable=True)])
        playing = UITree(source="tv", nodes=[], page_text="Now playing")
        super().__init__(name=name, platform="android", size=(960, 540),
                         screens={"home": home, "playing": playing},
                         transitions={"Play": "playing"})

    def start_session(self, target):
        if FAULT == "session" and self.name in FAILING:
            FAILED.append(self.name)
            if len(FAILED) >= 3:
                THIRD.set()
            raise RuntimeError("the TV's app store says no")
        if FAULT == "session":      # (whichever device is faster, tv-1 gets three cases)
            THIRD.wait(60)
        super().start_session(target)

    def hierarchy(self):
        if FAULT == "tree" and self.name in FAILING:
            return {"nodes": []}
        return super().hierarchy()

    def tap(self, x, y):
        if FAULT == "no-tap" and self.name in FAILING:
            raise NotImplementedError("this TV has no pointer")
        super().tap(x, y)


def farm_device_kinds():
    return {"tv": DeviceKind("android", TvDevice)}
'''

CASE = """name: play {n}
android:
  launch: com.acme.tv
tasks:
  - name: play
    flow:
      - aiTap: Play
      - assertText: Now playing
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """plugin(source) -> the name of a new importable module holding ``source``."""
    where = tmp_path / "plugins"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    made: list[str] = []

    def write(source: str) -> str:
        name = f"tvplugin_{uuid.uuid4().hex[:8]}"
        (where / f"{name}.py").write_text(source)
        importlib.invalidate_caches()
        made.append(name)
        return name

    yield write
    for name in made:
        sys.modules.pop(name, None)


def settings_for(*modules: str) -> Settings:
    return Settings(device_plugins=list(modules))


# ---- the plugin module -----------------------------------------------------------------------
KIND = "from farm.devices.specs import DeviceKind\nfrom farm.devices.fake import FakeDevice\n"


@pytest.mark.parametrize("source, said", [
    ("import acme_tv_sdk_not_installed\n",
     "importing it failed: No module named 'acme_tv_sdk_not_installed' (at "),
    ("KINDS = {}\n", "defines no farm_device_kinds(): a device plugin module defines "
                     "farm_device_kinds() returning {kind: farm.devices.specs.DeviceKind("),
    (KIND + "farm_device_kinds = {'tv': DeviceKind('android', FakeDevice)}\n",
     "its farm_device_kinds is a dict, not a function"),
    ("def farm_device_kinds():\n    raise RuntimeError('TV_HOST is not set')\n",
     "farm_device_kinds() raised RuntimeError: TV_HOST is not set (at "),
    ("def farm_device_kinds():\n    return ['tv']\n", "farm_device_kinds() returned a list: "),
    (KIND + "def farm_device_kinds():\n    return {'tv': FakeDevice}\n",
     "kind 'tv' is a class FakeDevice, not a DeviceKind: "),
    (KIND + "def farm_device_kinds():\n    return {'tv': ('android', FakeDevice)}\n",
     "kind 'tv' is a tuple ('android', <class 'farm.devices.fake.FakeDevice'>), not a "
     "DeviceKind"),
    (KIND + "def farm_device_kinds():\n    return {'tv': DeviceKind('tv', FakeDevice)}\n",
     "kind 'tv' has platform 'tv': expected one of web, android, ios"),
    (KIND + "def farm_device_kinds():\n    return {'Smart TV': DeviceKind('web', FakeDevice)}\n",
     "kind 'Smart TV' cannot be written in --devices KIND:N: a kind is a lower-case word"),
    (KIND + "def farm_device_kinds():\n    return {'tv': DeviceKind('web', 'FakeDevice')}\n",
     "kind 'tv' has build=str 'FakeDevice': expected a function (name, settings, index) -> "
     "device, or the device class"),
    (KIND + "def farm_device_kinds():\n    return {'browser': DeviceKind('web', FakeDevice)}\n",
     "its kind 'browser' is one of farm's own (browser, android, android-sim, ios, ios-sim): "
     "give it another name"),
])
def test_a_broken_plugin_module_is_a_configuration_error_saying_what_was_expected(
        plugin, source, said):
    """A list from farm_device_kinds() was "internal error: AttributeError: 'str' object has
    no attribute 'platform'"; a class in place of a DeviceKind, a platform no case can name,
    a kind --devices cannot spell and a kind named 'browser' were all taken, to fail later or
    never be used."""
    module = plugin(source)
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", settings_for(module))
    assert str(refused.value).startswith(f"device plugin {module!r} (FARM_DEVICE_PLUGINS)")
    assert said in str(refused.value)


def test_a_misspelt_plugin_module_says_it_cannot_be_imported_and_why_that_may_be(plugin):
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", settings_for("tvfram"))
    assert str(refused.value) == (
        "device plugin 'tvfram' (FARM_DEVICE_PLUGINS): no module named 'tvfram' can be imported "
        "(the name is a Python module's, as in `import`: a typo? is its package installed, or "
        "its folder on PYTHONPATH?)")


def test_two_plugins_adding_one_kind_are_refused_naming_both(plugin):
    """The second plugin's 'tv' silently replaced the first's."""
    first, second = plugin(TV), plugin(TV)
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", settings_for(first, second))
    assert str(refused.value) == (
        f"device plugin {second!r} (FARM_DEVICE_PLUGINS): its kind 'tv' is also a kind of "
        f"device plugin {first!r}: give one of them another name")


def test_farm_run_says_a_plugin_mistake_in_one_line_before_any_device_starts(
        plugin, monkeypatch, capsys, tmp_path):
    module = plugin("def farm_device_kinds():\n    return ['tv']\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "play.yaml").write_text(CASE.format(n=1))
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "tv:1")
    assert code == 4, out + err
    assert err.startswith(f"farm: error: device plugin {module!r} (FARM_DEVICE_PLUGINS): "
                          "farm_device_kinds() returned a list")
    assert "Traceback" not in err and "internal error" not in err


# ---- the device class ------------------------------------------------------------------------
@pytest.mark.parametrize("build, said", [
    ("lambda name, s, i: None", "its tv build('tv-1', settings, 0) returned None, which has no "
                                "open(), close(), start_session(), "),
    ("lambda name, s, i: object()", "returned a object, which has no open(), "),
    ("lambda name, s, i: FakeDevice(name='tv', platform='android')",
     "returned a FakeDevice, whose name is 'tv': a device takes the name farm gives build() "
     "(its first argument)"),
    ("lambda name, s, i: FakeDevice(name=name, platform='web')",
     "returned a FakeDevice, whose platform is 'web': the kind's platform is 'android'"),
])
def test_a_device_that_is_not_a_device_is_refused_when_it_is_built(plugin, build, said):
    """None was "internal error: AttributeError: 'NoneType' object has no attribute 'name'"."""
    module = plugin(KIND + f"def farm_device_kinds():\n    return {{'tv': DeviceKind("
                           f"'android', {build})}}\n")
    with pytest.raises(ConfigError) as refused:
        build_device("tv", "tv-1", settings_for(module))
    assert str(refused.value).startswith(f"device plugin {module!r}: ")
    assert said in str(refused.value)


def test_a_device_class_missing_a_method_is_refused_naming_the_method(plugin):
    """A device without hierarchy() ran, and each case ended "internal error: 'TvDevice'
    object has no attribute 'hierarchy'"; without healthy() it was restarted before every
    case, and nothing said why."""
    from farm.devices.base import DEVICE_METHODS
    methods = "".join(f"    def {m}(self, *args):\n        pass\n" for m in DEVICE_METHODS
                      if m not in ("hierarchy", "healthy"))
    module = plugin("from farm.devices.specs import DeviceKind\n\n"
                    "class TvDevice:\n    platform = 'android'\n\n"
                    "    def __init__(self, name, settings, index):\n        self.name = name\n"
                    f"{methods}\n"
                    "def farm_device_kinds():\n    return {'tv': DeviceKind('android', TvDevice)}\n")
    with pytest.raises(ConfigError) as refused:
        build_device("tv", "tv-1", settings_for(module))
    assert str(refused.value) == (
        f"device plugin {module!r} (FARM_DEVICE_PLUGINS): kind 'tv' has build=class TvDevice, "
        "which has no hierarchy(), healthy(): a device has every method of "
        "farm.devices.base.Device")


def test_a_build_that_connects_and_fails_says_where_and_to_connect_in_open(plugin):
    module = plugin(KIND + "def build(name, settings, index):\n"
                           "    raise ConnectionError('no TV answers on 10.0.0.9:8080')\n\n"
                           "def farm_device_kinds():\n"
                           "    return {'tv': DeviceKind('android', build)}\n")
    with pytest.raises(ConfigError) as refused:
        build_device("tv", "tv-1", settings_for(module))
    said = str(refused.value)
    assert said.startswith(f"device plugin {module!r}: building tv device 'tv-1' failed: "
                           "ConnectionError: no TV answers on 10.0.0.9:8080 (at ")
    assert f"{module}.py:4); a DeviceKind's build only makes the device: connect in its " \
           "open()" in said


# ---- a plugin device at work -----------------------------------------------------------------
class Tv(FakeDevice):
    """A plugin device for the wrapper's tests (values returned as set)."""

    shot: object = b""
    tree: object = None
    dims: object = (960, 540)
    ok: object = True

    def screenshot(self):
        return self.shot

    def hierarchy(self):
        return self.tree

    def size(self):
        return self.dims

    def healthy(self):
        return self.ok


def wrapped(device: FakeDevice, open_timeout: float = 300.0) -> PluginDevice:
    return PluginDevice.around(device, "device plugin 'tvfarm'", open_timeout)


@pytest.mark.parametrize("field, value, call, said", [
    ("shot", None, "screenshot", "screenshot() of device plugin 'tvfarm' returned None: "
                                 "expected the PNG or JPEG bytes of the screen"),
    ("shot", "iVBORw0KGgo=", "screenshot", "returned str 'iVBORw0KGgo=': expected the PNG"),
    ("shot", b"not an image", "screenshot", "returned bytes b'not an image': expected the PNG"),
    ("tree", {"nodes": []}, "hierarchy", "hierarchy() of device plugin 'tvfarm' returned dict "
                                         "{'nodes': []}: expected a farm.devices.base.UITree, "
                                         "or None where there is no UI tree"),
    ("dims", None, "size", "size() of device plugin 'tvfarm' returned None: expected (width, "
                           "height), two positive ints"),
    ("dims", (960.5, 540), "size", "returned tuple (960.5, 540): expected (width, height)"),
    ("ok", None, "healthy", "healthy() of device plugin 'tvfarm' returned None: expected True "
                            "or False"),
])
def test_a_malformed_answer_is_a_device_error_saying_what_came_back(field, value, call, said):
    """A screenshot of None or a base64 string, a dict for a UI tree, a healthy() that forgot
    to return: they passed unseen, or ended as farm's "internal error"."""
    tv = Tv(name="tv-1", platform="android")
    setattr(tv, field, value)
    with pytest.raises(DeviceError) as broke:
        getattr(wrapped(tv), call)()
    assert str(broke.value).startswith("tv-1: ") and said in str(broke.value)


def test_good_answers_pass_through_unchanged():
    tv = Tv(name="tv-1", platform="android")
    real = FakeDevice(name="x", platform="android")
    tv.shot, tv.tree = real.screenshot(), UITree(source="tv")
    device = wrapped(tv)
    assert isinstance(device, Device)
    assert (device.screenshot(), device.hierarchy(), device.size(), device.healthy()) == (
        tv.shot, tv.tree, (960, 540), True)
    device.about = "AcmeTV 9"               # attributes are the plugin device's own
    assert (tv.about, device.name, device.platform) == ("AcmeTV 9", "tv-1", "android")
    assert type(device).__name__ == "Tv"    # "Tv on android cannot ..." names the plugin's class


def test_a_plain_exception_is_a_device_error_naming_device_method_plugin_and_line():
    tv = FakeDevice(name="tv-1", platform="android",
                    errors={"tap": RuntimeError("HTTP 500 from /tap")})
    with pytest.raises(DeviceError) as broke:
        wrapped(tv).tap(1, 2)
    assert str(broke.value).startswith("tv-1: tap() of device plugin 'tvfarm' raised "
                                       "RuntimeError: HTTP 500 from /tap (at ")
    assert "farm/devices/fake.py:" in str(broke.value)


def test_farm_errors_pass_through_and_not_implemented_is_a_step_failure():
    for error in (StepFailed("the button is disabled"), DeviceLost("gone")):
        tv = FakeDevice(name="tv-1", platform="android", errors={"tap": error})
        with pytest.raises(type(error)) as raised:
            wrapped(tv).tap(1, 2)
        assert raised.value is error
    tv = FakeDevice(name="tv-1", platform="android",
                    errors={"hover": NotImplementedError("no pointer on a TV")})
    with pytest.raises(StepFailed) as failed:
        wrapped(tv).hover(1, 2)
    assert str(failed.value).startswith("tv-1 (FakeDevice) cannot hover: hover() of device "
                                        "plugin 'tvfarm' raised NotImplementedError: no pointer")


def test_an_open_that_hangs_is_killed_after_the_kinds_open_timeout():
    """open() of a TV that never answered hung the run for ever."""
    released = threading.Event()

    class Hanging(FakeDevice):
        def open(self):
            released.wait()
            raise ConnectionError("connection aborted")

        def kill(self):
            released.set()

    with pytest.raises(DeviceLost) as lost:
        wrapped(Hanging(name="tv-1", platform="android"), open_timeout=0.05).open()
    assert str(lost.value) == ("tv-1: open() of device plugin 'tvfarm' did not finish within "
                               "0.05s (DeviceKind.open_timeout): farm killed it")


def test_a_web_plugin_without_continue_session_says_so_and_the_fake_one_has_it():
    """A shareBrowserContext batch on a web plugin kind (the tests' `fake` too) ended
    "internal error: 'StagedFakeDevice' object has no attribute 'continue_session'"."""
    class Bare(FakeDevice):
        continue_session = None

    with pytest.raises(StepFailed) as failed:
        wrapped(Bare(name="web-1")).continue_session(None)
    assert str(failed.value) == (
        "web-1 (Bare) cannot run the next file of a shareBrowserContext batch in the same "
        "browser context: it has no continue_session() (device plugin 'tvfarm')")
    fake = FakeDevice(name="web-1")
    wrapped(fake).continue_session(type("T", (), {"url": "http://x/"})())
    assert fake.actions[-1] == ("continue_session", "http://x/")


def run_tv(plugin, monkeypatch, capsys, tmp_path, fault: str, failing: str, cases: int,
           devices: str = "tv:2") -> tuple[int, str, dict]:
    module = plugin(TV.replace('FAULT = ""', f"FAULT = {fault!r}")
                    .replace('FAILING = ("tv-1", "tv-2")', f"FAILING = {failing!r}"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    for n in range(cases):
        (tmp_path / "s" / f"play{n}.yaml").write_text(CASE.format(n=n))
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", devices,
                              "--no-progress", "--report-dir", "r")
    return code, out + err, json.loads((tmp_path / "r" / "results.json").read_text())


def test_a_plugin_device_that_raises_is_retried_elsewhere_and_quarantined(
        plugin, monkeypatch, capsys, tmp_path):
    """start_session raising RuntimeError was "internal error": not retried, tv-1 kept
    taking cases and failing them."""
    code, said, results = run_tv(plugin, monkeypatch, capsys, tmp_path, "session", ("tv-1",),
                                 cases=6)
    assert code == 0, said
    assert results["quarantined"] == ["tv-1"]
    assert {c["status"] for c in results["cases"]} == {"passed"}
    assert {c["device"] for c in results["cases"]} == {"tv-2"}
    assert "internal error" not in said


def test_a_malformed_tree_ends_the_case_as_the_devices_error_not_farms(
        plugin, monkeypatch, capsys, tmp_path):
    code, said, results = run_tv(plugin, monkeypatch, capsys, tmp_path, "tree", ("tv-1",),
                                 cases=1, devices="tv:1")
    assert code == 3, said
    [case] = results["cases"]
    assert case["error"]["kind"] == "DeviceError"
    assert case["error"]["message"] == (
        f"tv-1: hierarchy() of device plugin {results_module(said)!r} returned dict "
        "{'nodes': []}: expected a farm.devices.base.UITree, or None where there is no UI tree")


def results_module(said: str) -> str:
    return said.split("device plugin '")[1].split("'")[0]


def test_an_action_the_device_cannot_do_fails_the_case_without_blaming_the_device(
        plugin, monkeypatch, capsys, tmp_path):
    code, said, results = run_tv(plugin, monkeypatch, capsys, tmp_path, "no-tap",
                                 ("tv-1", "tv-2"), cases=1)
    assert code == 1, said
    [case] = results["cases"]
    assert (case["status"], case["attempt"], results["quarantined"]) == ("failed", 1, [])
    assert "cannot tap: tap() of device plugin" in case["error"]["message"]


def test_the_working_plugin_runs_its_cases(plugin, monkeypatch, capsys, tmp_path):
    code, said, results = run_tv(plugin, monkeypatch, capsys, tmp_path, "", (), cases=2)
    assert code == 0, said
    assert [c["status"] for c in results["cases"]] == ["passed", "passed"]
    assert Path(tmp_path / "r" / "report.html").exists()


def test_a_plugin_kind_unknown_where_no_plugin_is_configured_says_where_kinds_come_from(
        plugin):
    """`farm run --broker … --devices tv:1` on a machine without FARM_DEVICE_PLUGINS (the
    workers have it) said only "unknown device kind 'tv': expected one of browser, …"."""
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", settings_for())
    assert str(refused.value) == (
        "unknown device kind 'tv': expected one of browser, android, android-sim, ios, ios-sim "
        "(a device plugin's kind needs its module in FARM_DEVICE_PLUGINS, for `farm run "
        "--broker` too)")
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tvv:1", settings_for(plugin(TV)))
    assert str(refused.value).endswith("ios, ios-sim, tv")


def test_the_line_named_is_the_plugins_own_not_the_library_it_called(plugin):
    """A JSONDecodeError from json.loads in the plugin's tap() is placed at the plugin's line
    that called it, not in Python's json/decoder.py."""
    module = plugin(TV + "\nimport json\n\nclass Broken(TvDevice):\n"
                         "    def tap(self, x, y):\n        json.loads('{not json')\n\n"
                         "def farm_device_kinds():\n"
                         "    return {'tv': DeviceKind('android', Broken)}\n")
    device = build_device("tv", "tv-1", settings_for(module))
    with pytest.raises(DeviceError) as broke:
        device.tap(1, 2)
    line = (TV + "\nimport json\n\nclass Broken(TvDevice):\n").count("\n") + 2
    assert str(broke.value).startswith(f"tv-1: tap() of device plugin {module!r} raised "
                                       "JSONDecodeError: Expecting property name")
    assert str(broke.value).endswith(f"{module}.py:{line})")


def test_farm_devices_lists_the_plugin_kinds_and_refuses_a_broken_plugin(monkeypatch, capsys):
    """`farm devices` said nothing of FARM_DEVICE_PLUGINS: a plugin's kinds were not listed,
    and a module that does not import gave exit 0."""
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    code, out, _ = run_main(monkeypatch, capsys, "devices")
    assert "fake      device plugin tests.support.devices: web cases (fake:N)" in out
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "no_such_plugin_module")
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert code == 4 and "device plugin 'no_such_plugin_module'" in err, (out, err)
