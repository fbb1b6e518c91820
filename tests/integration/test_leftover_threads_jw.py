"""A device plugin whose open() starts a non-daemon thread it never stops: `farm run` printed
its summary and report, then never exited (Python's exit waits for such threads). It ends with
the run's exit code, and says on stderr which threads it did not wait for."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.suites import write_case

PLUGIN = '''
import threading

from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

NEVER = threading.Event()


def poll():
    NEVER.wait(600)     # (an orphan still ends, long after any test gave up)


class LeakyDevice(FakeDevice):
    def open(self):
        super().open()      # (daemon=False said: a device thread's threads are daemons)
        threading.Thread(target=poll, name="leaky-poller", daemon=False).start()


def build(name, settings, index):
    return LeakyDevice(name=name)


def farm_device_kinds():
    return {"leaky": DeviceKind("web", build)}
'''


def test_a_run_whose_plugin_leaves_a_thread_running_exits_with_its_code_naming_it(
        tmp_path: Path) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "leaky_jw.py").write_text(PLUGIN)
    suite = tmp_path / "suite"
    write_case(suite, "passes", ["sleep: 1"])
    write_case(suite, "fails", ["assertText: nowhere to be seen"])
    farm = FarmCli(tmp_path)
    done = farm.run("run", suite, "--devices", "leaky:1", "--report-dir", tmp_path / "out",
                    FARM_DEVICE_PLUGINS="leaky_jw",
                    PYTHONPATH=f"{tmp_path / 'plugins'}:{ROOT}")
    assert done.returncode == 1, done.stderr        # the run's: a case failed
    assert "1 passed, 1 failed" in done.stdout, done.stdout
    assert (tmp_path / "out").is_dir()
    said = [line for line in done.stderr.splitlines() if "still running" in line]
    assert said == ["farm: 1 thread still running (leaky-poller) started by leaky_jw: not "
                    "waited for, exiting (a device plugin's threads end in its close(), or are "
                    "daemon threads)"], done.stderr
