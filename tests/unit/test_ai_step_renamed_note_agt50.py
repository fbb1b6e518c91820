"""A replayed ``ai:`` plan whose ``Tap "Sign in"`` the model found on "Log in" (the app
renamed the button) passes, and says so as a plain ``aiTap: Sign in`` step does: a step note
(results.json, the report, the console's end) and the case's reason, not only farm.log."""

from __future__ import annotations

import json
from pathlib import Path

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

BUTTON = Rect(x=10, y=10, width=100, height=30)
RENAMED = ('the model found "Log in" (button) for "Sign in", which shares no word with it: '
           "if the app renamed it, change the step")


class WebLike(FakeDevice):
    """A fake page that checks what a tap hits, as a browser does (`tap_point`)."""

    def tap_point(self, node: int, x: int, y: int) -> tuple[int, int, str]:
        return x, y, ""


def test_a_replayed_ai_plan_whose_target_was_renamed_says_so_agt50(tmp_path, server):
    state = {"label": "Sign in"}

    def script(body: dict, index: int) -> str:
        if "Find the element" in " ".join(message_texts(body)):
            return json.dumps({"bbox": [BUTTON.x, BUTTON.y, BUTTON.x + BUTTON.width,
                                        BUTTON.y + BUTTON.height]})
        return xml("Tap", {"locate": {"prompt": "Sign in"}}) if steps_done(body) == 0 \
            else DONE_XML

    srv = serve(server, script)
    store = MemoryStore()

    def night() -> CaseResult:
        screen = UITree(source="dom", page_text="Welcome", nodes=[
            UINode(id=0, role="button", text=state["label"], clickable=True, rect=BUTTON)])
        case = Case(id="s/renamed", name="c", file=Path("/tmp/c.yaml"),
                    suite_root=Path("/tmp"), platform="web",
                    web=WebTarget(url="http://127.0.0.1:1/"),
                    tasks=[Task(name="t", steps=[Step(kind="ai", value="sign in")])])
        services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                            artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                            model=ModelSet.single(LiteLLMClient("openai/gpt-4o",
                                                                base_url=srv.base_url)))
        return run_case(Job(case.id, "web", 1), case,
                        WebLike(screens={"a": screen}, start="a"), services)

    first = night()
    assert first.status == "passed" and first.steps[0].notes == []
    state["label"] = "Log in"           # renamed overnight
    again = night()
    assert again.status == "passed", again.error
    assert again.steps[0].notes == [RENAMED]
    assert RENAMED in (again.reason or "")
    assert again.steps[0].output["notes"] == [RENAMED]
