"""The plan cache and the case's ``aiActContext``: the model reads the context (its plain
variables expanded), so what it plans depends on it. The plan was keyed by the task alone: a
plan made with ``the user name is ${ACCOUNT}`` = alice was replayed when ACCOUNT was bob, typing
alice. The key now holds the context as the model read it; the export looks it up the same way."""

from __future__ import annotations

import re
from pathlib import Path

from farm.cache.keys import Namespace, context_key
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from tests.unit.test_cache_units import _plan_xml

FORM = {"login": UITree(source="dom", page_text="login", nodes=[
    UINode(id=0, role="input:text", placeholder="Username", editable=True, clickable=True,
           rect=Rect(x=10, y=10, width=200, height=30))])}
CONTEXT = "the user name to sign in with is ${ACCOUNT}"
TASK = "type the user name into the Username field"


def _typist(messages, index):
    """Types the name the context gives, then says it is done."""
    text = "\n".join(str(m["content"]) for m in messages)
    if "Steps done so far" in text:
        return '<complete success="true">typed</complete>'
    name = re.search(r"sign in with is (\w+)", text).group(1)
    return _plan_xml("Input", {"value": name, "locate": {"prompt": "Username"}})


def _run(tmp_path: Path, store: MemoryStore, account: str):
    from farm.config import Settings
    from farm.llm.client import ScriptedModelClient
    from farm.llm.models import ModelSet
    from farm.results import ArtifactStore
    from farm.runner import Services, run_case
    from farm.schedule import Job
    from farm.suite.model import Case, Step, Task, WebTarget
    case = Case(id="s/ctx", name="c", file=tmp_path / "c.yaml", suite_root=tmp_path,
                platform="web", web=WebTarget(url="http://127.0.0.1:1/"),
                tasks=[Task(name="t", steps=[Step(kind="ai", value=TASK)])],
                vars={"ACCOUNT": account}, agent={"aiActContext": CONTEXT})
    client = ScriptedModelClient(_typist)
    services = Services(settings=Settings(), run_id="r", artifacts=ArtifactStore(tmp_path),
                        env={}, cache=store, model=ModelSet.single(client))
    device = FakeDevice(screens=FORM)
    result = run_case(Job(case.id, "web", 1), case, device, services)
    assert result.status == "passed", result.error
    return result, client, [a for a in device.actions if a[0] == "type_text"]


def test_a_plan_is_replayed_only_under_the_context_it_was_made_with(tmp_path):
    store = MemoryStore()
    _, first, typed = _run(tmp_path, store, "alice")
    assert first.calls == 2 and typed == [("type_text", "alice")]
    again, replayed, typed = _run(tmp_path, store, "alice")
    assert replayed.calls == 0 and again.steps[0].cache.plan == "hit"
    assert typed == [("type_text", "alice")]
    other, asked, typed = _run(tmp_path, store, "bob")
    assert other.steps[0].cache.plan == "miss" and asked.calls == 2
    assert typed == [("type_text", "bob")]
    key = Namespace("s/ctx", "web").key(
        "plan", TASK + context_key("the user name to sign in with is bob"), 0)
    assert store.get(key)["actions"][0]["params"]["value"] == "bob"


def test_export_finds_the_plan_made_under_the_case_context(tmp_path):
    from farm.cache.export import export_case
    from farm.suite.loader import load_case_file
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\nweb:\n  url: http://127.0.0.1:1/\n"
                    f"agent:\n  aiActContext: {CONTEXT}\ntasks:\n  - name: t\n    flow:\n"
                    f"      - ai: {TASK}\n")
    env = {"ACCOUNT": "bob"}
    case = load_case_file(path, env=env)
    store = MemoryStore()
    ns = Namespace(case.id, "web")
    for who in ("alice", "bob"):
        store.put(ns.key("plan", TASK + context_key(CONTEXT.replace("${ACCOUNT}", who)), 0),
                  {"actions": [{"type": "Input", "params": {
                      "value": who, "locate": {"prompt": "Username"}}}]})
    out = tmp_path / "c.solved.yaml"
    out.write_text(export_case(case, store, env))
    assert [(s.kind, s.target, s.value) for s in load_case_file(out, env=env).steps] == [
        ("aiInput", "Username", "bob")]
