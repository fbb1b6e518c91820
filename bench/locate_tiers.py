"""Median time of each locator tier finding the demo shop's "Sign in" button in Chromium:
every tier alone, each run from a fresh screen read (the tree or the screenshot it needs, as
after an action),
the model tiers against the scripted local model server (so their figure is farm's own
overhead plus a local HTTP round trip, not a real model's latency).

    .venv/bin/python bench/locate_tiers.py [--runs 7]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from farm.agent.api import Agent  # noqa: E402
from farm.agent.locator import TIER_NAMES, LocatorChain  # noqa: E402
from farm.config import Settings  # noqa: E402
from farm.devices.base import Rect  # noqa: E402
from farm.errors import NeedsModel  # noqa: E402
from screenshot import demo_browser  # noqa: E402  (bench/: the demo shop on a free port)
from tests.support.model_server import ModelServer  # noqa: E402

TARGET = "Sign in"
XPATH = "//button[@id='login-button']"
CHANGED = "window.__farm && window.__farm.gen++"   # what any DOM change does (page_state.js)


def _time_tier(agent: Agent, name: str, runs: int, box: Rect) -> tuple[float, str]:
    tiers = [t for t in agent.chain.tiers if t.name == name]
    if not tiers:
        return float("nan"), "not in the chain"
    chain = LocatorChain(tiers, has_model_tier=name in ("ai", "deep-locate"))
    hints = {"plan_rect": box, "trust_plan": True, "deep_locate": name == "deep-locate"}
    seconds, where = [], ""
    for _ in range(runs):
        agent.grabber.invalidate()          # each run pays for its own screenshot
        agent.device.run_script(CHANGED, 5)  # and its own DOM walk, as after an action
        started = time.perf_counter()
        try:
            hit = chain.locate(TARGET, agent.device, xpath=XPATH if name == "xpath" else None,
                               **hints)
        except NeedsModel as exc:       # the tier declined (e.g. OCR on a page with text)
            return time.perf_counter() - started, f"not found: {exc}"
        seconds.append(time.perf_counter() - started)
        where = str(hit.rect.as_list())
    return statistics.median(seconds), where


def _cached(agent: Agent, runs: int, path: Path, rect) -> Agent:
    """The agent with a locate cache holding ``runs`` entries for TARGET (a prompt used N
    times in a case has N entries), as a model tier leaves them (the entries the cache
    serves: one the text tier made is left to that tier)."""
    from farm.agent.locator import LocateContext, LocateHit
    from farm.cache.case import CaseCache
    from farm.cache.keys import Namespace
    from farm.cache.locate import LocateCacheTier
    from farm.cache.sqlite_store import SqliteStore

    def cache() -> CaseCache:
        return CaseCache(SqliteStore(path), Namespace("bench", "web"), "read-write")
    writer = cache()
    for _ in range(runs):
        LocateCacheTier(writer).remember(TARGET, LocateHit(rect, "ai"),
                                         LocateContext(agent.device))
    return Agent(agent.device, agent.models, cache=cache())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ns = ap.parse_args()
    with demo_browser("bench-locate") as dev:
        rect = dev.query_xpath(XPATH)[0]
        box = [rect.x, rect.y, rect.x + rect.width, rect.y + rect.height]
        # deepLocate asks about a crop of the section (its margin 32 px, upscaled x2): there the
        # button is at the margin, twice its size
        margin, zoom = 32, 2
        in_crop = [margin * zoom, margin * zoom, (margin + rect.width) * zoom,
                   (margin + rect.height) * zoom]

        def answer(body: dict, index: int) -> str:
            zoomed = "zoomed-in part of the screen" in json.dumps(body)
            return f'{{"bbox": {in_crop if zoomed else box}}}'
        with ModelServer(answer) as model:
            settings = Settings(model="openai/scripted", model_base_url=model.base_url,
                                model_family="gpt", model_api_key="x")
            agent = Agent(dev, settings)
            from farm.agent.ocr import engine
            engine()                        # model load once, as a long-lived worker has it
            with tempfile.TemporaryDirectory() as tmp:
                cached = _cached(agent, ns.runs, Path(tmp) / "cache.db", rect)
                rows = [(name, *_time_tier(cached if name == "cache" else agent, name,
                                           ns.runs, rect)) for name in TIER_NAMES]
    print(f"{'tier':<12} {'median ms':>10}   found at (demo shop, {ns.runs} runs each, "
          f"target {TARGET!r})")
    for name, median, where in rows:
        print(f"{name:<12} {median * 1000:>10.1f}   {where}")


if __name__ == "__main__":
    main()
