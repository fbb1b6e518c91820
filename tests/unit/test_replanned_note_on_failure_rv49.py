"""An ai step whose cached plan the app broke says which cached step broke (a step note) when
the plan made again fails, or errors, too: not only when it passes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.litellm_client import LiteLLMClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.agent_scripts import DONE_XML, steps_done, xml
from tests.support.model_server import message_texts, serve


@pytest.mark.parametrize("then, status", [("fails", "failed"), ("errors", "error")])
def test_a_replanned_step_that_then_fails_still_says_which_cached_step_broke_rv49(
        tmp_path, server, then, status):
    state = {"label": "Sign in", "night": 1}

    def script(body: dict, index: int) -> str:
        if "Find the element" in " ".join(message_texts(body)):
            return json.dumps({"bbox": [], "error": "not on this page"})
        if state["night"] == 2:           # the new plan: no better than the cached one
            return xml("Frobnicate", {}) if then == "errors" else \
                xml("Tap", {"locate": {"prompt": "the purple unicorn"}})
        return xml("Tap", {"locate": {"prompt": "Sign in"}}) if steps_done(body) == 0 \
            else DONE_XML

    srv = serve(server, script)
    store = MemoryStore()

    def night() -> CaseResult:
        screen = UITree(source="dom", page_text="Welcome", nodes=[
            UINode(id=0, role="button", text=state["label"], clickable=True,
                   rect=Rect(x=10, y=10, width=100, height=30))])
        case = Case(id="s/replan", name="c", file=Path("/tmp/c.yaml"),
                    suite_root=Path("/tmp"), platform="web",
                    web=WebTarget(url="http://127.0.0.1:1/"),
                    tasks=[Task(name="t", steps=[Step(kind="ai", value="sign in")])])
        services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                            artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                            model=ModelSet.single(LiteLLMClient("openai/gpt-4o",
                                                                base_url=srv.base_url)))
        return run_case(Job(case.id, "web", 1), case,
                        FakeDevice(screens={"a": screen}, start="a"), services)

    assert night().status == "passed"
    state["label"], state["night"] = "Log in", 2     # renamed overnight
    again = night()
    assert again.status == status, again.error
    assert again.steps[0].cache.plan == "replanned"
    notes = again.steps[0].notes
    assert any(n.startswith('the cached plan failed at its step 1 of 1 (Locate "Sign in"')
               for n in notes), notes
