"""The plan cache with grammars that give a box and no description (UI-TARS, AutoGLM): what the
box hit is remembered (the XPath of the element, else the box on a screen of its size), so a
solved case replays with no model call, and a replay that breaks is planned again from the
broken step, told why in words that name what was looked for. Real litellm over HTTP against
the scripted model server (a thread), a FakeDevice and `run_case`."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from farm.cache.store import MemoryStore
from farm.config import Settings
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.llm.models import ModelSet
from farm.results import ArtifactStore, CaseResult
from farm.runner import Services, run_case
from farm.schedule import Job
from farm.suite.model import Case, Step, Task, WebTarget
from tests.support.agent_scripts import steps_done
from tests.support.model_server import ModelServer, message_texts, serve

SECRET = "s3cret-value"
PASSWORD = Rect(x=400, y=300, width=480, height=40)      # centre (640, 320)
SIGN_IN = Rect(x=400, y=400, width=480, height=40)       # centre (640, 420)
# the same flow in each grammar: tap the password field, type, tap Sign in, done
FLOWS = {
    "openai/ui-tars-7b": ["Thought: pw\nAction: click(start_box='(500,400)')",
                          "Thought: t\nAction: type(content='${PW}')",
                          "Thought: go\nAction: click(start_box='(500,526)')",
                          "Thought: done\nAction: finished(content='signed in')"],
    "openai/autoglm-phone": [
        '<think>pw</think><answer>do(action="Tap", element=[500,400])</answer>',
        '<think>t</think><answer>do(action="Type", text="${PW}")</answer>',
        '<think>go</think><answer>do(action="Tap", element=[500,526])</answer>',
        '<think>d</think><answer>finish(message="signed in")</answer>'],
}
TASK = "log in with the password ${PW}"


def login(button_id: str = "login-button") -> dict[str, UITree]:
    return {"login": UITree(source="dom", page_text="login", nodes=[
        UINode(id=0, role="input:password", resource_id="password", placeholder="Password",
               editable=True, clickable=True, rect=PASSWORD),
        UINode(id=1, role="button", resource_id=button_id, text="Sign in", clickable=True,
               rect=SIGN_IN)]),
        "home": UITree(source="dom", page_text="Welcome")}


def by_progress(replies: list[str]):
    def script(body: dict, index: int) -> str:
        return replies[min(steps_done(body), len(replies) - 1)]
    return script


def night(tmp_path: Path, store: MemoryStore, srv: ModelServer, model: str,
          device: FakeDevice, mode: str | None = None) -> CaseResult:
    """One run of the case on ``device`` with the cache in ``store`` (``mode``: --cache)."""
    from farm.llm.litellm_client import LiteLLMClient
    case = Case(id="s/login", name="c", file=Path("/tmp/c.yaml"), suite_root=Path("/tmp"),
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value=TASK)])],
                vars={"PW": SECRET}, secrets=["PW"])
    family = "ui-tars" if "ui-tars" in model else "auto-glm"
    client = LiteLLMClient(model, base_url=srv.base_url, family=family)
    services = Services(settings=Settings(cache=mode, state_dir=tmp_path / "state"), run_id="r",
                        artifacts=ArtifactStore(tmp_path), env={}, cache=store,
                        model=ModelSet.single(client))
    return run_case(Job(case.id, "web", 1), case, device, services)


def shop(button_id: str = "login-button", **kw) -> FakeDevice:
    return FakeDevice(screens=login(button_id), transitions={"Sign in": "home"},
                      xpaths={"//*[@id='password']": [PASSWORD],
                              f"//*[@id='{button_id}']": [SIGN_IN]}, **kw)


def plan_entry(store: MemoryStore) -> tuple[str, dict]:
    [(key, entry)] = [(k, v) for k, v in store.items() if v["type"] == "plan"]
    return key, entry


def told(srv: ModelServer, first: int = 0) -> str:
    """What the model read in the requests from ``first`` on."""
    return "\n".join(t for body in srv.requests[first:] for t in message_texts(body))


@pytest.mark.parametrize("model", sorted(FLOWS))
def test_a_solved_box_only_case_replays_every_night_with_no_model_call(tmp_path, server, model):
    srv = serve(server, by_progress(FLOWS[model]))
    store = MemoryStore()
    first = night(tmp_path, store, srv, model, shop())
    assert first.status == "passed", first.error
    assert len(srv.requests) == 4 and first.steps[0].cache.plan == "miss"
    _, entry = plan_entry(store)
    targets = [a["params"].get("locate") for a in entry["actions"]]
    assert targets == [{"prompt": "", "xpath": "//*[@id='password']"}, None,
                       {"prompt": "", "xpath": "//*[@id='login-button']"}]
    assert SECRET not in json.dumps(entry) and "bbox" not in json.dumps(entry)
    for _ in range(2):
        dev = shop()
        again = night(tmp_path, store, srv, model, dev)
        assert again.status == "passed", again.error
        assert len(srv.requests) == 4                      # not one call more
        step = again.steps[0]
        assert step.cache.plan == "hit" and step.usage is None and step.tier == "xpath"
        assert dev.screen == "home" and ("type_text", SECRET) in dev.actions


def test_a_broken_replay_is_planned_again_from_the_broken_step_only(tmp_path, server, caplog):
    model = "openai/ui-tars-7b"
    srv = serve(server, by_progress(FLOWS[model]))
    store = MemoryStore()
    assert night(tmp_path, store, srv, model, shop()).status == "passed"
    solved = len(srv.requests)
    dev = shop(button_id="signin")                       # the button's id changed
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        again = night(tmp_path, store, srv, model, dev)
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == "replanned" and dev.screen == "home"
    assert len(srv.requests) - solved == 2               # Sign in, then done: not the login
    why = ("Locate XPath //*[@id='login-button'] failed: no element matches XPath "
           "//*[@id='login-button']")
    assert f"Step 3 of the remembered plan failed: {why}" in told(srv, solved)
    assert f"step 3 of 3 failed ({why}" in caplog.text
    assert "None" not in told(srv, solved) and "None" not in caplog.text
    _, entry = plan_entry(store)                         # rewritten with what worked
    assert entry["actions"][2]["params"]["locate"]["xpath"] == "//*[@id='signin']"


def test_an_entry_that_kept_no_target_is_replanned_saying_so(tmp_path, server, caplog):
    """A plan stored before box targets were kept (``{"prompt": ""}``) cannot be replayed:
    the model plans again, told why in words, never "box None … XPath None"."""
    model = "openai/ui-tars-7b"
    srv = serve(server, by_progress(FLOWS[model]))
    store = MemoryStore()
    assert night(tmp_path, store, srv, model, shop()).status == "passed"
    key, entry = plan_entry(store)
    for action in entry["actions"]:
        if "locate" in action["params"]:
            action["params"]["locate"] = {"prompt": ""}
    store.put(key, entry)
    solved = len(srv.requests)
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        again = night(tmp_path, store, srv, model, shop())
    assert again.status == "passed" and again.steps[0].cache.plan == "replanned"
    why = "Tap has no target to replay: the model gave only a box, and what it hit was not " \
          "recorded"
    assert f"Step 1 of the remembered plan failed: {why}" in told(srv, solved)
    assert f"step 1 of 3 failed ({why})" in caplog.text
    assert "None" not in told(srv, solved) and "None" not in caplog.text


CANVAS = {"game": UITree(source="dom", page_text="", nodes=[
    UINode(id=0, role="canvas", text="Start", rect=Rect(x=0, y=0, width=1280, height=800))]),
    "home": UITree(source="dom", page_text="Welcome")}
START = ["Thought: start\nAction: click(start_box='(500,500)')",
         "Thought: done\nAction: finished(content='started')"]


def test_a_box_on_no_element_replays_where_it_was_on_a_screen_of_the_same_size(
        tmp_path, server):
    srv = serve(server, by_progress(START))
    store = MemoryStore()
    model = "openai/ui-tars-7b"

    def canvas(size: tuple[int, int] = (1280, 800)) -> FakeDevice:
        return FakeDevice(screens=CANVAS, transitions={"Start": "home"}, size=size)
    assert night(tmp_path, store, srv, model, canvas()).status == "passed"
    _, entry = plan_entry(store)
    assert entry["actions"][0]["params"]["locate"] == {
        "prompt": "", "at": {"rect": [636, 396, 9, 9], "screen": [1280, 800]}}
    dev = canvas()
    again = night(tmp_path, store, srv, model, dev)
    assert again.status == "passed" and len(srv.requests) == 2
    assert again.steps[0].cache.plan == "hit" and again.steps[0].tier == "cache"
    assert [a for a in dev.actions if a[0] == "tap"] == [("tap", 640, 400)]
    assert dev.screen == "home"
    smaller = night(tmp_path, store, srv, model, canvas((1000, 700)))
    assert smaller.status == "passed" and smaller.steps[0].cache.plan == "replanned"
    assert ("Step 1 of the remembered plan failed: Locate the remembered box [636, 396, 9, 9] "
            "failed: the remembered box [636, 396, 9, 9] was on a 1280×800 screen; this one is "
            "1000×700") in told(srv, 2)


def test_without_a_plan_cache_to_write_a_box_costs_no_extra_screen_read(tmp_path, server):
    """What a box hit is read (a UI-tree dump: seconds on a phone) only for a plan cache that
    will keep it; with the cache off the agent's rounds read the screen as before. A failed ai
    step keeps its rounds in its output, as a passed one does."""
    model = "openai/ui-tars-7b"
    srv = serve(server, by_progress(FLOWS[model]))
    kept, off = shop(), shop()
    assert night(tmp_path, MemoryStore(), srv, model, kept).status == "passed"
    assert night(tmp_path, None, srv, model, off, mode="off").status == "passed"
    assert kept.hierarchies == 2 and off.hierarchies == 0      # one read a tap, or none
    stuck = serve(server, ["Thought: hm\nAction: click(start_box='(10,10)')"])
    failed = night(tmp_path, None, stuck, model, shop(), mode="off")
    step = failed.steps[0]
    assert failed.status == "failed" and isinstance(step.output, dict), step
    assert step.output["rounds"] >= 2 and step.output["steps"], step.output
