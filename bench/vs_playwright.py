"""farm against plain Playwright on the same Chromium, side by side.

The demo's zero-token cases are written once more below in plain Playwright (sync API, a fresh
context per case, a static server for the demo app in the same process as farm's, the same
Chromium binary and flags; the plain process imports none of farm's modules). Pairs run
interleaved (farm first in odd pairs, plain first in even ones): `farm run` of the same case
files on browser:1, then the plain script, each a fresh process. Prints per-case medians and
ratios, per step (ms over plain), case start (farm: case begin → first step; plain: new
context + page + first load), case end (farm: its last step's end → the case's end;
plain: context.close), whole process wall time and the Python process' own CPU time
(user+system of the python process, not Chromium's or Playwright's driver's), then the CPU of
Playwright's Node driver (where plain Playwright's locators and waits run), of Chromium, and
of them all together, and then, by farm's step kind, its median step time (from its start to
the next step's start) against the plain script's step at the same place (where the time
goes). With --copies K
each case runs K times in each process (a longer run: start-up and imports weigh less), and the
CPU line also gives the CPU per case. With --plain-screenshots the plain side also takes what
farm's report has by default, a JPEG of the viewport after every step (page.screenshot, quality
70), as a Playwright user wanting that evidence would: what the evidence costs either way.

    .venv/bin/python bench/vs_playwright.py [--pairs 5] [--copies 1]
                                            [--screenshots all|on-failure|off]
                                            [--plain-screenshots]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEMO = ROOT / "suites" / "demo"
CASES = ["login_success", "add_to_cart", "checkout_e2e", "search_no_results"]
PASSWORD = "farm-demo-pass"


# ---- the cases in plain Playwright (each function gets a page on index.html) -----------------
def _sign_in(page, steps) -> None:
    from playwright.sync_api import expect
    steps(lambda: page.get_by_label("Username").fill("demo"))
    steps(lambda: page.get_by_label("Password").fill(PASSWORD))
    steps(lambda: page.get_by_role("button", name="Sign in").click())
    steps(lambda: expect(page.locator("body")).to_contain_text("Welcome back, demo",
                                                               timeout=5000,
                                                               use_inner_text=True))


def login_success(page, steps) -> None:
    from playwright.sync_api import expect
    body = page.locator("body")
    _sign_in(page, steps)
    steps(lambda: expect(body).to_contain_text("Cart (0)", use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Log out", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Invalid username", use_inner_text=True))


def add_to_cart(page, steps) -> None:
    from playwright.sync_api import expect
    body = page.locator("body")
    _sign_in(page, steps)
    steps(lambda: page.get_by_role("link", name="Blue Mug").click())
    steps(lambda: expect(body).to_contain_text("Back to products", timeout=5000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("$12.50", use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Cart (0)", use_inner_text=True))
    steps(lambda: page.get_by_role("button", name="Add to cart").click())
    steps(lambda: expect(body).to_contain_text("Added to cart", timeout=3000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Cart (1)", use_inner_text=True))
    steps(lambda: page.get_by_role("link", name="Back to products").click())
    steps(lambda: expect(body).to_contain_text("Search products", timeout=5000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Cart (1)", use_inner_text=True))


def checkout_e2e(page, steps) -> None:
    from playwright.sync_api import expect
    body = page.locator("body")
    _sign_in(page, steps)
    steps(lambda: page.get_by_role("link", name="Blue Mug").click())
    steps(lambda: expect(body).to_contain_text("Back to products", timeout=5000, use_inner_text=True))
    steps(lambda: page.get_by_label("Quantity").fill("2"))
    steps(lambda: page.get_by_role("button", name="Add to cart").click())
    steps(lambda: expect(body).to_contain_text("Added to cart", timeout=3000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Cart (2)", use_inner_text=True))
    steps(lambda: page.get_by_role("link", name="Cart (2)").click())
    steps(lambda: expect(body).to_contain_text("Your cart", timeout=5000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Total: $25.00", use_inner_text=True))
    steps(lambda: page.get_by_role("button", name="Checkout").click())
    steps(lambda: expect(body).to_contain_text("Shipping and payment", timeout=5000, use_inner_text=True))
    steps(lambda: page.get_by_label("Full name").fill("Ada Lovelace"))
    steps(lambda: page.get_by_label("Address").fill("12 Market Street"))
    steps(lambda: page.get_by_label("City").fill("Springfield"))
    steps(lambda: page.get_by_label("Card number").fill("4242 4242 4242 4242"))
    steps(lambda: page.get_by_role("button", name="Place order").click())
    steps(lambda: expect(body).to_contain_text("Order placed", timeout=5000, use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Order number", use_inner_text=True))
    steps(lambda: expect(body).to_contain_text("Cart (0)", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Please fill in all fields", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Card number must be 16 digits", use_inner_text=True))


def search_no_results(page, steps) -> None:
    from playwright.sync_api import expect
    body = page.locator("body")
    search = page.get_by_label("Search products")
    _sign_in(page, steps)
    steps(lambda: search.fill("zebra"))
    steps(lambda: search.press("Enter"))
    steps(lambda: expect(body).to_contain_text("No products found", timeout=3000, use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Blue Mug", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Desk Lamp", use_inner_text=True))
    steps(lambda: search.fill("lamp"))
    steps(lambda: search.press("Enter"))
    steps(lambda: expect(body).to_contain_text("Desk Lamp", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("No products found", use_inner_text=True))
    steps(lambda: expect(body).not_to_contain_text("Blue Mug", use_inner_text=True))


PLAIN = {f.__name__: f for f in (login_success, add_to_cart, checkout_e2e, search_no_results)}


def plain_run(cases: list[str], out: Path, chromium: str, flags: list[str],
              shots: bool = False) -> None:
    """One process: launch Chromium as farm does, run each case in a fresh context. It imports
    Playwright and the standard library only (none of farm's modules: their import time is
    farm's cost, not plain Playwright's) and serves the demo app itself, as `farm run` does.
    With ``shots``, a JPEG of the viewport after every step (kept in memory)."""
    from playwright.sync_api import sync_playwright

    from bench.static_site import serve

    url = serve(DEMO / "app") + "index.html"
    results = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=flags)
        for name in cases:
            durations: list[float] = []
            images: list[bytes] = []

            def steps(fn) -> None:
                t = time.monotonic()
                fn()
                if shots:
                    images.append(page.screenshot(type="jpeg", quality=70))
                durations.append(time.monotonic() - t)

            t0 = time.monotonic()
            context = browser.new_context(viewport={"width": 1280, "height": 800})
            page = context.new_page()
            page.goto(url, wait_until="load")
            start = time.monotonic() - t0
            PLAIN[name](page, steps)
            t_end = time.monotonic()
            context.close()
            results.append({"case": name, "duration": time.monotonic() - t0, "start": start,
                            "end": time.monotonic() - t_end, "steps": len(durations),
                            "times": durations})
        browser.close()
    leaked = sorted(m for m in sys.modules if m == "farm" or m.startswith("farm."))
    if leaked:     # the plain side must not pay for (or be helped by) farm's imports
        raise SystemExit(f"the plain Playwright side imported farm modules: {leaked}")
    out.write_text(json.dumps(results))


# ---- running and measuring ------------------------------------------------------------------
def _measured(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float, float]:
    """Run ``cmd``; (wall seconds, CPU seconds of that Python process alone, of its Playwright
    driver (the Node process it starts), of the browser (Chromium's processes)), polled: a
    process's last 10 ms may be missed."""
    import psutil
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    ps = psutil.Process(proc.pid)
    cpu = 0.0
    seen: dict[int, tuple[bool, float]] = {}     # pid -> (the driver?, CPU seconds so far)
    while proc.poll() is None:
        try:
            times = ps.cpu_times()
            cpu = times.user + times.system
            children = ps.children(recursive=True)
        except psutil.Error:
            children = []
        for child in children:
            try:
                t = child.cpu_times()
                seen[child.pid] = ("node" in child.name(), t.user + t.system)
            except psutil.Error:
                pass
        time.sleep(0.01)
    wall = time.monotonic() - t0
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:3])} … exited {proc.returncode}:\n{err[-2000:]}")
    driver = sum(c for node, c in seen.values() if node)
    return wall, cpu, driver, sum(c for node, c in seen.values() if not node)


