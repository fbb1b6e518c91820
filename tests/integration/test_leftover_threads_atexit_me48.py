"""When farm ends a process whose plugin left a thread running (os._exit after the wait), the
exit handlers the interpreter would have run after the threads still run: farm's own (the
cache's WAL merged into cache.db, a --junit-xml still saying "not finished", the report
folder's claim) and any other — here a plugin's, which writes a file."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import ROOT, FarmCli
from tests.support.suites import write_case

PLUGIN = '''
import atexit
import os
import threading

from farm.devices.fake import FakeDevice
from farm.devices.specs import DeviceKind

NEVER = threading.Event()
atexit.register(lambda: open(os.environ["ATEXIT_MARK"], "w").write("ran"))


def poll():
    NEVER.wait(600)


class LeakyDevice(FakeDevice):
    def open(self):
        super().open()
        threading.Thread(target=poll, name="leaky-poller", daemon=False).start()


def build(name, settings, index):
    return LeakyDevice(name=name)


def farm_device_kinds():
    return {"leaky": DeviceKind("web", build)}
'''


def test_exit_handlers_run_though_a_leftover_thread_was_not_waited_for(tmp_path: Path) -> None:
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / "leaky_me48.py").write_text(PLUGIN)
    suite = tmp_path / "suite"
    write_case(suite, "passes", ["sleep: 1"])
    mark = tmp_path / "atexit-ran"
    done = FarmCli(tmp_path).run("run", suite, "--devices", "leaky:1", "--report-dir",
                                 tmp_path / "out", FARM_DEVICE_PLUGINS="leaky_me48",
                                 PYTHONPATH=f"{tmp_path / 'plugins'}:{ROOT}",
                                 ATEXIT_MARK=str(mark))
    assert done.returncode == 0, done.stderr
    assert "1 thread still running (leaky-poller)" in done.stderr, done.stderr
    assert mark.read_text() == "ran"
    assert not list((tmp_path / "out").glob(".farm-room*")), list((tmp_path / "out").iterdir())
