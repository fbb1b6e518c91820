"""A plugin author's journey (a smart-TV plugin): a call that hangs through kill(), a UI tree
whose node is its own parent, sys.exit() in the SDK, a screenshot that is no image, a syntax
error in the module and a device without XPath each end as the device's error naming the
plugin, the method and the place, and the run goes on."""

from __future__ import annotations

import importlib
import io
import json
import logging
import sys
import uuid
from pathlib import Path

import pytest
from PIL import Image

from farm.config import Settings
from farm.devices.base import PluginDevice, Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import plugin_kinds
from farm.errors import ConfigError, DeviceError, StepFailed
from farm.results import ArtifactStore
from tests.support.farm_cli import run_main

# start_session hangs and its kill() does nothing: only the test's end releases it
HANGING_TV = '''
import threading

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

RELEASE = threading.Event()


class TvDevice(FakeDevice):
    def __init__(self, name, settings, index):
        super().__init__(UITree(source="tv", nodes=[UINode(id=0, text="Home",
                         rect=Rect(x=0, y=0, width=100, height=50))]),
                         name=name, platform="android")

    def start_session(self, target):
        RELEASE.wait()

    def kill(self):
        pass


def farm_device_kinds():
    return {"tv": DeviceKind("android", TvDevice)}
'''

CASE = """name: home
android:
  launch: com.acme.tv
tasks:
  - name: look
    flow:
      - assertText: Home
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """plugin(source) -> the name of a new importable module holding ``source``."""
    where = tmp_path / "plugins"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    made: list[str] = []

    def write(source: str) -> str:
        name = f"tvplug_{uuid.uuid4().hex[:8]}"
        (where / f"{name}.py").write_text(source)
        importlib.invalidate_caches()
        made.append(name)
        return name

    yield write
    for name in made:
        module = sys.modules.pop(name, None)
        if module is not None and hasattr(module, "RELEASE"):
            module.RELEASE.set()         # the thread farm gave up on ends with the test


def wrapped(device: FakeDevice) -> PluginDevice:
    return PluginDevice.around(device, "device plugin 'tvplug'", 300.0)


def test_a_call_that_goes_on_after_kill_is_given_up_and_the_run_ends(
        plugin, monkeypatch, capsys, tmp_path):
    """start_session() sleeping through kill() hung `farm run --timeout 5` for good."""
    module = plugin(HANGING_TV)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "home.yaml").write_text(CASE)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", module)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_WATCHDOG_GRACE_SECONDS", "0.2")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "tv:1",
                              "--timeout", "1", "--no-progress", "--report-dir", "r")
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert code == 3, out + err
    [case] = results["cases"]
    assert case["status"] == "error"
    assert case["error"]["message"].startswith("case timed out after 1s")
    assert (f"tv-1: start_session() of device plugin {module!r} did not return within 0.2s "
            "of kill(): farm gave up on it") in case["error"]["message"]
    assert list(results["lost"]) == ["tv-1"]


def test_a_tree_whose_node_is_its_own_parent_is_the_devices_error():
    """UITree.ancestors looped for ever, growing memory."""
    home = UINode(id=0, rect=Rect(x=0, y=0, width=9, height=9))
    own = UINode(id=1, parent=1, text="Netflix", rect=Rect(x=0, y=0, width=9, height=9))
    loop = [UINode(id=2, parent=3, rect=home.rect), UINode(id=3, parent=2, rect=home.rect)]
    tree = UITree(source="tv", nodes=[home, own, *loop])
    assert tree.ancestors(own) == [] and [n.id for n in tree.ancestors(loop[0])] == [3]
    with pytest.raises(DeviceError) as broke:
        wrapped(FakeDevice(tree, name="tv-1", platform="android")).hierarchy()
    assert str(broke.value).startswith("tv-1: hierarchy() of device plugin 'tvplug' returned "
                                       "a tree with a parent cycle at node 1")
    fine = UITree(source="tv", nodes=[home, UINode(id=1, parent=0, rect=home.rect)])
    assert wrapped(FakeDevice(fine, name="tv-1", platform="android")).hierarchy() is fine


def test_sys_exit_in_a_plugin_is_a_device_error_not_an_interrupt():
    """sys.exit() in the TV SDK ended a local run INTERRUPTED, exit 2, and on a worker as a
    Celery traceback per attempt."""
    tv = FakeDevice(name="tv-1", platform="android",
                    errors={"tap": SystemExit("TV SDK fatal: lost pairing")})
    with pytest.raises(DeviceError) as broke:
        wrapped(tv).tap(1, 2)
    assert str(broke.value).startswith("tv-1: tap() of device plugin 'tvplug' raised "
                                       "SystemExit: TV SDK fatal: lost pairing (at ")
    assert "farm/devices/fake.py:" in str(broke.value)
    stop = FakeDevice(name="tv-1", platform="android", errors={"tap": KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        wrapped(stop).tap(1, 2)


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8)).save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("shot, said", [
    (b"not a png", "(9 bytes, not a PNG or JPEG)"),
    (b"\x89PNG\r\n\x1a\n" + b"\0" * 50, "(58 bytes: a PNG signature, but no PNG header that "
                                        "decodes)"),
])
def test_a_screenshot_that_is_no_image_says_what_came_back(shot, said):
    """A truncated PNG passed, and the run's end said '(cannot identify image file
    <_io.BytesIO object at 0x…>)' naming no plugin."""
    class Tv(FakeDevice):
        def screenshot(self):
            return shot

    with pytest.raises(DeviceError) as broke:
        wrapped(Tv(name="tv-1", platform="android")).screenshot()
    assert str(broke.value).startswith("tv-1: screenshot() of device plugin 'tvplug' returned")
    assert str(broke.value).endswith(said)
    good = _png()

    class Good(FakeDevice):
        def screenshot(self):
            return good

    assert wrapped(Good(name="tv-1", platform="android")).screenshot() == good


