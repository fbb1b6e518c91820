"""What the locate cache saves is visible: a warm run of aiTap steps the model located the
first night printed no saving and each step's `saved` was null. Now an entry a model tier
found keeps what finding it cost (`found_with`) and a step that uses it instead of asking the
model records that as its `saved`; an entry the text tier found saves no model call."""

from __future__ import annotations

import pytest

from farm.agent.locator import LocateHit, LocatorChain, TextMatchTier
from farm.cache.case import CaseCache
from farm.cache.locate import LocateCacheTier
from farm.cache.store import MemoryStore
from farm.usage import Usage
from tests.unit.test_cache_stale_forgotten_s44c import GEAR, NS, PROMPT, TWIN, page

SPEND = Usage(calls=1, prompt_tokens=1200, completion_tokens=30, cost_usd=0.0031)


class Model:
    """The model tier: finds the target at GEAR, its call adding SPEND to ``usage``."""
    name = "ai"

    def __init__(self, usage: Usage) -> None:
        self.usage, self.calls = usage, 0

    def locate(self, prompt, ctx):
        self.calls += 1
        self.usage.add(SPEND)
        return LocateHit(GEAR, "ai")


def night(store: MemoryStore, prompt: str = PROMPT):
    """One run's step: (the tier that found ``prompt``, the step's CacheUse, model calls)."""
    usage = Usage(calls=3, prompt_tokens=5000)      # (what earlier steps of the case spent)
    cache = CaseCache(store, NS, "read-write")
    cache.usage = lambda: usage
    cache.begin_step()
    tier, model = LocateCacheTier(cache), Model(usage)
    device = page(("gear", GEAR, ""), ("cog", TWIN, "Cog"))
    hit = LocatorChain([tier, TextMatchTier(), model], has_model_tier=True,
                       on_hit=tier.remember).locate(prompt, device)
    return hit.tier, cache.end_step(), model.calls


def test_a_hit_on_a_model_found_entry_saves_what_finding_it_cost():
    store = MemoryStore()
    tier, use, calls = night(store)
    assert (tier, calls, use.saved) == ("ai", 1, None)
    [(_, entry)] = list(store.items())
    assert entry["found_with"] == {"calls": 1, "tokens": 1230, "cost_usd": 0.0031}
    tier, use, calls = night(store)
    assert (tier, calls) == ("cache", 0)
    assert use.saved == {"calls": 1, "tokens": 1230, "cost_usd": 0.0031, "locates": 1}


def test_an_entry_from_before_farm_kept_its_cost_saves_one_call_of_unknown_tokens():
    store = MemoryStore()
    night(store)
    key, entry = next(store.items())
    del entry["found_with"]
    store.put(key, entry)
    tier, use, _ = night(store)
    assert tier == "cache"
    assert use.saved == {"calls": 1, "tokens": None, "cost_usd": None, "locates": 1}


def test_a_text_tier_find_saves_no_model_call():
    store = MemoryStore()
    tier, use, _ = night(store, "Cog")
    assert tier == "text" and use.saved is None
    tier, use, calls = night(store, "Cog")
    assert (tier, calls) == ("text", 0) and (use is None or use.saved is None)


@pytest.fixture
def here(tmp_path, monkeypatch):
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_ls_says_what_the_model_found_locate_entries_save(here, monkeypatch, capsys):
    from farm.cache.keys import Namespace
    from farm.cache.sqlite_store import SqliteStore
    from tests.support.farm_cli import run_main
    db = SqliteStore(here / ".farm" / "cache.db")
    for case_id, tier, cost in (("s/a", "ai", {"calls": 1, "tokens": 1230, "cost_usd": 0.003}),
                                ("s/b", "ai", None), ("s/c", "text", None)):
        db.put(Namespace(case_id, "web").key("locate", "the gear icon", 0), {
            "type": "locate", "prompt": "the gear icon", "xpaths": ["//*[@id='gear']"],
            "tier": tier, **({"found_with": cost} if cost else {})})
    db.close()
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "s")
    assert code == 0
    assert "//*[@id='gear'], found with 1 model call(s), 1,230 tokens, $0.0030  (" in out, out
    assert "//*[@id='gear'], found with 1 model call(s)  (" in out, out    # before farm kept it
    assert out.splitlines()[-1] == ("3 entries in .farm/cache.db; their 2 model-found locate "
                                    "entries save 2 model call(s) a run"), out
