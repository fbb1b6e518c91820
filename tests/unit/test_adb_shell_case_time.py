"""A runAdbShell step without its own `timeout` is given no more than the case's time left: a
command that runs on (logcat without -d) ran past the case's end, the case's watchdog then
killed the phone's session and the case read 'device stopped answering', the phone blamed
(and restarted) for a suite's endless command."""

from __future__ import annotations

import time
from pathlib import Path

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import AndroidTarget, Case, Step, Task

SCREEN = UITree(source="uiautomator", nodes=[])


class Phone(FakeDevice):
    """A phone whose shell command prints on until its time is up (the real one's
    `timeout_s`, or `within_s` where its silence limit holds too, stops it then,
    StepFailed); with no time given, it would run for ever."""

    def __init__(self, services: Services) -> None:
        super().__init__(SCREEN, platform="android")
        self.services = services
        self.given: list[float | None] = []
        self.silence_kept: list[bool] = []

    def shell_result(self, command: str, timeout_s: float | None = None,
                     within_s: float | None = None):
        end = timeout_s if timeout_s is not None else within_s
        self.given.append(end)
        self.silence_kept.append(timeout_s is None)
        assert end is not None, "the command was given no end: it runs past the case"
        self.services.in_flight[self.name].deadline = time.monotonic() - 1   # (its time ran)
        raise StepFailed(f"the shell command was still running after {end:g}s, having "
                         "printed 4,096 bytes, and was stopped")


def run(step: Step, tmp_path: Path) -> tuple[CaseResult, Phone]:
    case = Case(id="s/c", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="android", android=AndroidTarget(), timeout=60,
                tasks=[Task(name="t", steps=[step])])
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path), run_id="r1",
                        env={})
    phone = Phone(services)
    return run_case(Job(case.id, "android", 1), case, phone, services), phone


def test_an_endless_command_ends_with_the_case_s_time_as_the_case_s_timeout(tmp_path):
    res, phone = run(Step(kind="runAdbShell", value="logcat"), tmp_path)
    [given] = phone.given
    assert given is not None and 0 < given <= 60
    assert phone.silence_kept == [True]      # (a silent hang still fails after 30 s)
    assert res.status == "error" and res.error.kind == "CaseTimeout", res.error
    assert res.error.message == "case timed out after 60s during adb shell `logcat`"


def test_a_step_timeout_past_the_case_s_end_is_cut_to_it(tmp_path):
    res, phone = run(Step(kind="runAdbShell", value="logcat", timeout_ms=600_000),
                     tmp_path)
    assert phone.given[0] is not None and phone.given[0] <= 60
    assert phone.silence_kept == [False]     # (a step's timeout is the command's whole time)
    assert res.error is not None and res.error.kind == "CaseTimeout", res.error
