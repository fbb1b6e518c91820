"""UI-tree read time of the browser device: median and worst `BrowserDevice.hierarchy()` on the
demo shop, on a shop page of 700 products (a name, a price and an "Add" button each, a labelled
search field: 2,800 elements), and on a page with far more elements than the tree keeps (capped
at MAX_NODES, as tests/integration/test_browser_device.py checks; this prints how long it
takes), and a read of the same page again while it has not changed (answered without walking
the DOM).

    .venv/bin/python bench/hierarchy.py [--runs 7] [--elements 6000] [--products 700]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from farm.devices import browser as browser_mod  # noqa: E402
from farm.devices.browser import BrowserDevice  # noqa: E402
from screenshot import demo_browser  # noqa: E402  (bench/: the demo shop on a free port)


# a long product list: per product a name, a price and a button (the walk asks each button for
# its labels); a labelled search field at the top
SHOP_JS = """document.body.innerHTML = '<label for="q">Search</label><input id="q"><ul>'
  + Array.from({length: %d}, (_, i) => `<li><span>Product ${i}</span> <span>$${i}.99</span>
    <button>Add product ${i}</button></li>`).join("") + '</ul>'"""


def _times(dev: BrowserDevice, runs: int) -> tuple[list[float], list[float], int]:
    """(full walks after a change, reads of the unchanged page again, node count)."""
    seconds, again, nodes = [], [], 0
    for _ in range(runs):
        # an attribute change: the page's change counter moves, so the next read walks
        dev.run_script("document.body.dataset.bench = String(Math.random())", 5)
        nodes = len(dev.hierarchy().nodes)
        seconds.append(dev.hierarchy_seconds or 0.0)
        dev.hierarchy()
        again.append(dev.hierarchy_seconds or 0.0)
    return seconds, again, nodes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--elements", type=int, default=6000)
    ap.add_argument("--products", type=int, default=700)
    ns = ap.parse_args()
    with demo_browser("bench-hierarchy") as dev:
        rows = [("demo shop", *_times(dev, ns.runs))]
        dev.run_script(SHOP_JS % ns.products, 30)
        rows.append((f"{ns.products} products", *_times(dev, ns.runs)))
        dev.run_script(f"document.body.innerHTML = '<p>r</p>'.repeat({ns.elements})", 30)
        rows.append((f"{ns.elements} elements", *_times(dev, ns.runs)))
    print(f"{'page':<16} {'nodes':>6} {'median ms':>10} {'max ms':>8} {'unchanged ms':>13}   "
          f"(tree cap {browser_mod.MAX_NODES}, {ns.runs} reads each)")
    for page, seconds, again, nodes in rows:
        print(f"{page:<16} {nodes:>6} {statistics.median(seconds) * 1000:>10.1f} "
              f"{max(seconds) * 1000:>8.1f} {statistics.median(again) * 1000:>13.1f}")


if __name__ == "__main__":
    main()
