"""Through run_case: an attempt that replayed the cached plan and then lost its device (the
browser crashed, the phone dropped off adb) keeps the plan, so the night after replays it with
no model call (a case that failed its check still drops it: test_cache_infra_error.py).
Before, the runner did not tell the cache the error's kind: a device farm's bad night cost the
next night every model call of the cases it touched."""

from __future__ import annotations

from pathlib import Path

from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.errors import DeviceLost
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.unit.test_cache_units import PLAN, SHOP

CASE = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
            platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
            tasks=[Task(name="t", steps=[Step(kind="ai", value="log in"),
                                         Step(kind="javascript", value="check()")])],
            vars={"PW": "pw-value-1"}, secrets=["PW"])


def _night(tmp_path: Path, store: MemoryStore, n: int, outcome: object = 1):
    client = ScriptedModelClient(PLAN)
    services = Services(settings=Settings(), run_id=f"r{n}", artifacts=ArtifactStore(
        tmp_path / str(n)), env={}, cache=store, model=ModelSet.single(client))
    dev = FakeDevice(screens=SHOP, transitions={"Sign in": "home"}, scripts={"check()": outcome})
    return run_case(Job(CASE.id, "web", 1), CASE, dev, services), client


def test_a_plan_replayed_before_the_device_was_lost_is_kept(tmp_path: Path):
    store = MemoryStore()
    first, c1 = _night(tmp_path, store, 1)
    assert first.status == "passed" and c1.calls == 3
    lost, c2 = _night(tmp_path, store, 2, DeviceLost("browser closed"))
    assert lost.status == "error" and lost.error.kind == "DeviceLost", lost.error
    assert c2.calls == 0 and lost.steps[0].cache.plan == "hit"
    third, c3 = _night(tmp_path, store, 3)
    assert third.status == "passed" and c3.calls == 0     # replayed, not paid for again