def test_an_image_that_cannot_be_written_is_said_without_an_object_repr(tmp_path, capsys):
    store = ArtifactStore(tmp_path)
    store.store(store.path_for("s/a", 1, "step1"), b"\x89PNG\r\n\x1a\n" + b"\0" * 50)
    store.flush()
    err = capsys.readouterr().err
    assert "farm: warning: 1 screenshot(s) not written under" in err, err
    assert "object at 0x" not in err
    assert "the device's screenshot is not an image Pillow can read" in err


def test_a_syntax_error_in_a_plugin_is_located_in_the_plugin(plugin, monkeypatch, tmp_path):
    """It was located in farm's own devices/specs.py."""
    module = plugin("from farm.devices.specs import DeviceKind\ndef farm_device_kinds(:\n"
                    "    return {}\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError) as bad:
        plugin_kinds(Settings(device_plugins=[module]))
    assert str(bad.value).endswith(f"importing it failed: SyntaxError: invalid syntax (at "
                                   f"plugins/{module}.py:2)")


def test_a_device_without_xpath_is_asked_once_and_logs_no_traceback(caplog):
    """query_xpath() raising NotImplementedError was called at every locate, three tracebacks
    in farm.log per case."""
    tv = FakeDevice(name="tv-1", platform="android",
                    errors={"query_xpath": NotImplementedError("no XPath on TV")})
    asked = []
    plain = tv.query_xpath
    tv.query_xpath = lambda xpath: asked.append(xpath) or plain(xpath)
    device = wrapped(tv)
    caplog.set_level(logging.INFO, logger="farm")
    for _ in range(3):
        with pytest.raises(StepFailed) as cannot:
            device.query_xpath("//button")
    assert str(cannot.value).startswith("tv-1 (FakeDevice) cannot query_xpath: query_xpath() "
                                        "of device plugin 'tvplug' raised NotImplementedError: "
                                        "no XPath on TV (at ")
    assert asked == ["//button"]
    assert not [r for r in caplog.records if r.exc_info]
