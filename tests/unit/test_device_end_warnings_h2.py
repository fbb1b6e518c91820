"""A plugin device's close() that hung (killed after its close timeout) or raised, and a size()
of a wrong type, failed no case and were said in farm.log only: the run's end says each once
per device, as a `farm: warning:` line beside the report images that could not be taken."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from farm.config import Settings
from farm.devices.base import PluginDevice
from farm.devices.fake import FakeDevice
from farm.results import ArtifactStore, StepRecord
from farm.runner import Services, _CaseRun
from farm.slot import DeviceSlot

ORIGIN = "device plugin 'tvplug'"


class HangingClose(FakeDevice):
    """close() waits until kill() (then returns, as an obeying plugin does)."""

    def __init__(self) -> None:
        super().__init__(name="tv-1", platform="android")
        self.release = threading.Event()

    def close(self) -> None:
        self.release.wait(30)

    def kill(self) -> None:
        super().kill()
        self.release.set()


class FailingClose(FakeDevice):
    def close(self) -> None:
        raise RuntimeError("tv socket reset by token tv-secret-9")


def services(tmp_path) -> Services:
    return Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                    env={}, mask=lambda text: text.replace("tv-secret-9", "***"))


def warnings(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines()
            if line.startswith("farm: warning:")]


def test_a_plugin_close_that_hung_is_said_at_the_runs_end(tmp_path, capsys):
    tv = HangingClose()
    run = services(tmp_path)
    device = PluginDevice.around(tv, ORIGIN, 300.0, close_timeout=0.05)
    DeviceSlot(device, run).close()
    run.artifacts.flush()
    assert warnings(capsys) == [
        "farm: warning: tv-1: close() of device plugin 'tvplug' did not finish within 0.05s: "
        "farm killed the device (closing the device at the end of its cases)"]
    run.artifacts.flush()
    assert warnings(capsys) == []       # (said once)


def test_a_plugin_close_that_raised_is_said_once_per_device_its_secret_hidden(
        tmp_path, capsys):
    run = services(tmp_path)
    for name in ("tv-1", "tv-1", "tv-2"):
        device = PluginDevice.around(FailingClose(name=name, platform="android"), ORIGIN, 300.0)
        DeviceSlot(device, run).close()
    run.artifacts.flush()
    said = warnings(capsys)
    assert [w.split(":")[2].strip() for w in said] == ["tv-1", "tv-2"]
    assert "close() of device plugin 'tvplug' raised RuntimeError: tv socket reset by token " \
           "***" in said[0]
    assert "tv-secret-9" not in "\n".join(said)


def test_a_close_that_went_well_says_nothing(tmp_path, capsys):
    run = services(tmp_path)
    DeviceSlot(PluginDevice.around(FakeDevice(name="tv-1"), ORIGIN, 300.0), run).close()
    run.artifacts.flush()
    assert warnings(capsys) == []


def test_a_size_of_a_wrong_type_is_said_at_the_runs_end_and_the_step_still_passes(
        tmp_path, capsys):
    class TextSize(FakeDevice):
        def size(self):
            return "1280x720"
    run = services(tmp_path)
    case_run = object.__new__(_CaseRun)
    case_run.device = PluginDevice.around(TextSize(name="tv-1", platform="android"), ORIGIN,
                                          300.0)
    case_run.services, case_run.mask = run, run.mask
    case_run.agent = SimpleNamespace(acted=[])
    for index in (1, 2):
        rec = StepRecord(task="t", index=index, kind="tap", label="OK", rect=[1, 2, 3, 4],
                         before=f"step{index}-before.png")
        case_run._mark(rec)
        assert rec.status == "passed" and rec.marked is None
    run.artifacts.flush()
    assert warnings(capsys) == [
        "farm: warning: tv-1: size() of device plugin 'tvplug' returned a str: expected "
        "(width, height), two positive ints (the report's step marks are left out)"]
