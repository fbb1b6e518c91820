"""Where farm's own Python CPU goes in `farm run` of the demo's zero-token cases on browser:1
(the run bench/vs_playwright.py compares with plain Playwright).

Prints (1) the CPU seconds of the whole `farm run` process, of its imports alone and of a bare
interpreter (medians of --runs fresh processes, user+system of the Python process itself), and
(2) for one profiled run, its CPU by where the code lives (Playwright's client, the event loop,
farm, pydantic, imports...), then the functions with the most CPU: every thread profiled with
cProfile on its own thread's CPU clock (time.thread_time), so waits and other processes do not
count.
Shares are of the profiled run's total CPU; cProfile's own overhead inflates call-heavy code.

    .venv/bin/python bench/cpu_profile.py [--runs 3] [--top 30] [--copies 1]
                                          [--screenshots all|on-failure|off]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.vs_playwright import CASES, _suite  # noqa: E402

# Run in a child: `farm run` in-process, its CPU (time.process_time) printed at exit; with
# PROFILE set, every thread under cProfile on its own CPU clock, the merged stats dumped to that
# file.
CHILD = r"""
import os, sys, time, threading, cProfile, atexit
mode, out = sys.argv[1], os.environ.get("PROFILE")
profiles = []
def report():
    # (the process' CPU clock, all threads, ns resolution: os.times counts in 10 ms ticks)
    sys.stderr.write(f"\nCPU={time.process_time():.4f}\n")
    if out:
        import pstats
        stats = pstats.Stats(profiles[0][1])
        for thread, p in profiles[1:]:
            # a thread still running at exit (a daemon waiting, as the hang guard's): its
            # open frames would be closed on this thread's clock, a false figure; left out
            if thread is not None and thread.is_alive():
                continue
            try:
                stats.add(p)
            except TypeError:      # nothing collected
                pass
        stats.dump_stats(out)
atexit.register(report)
if out:
    run = threading.Thread.run
    def profiled(self):
        p = cProfile.Profile(time.thread_time)
        profiles.append((self, p))
        p.enable()
        try:
            run(self)
        finally:
            p.disable()
    threading.Thread.run = profiled
    main_profile = cProfile.Profile(time.thread_time)
    profiles.append((None, main_profile))
    main_profile.enable()
if mode == "bare":
    pass
elif mode == "imports":
    import gc, importlib
    # farm.cli first, as in `farm run`: it sets what must be set before pydantic is imported
    # (PYDANTIC_DISABLE_PLUGINS); in name order farm.agent.* would import pydantic before it.
    # The collector off meanwhile, as `farm run` holds it during its imports (farm.cli)
    gc.disable()
    for name in ["farm.cli", *sys.argv[2:]]:
        try:
            importlib.import_module(name)
        except Exception:      # a module that only imports as part of its package's run
            pass
else:
    sys.argv = ["farm"] + sys.argv[2:]
    from farm.cli import main
    try:
        main()
    except SystemExit:
        pass
    finally:
        if out:
            main_profile.disable()
            LOADED = sorted(sys.modules)
            with open(out + ".modules", "w") as f:
                f.write("\n".join(LOADED))
