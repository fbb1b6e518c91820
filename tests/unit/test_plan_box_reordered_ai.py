"""The plan cache replaying a target the model gave only as a box (UI-TARS, AutoGLM) checks that
what it finds is still the element the box hit when the step was planned: a list reordered
overnight put another row's "Add to cart" under the remembered box, and the replay tapped it
(the ai step "added the red mug" by adding the blue one). Real litellm over HTTP against the
scripted model server (a thread), a FakeDevice and `run_case`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from farm.agent.actions import Locate, Tap, as_planned
from farm.agent.tasks import remember_box
from farm.cache.locate import positional
from farm.cache.store import MemoryStore
from farm.cache.xpaths import candidates
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice
from farm.results import CaseResult
from farm.suite.model import Step
from farm.suite.vars import Variables
from tests.support.agent_scripts import steps_done
from tests.support.box_plan_nights_s43r import night as box_night
from tests.support.model_server import ModelServer, message_texts, serve


def shop(order: list[str]) -> FakeDevice:
    """A list of mugs, one row each: its name and an "Add to cart" button (no id, the same
    text in every row: no XPath names one button, so the plan keeps the box)."""
    nodes = []
    for i, name in enumerate(order):
        row = 3 * i
        nodes += [UINode(id=row, role="listitem", resource_id=f"row-{name}",
                         rect=Rect(x=0, y=100 * i, width=1280, height=100)),
                  UINode(id=row + 1, role="text", text=f"{name} Mug", parent=row,
                         rect=Rect(x=10, y=100 * i + 10, width=100, height=30)),
                  UINode(id=row + 2, role="button", text="Add to cart", clickable=True,
                         parent=row, rect=Rect(x=600, y=100 * i + 30, width=200, height=40))]
    screens = {"list": UITree(source="dom", page_text="Mugs", nodes=nodes)}
    for name in order:
        screens[name] = UITree(source="dom", page_text=f"{name} Mug added", nodes=[
            UINode(id=0, role="text", text=f"{name} Mug added",
                   rect=Rect(x=10, y=10, width=300, height=30))])
    return FakeDevice(screens=screens, start="list",
                      transitions={f"row-{name}": name for name in order})


def red_mug(where: dict[str, int]):
    """The model taps the red mug's button (at ``where["y"]``, 0-1000), then is done."""
    def script(body: dict, index: int) -> str:
        if steps_done(body) == 0:
            return f"Thought: red\nAction: click(start_box='(547,{where['y']})')"
        return "Thought: done\nAction: finished(content='added')"
    return script


def night(tmp_path: Path, store: MemoryStore, srv: ModelServer, dev: FakeDevice,
          platform: str = "web") -> CaseResult:
    return box_night(tmp_path, store, srv, dev, [Step(kind="ai", value="add the red mug"),
                                                Step(kind="assertText", value="Red Mug added")],
                     platform)


def told(srv: ModelServer, first: int) -> str:
    return "\n".join(t for body in srv.requests[first:] for t in message_texts(body))


def test_a_reordered_list_is_planned_again_not_the_other_rows_button_tapped(tmp_path, server):
    where = {"y": 188}                     # the second row: (700, 150) on 1280×800
    srv = serve(server, red_mug(where))
    store = MemoryStore()
    first = night(tmp_path, store, srv, shop(["Blue", "Red", "Green"]))
    assert first.status == "passed", first.error
    solved = len(srv.requests)

    same = shop(["Blue", "Red", "Green"])     # nothing changed: replayed, no model call
    again = night(tmp_path, store, srv, same)
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == "hit" and len(srv.requests) == solved
    assert same.screen == "Red"

    where["y"] = 63                           # the red mug moved to the first row
    moved = shop(["Red", "Blue", "Green"])
    night3 = night(tmp_path, store, srv, moved)
    assert night3.status == "passed", night3.error
    assert moved.screen == "Red"
    assert ("tap", 700, 150) not in moved.actions      # Blue's button, under the old box
    assert night3.steps[0].cache.plan == "replanned"
    said = told(srv, solved)
    assert ("Step 1 of the remembered plan failed: Locate the remembered box "
            "[696, 146, 9, 9] failed: the remembered box [696, 146, 9, 9] now hits a button "
            "\"add to cart\" among 'blue mug', not what it hit when the step was planned "
            "(a button \"add to cart\" among 'red mug')") in said



