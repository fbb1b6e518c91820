"""A Scroll the model plans reads its scrollType as a suite step's does: Midscene's legacy names
(``once``, ``untilBottom``, ...) are the current ones, and a value farm does not know is not run
(no scroll to the end of the page): the model is told, as for any bad parameter. Real litellm
over HTTP against the scripted model server (a thread), a FakeDevice and `run_case`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.model_server import ModelServer, message_texts, serve

DONE = '<complete success="true">scrolled</complete>'
PAGE = UITree(source="dom", page_text="a long page", nodes=[
    UINode(id=0, role="p", text="Top", rect=Rect(x=10, y=10, width=200, height=30))])


def scroll(**params: object) -> str:
    return (f"<thought>down</thought><action-type>Scroll</action-type>"
            f"<action-param-json>{json.dumps(params)}</action-param-json>")


def act(tmp_path: Path, srv: ModelServer) -> tuple[CaseResult, list[tuple]]:
    """An ``ai`` step on a 1280×800 page; the case and the scrolls the device got."""
    from farm.llm.litellm_client import LiteLLMClient
    case = Case(id="s/scroll", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value="scroll down a little")])])
    client = LiteLLMClient("openai/scripted", base_url=srv.base_url)
    services = Services(settings=Settings(), run_id="r", artifacts=ArtifactStore(tmp_path),
                        env={}, model=ModelSet.single(client))
    dev = FakeDevice(PAGE)
    result = run_case(Job(case.id, "web", 1), case, dev, services)
    return result, [a for a in dev.actions if a[0] == "scroll"]


def test_a_planned_once_scrolls_once_by_its_distance(tmp_path, server):
    srv = serve(server, [scroll(direction="down", scrollType="once", distance=200), DONE])
    result, scrolls = act(tmp_path, srv)
    assert result.status == "passed", result.error
    assert scrolls == [("scroll", 640, 400, 0, 200)]      # not 10 × 8,000 px to the end


@pytest.mark.parametrize("legacy, dy", [("untilBottom", 8000), ("untilTop", -8000)])
def test_a_planned_legacy_until_scrolls_to_that_end(tmp_path, server, legacy, dy):
    srv = serve(server, [scroll(direction="down", scrollType=legacy), DONE])
    result, scrolls = act(tmp_path, srv)
    assert result.status == "passed", result.error
    assert scrolls == [("scroll", 640, 400, 0, dy)] * 10


def test_an_unknown_scroll_type_is_not_run_and_the_model_is_told(tmp_path, server):
    srv = serve(server, [scroll(direction="down", scrollType="twice", distance=200),
                         scroll(direction="down", scrollType="singleAction", distance=200),
                         DONE])
    result, scrolls = act(tmp_path, srv)
    assert result.status == "passed", result.error
    assert scrolls == [("scroll", 640, 400, 0, 200)]      # the corrected one only
    told = message_texts(srv.requests[1])[-1]
    assert ("Your action was not executed: bad parameters for Scroll: scrollType: unknown "
            "scrollType 'twice'; use one of: singleAction, scrollToBottom, scrollToTop, "
            "scrollToLeft, scrollToRight") in told
