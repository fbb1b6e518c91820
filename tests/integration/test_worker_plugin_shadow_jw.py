"""`farm worker` from the folder above a device plugin's checkout (tvplug/, holding the
package tvplug/): `python -m worker` put the working directory first on sys.path and imported
the checkout folder as an empty namespace package ("defines no farm_device_kinds()"), where
`farm run` from there used the installed plugin. And a drained worker's device process whose
plugin left a non-daemon thread running never exited: it ends, naming the thread."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import ROOT, FarmCli, kill_tree

PLUGIN = '''
import threading

from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

NEVER = threading.Event()


def poll():
    NEVER.wait(600)     # (an orphan still ends, long after any test gave up)


class TvDevice(FakeDevice):
    def open(self):
        super().open()
        threading.Thread(target=poll, name="tvjw-poller", daemon=False).start()


def build(name, settings, index):
    return TvDevice(name=name)


def farm_device_kinds():
    return {"tvjw": DeviceKind("web", build)}
'''


# `pip install -e` of the plugin: a finder appended to sys.meta_path (setuptools' editable
# finder), asked only once the path entries (the working directory first) found no package: an
# empty folder there is one, a namespace package
EDITABLE = '''
import importlib.util
import sys


class _Editable:
    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "tvplug_jw":
            return importlib.util.spec_from_file_location(
                fullname, {init!r}, submodule_search_locations=[])


sys.meta_path.append(_Editable)
'''


def test_a_worker_started_above_the_plugins_checkout_uses_the_installed_plugin_and_drains(
        tmp_path: Path, redis_url: str) -> None:
    installed = tmp_path / "src" / "tvplug_jw"
    installed.mkdir(parents=True)
    (installed / "__init__.py").write_text(PLUGIN)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(EDITABLE.format(init=str(installed / "__init__.py")))
    here = tmp_path / "work"
    (here / "tvplug_jw" / "tvplug_jw").mkdir(parents=True)   # the checkout: no __init__.py
    farm = Path(sys.executable).parent / "farm"     # the installed command, as a user runs it
    env = FarmCli(tmp_path).env(FARM_DEVICE_PLUGINS="tvplug_jw",
                                PYTHONPATH=f"{hooks}:{ROOT}", **CLUSTER_ENV)
    worker = subprocess.Popen([str(farm), "worker", "--broker", redis_url, "--devices",
                               "tvjw:1", "--metrics-port", "0"], cwd=here, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        seen = []
        for line in worker.stdout:      # (ends when the worker exits: it failed to start)
            seen.append(line)
            if " ready (queues " in line:
                break
        assert any(" ready (queues " in line for line in seen), "".join(seen)
        wait_idle(redis_url, 1)     # its Celery consumer reads its queues: SIGTERM drains it
        worker.send_signal(signal.SIGTERM)          # drain: the device process ends
        rest = worker.communicate(timeout=120)[0]
    finally:
        kill_tree(worker)
    said = "".join(seen) + rest
    assert "namespace package" not in said, said
    assert worker.returncode == 0, said
    left = [line for line in said.splitlines() if "still running" in line]
    assert len(left) == 1 and left[0].startswith("farm worker: tvjw-") and left[0].endswith(
        ": 1 thread still running (tvjw-poller) started by tvplug_jw: not waited for, exiting "
        "(a device plugin's threads end in its close(), or are daemon threads)"), said