def _suite(cases: list[str], into: Path, copies: int = 1) -> Path:
    """The demo's farm.yaml, app and ``cases``; each case file ``copies`` times (copy k as
    ``<case>~k.yaml``, its name ending in "(k)")."""
    suite = into / "suite"
    suite.mkdir()
    shutil.copy(DEMO / "farm.yaml", suite)
    (suite / "app").symlink_to(DEMO / "app")
    for name in cases:
        text = (DEMO / f"{name}.yaml").read_text(encoding="utf-8")
        (suite / f"{name}.yaml").write_text(text, encoding="utf-8")
        for k in range(2, copies + 1):
            renamed = re.sub(r"^name: (.*)$", rf"name: \1 ({k})", text, count=1, flags=re.M)
            (suite / f"{name}~{k}.yaml").write_text(renamed, encoding="utf-8")
    return suite


def _iso(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def farm_pair(suite: Path, report: Path, shots: str, env: dict[str, str]) -> dict:
    farm = str(Path(sys.executable).parent / "farm")
    cmd = [farm, "run", str(suite), "--devices", "browser:1", "--report-dir", str(report),
           "--overwrite", "--no-progress"]
    if shots:
        cmd += ["--screenshots", shots]
    wall, cpu, driver, browser = _measured(cmd, env)
    data = json.loads((report / "results.json").read_text())
    cases: dict[str, list[dict]] = {}
    for c in data["cases"]:
        name = Path(c["file"]).stem.partition("~")[0]
        first = next((s["started"] for s in c["steps"] if s.get("started")), c["started"])
        cases.setdefault(name, []).append({
            "duration": c["duration"], "start": _iso(first) - _iso(c["started"]),
            "end": _end(c), "steps": len(c["steps"]), "status": c["status"],
            "times": _spans(c["steps"])})
    return {"wall": wall, "cpu": cpu, "driver": driver, "browser": browser, "cases": cases,
            "count": len(data["cases"])}


def _end(case: dict) -> float:
    """Seconds from the end of a farm case's last step to the end of the case: the wait for
    its last after-image, its report files, the context's close."""
    last = case["steps"][-1] if case["steps"] else None
    if last is None or not last.get("started"):
        return 0.0
    done = _iso(last["started"]) + (last.get("duration") or 0.0) - _iso(case["started"])
    return max(case["duration"] - done, 0.0)


def _spans(steps: list[dict]) -> list[tuple[str, float]]:
    """(kind, seconds) of each step of a farm case, from its start to the next step's start:
    what happens after a step and before the next one (the wait for a navigation the step
    started, the start of its after-image) counts to it, as a plain Playwright click's wait
    for its navigation counts to the click. The last step: its own duration."""
    starts = [_iso(s["started"]) if s.get("started") else None for s in steps]
    out = []
    for i, step in enumerate(steps):
        nxt = starts[i + 1] if i + 1 < len(steps) else None
        span = nxt - starts[i] if nxt is not None and starts[i] is not None else None
        out.append((step["kind"], span if span is not None else step.get("duration") or 0.0))
    return out


def plain_pair(cases: list[str], out: Path, env: dict[str, str], chromium: str,
               shots: bool = False) -> dict:
    from farm.devices.chromium import BROWSER_FLAGS

    wall, cpu, driver, browser = _measured(
        [sys.executable, __file__, "--plain", str(out), "--chromium", chromium,
         "--cases", ",".join(cases), *(["--plain-screenshots"] if shots else []),
         "--", *BROWSER_FLAGS], env)
    cases: dict[str, list[dict]] = {}
    for r in json.loads(out.read_text()):
        cases.setdefault(r["case"], []).append(r)
    return {"wall": wall, "cpu": cpu, "driver": driver, "browser": browser, "cases": cases,
            "count": sum(map(len, cases.values()))}


def report(cases: list[str], farm: list[dict], plain: list[dict]) -> None:
    med = statistics.median
    print(f"{'case':<20} {'steps':>5} {'farm s':>8} {'plain s':>8} {'ratio':>6} "
          f"{'per step +ms':>12} {'start farm ms':>13} {'start plain ms':>14}")
    ratios, overs, starts, ends = [], [], [], []
    for name in cases:
        f = [x for r in farm for x in r["cases"][name]]
        p = [x for r in plain for x in r["cases"][name]]
        bad = {x["status"] for x in f} - {"passed"}
        fd, pd = med(x["duration"] for x in f), med(x["duration"] for x in p)
        fs, ps = med(x["start"] for x in f), med(x["start"] for x in p)
        n = f[0]["steps"]
        over = ((fd - fs) - (pd - ps)) / n * 1000
        ratios.append(fd / pd)
        overs.append(over)
        starts.append((fs - ps) * 1000)
        ends.append((med(x["end"] for x in f) * 1000, med(x["end"] for x in p) * 1000))
        print(f"{name:<20} {n:>5} {fd:>8.3f} {pd:>8.3f} {fd / pd:>6.2f} {over:>12.1f} "
              f"{fs * 1000:>13.0f} {ps * 1000:>14.0f}" + (f"  (farm: {bad})" if bad else ""))
    fw, pw = med(r["wall"] for r in farm), med(r["wall"] for r in plain)
    fc, pc = med(r["cpu"] for r in farm), med(r["cpu"] for r in plain)
    print(f"case time farm/plain: {statistics.mean(ratios):.2f}x (mean of per-case medians; "
          f"target <= 1.15)")
    print(f"per step: farm {statistics.mean(overs):+.1f} ms over plain (target <= 20)")
    print(f"case start: farm {statistics.mean(starts):+.0f} ms over context+page+first load "
          f"(target within 50)")
    fe, pe = (statistics.mean(e[i] for e in ends) for i in (0, 1))
    print(f"case end: farm {fe:.0f} ms from its last step's end (its last after-image, report "
          f"files, the context's close), plain {pe:.0f} ms (context.close)")
    print(f"whole process: farm {fw:.2f} s, plain {pw:.2f} s, {fw / pw:.2f}x")
    many = farm[0]["count"] > len(cases)

    def per_case(f: float, p: float) -> str:
        """With --copies: the same CPU divided by the cases of a run (start-up included)."""
        if not many:
            return ""
        return (f"; per case ({farm[0]['count']} in a run): farm "
                f"{f / farm[0]['count'] * 1000:.0f} ms, plain "
                f"{p / plain[0]['count'] * 1000:.0f} ms")
    print(f"python CPU: farm {fc:.2f} s, plain {pc:.2f} s, {fc / pc:.2f}x (target <= 1.5)"
          + per_case(fc, pc))
    # what plain Playwright's Python does not do itself, its Node driver does (locators,
    # actionability, auto-waits): the two together are what the machine pays, Chromium aside
    fd, pd = med(r["driver"] for r in farm), med(r["driver"] for r in plain)
    ft, pt = med(r["cpu"] + r["driver"] for r in farm), med(r["cpu"] + r["driver"] for r in plain)
    print(f"driver CPU (Playwright's Node process): farm {fd:.2f} s, plain {pd:.2f} s; "
          f"python + driver: farm {ft:.2f} s, plain {pt:.2f} s, {ft / pt:.2f}x"
          + per_case(ft, pt))
    fb, pb = med(r["browser"] for r in farm), med(r["browser"] for r in plain)
    fa = med(r["cpu"] + r["driver"] + r["browser"] for r in farm)
    pa = med(r["cpu"] + r["driver"] + r["browser"] for r in plain)
    print(f"browser CPU (Chromium's processes): farm {fb:.2f} s, plain {pb:.2f} s; all "
          f"together: farm {fa:.2f} s, plain {pa:.2f} s, {fa / pa:.2f}x" + per_case(fa, pa))
    by_kind(cases, farm, plain)


# what each of farm's step kinds is in the plain script
PLAIN_KIND = {"aiInput": "fill", "aiTap": "click", "aiKeyboardPress": "press",
              "waitForText": "expect, with a timeout", "assertText": "expect",
              "assertNoText": "expect not"}


def by_kind(cases: list[str], farm: list[dict], plain: list[dict]) -> None:
    """Median step time by farm's step kind against the plain script's step at the same place
    of the same case in the same pair (the cases are written step for step), and the median of
    their differences: where a case's time goes."""
    steps: dict[str, list[tuple[float, float]]] = {}
    for f_run, p_run in zip(farm, plain):
        for name in cases:
            for f, p in zip(f_run["cases"][name], p_run["cases"][name]):
                if len(f["times"]) != len(p["times"]):
                    continue
                for (kind, fs), ps in zip(f["times"], p["times"]):
                    steps.setdefault(kind, []).append((fs, ps))
    print("by step kind (each of farm's steps, start to the next step's start, against the "
          "plain script's step at its place):")
    med = statistics.median
    for kind, pairs in sorted(steps.items(), key=lambda kv: -len(kv[1])):
        fm, pm = med(f for f, _ in pairs) * 1000, med(p for _, p in pairs) * 1000
        diff = med(f - p for f, p in pairs) * 1000
        print(f"  {kind:<16} {'(' + PLAIN_KIND.get(kind, '?') + ')':<24} {len(pairs):>4} steps"
              f"  farm {fm:6.1f} ms  plain {pm:6.1f} ms  difference {diff:+6.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--copies", type=int, default=1, help="run each case this many times in "
                    "each process (default 1)")
    ap.add_argument("--screenshots", default="", help="farm run --screenshots MODE "
                    "(default: farm's default)")
    ap.add_argument("--plain-screenshots", action="store_true", help="plain Playwright also "
                    "takes a JPEG after every step (page.screenshot), as farm's report has")
    ap.add_argument("--plain", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--chromium", help=argparse.SUPPRESS)
    ap.add_argument("flags", nargs="*", help=argparse.SUPPRESS)
    args = ap.parse_args()
    cases = [c for c in args.cases.split(",") if c]
    if args.plain:
        plain_run(cases, args.plain, args.chromium, args.flags, args.plain_screenshots)
        return
    from farm.config import load_settings
    from farm.devices.chromium import find_chromium

    info = find_chromium(load_settings())
    if info is None:
        raise SystemExit("no Chromium found (apt-get install chromium or set FARM_CHROMIUM_PATH)")
    # an installed farm has its bytecode cached after the first run; this shell may forbid
    # writing it (PYTHONDONTWRITEBYTECODE), which would make every measured process (farm's and
    # the plain script, which imports farm's app server) recompile: compile once, up front
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "farm"),
                    str(ROOT / "bench")], stdout=subprocess.DEVNULL, check=False)
    # both sides launch this binary (farm finds the same one: the same settings)
    print(f"chromium: {info.path} {info.version}; farm screenshots: "
          f"{args.screenshots or 'default (all)'}; plain Playwright: "
          f"{'a JPEG after every step' if args.plain_screenshots else 'no screenshots'}",
          flush=True)
    env = {**os.environ, "FARM_NO_PROGRESS": "1"}
    farm, plain = [], []
    with tempfile.TemporaryDirectory(prefix="farm-vs-pw-") as tmp:
        root = Path(tmp)
        env["FARM_STATE_DIR"] = str(root / "state")
        suite = _suite(cases, root, args.copies)
        for i in range(args.pairs):
            runs = [lambda: farm.append(farm_pair(suite, root / f"farm-{i}", args.screenshots,
                                                  env)),
                    lambda: plain.append(plain_pair(cases * args.copies,
                                                    root / f"plain-{i}.json", env, info.path,
                                                    args.plain_screenshots))]
            for run in (runs if i % 2 == 0 else runs[::-1]):
                run()
            print(f"pair {i + 1}/{args.pairs}: farm {farm[-1]['wall']:.2f} s, "
                  f"plain {plain[-1]['wall']:.2f} s", flush=True)
    report(cases, farm, plain)


if __name__ == "__main__":
    main()
