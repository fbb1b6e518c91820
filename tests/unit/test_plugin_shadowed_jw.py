"""A device plugin's checkout folder (no __init__.py) found before the installed package
imports as an empty namespace package: the error says so and where it is, not only that the
module "defines no farm_device_kinds()"."""

from __future__ import annotations

import sys

import pytest

from farm.config import Settings
from farm.devices.specs import parse_device_specs
from farm.errors import ConfigError


@pytest.fixture
def on_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in [n for n in sys.modules if n.startswith("tvplug_jw")]:
        sys.modules.pop(name, None)


def test_a_checkout_folder_shadowing_the_plugin_is_named_as_a_namespace_package(on_path):
    (on_path / "tvplug_jw" / "tvplug_jw").mkdir(parents=True)     # checkout/package inside
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", Settings(device_plugins=["tvplug_jw"]))
    assert str(refused.value) == (
        "device plugin 'tvplug_jw' (FARM_DEVICE_PLUGINS) defines no farm_device_kinds(): "
        f"imported tvplug_jw as a namespace package from {on_path / 'tvplug_jw'} (no "
        "__init__.py): a checkout folder shadowing the installed package? (run farm from "
        "another folder)")


def test_a_module_without_the_function_says_which_file_was_imported(on_path):
    (on_path / "tvplug_jw2.py").write_text("KINDS = {}\n")
    with pytest.raises(ConfigError) as refused:
        parse_device_specs("tv:1", Settings(device_plugins=["tvplug_jw2"]))
    assert str(refused.value).endswith(f"(imported from {on_path / 'tvplug_jw2.py'})")
