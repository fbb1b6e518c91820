"""`farm cache ls` counts a run's saving once: a case's cached plan saves what solving it
cost (8 calls), and the locate entry the model found for one of the plan's targets ("Sign
in", 1 call) is inside that saving (night 4 saved 8 calls, not 9): listed as such, not added
to the total. A model-found locate entry of another case (an aiTap step) still counts."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

PLAN = {"type": "plan", "prompt": "log in as demo",
        "actions": [{"type": "Input", "params": {"value": "demo",
                                                 "locate": {"prompt": "Username"}}},
                    {"type": "Tap", "params": {"locate": {"prompt": "Sign in"}}}],
        "solved_with": {"calls": 8, "tokens": 13343, "cost_usd": 0.036}}


def locate(prompt: str, tier: str = "ai") -> dict:
    return {"type": "locate", "prompt": prompt, "xpaths": ["//*[@id='signin']"], "tier": tier,
            "found_with": {"calls": 1, "tokens": 818, "cost_usd": 0.0021}}


@pytest.fixture
def here(tmp_path, monkeypatch):
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_plans_model_found_target_is_not_counted_twice_agt50(here, monkeypatch, capsys):
    db = SqliteStore(here / ".farm" / "cache.db")
    shop = Namespace("s/shop", "web")
    db.put(shop.key("plan", "log in as demo", 0), PLAN)
    db.put(shop.key("locate", "Sign in", 0), locate("Sign in"))
    db.put(shop.key("locate", "Username", 0), locate("Username", "text"))
    db.put(Namespace("s/tap", "web").key("locate", "Sign in", 0), locate("Sign in"))
    db.close()
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "s")
    assert code == 0, out
    assert "found with 1 model call(s), 818 tokens, $0.0021, inside its plan's saving" in out
    assert out.splitlines()[-1] == (
        "4 entries in .farm/cache.db; replaying their plans saves 8 model call(s), 13,343 "
        "tokens, $0.0360 a run; their 1 model-found locate entry saves 1 model call(s), 818 "
        "tokens, $0.0021 a run (1 model-found locate entry of a plan's target: counted in the "
        "plan's saving)"), out