"""


def child(args: list[str], env: dict[str, str]) -> float:
    proc = subprocess.run([sys.executable, "-c", CHILD, *args], env=env, cwd=ROOT,
                          capture_output=True, text=True)
    cpu = [ln for ln in proc.stderr.splitlines() if ln.startswith("CPU=")]
    if proc.returncode not in (0, 1) or not cpu:
        raise SystemExit(f"{args[:2]} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    return float(cpu[-1].split("=", 1)[1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--screenshots", default="", help="farm run --screenshots MODE")
    ap.add_argument("--keep", type=Path, help="also save the profile (pstats) here")
    ap.add_argument("--copies", type=int, default=1, help="each case this many times in a run "
                    "(imports and start-up weigh less; the CPU line also gives CPU per case)")
    args = ap.parse_args()
    # a user's farm has its bytecode cached after the first run; this shell may forbid writing
    # it (PYTHONDONTWRITEBYTECODE), so compile once here instead of on every measured run
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "farm")],
                   stdout=subprocess.DEVNULL, check=False)
    with tempfile.TemporaryDirectory(prefix="farm-cpu-") as tmp:
        root = Path(tmp)
        env = {**os.environ, "FARM_NO_PROGRESS": "1", "FARM_STATE_DIR": str(root / "state")}
        env.pop("PROFILE", None)
        suite = _suite(CASES, root, args.copies)
        cmd = ["run", "run", str(suite), "--devices", "browser:1", "--no-progress",
               "--overwrite"] + (["--screenshots", args.screenshots] if args.screenshots else [])

        def farm_run(i: int, extra: dict[str, str] | None = None) -> float:
            return child(cmd + ["--report-dir", str(root / f"run-{i}")], {**env, **(extra or {})})

        farm_run(0)     # warm-up: the state dir, the OS file cache
        prof = root / "farm.prof"
        farm_run(1, {"PROFILE": str(prof)})
        modules = [m for m in prof.with_suffix(".prof.modules").read_text().split()
                   if not m.startswith("__main__")]
        runs = [farm_run(2 + i) for i in range(args.runs)]
        imports = [child(["imports", *modules], env) for _ in range(args.runs)]
        bare = [child(["bare"], env) for _ in range(args.runs)]
        med = statistics.median
        cases = len(CASES) * args.copies
        print(f"farm run ({cases} demo cases, browser:1): CPU {med(runs):.2f} s "
              f"(median of {args.runs}); its {len(modules)} modules imported alone: "
              f"{med(imports):.2f} s; bare interpreter {med(bare):.2f} s; per case after "
              f"imports: {(med(runs) - med(imports)) / cases * 1000:.0f} ms")
        if args.keep:
            import shutil
            shutil.copy(prof, args.keep)
        top(prof, args.top)


def top(path: Path, n: int) -> None:
    """The ``n`` functions with the most CPU including what they call (farm's, and the
    libraries' entry points), then by their own CPU."""
    import pstats
    stats = pstats.Stats(str(path))
    total = stats.total_tt or 1e-9
    rows = stats.stats  # type: ignore[attr-defined]

    def name(func: tuple[str, int, str]) -> str:
        file, line, fn = func
        for marker in ("site-packages/", "/lib/python3", str(ROOT) + "/"):
            if marker in file:
                file = file.split(marker, 1)[1]
        return f"{fn} ({file}:{line})"

    print(f"profiled run: {total:.2f} s CPU in all threads (under cProfile)")
    print("-- own time by where the code lives (the standard library's and C functions' time "
          "goes to their callers)")
    for where, seconds in sorted(by_place(rows).items(), key=lambda kv: -kv[1]):
        print(f"{seconds:7.3f} s {seconds / total:6.1%}  {where}")
    for title, key in (("cumulative (incl. callees)", 3), ("own time", 2)):
        print(f"-- top {n} by {title}")
        ranked = sorted(rows.items(), key=lambda kv: kv[1][key], reverse=True)
        for func, row in [kv for kv in ranked if kv[0][0] != "~"][:n]:
            print(f"{row[key]:7.3f} s {row[key] / total:6.1%}  {row[1]:>7} calls  {name(func)}")


IMPORTS = "imports (module bodies, importlib)"
PLACES = (   # (what, a path fragment of the code's file), first match wins
    ("Playwright's client", "/playwright/"),
    ("the event loop (asyncio, selectors, greenlet)", "/asyncio/"),
    ("the event loop (asyncio, selectors, greenlet)", "/selectors.py"),
    ("farm", str(ROOT / "farm") + "/"),
    ("pydantic", "/pydantic"),
    ("other third-party code", "site-packages/"),
)


def _place(func: tuple[str, int, str]) -> str | None:
    """Where a function's code lives; None for the standard library's and C functions (their
    time is their callers')."""
    file, _line, name = func
    if name == "<module>" or "importlib" in file:
        return IMPORTS
    return next((what for what, part in PLACES if part in file), None)


def by_place(rows: dict) -> dict[str, float]:
    """Own CPU summed by where the code lives. A function of the standard library (json, re,
    inspect, threading...) or a C function counts for whoever called it: its time is split
    among its callers by what each call cost, up to the first caller that lives somewhere."""
    shares: dict[tuple, dict[str, float]] = {}

    def share(func: tuple, depth: int = 0) -> dict[str, float]:
        where = _place(func)
        if where is not None:
            return {where: 1.0}
        if func in shares:
            return shares[func]
        callers = rows.get(func, (0, 0, 0, 0, {}))[4]
        spent = sum(edge[2] for edge in callers.values())
        out: dict[str, float] = {}
        if depth > 30 or not spent:          # the top of a thread, or a long recursion
            out = {"the standard library itself": 1.0}
        else:
            shares[func] = {"the standard library itself": 1.0}   # a cycle ends here
            for caller, edge in callers.items():
                for place, part in share(caller, depth + 1).items():
                    out[place] = out.get(place, 0.0) + part * edge[2] / spent
        shares[func] = out
        return out

    total: dict[str, float] = {}
    for func, row in rows.items():
        for place, part in share(func).items():
            total[place] = total.get(place, 0.0) + row[2] * part
    return total


if __name__ == "__main__":
    main()
