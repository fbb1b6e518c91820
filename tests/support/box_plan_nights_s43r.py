"""One night's run of a case whose steps an agent of a box-only family (UI-TARS: a target is a
box, no description) solves against the scripted model server, with the plan cache in a store
the nights share: what the plan-cache tests for box targets run again and again."""

from __future__ import annotations

from pathlib import Path

from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import AndroidTarget, Case, Step, Task, WebTarget
from tests.support.model_server import ModelServer

MODEL = "openai/ui-tars-7b"


def night(tmp_path: Path, store: MemoryStore, srv: ModelServer, dev: FakeDevice,
          steps: list[Step], platform: str = "web") -> CaseResult:
    """``steps`` run as case s/box on ``dev`` (a web page, or an Android app), UI-TARS at
    ``srv`` planning its ai steps, the plan cache in ``store`` (read-write)."""
    from farm.llm.litellm_client import LiteLLMClient
    target = {"web": WebTarget(url="http://127.0.0.1:1/")} if platform == "web" else {
        "android": AndroidTarget(launch="com.shop")}
    case = Case(id="s/box", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform=platform, **target, tasks=[Task(name="t", steps=steps)])
    client = LiteLLMClient(MODEL, base_url=srv.base_url, family="ui-tars")
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                        model=ModelSet.single(client))
    return run_case(Job(case.id, platform, 1), case, dev, services)
