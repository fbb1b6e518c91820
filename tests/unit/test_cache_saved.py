"""What the cache saves, as `farm cache ls` says it: a plan entry keeps what the model spent
solving its step (calls, tokens, cost when known), a replan keeps the first solve's figure
(a replay of the rewritten plan saves the whole solve), and the listing says it per plan and
for the selection: "replaying their plans saves 3 model call(s), 4,000 tokens, $0.0300 a
run", where nothing said what a night's replay was worth."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from farm.devices.base import UITree
from tests.support.farm_cli import run_main
from tests.unit.test_cache_units import PLAN, SHOP, _plan_xml, node, run_twice


def _plan(store) -> dict:
    [entry] = [v for _, v in store.items() if v["type"] == "plan"]
    return entry


def test_a_plan_keeps_what_solving_it_cost_and_a_replan_keeps_the_first_figure(tmp_path):
    renamed = {**SHOP, "login": UITree(source="dom", page_text="login", nodes=[
        SHOP["login"].nodes[0],
        node(1, "button", None, (10, 60, 100, 30), text="Log in", clickable=True)])}

    def script(messages, index):
        last = "\n".join(str(m["content"]) for m in messages[-1:])
        if '"bbox": []' in last:
            return '{"bbox": [], "error": "no such button"}'
        if "Step 2 of the remembered plan failed" in last:
            return _plan_xml("Tap", {"locate": {"prompt": "Log in"}})
        return PLAN[index] if index < 3 else '<complete success="true">in</complete>'

    store, [(first, c1, _), _] = run_twice(tmp_path, PLAN)
    solved = _plan(store)["solved_with"]
    assert solved["calls"] == c1.calls == 3 and solved["tokens"] == first.usage.prompt_tokens \
        + first.usage.completion_tokens > 0
    store, [(night1, _, _), (night2, _, _)] = run_twice(tmp_path, script,
                                                         second_screens=renamed)
    assert night2.steps[0].cache.plan == "replanned"
    tokens = [n.usage.prompt_tokens + n.usage.completion_tokens for n in (night1, night2)]
    assert tokens[0] != tokens[1]
    assert _plan(store)["solved_with"]["tokens"] == tokens[0]       # the first solve's


@pytest.fixture
def here(tmp_path, monkeypatch):
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_ls_says_what_replaying_the_plans_saves(here, monkeypatch, capsys):
    store = SqliteStore(here / ".farm" / "cache.db")
    for case_id, spent in (("s/a", {"calls": 2, "tokens": 3000, "cost_usd": 0.02}),
                           ("s/b", {"calls": 1, "tokens": 1000, "cost_usd": 0.01})):
        store.put(Namespace(case_id, "web").key("plan", "buy", 0), {
            "type": "plan", "prompt": "buy", "actions": [{}], "solved_with": spent})
    store.put(Namespace("s/c", "web").key("plan", "old", 0),       # from an older farm
              {"type": "plan", "prompt": "old", "actions": [{}]})
    store.close()
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "s")
    assert code == 0
    assert "1 action(s), solved with 2 model call(s), 3,000 tokens, $0.0200" in out, out
    assert out.splitlines()[-1] == ("3 entries in .farm/cache.db; replaying their plans "
                                    "saves 3 model call(s), 4,000 tokens, $0.0300 a run"), out
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "s/c")
    assert out.splitlines()[-1] == "1 entry in .farm/cache.db", out


def test_ls_counts_no_saving_for_an_empty_plan(here, monkeypatch, capsys):
    """A plan of no action (cached by an older farm: a model that answered done at once) is a
    miss now, asked of the model again: replaying it saves nothing, where ls counted its solve."""
    store = SqliteStore(here / ".farm" / "cache.db")
    for case_id, actions in (("s/a", [{}]), ("s/b", [])):
        store.put(Namespace(case_id, "web").key("plan", "buy", 0), {
            "type": "plan", "prompt": "buy", "actions": actions,
            "solved_with": {"calls": 2, "tokens": 3000, "cost_usd": 0.02}})
    store.close()
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "s")
    assert code == 0
    assert out.splitlines()[-1] == ("2 entries in .farm/cache.db; replaying their plans "
                                    "saves 2 model call(s), 3,000 tokens, $0.0200 a run"), out
