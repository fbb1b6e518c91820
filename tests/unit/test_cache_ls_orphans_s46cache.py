"""`farm cache ls mine/greet` counted every plan entry in what replaying saves a run, also
the plan of a step since re-worded (`press the hello button once more` → `… one more time`),
which no run looks up again: it said 9 model calls where the next run saved 6. Now the
entries no step of the case files uses are listed apart and not counted."""

from __future__ import annotations

import pytest

from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

CASE = """name: Greeter
web:
  url: http://127.0.0.1:1/index.html
tasks:
  - name: greet
    flow:
      - aiAction: press the hello button one more time
      - ai: press the greet button
      - aiTap: Say hello
"""
TAP = {"type": "Tap", "params": {"locate": {"prompt": "Say hello"}}}
SPENT = {"calls": 3, "tokens": 3150, "cost_usd": 0.0005}


@pytest.fixture
def here(tmp_path, monkeypatch):
    for name in ("FARM_STATE_DIR", "FARM_CACHE_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "greet.yaml").write_text(CASE, encoding="utf-8")
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    ns = Namespace("mine/greet", "web")
    for prompt in ("press the hello button once more", "press the hello button one more time",
                   "press the greet button"):
        store.put(ns.key("plan", prompt, 0), {"type": "plan", "prompt": prompt,
                                              "actions": [TAP],
                                              "solved_with": SPENT})
    for n, prompt in ((0, "Say hello"), (5, "Say hello")):
        store.put(ns.key("locate", prompt, n), {"type": "locate", "prompt": prompt,
                                                "xpaths": ["//*[@id='hello']"]})
    store.close()
    return tmp_path


@pytest.mark.parametrize("selection", ["mine/greet", "mine", "mine/greet.yaml"])
def test_ls_counts_only_the_entries_a_step_still_uses(here, monkeypatch, capsys, selection):
    code, out, err = run_main(monkeypatch, capsys, "cache", "ls", selection)
    assert code == 0, err
    lines = out.splitlines()
    apart = lines.index("2 entries no step of the case files use now (a step re-worded or "
                        "removed), not counted below:")
    orphans = lines[apart + 1:apart + 3]
    assert any('"press the hello button once more"' in line for line in orphans), out
    assert any("locate#5" in line for line in orphans), out
    assert all("once more" not in line and "locate#5" not in line for line in lines[:apart])
    assert lines[-2] == ("5 entries in .farm/cache.db (2 of them used by no step); replaying "
                         "their plans saves 6 model call(s), 6,300 tokens, $0.0010 a run"), out
    assert lines[-1].startswith("no run replays them: they expire 30 d after their last use "
                                f"(FARM_CACHE_TTL_DAYS); `farm cache clear {selection}` "
                                "drops them now"), out


def test_ls_without_the_case_files_here_counts_as_before(here, monkeypatch, capsys):
    (here / "mine" / "greet.yaml").unlink()
    code, out, _ = run_main(monkeypatch, capsys, "cache", "ls", "mine/greet")
    assert code == 0
    assert out.splitlines()[-1] == ("5 entries in .farm/cache.db; replaying their plans "
                                    "saves 9 model call(s), 9,450 tokens, $0.0015 a run"), out
