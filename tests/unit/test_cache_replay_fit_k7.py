"""A replayed plan's misfit, judged less bluntly (review of 5f6521c).

- A replayed target found again as another element of the same kind (a `<button>` restyled
  as an `<a>`, an Android Button now a MaterialButton) still fits; plain text where a control
  was (the paragraph "Log in to continue shopping." where the button "Log in" was) does not.
- The entries of the replay's actions that fitted before the one that did not ("tap Menu"
  before a "tap Settings" that failed) are kept; only the plan and what the failing action
  used or wrote are dropped.
- A failed case's entries are dropped once: one line each in farm.log, one delete each."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import pytest

import farm.cache.plan as plan_module
from farm.agent.locator import LocatorChain, TextMatchTier
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier, same_kind
from farm.cache.plan import PlanCache
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice

NS = Namespace("suite/settings", "web")
TASK = "open the settings"
BUTTON = Rect(x=300, y=400, width=120, height=40)


def page(tag: str, text: str = "Log in") -> FakeDevice:
    nodes = [UINode(id=0, role="body", rect=Rect(x=0, y=0, width=800, height=600)),
             UINode(id=1, parent=0, role=tag, rect=BUTTON, clickable=True,
                    resource_id="login", text=text)]
    return FakeDevice(UITree(source="dom", nodes=nodes), size=(800, 600),
                      xpaths={"//*[@id='login']": [BUTTON]})


def locate(cache: CaseCache, device: FakeDevice, prompt: str = "Log in"):
    tier = LocateCacheTier(cache)
    return LocatorChain([tier, TextMatchTier()], on_hit=tier.remember).locate(prompt, device)


def test_a_button_restyled_as_a_link_still_fits_the_replay():
    store = MemoryStore()
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    assert locate(cache, page("button")).rect == BUTTON
    cache.end_step()
    cache.finish("passed")
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    cache.replaying = True
    assert locate(cache, page("a", "Log in")).rect == BUTTON      # no RoleChanged
    cache.replaying = False


def _node(role: str, clickable: bool = False, editable: bool = False) -> tuple[UINode, UITree]:
    node = UINode(id=0, role=role, rect=BUTTON, clickable=clickable, editable=editable)
    return node, UITree(source="dom", nodes=[node])


@pytest.mark.parametrize("was, now, fits", [
    ("button", _node("a", clickable=True), True),
    ("a", _node("button", clickable=True), True),
    ("android.widget.Button", _node("com.google.android.material.button.MaterialButton"), True),
    ("android.widget.Button", _node("android.widget.ImageButton"), True),
    ("android.widget.Button", _node("android.widget.TextView", clickable=True), True),
    ("input:text", _node("textarea", editable=True), True),
    ("input:checkbox", _node("input:radio"), True),
    ("div", _node("span"), True),
    ("button", _node("p"), False),                # the paragraph where the button was
    ("android.widget.Button", _node("android.widget.TextView"), False),
    ("button", _node("input:text", clickable=True, editable=True), False),
    ("input:text", _node("button", clickable=True), False),
])
def test_same_kind(was, now, fits):
    assert same_kind(was, *now) is fits


def _stored(store: MemoryStore, prompt: str) -> str:
    key = NS.key("locate", prompt, 0)
    store.put(key, {"type": "locate", "prompt": prompt, "xpaths": [f"//*[@id='{prompt}']"],
                    "rect": [0, 0, 10, 10], "tier": "model", "updated": 0})
    return key


def replay_menu_then_settings(monkeypatch, store: MemoryStore) -> tuple[CaseCache, PlanCache]:
    """A cached plan "tap Menu" (fits: its entry hit), "tap Settings" (did not fit), replayed
    with a model that then plans the step again."""
    plan_key = NS.key("plan", TASK, 0)
    store.put(plan_key, {"type": "plan", "prompt": TASK, "updated": 0,
                         "actions": [{"type": "Tap", "p": "Menu"},
                                     {"type": "Tap", "p": "Settings"}]})
    menu, settings = _stored(store, "Menu"), _stored(store, "Settings")
    cache = CaseCache(store, NS, "read-write")

    def run_one(planned, loop, runner, screen=None):
        cache.note_used(menu if planned["p"] == "Menu" else settings)
        return None if planned["p"] == "Menu" else ("Tap Settings failed: gone", logging.INFO)

    monkeypatch.setattr(plan_module, "_run_one", run_one)
    cache.begin_step()
    plan = PlanCache(cache, TASK)
    loop = SimpleNamespace(agent=None, models=object(), feedback=lambda text: None)
    assert plan.replay(loop, SimpleNamespace(ctx=SimpleNamespace(device=None))) is False
    assert plan.misfit is not None and plan.misfit[0] == 2
    return cache, plan


def test_an_action_that_fitted_before_the_misfit_keeps_its_entry(monkeypatch):
    store = MemoryStore()
    cache, _ = replay_menu_then_settings(monkeypatch, store)
    cache.save(NS.key("plan", TASK, 0), "plan", TASK,
               {"actions": [{"type": "Tap", "p": "Menu"}, {"type": "Tap", "p": "Gear"}]})
    cache.end_step()
    cache.finish("passed")
    left = {e["prompt"]: e for _, e in store.items()}
    assert "Menu" in left                   # fitted: not located again (and paid for)
    assert "Settings" not in left           # the misfit's
    assert left[TASK]["actions"][1]["p"] == "Gear"      # the model's new plan


def test_a_failed_cases_entries_are_dropped_once(monkeypatch, caplog):
    store = MemoryStore()
    deletes: list[str] = []
    delete = store.delete
    store.delete = lambda prefix="": (deletes.append(prefix), delete(prefix))[1]
    cache, _ = replay_menu_then_settings(monkeypatch, store)
    cache.end_step()
    with caplog.at_level(logging.INFO, logger="farm.cache"):
        cache.finish("failed", "StepFailed", "the settings page did not open")
    assert list(store.items()) == []
    assert sorted(deletes) == sorted(set(deletes))      # no key deleted twice
    said = [r.getMessage() for r in caplog.records if "dropped" in r.getMessage()]
    assert len(said) == 2, said             # one line for the plan, one for the locates
    assert all("the case failed" in line for line in said)
