"""A device plugin from outside the repository (its own folder on PYTHONPATH), run by real
`farm run` and `farm worker` processes: a broken plugin module is one `farm: error:` line and
exit 4 in both; a plugin device that raises a plain exception is the device's fault in a
cluster run (its case retried on the other device), not farm's "internal error"."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.cluster import CLUSTER_ENV
from tests.support.farm_cli import FarmCli, by_name, results

TV = '''
import os
import time
from pathlib import Path

from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind


class TvDevice(FakeDevice):
    """A smart TV; TV_FAIL names the devices whose start_session breaks (the first to break
    writes TV_SIGNAL, which the others wait for: so the broken one gets a case)."""

    def __init__(self, name, settings, index):
        home = UITree(source="tv", nodes=[UINode(id=0, role="button", text="Play",
                                                 rect=Rect(x=100, y=100, width=150, height=60),
                                                 clickable=True)])
        playing = UITree(source="tv", nodes=[], page_text="Now playing")
        super().__init__(name=name, platform="android", size=(960, 540),
                         screens={"home": home, "playing": playing},
                         transitions={"Play": "playing"})

    def start_session(self, target):
        signal = Path(os.environ["TV_SIGNAL"])
        if self.name.split("@")[0] in os.environ.get("TV_FAIL", "").split(","):
            signal.touch()
            raise RuntimeError("the TV's app store says no")
        deadline = time.monotonic() + 120      # (the other device's break is a file: looked
        while not signal.exists() and time.monotonic() < deadline:    # at until it is there)
            if self._killed.wait(0.05):
                break
        super().start_session(target)


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


def plugin_dir(tmp_path: Path, source: str, module: str = "acme_tv_farm") -> dict[str, str]:
    """The environment naming a plugin module kept outside the repository."""
    where = tmp_path / "plugins"
    where.mkdir(exist_ok=True)
    (where / f"{module}.py").write_text(source)
    path = os.pathsep.join(filter(None, [str(where), FarmCli(tmp_path).env()["PYTHONPATH"]]))
    return {"PYTHONPATH": path, "FARM_DEVICE_PLUGINS": module,
            "TV_SIGNAL": str(tmp_path / "tv-broke")}


def suite(tmp_path: Path, cases: int) -> Path:
    folder = tmp_path / "tv"
    folder.mkdir()
    for n in range(cases):
        (folder / f"play{n}.yaml").write_text(CASE.format(n=n))
    return folder


def test_a_broken_plugin_module_is_one_error_line_in_farm_run_and_farm_worker(
        farm: FarmCli, tmp_path: Path, redis_url: str) -> None:
    """`farm worker` with a plugin whose farm_device_kinds() returns a list said "farm:
    internal error: AttributeError: 'str' object has no attribute 'platform'"."""
    env = plugin_dir(tmp_path, "def farm_device_kinds():\n    return ['tv']\n")
    said = ("farm: error: device plugin 'acme_tv_farm' (FARM_DEVICE_PLUGINS): "
            "farm_device_kinds() returned a list: ")
    run = farm.run("run", suite(tmp_path, 1), "--devices", "tv:1", **env)
    worker = farm.run("worker", "--broker", redis_url, "--devices", "tv:1", timeout=120, **env)
    for done in (run, worker):
        assert done.returncode == 4, done.stdout + done.stderr
        assert said in done.stderr
        assert "Traceback" not in done.stderr and "internal error" not in done.stderr


def test_a_plugin_device_that_raises_has_its_case_retried_on_another_worker_device(
        farm: FarmCli, workers, tmp_path: Path, redis_url: str) -> None:
    """A RuntimeError from the plugin's start_session was farm's "internal error": the case
    ended there, not retried on the cluster's working device."""
    env = plugin_dir(tmp_path, TV)
    workers("tv:2", **env, TV_FAIL="tv-1")
    folder = suite(tmp_path, 2)
    done = farm.run("run", folder, "--broker", redis_url, "--devices", "tv:2",
                    "--report-dir", tmp_path / "r", timeout=300, **env, **CLUSTER_ENV)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out + farm.worker_logs()
    cases = by_name(results(tmp_path / "r"))
    assert {c["status"] for c in cases.values()} == {"passed"}
    assert {c["device"].split("@")[0] for c in cases.values()} == {"tv-2"}
    said = ("start_session() of device plugin 'acme_tv_farm' raised RuntimeError: the TV's "
            "app store says no (at ")
    # the console's progress line may be cut (at a word, "…"); results.json has it whole
    assert "start_session() of device plugin 'acme_tv_farm' raised RuntimeError" in out, out
    lost = [p for c in cases.values() for p in c.get("previous") or []]
    # tv-1 fails each case it starts: the first, and the second too where it was free before
    # tv-2 (a device is quarantined after 3 such errors in a row)
    assert 1 <= len(lost) <= 2, lost
    assert all(said in p["error"]["message"] for p in lost), lost
    assert "internal error" not in out


def test_a_worker_device_its_plugin_cannot_build_is_a_configuration_error(
        farm: FarmCli, tmp_path: Path, redis_url: str) -> None:
    """A plugin whose device lacks a method: `farm worker` says so once ("could not start:
    could not start:" before) and exits 4, a configuration mistake, as `farm run` does."""
    env = plugin_dir(tmp_path, '''
from farm.devices.specs import DeviceKind


class Half:
    def __init__(self, name, settings, index):
        self.name, self.platform = name, "android"


def farm_device_kinds():
    return {"tv": DeviceKind("android", Half)}
''')
    done = farm.run("worker", "--broker", redis_url, "--devices", "tv:1", "--metrics-port", "0",
                    timeout=120, **env, **CLUSTER_ENV)
    text = done.stdout + done.stderr
    assert done.returncode == 4, text
    # (refused as the plugin loads, before any device starts: said once)
    assert text.count("which has no ") == 1 and text.count("could not start") <= 1, text
