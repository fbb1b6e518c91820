"""Screenshot figures per device kind: capture latency (median, p90) and captures per agent
loop iteration through `ScreenshotGrabber` (the plan, the locator and the report each ask for
the screen; one real capture must serve them all, then the action invalidates it).

    .venv/bin/python bench/screenshot.py [--iterations 15] [--kinds browser,android-sim,ios-sim]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from farm.config import load_settings  # noqa: E402
from farm.devices.grabber import ScreenshotGrabber  # noqa: E402
from bench.static_site import serve  # noqa: E402

PKG = "com.farm.demo.shop"
LOOKS_PER_ITERATION = 3     # plan, locate, report


def _serve_demo() -> str:
    return serve(ROOT / "suites" / "demo" / "app")


@contextmanager
def demo_browser(name: str) -> Iterator[Any]:
    """A browser device (farm's BrowserDevice) open on the demo shop, served on a free port;
    its session ended and the browser closed afterwards."""
    from farm.devices.browser import BrowserDevice
    from farm.suite.model import WebTarget
    dev = BrowserDevice(name, load_settings())
    dev.open()
    try:
        dev.start_session(WebTarget(url=_serve_demo() + "index.html"))
        yield dev
        dev.end_session()
    finally:
        dev.close()


def _device(kind: str, url: str, stack: list):
    settings = load_settings()
    if kind == "browser":
        from farm.devices.browser import BrowserDevice
        from farm.suite.model import WebTarget
        dev = BrowserDevice("browser-1", settings)
        dev.open()
        dev.start_session(WebTarget(url=url + "index.html"))
        return dev
    if kind == "android-sim":
        from farm.devices.android import AndroidDevice
        from farm.devices.sim import AndroidSimulator
        from farm.suite.model import AndroidTarget
        sim = AndroidSimulator(1, {PKG: url})
        sim.start()
        stack.append(sim)
        dev = AndroidDevice("android-sim-1", settings, sim.serials[0], port=sim.port)
        dev.open()
        dev.start_session(AndroidTarget(launch=PKG))
        return dev
    from farm.devices.ios import IosDevice
    from farm.devices.sim import IosSimulator
    from farm.suite.model import IosTarget
    isim = IosSimulator(1, {PKG: url})
    isim.start()
    stack.append(isim)
    dev = IosDevice("iphone-sim-1", settings, isim.urls[0])
    dev.open()
    dev.start_session(IosTarget(launch=PKG))
    return dev


def bench(kind: str, url: str, iterations: int) -> dict[str, float]:
    stack: list = []
    dev = _device(kind, url, stack)
    try:
        grabber = ScreenshotGrabber(dev)
        latencies = []
        for _ in range(iterations):
            for _ in range(LOOKS_PER_ITERATION):
                before = grabber.captures
                grabber.grab()
                if grabber.captures != before:
                    latencies.append(grabber.last_capture_seconds or 0.0)
            w, h = dev.size()
            dev.tap(w // 2, h - 5)        # an action on empty space: the screen may change
            grabber.invalidate()
        lat = sorted(latencies)
        return {"median_ms": statistics.median(lat) * 1000,
                "p90_ms": lat[int(0.9 * (len(lat) - 1))] * 1000,
                "captures_per_iteration": grabber.captures / iterations,
                "cache_hits": grabber.hits}
    finally:
        dev.end_session()
        dev.close()
        for sim in stack:
            sim.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=15)
    parser.add_argument("--kinds", default="browser,android-sim,ios-sim")
    args = parser.parse_args()
    url = _serve_demo()
    print(f"{'device':<13} {'median ms':>10} {'p90 ms':>8} {'captures/iteration':>19} "
          f"{'cache hits':>10}")
    for kind in args.kinds.split(","):
        r = bench(kind.strip(), url, args.iterations)
        print(f"{kind:<13} {r['median_ms']:>10.1f} {r['p90_ms']:>8.1f} "
              f"{r['captures_per_iteration']:>19.2f} {r['cache_hits']:>10}")


if __name__ == "__main__":
    main()
