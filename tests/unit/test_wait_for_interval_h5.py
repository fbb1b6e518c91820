"""aiWaitFor without checkIntervalMs looks every 3 s, as Midscene does (its documented default,
"to avoid unnecessary AI calls"), not every second: a condition that never came true cost up
to 30 judge calls, each with a screenshot, in its default 30 s. A checkIntervalMs the step
gives is still honoured. The suite file is loaded as `farm run` loads it and run by
`run_case` on a FakeDevice; time is a fake clock the wait's own pauses move forward.
"""

from __future__ import annotations

import time as real_time
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.base import UITree
from farm.devices.fake import FakeDevice
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.loader import load_suites

NOT_YET = '{"pass": false, "thought": "the badge still says Cart (0)"}'


class FakeClock:
    """farm.agent.api's ``time``: ``sleep`` moves the clock instead of waiting."""

    def __init__(self) -> None:
        self.now, self.slept = real_time.monotonic(), []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def judged(tmp_path: Path, monkeypatch, step_yaml: str) -> tuple[int, list[float], str]:
    """(judge calls, pauses, the case's failure) of a case whose one step is ``step_yaml``."""
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "wait.yaml").write_text("web:\n  url: http://127.0.0.1:1/\ntasks:\n  - name: t\n"
                                     "    flow:\n" + step_yaml)
    [case] = [c for s in load_suites([suite], env={}, dotenv=None) for c in s.cases]
    clock = FakeClock()
    monkeypatch.setattr("farm.agent.api.time", clock)
    # (the pause between looks waits on the run's cancel event: here it moves the clock)
    monkeypatch.setattr("farm.agent.api.Agent._pause",
                        lambda agent, seconds, what: clock.sleep(seconds))
    client = ScriptedModelClient([NOT_YET])
    services = Services(settings=Settings(), artifacts=ArtifactStore(tmp_path / "a"),
                        run_id="r1", env={}, model=ModelSet.single(client))
    dev = FakeDevice(UITree(source="dom", page_text="Cart (0)", nodes=[]))
    res = run_case(Job(case.id, "web", 1), case, dev, services)
    assert res.status == "failed", res.error
    return len(client.requests), clock.slept, res.error.message


def test_without_check_interval_ms_it_looks_every_3_seconds(tmp_path, monkeypatch):
    calls, slept, message = judged(tmp_path, monkeypatch, "      - aiWaitFor: the cart holds "
                                                          "a mug\n        timeout: 9000\n")
    assert calls == 4                      # at 0, 3, 6 and 9 s (not 10 looks a second apart)
    assert slept == [3, 3, 3]
    assert message == ('aiWaitFor "the cart holds a mug" not true within 9s: the badge still '
                       "says Cart (0)")


@pytest.mark.parametrize("interval, calls", [(1000, 10), (4500, 3)])
def test_a_check_interval_ms_given_is_honoured(tmp_path, monkeypatch, interval, calls):
    got, slept, _ = judged(tmp_path, monkeypatch, "      - aiWaitFor: the cart holds a mug\n"
                                                  "        timeout: 9000\n"
                                                  f"        checkIntervalMs: {interval}\n")
    assert got == calls and sum(slept) == 9


def test_the_default_timeout_is_still_30_seconds(tmp_path, monkeypatch):
    calls, slept, message = judged(tmp_path, monkeypatch,
                                   "      - aiWaitFor: the cart holds a mug\n")
    assert calls == 11 and sum(slept) == 30
    assert "not true within 30s" in message
