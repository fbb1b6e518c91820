"""The locate cache is keyed by the device kind too, where a device plugin's kind is not the
browser's: the demo run with ``--devices fake:1`` (a plugin web device) replayed the entries
browser runs had stored and failed 11 steps with "an earlier run found it here (… in the
locate cache) and nothing on screen is like it now". farm's own kinds keep their keys (a
browser's entries stay valid; android-sim shares android's: the same app), a plugin kind's
are its own (``web:fake``)."""

from __future__ import annotations

from pathlib import Path

from farm.cache.keys import Namespace, cache_platform, split_key
from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import PluginDevice, Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.loader import load_case_file

MISPLACED = {"type": "locate", "xpaths": ["//button[@id='gone']"], "rect": [900, 700, 40, 20],
             "screen": [1280, 800], "element": {"role": "button", "shown": ["log in"]},
             "tier": "text"}


def _page(name: str = "fake-1") -> FakeDevice:
    nodes = [UINode(id=0, role="button", rect=Rect(x=240, y=80, width=52, height=21),
                    clickable=True, text="Log in")]
    return FakeDevice(UITree(source="dom", nodes=nodes, page_text="Log in"), name=name,
                      xpaths={"//button[normalize-space(.)='Log in']":
                              [Rect(x=240, y=80, width=52, height=21)]})


def _plugin(name: str = "fake-1", kind: str = "fake") -> PluginDevice:
    return PluginDevice.around(_page(name), "device plugin 'tests.support.devices'", 300.0,
                               kind=kind)


def _run(tmp_path: Path, device, store: MemoryStore):
    case_file = tmp_path / "s" / "c.yaml"
    case_file.parent.mkdir(exist_ok=True)
    case_file.write_text("name: c\nweb:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
                         "    flow:\n      - aiTap: Log in\n")
    case = load_case_file(case_file, env={})
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path / "out"), env={}, cache=store)
    return run_case(Job(case.id, "web", 1), case, device, services)


def _seeded() -> tuple[MemoryStore, str]:
    """A store holding a browser run's entry for the step, which the fake page does not have."""
    store = MemoryStore()
    key = Namespace("s/c", "web").key("locate", "Log in", 0)
    store.put(key, MISPLACED)
    return store, key


def test_a_plugin_device_does_not_replay_what_a_browser_found(tmp_path):
    store, _ = _seeded()
    result = _run(tmp_path, _plugin(), store)
    assert result.status == "passed", result.error
    kinds = {split_key(k)["platform"] for k, _ in store.items()}
    assert kinds == {"web", "web:fake"}


def test_farm_s_own_devices_keep_their_keys(tmp_path):
    """A browser (here farm's own FakeDevice) reads the entries it always did: the seeded one
    is replayed, and found wanting, as before."""
    store, key = _seeded()
    result = _run(tmp_path, _page("browser-1"), store)
    assert "in the locate cache" in str(result.error) or store.get(key) != MISPLACED
    assert {split_key(k)["platform"] for k, _ in store.items()} == {"web"}


def test_the_kind_is_the_one_the_device_was_built_as():
    assert cache_platform("web", _page("browser-1")) == "web"
    assert cache_platform("android", FakeDevice(name="emulator-5554",
                                                platform="android")) == "android"
    assert cache_platform("web", _plugin("fake-2")) == "web:fake"
    assert cache_platform("web", _plugin("my-tv-12@host-3", "my-tv")) == "web:my-tv"
    assert cache_platform("web", None) == "web"


def test_a_device_farm_builds_from_a_plugin_carries_its_kind(monkeypatch):
    from farm.config import Settings
    from farm.devices.specs import build_device
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    device = build_device("fake", "fake-1", Settings(device_plugins="tests.support.devices"))
    assert cache_platform("web", device) == "web:fake"
