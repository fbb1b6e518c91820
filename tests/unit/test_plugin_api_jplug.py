"""A device plugin says which contract it is written for (``FARM_DEVICE_API``): a farm that
does not speak that version refuses it, saying so; a plugin whose device class lacks a
method is refused by `farm devices` too, not only once `farm run` builds a device."""

from __future__ import annotations

import importlib
import sys
import uuid

import pytest

from farm.config import Settings
from farm.devices.specs import DEVICE_API, plugin_kinds
from farm.errors import ConfigError
from tests.support.farm_cli import run_main

TV = '''
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

{api}


class TvDevice(FakeDevice):
    def __init__(self, name, settings, index):
        super().__init__(name=name, platform="android")

{drop}

def farm_device_kinds():
    return {{"tv": DeviceKind("android", TvDevice)}}
'''


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """plugin(api=..., drop=...) -> the name of a new importable plugin module."""
    where = tmp_path / "plugins"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    made: list[str] = []

    def write(api: str = "", drop: str = "") -> str:
        name = f"tvplug_{uuid.uuid4().hex[:8]}"
        (where / f"{name}.py").write_text(TV.format(api=api, drop=drop))
        importlib.invalidate_caches()
        made.append(name)
        return name

    yield write
    for name in made:
        sys.modules.pop(name, None)


def kinds(module: str) -> dict:
    return plugin_kinds(Settings(device_plugins=[module]))


def test_a_plugin_written_for_this_api_or_saying_none_is_taken(plugin):
    assert set(kinds(plugin(api=f"FARM_DEVICE_API = {DEVICE_API}"))) == {"tv"}
    assert set(kinds(plugin())) == {"tv"}


def test_a_plugin_written_for_a_newer_api_is_refused_saying_both_versions(plugin):
    module = plugin(api=f"FARM_DEVICE_API = {DEVICE_API + 1}")
    with pytest.raises(ConfigError) as refused:
        kinds(module)
    assert str(refused.value) == (
        f"device plugin {module!r} (FARM_DEVICE_PLUGINS) is written for device API "
        f"{DEVICE_API + 1} (FARM_DEVICE_API = {DEVICE_API + 1}); this farm speaks device API "
        f"{DEVICE_API}: upgrade farm, or use a release of the plugin written for device API "
        f"{DEVICE_API}")


def test_an_api_that_is_no_number_is_refused(plugin):
    with pytest.raises(ConfigError, match=r"its FARM_DEVICE_API is str '1': expected the "
                                          r"number of the device API it is written for"):
        kinds(plugin(api='FARM_DEVICE_API = "1"'))


def test_farm_devices_says_a_device_class_lacks_a_method(plugin, monkeypatch, capsys):
    module = plugin(drop="    swipe = None\n")
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    code, out, err = run_main(monkeypatch, capsys, "devices")
    assert code == 4
    assert (f"device plugin {module!r} (FARM_DEVICE_PLUGINS): kind 'tv' has build=class "
            "TvDevice, which has no swipe(): a device has every method of "
            "farm.devices.base.Device") in out + err
    assert "Traceback" not in out + err


def test_a_validation_error_as_the_plugin_loads_names_its_field_on_one_line(plugin):
    module = plugin(api="from farm.devices.base import Rect\nHOME = Rect(0, 0, 'wide', 9)")
    with pytest.raises(ConfigError) as refused:
        kinds(module)
    said = str(refused.value)
    assert "\n" not in said
    assert ("importing it failed: ValidationError: Rect.width: Input should be a valid "
            "integer, unable to parse string as an integer (got str) (at ") in said
