"""What a page's console costs: farm against plain Playwright on a page that logs.

One case (tap a button, wait for its text) on a page whose button logs --lines console.log
lines (a string, a number and an object each, as a development build's warnings do) before it
shows its text, and the same with no lines; each as `farm run` on browser:1 and as a plain
Playwright script (sync API, the same Chromium binary and flags, a static server in its own
process), interleaved, --runs times. Prints, side by side, the medians of the wall time and of
the CPU of the Python process, of Playwright's Node driver and of Chromium, and what the lines
added to each.

    .venv/bin/python bench/console.py [--runs 5] [--lines 5000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.vs_playwright import _measured  # noqa: E402

PAGE = """<!doctype html><html><body>
<button id="b" onclick="const n = +location.hash.slice(1) || 0;
  for (let i = 0; i < n; i++) console.log('line ' + i, i, {i});
  document.getElementById('o').textContent = 'done ' + n">Go</button>
<div id="o"></div></body></html>
"""

CASE = """name: console {n}
web:
  serve: ../site
  url: /index.html#{n}
tasks:
  - name: tap and wait
    flow:
      - aiTap: Go
      - waitForText: done {n}
"""


def plain(site: str, lines: int, chromium: str, flags: list[str]) -> None:
    """The same case in plain Playwright (imports Playwright and the standard library only)."""
    from playwright.sync_api import sync_playwright

    from bench.static_site import serve

    url = serve(site)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=flags)
        page = browser.new_context().new_page()
        page.goto(f"{url}index.html#{lines}")
        page.get_by_text("Go").click()
        page.get_by_text(f"done {lines}").wait_for()
        browser.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--plain", help=argparse.SUPPRESS)          # SITE:LINES:CHROMIUM
    ap.add_argument("flags", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.plain:
        site, lines, chromium = args.plain.split(":", 2)
        plain(site, int(lines), chromium, args.flags)
        return
    from farm.config import load_settings
    from farm.devices.chromium import BROWSER_FLAGS, find_chromium

    info = find_chromium(load_settings())
    if info is None:
        raise SystemExit("no Chromium found (apt-get install chromium or set FARM_CHROMIUM_PATH)")
    print(f"chromium: {info.path} {info.version}; {args.lines} console.log lines against none, "
          f"median of {args.runs} runs", flush=True)
    farm = str(Path(sys.executable).parent / "farm")
    with tempfile.TemporaryDirectory(prefix="farm-console-") as tmp:
        root = Path(tmp)
        (root / "site").mkdir()
        (root / "site" / "index.html").write_text(PAGE, encoding="utf-8")
        env = {**os.environ, "FARM_NO_PROGRESS": "1", "FARM_STATE_DIR": str(root / "state")}
        commands = {}
        for n in (0, args.lines):
            (root / f"s{n}").mkdir()
            (root / f"s{n}" / "case.yaml").write_text(CASE.format(n=n), encoding="utf-8")
            commands["farm", n] = [farm, "run", str(root / f"s{n}"), "--devices", "browser:1",
                                   "--no-progress", "--overwrite",
                                   "--report-dir", str(root / f"r{n}")]
            commands["plain", n] = [sys.executable, __file__, "--plain",
                                    f"{root / 'site'}:{n}:{info.path}", "--", *BROWSER_FLAGS]
        runs: dict[tuple[str, int], list[tuple[float, ...]]] = {k: [] for k in commands}
        for i in range(args.runs):
            for key in (list(commands) if i % 2 == 0 else list(commands)[::-1]):
                runs[key].append(_measured(commands[key], env))
            print(f"run {i + 1}/{args.runs} done", flush=True)
    report(runs, args.lines)


def report(runs: dict[tuple[str, int], list[tuple[float, ...]]], lines: int) -> None:
    med = statistics.median
    what = ("wall", "python CPU", "driver CPU", "browser CPU")
    print(f"{'':8s}{'lines':>7s}" + "".join(f"{w:>14s}" for w in what))
    for side in ("farm", "plain"):
        for n in (0, lines):
            print(f"{side:8s}{n:7d}" + "".join(f"{med(r[k] for r in runs[side, n]):13.2f}s"
                                               for k in range(4)))
    for side in ("farm", "plain"):
        added = [med(r[k] for r in runs[side, lines]) - med(r[k] for r in runs[side, 0])
                 for k in range(4)]
        print(f"{side}: the {lines} lines added " + ", ".join(
            f"{w} {a:+.2f} s" for w, a in zip(what, added)))


if __name__ == "__main__":
    main()
