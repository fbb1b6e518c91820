"""A model that keeps asking for a user (AutoGLM's Interact: there is none to answer) on a
screen that does not change is nudged, then the step fails as
stuck, as a repeated action does: it went on to the round cap, 100 model calls for AutoGLM.
Real litellm over HTTP against the scripted model server (a thread), a FakeDevice and
`run_case`."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.agent.api import Agent
from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.errors import StepFailed
from farm.llm.client import ScriptedModelClient
from farm.llm.models import ModelSet
from farm.results import ArtifactStore
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import message_texts, serve

INTERACT = '<think>two mugs match</think><answer>do(action="Interact", message="which?")' \
           '</answer>'


def test_a_model_asking_for_a_user_round_after_round_is_stuck_not_run_to_the_cap(
        tmp_path, server):
    from farm.llm.litellm_client import LiteLLMClient
    srv = serve(server, [INTERACT])
    dev = FakeDevice(UITree(source="dom", page_text="Mugs", nodes=[
        UINode(id=0, role="button", text="Blue Mug", clickable=True,
               rect=Rect(x=10, y=10, width=100, height=30))]))
    case = Case(id="s/mug", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="open a mug")])])
    client = LiteLLMClient("openai/autoglm-phone", base_url=srv.base_url, family="auto-glm")
    services = Services(settings=Settings(state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=MemoryStore(),
                        model=ModelSet.single(client))
    result = run_case(Job(case.id, "web", 1), case, dev, services)
    assert result.status == "failed"
    assert result.error is not None and result.error.message == (
        "agent stuck: the model answered Interact 5 times on the same screen, doing nothing "
        "(the model asked a user: which?)")
    assert len(srv.requests) == 5
    assert "no user will answer" in "\n".join(message_texts(srv.requests[3]))


def test_a_model_taking_notes_round_after_round_is_stuck_not_run_to_the_cap(tmp_path):
    """AutoGLM's Note (and Call API) do nothing on the screen either, and carry no message:
    they were not counted at all, and a model noting the same page ran to 100 calls."""
    note = '<think>noting</think><answer>do(action="Note", message="a mug page")</answer>'
    client = ScriptedModelClient([note], family="auto-glm")
    dev = FakeDevice(UITree(source="dom", page_text="Mugs", nodes=[]))
    with pytest.raises(StepFailed, match="^agent stuck: the model answered Note 5 times on "
                                         "the same screen, doing nothing$"):
        Agent(dev, ModelSet.single(client)).ai_act("open a mug")
    assert client.calls == 5
    nudge = "\n".join(message_texts({"messages": client.requests[3]}))
    assert "You answered Note 3 times and nothing was done. Act on the screen" in nudge
