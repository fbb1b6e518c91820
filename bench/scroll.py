"""A wheel scroll step on the browser device (aiScroll): `BrowserDevice.scroll`, which returns
at the page's scrollend event, against the same wheel followed by the fixed 100 ms wait it used
before, side by side on one page (medians of --runs, alternating); then a wheel at the end of
the page, where nothing scrolls and scroll() waits its quiet time (SCROLL_QUIET_MS); then an
aiScroll to the bottom of a page three screens long (up to 10 wheels of 10 screens, stopping
at the first that moves nothing) against 10 wheels with the fixed wait each.

    .venv/bin/python bench/scroll.py [--runs 21]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from farm.agent.actions import ActionContext, Scroll  # noqa: E402
from farm.devices.browser import SCROLL_QUIET_MS, BrowserDevice  # noqa: E402
from screenshot import demo_browser  # noqa: E402  (bench/: the demo shop on a free port)

LONG_JS = "document.body.insertAdjacentHTML('beforeend', '<div style=\"height:200000px\"></div>')"


def _to_the_bottom(dev: BrowserDevice, runs: int) -> tuple[list[float], list[float]]:
    """(aiScroll scrollToBottom, 10 wheels with the fixed wait), from the top of a page three
    screens long, ``runs`` times each."""
    dev.run_script("document.body.innerHTML = '<div style=\"height:2400px\">long</div>'", 10)
    page, farm, fixed = dev._page, [], []
    ctx = ActionContext(dev, resolve=lambda text: text)
    for _ in range(runs):
        dev.run_script("window.scrollTo(0, 0)", 10)
        began = time.perf_counter()
        Scroll(scrollType="scrollToBottom").run(ctx)
        farm.append(time.perf_counter() - began)
        dev.run_script("window.scrollTo(0, 0)", 10)
        began = time.perf_counter()
        for _ in range(10):
            page.mouse.move(640, 400)
            page.mouse.wheel(0, 8000)
            page.wait_for_timeout(100)
        fixed.append(time.perf_counter() - began)
    return farm, fixed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21)
    ns = ap.parse_args()
    with demo_browser("bench-scroll") as dev:
        dev.run_script(LONG_JS, 10)
        page = dev._page
        farm, fixed = [], []
        for _ in range(ns.runs):
            began = time.perf_counter()
            dev.scroll(400, 300, 0, 300)
            farm.append(time.perf_counter() - began)
            began = time.perf_counter()
            page.mouse.move(400, 300)
            page.mouse.wheel(0, 300)
            page.wait_for_timeout(100)
            fixed.append(time.perf_counter() - began)
        dev.run_script("window.scrollTo(0, document.documentElement.scrollHeight)", 10)
        end = []
        for _ in range(max(3, ns.runs // 3)):
            began = time.perf_counter()
            dev.scroll(400, 300, 0, 300)
            end.append(time.perf_counter() - began)
        to_end, fixed_end = _to_the_bottom(dev, max(3, ns.runs // 3))
    med = statistics.median
    print(f"scroll step, median of {ns.runs}: farm {med(farm) * 1000:.1f} ms (to scrollend), "
          f"wheel + a fixed 100 ms wait {med(fixed) * 1000:.1f} ms; at the end of the page "
          f"(nothing scrolls; quiet time {SCROLL_QUIET_MS} ms) {med(end) * 1000:.1f} ms")
    print(f"aiScroll scrollToBottom, median of {len(to_end)}: farm {med(to_end) * 1000:.0f} ms, "
          f"10 wheels with a fixed 100 ms wait each {med(fixed_end) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