def test_what_the_box_hit_is_kept_without_a_secret_the_row_showed():
    """The strings kept of the element and its row leave out one holding a secret's value
    (told apart before it is case-folded)."""
    secret = "Qx7Rm2-Secret"
    dev = shop(["Blue", "Red", "Green"])
    nodes = dev.screens["list"].nodes
    nodes[4] = nodes[4].model_copy(update={"text": f"Red Mug {secret}"})
    mask = Variables({"S": secret}, secrets=["S"]).mask
    loc = Locate(rect=Rect(x=696, y=146, width=9, height=9))
    remember_box(loc, dev, lambda text: mask(text) == text)
    assert loc.was == {"role": "button", "shown": ["add to cart"], "around": [],
                       "size": [200, 40]}
    assert "qx7rm2" not in json.dumps(loc.was).lower()
    remember_box(loc, dev)
    assert loc.was is not None and loc.was["around"] == [f"red mug {secret.lower()}"]


def phone(order: list[str]) -> FakeDevice:
    """`shop` as a phone's uiautomator tree: the button is named by its place in the list
    (an XPath of positions), which selects whatever row is there now."""
    dev = shop(order)
    rows = dev.screens["list"].nodes
    root = UINode(id=99, role="android.widget.ListView",
                  rect=Rect(x=0, y=0, width=1280, height=800))
    rows = [n.model_copy(update={"parent": 99}) if n.parent is None else n for n in rows]
    dev.screens["list"] = UITree(source="uiautomator", page_text="Mugs", nodes=[root, *rows])
    tree = dev.screens["list"]
    button = tree.nodes[3]                                  # the first row's button
    path = next(x for x in candidates(tree, button) if positional(x))
    dev.xpaths = {path: [button.rect]}
    dev.platform = "android"
    return dev


def test_a_phone_list_reordered_is_planned_again_not_the_other_rows_button_tapped(
        tmp_path, server):
    where = {"y": 63}                     # the first row
    srv = serve(server, red_mug(where))
    store = MemoryStore()
    assert night(tmp_path, store, srv, phone(["Red", "Blue"]), "android").status == "passed"
    [plan] = [v for _, v in store.items() if v.get("type") == "plan"]
    assert positional(plan["actions"][0]["params"]["locate"]["xpath"])
    solved = len(srv.requests)
    where["y"] = 188
    moved = phone(["Blue", "Red"])
    moved.xpaths = {k: [moved.screens["list"].nodes[3].rect] for k in moved.xpaths}
    again = night(tmp_path, store, srv, moved, "android")
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == "replanned" and moved.screen == "Red"
    assert "among 'blue mug', not what it hit when the step was planned" in told(srv, solved)


def test_a_box_on_a_button_showing_a_secret_is_not_named_by_that_text():
    """The XPath a box-only target is remembered by never holds a secret's value (an entry
    holding one is not kept: the plan never cached, the model paid every night): a button
    showing 'Copy Qx7Rm2-Secret' is kept by its box."""
    secret = "Qx7Rm2-Secret"
    button = UINode(id=0, role="button", text=f"Copy {secret}", clickable=True,
                    rect=Rect(x=600, y=30, width=200, height=40))
    tree = UITree(source="dom", page_text="", nodes=[button])
    dev = FakeDevice(tree, xpaths={x: [button.rect] for x in candidates(tree, button)})
    assert any(secret in x for x in dev.xpaths)
    mask = Variables({"S": secret}, secrets=["S"]).mask
    loc = Locate(rect=Rect(x=696, y=46, width=9, height=9))
    remember_box(loc, dev, lambda text: mask(text) == text)
    assert loc.anchor is None and loc.at is not None
    assert secret not in json.dumps(as_planned(Tap(locate=loc)))


@pytest.mark.parametrize("seen", [5, {"shown": 5}, {"around": "red mug"}, {"role": ["x"]}])
def test_a_hand_edited_record_of_what_the_box_hit_is_replayed_unchecked(tmp_path, server,
                                                                         seen):
    """An entry whose ``seen`` is not what farm writes (edited by hand in a shared Redis)
    replays as an entry from before it was kept: no check, no internal error."""
    srv = serve(server, red_mug({"y": 188}))
    store = MemoryStore()
    assert night(tmp_path, store, srv, shop(["Blue", "Red", "Green"])).status == "passed"
    [(key, plan)] = [(k, v) for k, v in store.items() if v.get("type") == "plan"]
    plan["actions"][0]["seen"] = {"locate": seen}
    store.put(key, plan)
    again = night(tmp_path, store, srv, shop(["Blue", "Red", "Green"]))
    assert again.status == "passed", again.error
    assert again.steps[0].cache.plan == "hit"
