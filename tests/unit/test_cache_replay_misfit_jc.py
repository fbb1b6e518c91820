"""A replayed plan that did not fit its screen keeps nothing it used or wrote.

A plan cached with `Tap "Log in"`, replayed with no model on an app whose button now says
"Sign in": the text tier matched the paragraph "Log in to continue shopping.", the replay
stopped at a later step, the case was skipped, and both the plan and a locate entry for the
paragraph were kept (replayed, and tapped, every night). Now neither is kept, and a
replayed target found again as another kind of element stops the replay at that step."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocatorChain, TextMatchTier
from farm.cache.case import CaseCache
from farm.cache.keys import Namespace
from farm.cache.locate import LocateCacheTier, RoleChanged
from farm.cache.store import MemoryStore
from farm.devices.base import Rect, UINode, UITree
from farm.devices.fake import FakeDevice

NS = Namespace("suite/ai_shopping", "web")
TASK = "log in as demo"
BUTTON = Rect(x=300, y=400, width=120, height=40)
PARA = Rect(x=300, y=200, width=400, height=20)


def app(button: str) -> FakeDevice:
    nodes = [UINode(id=0, role="body", rect=Rect(x=0, y=0, width=800, height=600)),
             UINode(id=1, parent=0, role="p", rect=PARA, resource_id="login-subtitle",
                    text="Log in to continue shopping."),
             UINode(id=2, parent=0, role="button", rect=BUTTON, clickable=True,
                    resource_id="login", text=button)]
    return FakeDevice(UITree(source="dom", nodes=nodes), size=(800, 600),
                      xpaths={"//*[@id='login-subtitle']": [PARA], "//*[@id='login']": [BUTTON]})


def locate(cache: CaseCache, device: FakeDevice, prompt: str = "Log in"):
    tier = LocateCacheTier(cache)
    return LocatorChain([tier, TextMatchTier()], on_hit=tier.remember).locate(prompt, device)


def cached_v1(store: MemoryStore) -> str:
    """v1: the plan and the button's locate entry, from a run that passed."""
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    assert locate(cache, app("Log in")).rect == BUTTON
    plan_key = cache.slot("plan", TASK)
    cache.save(plan_key, "plan", TASK, {"actions": [{"type": "Tap", "params": {}}]})
    cache.end_step()
    cache.finish("passed")
    assert store.get(plan_key) is not None
    return plan_key


def test_a_replay_that_did_not_fit_keeps_nothing_it_wrote_on_a_skipped_case():
    store = MemoryStore()
    plan_key = cached_v1(store)
    # the entry is from before: the paragraph's locate written, as with no role check
    store.delete(NS.key("locate", "Log in", 0))
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    assert cache.slot("plan", TASK) == plan_key
    since = cache.mark()
    cache.replaying = True
    assert locate(cache, app("Sign in")).rect == PARA        # the misplaced tap
    cache.replaying = False
    cache.misfit(plan_key, since)                            # a later action failed
    use = cache.end_step()
    assert use is not None and use.written == 1
    cache.finish("skipped")
    assert list(store.items()) == []            # `farm cache ls`: nothing left to replay
    assert use.written == 0                     # results.json does not say "written: 1"


def test_a_replanned_step_keeps_the_models_plan_when_the_case_passes():
    store = MemoryStore()
    plan_key = cached_v1(store)
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    cache.slot("plan", TASK)
    cache.misfit(plan_key, cache.mark())
    cache.save(plan_key, "plan", TASK, {"actions": [{"type": "Tap", "params": {"n": 2}}]})
    cache.end_step()
    cache.finish("passed")
    assert store.get(plan_key)["actions"] == [{"type": "Tap", "params": {"n": 2}}]


def test_a_replayed_target_found_as_another_kind_of_element_does_not_fit():
    store = MemoryStore()
    cached_v1(store)
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    cache.replaying = True
    with pytest.raises(RoleChanged) as raised:
        locate(cache, app("Sign in"))
    assert 'a p "log in to continue shopping."' in str(raised.value)
    assert 'a button "log in"' in str(raised.value)
    cache.replaying = False
    cache.end_step()
    cache.finish("skipped")
    assert [e["element"]["role"] for _, e in store.items() if e["type"] == "locate"] == \
        ["button"]


def test_outside_a_replay_the_text_tier_decides_as_before():
    store = MemoryStore()
    cached_v1(store)
    cache = CaseCache(store, NS, "read-write")
    cache.begin_step()
    assert locate(cache, app("Sign in")).rect == PARA
