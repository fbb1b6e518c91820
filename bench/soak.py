"""What grows over a long run: N copies of one small zero-token demo case in one `farm run`.

A nightly runs hundreds or thousands of cases in one process on a few devices; anything kept
per case (memory never released, file descriptors, threads, zombie processes, Chromium
contexts left open, temp files) shows as a figure that climbs with the cases done. This runs
``--cases`` copies (default 300) of ``--case`` (default login_success) on ``--devices``
(default browser:2), samples the farm process and its children with psutil every ``--every``
seconds, and prints, side by side at 10% / 50% / 100% of the cases: farm's RSS, its threads,
its open fds, its child processes (zombies among them), Chromium's processes and their RSS,
Playwright's Node driver's RSS, the files in the run's own TMPDIR (a private one, so other
work on the machine does not count), the run directory's size and file count; then each
figure's growth per 100 cases (from 10% to 100%) and the report phase (from the last case's
end to the process' exit: its time and farm's peak RSS).

With ``--report-cases M`` it then builds a run directory of M cases from the run's own
results (its cases repeated, each copy with its own screenshot files) and times
`farm report` of it: wall time and peak RSS (does the report hold every screenshot?).

    .venv/bin/python bench/soak.py [--cases 300] [--devices browser:2] [--every 2]
                                   [--case login_success] [--report-cases 1200] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.vs_playwright import _suite  # noqa: E402

FIGURES = [     # (key, label, unit)
    ("rss", "farm RSS", "MB"), ("threads", "farm threads", ""), ("fds", "farm open fds", ""),
    ("children", "child processes", ""), ("zombies", "zombie children", ""),
    ("chromium", "Chromium processes", ""), ("chromium_rss", "Chromium RSS", "MB"),
    ("driver_rss", "driver (node) RSS", "MB"), ("tmp_files", "files in TMPDIR", ""),
    ("run_mb", "run dir size", "MB"), ("run_files", "run dir files", ""),
]


def _done(run_dir: Path) -> int:
    """Final case results journalled so far (lines of results.jsonl that are no marker)."""
    try:
        with (run_dir / "results.jsonl").open("rb") as f:
            return sum(1 for line in f if line.strip() and b'"journal"' not in line[:40])
    except OSError:
        return 0


def _tree(path: Path) -> tuple[int, int]:
    """(bytes, files) under ``path``."""
    size = files = 0
    for base, _, names in os.walk(path):
        for name in names:
            try:
                size += os.lstat(os.path.join(base, name)).st_size
                files += 1
            except OSError:
                pass
    return size, files


def sample(ps, run_dir: Path, tmp: Path) -> dict[str, float]:
    import psutil
    mb = 1 / (1024 * 1024)
    out = {"t": time.monotonic(), "done": _done(run_dir)}
    with ps.oneshot():
        out["rss"] = ps.memory_info().rss * mb
        out["threads"] = ps.num_threads()
        out["fds"] = ps.num_fds()
    kids = ps.children(recursive=True)
    out["children"] = len(kids)
    out["zombies"] = out["chromium"] = out["chromium_rss"] = out["driver_rss"] = 0
    for kid in kids:
        try:
            if kid.status() == psutil.STATUS_ZOMBIE:
                out["zombies"] += 1
                continue
            name, rss = kid.name(), kid.memory_info().rss * mb
        except psutil.Error:
            continue
        if "node" in name:
            out["driver_rss"] += rss
        elif "chrom" in name or "headless" in name:
            out["chromium"] += 1
            out["chromium_rss"] += rss
    out["tmp_files"] = _tree(tmp)[1]
    size, files = _tree(run_dir)
    out["run_mb"], out["run_files"] = size * mb, files
    return out


def soak(cmd: list[str], env: dict[str, str], run_dir: Path, tmp: Path, total: int,
         every: float) -> tuple[list[dict[str, float]], float, float]:
    """Run ``cmd``, sampling every ``every`` s; (samples, seconds from the last case's end
    to the exit, farm's peak RSS in that time)."""
    import psutil
    err_file = tempfile.TemporaryFile()    # (a pipe nobody reads could fill and block farm)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=err_file)
    ps = psutil.Process(proc.pid)
    samples: list[dict[str, float]] = []
    ended_at, report_peak, last_print, due = None, 0.0, 0, 0.0
    while proc.poll() is None:
        # the case count is looked at often (the last case's end is when the report phase
        # starts), the rest every ``every`` s and, once the cases are done, at every look
        if ended_at is None and time.monotonic() < due and _done(run_dir) < total:
            time.sleep(0.1)
            continue
        try:
            s = sample(ps, run_dir, tmp)
        except psutil.Error:
            break
        due = s["t"] + every
        samples.append(s)
        if s["done"] >= total and ended_at is None:
            ended_at = s["t"]
        if ended_at is not None:
            report_peak = max(report_peak, s["rss"])
            time.sleep(0.1)
        if s["done"] >= last_print + max(total // 10, 1):
            last_print = s["done"]
            print(f"  {s['done']}/{total} cases: farm RSS {s['rss']:.0f} MB, "
                  f"{s['threads']} threads, {s['fds']} fds, {s['chromium']} Chromium "
                  f"processes", flush=True)
    end = time.monotonic()
    err_file.seek(0)
    err = err_file.read().decode(errors="replace")
    if proc.wait() not in (0, 1):
        raise SystemExit(f"farm run exited {proc.returncode}:\n{err[-2000:]}")
    return samples, (end - ended_at) if ended_at else float("nan"), report_peak


def at(samples: list[dict[str, float]], count: int) -> dict[str, float]:
    """The first sample with at least ``count`` cases done; for the last case, the last
    sample before it ended (after it the devices close: nothing to compare)."""
    if count >= samples[-1]["done"]:
        return [s for s in samples if s["done"] < count][-1]
    return next(s for s in samples if s["done"] >= count)


def table(samples: list[dict[str, float]], total: int) -> None:
    marks = [at(samples, max(round(total * p), 1)) for p in (0.1, 0.5, 1.0)]
    print("\n(the last column: the last sample before the last case ended)")
    head = "".join(f"{str(int(m['done'])) + ' cases':>13}" for m in marks)
    print(f"\n{'figure':<22}{head}{'per 100 cases':>16}")
    first, last = marks[0], marks[-1]
    span = max(last["done"] - first["done"], 1)
    for key, label, unit in FIGURES:
        cells = "".join(f"{m[key]:>13.1f}" if unit else f"{m[key]:>13.0f}" for m in marks)
        growth = (last[key] - first[key]) / span * 100
        print(f"{(label + (f' ({unit})' if unit else '')):<22}{cells}{growth:>+16.2f}")


def big_report(run_dir: Path, into: Path, count: int, env: dict[str, str]) -> None:
    """A run directory of ``count`` cases made of ``run_dir``'s (each copy with artifact
    files of its own: hard links), then `farm report` of it: its time and peak RSS."""
    import psutil
    data = json.loads((run_dir / "results.json").read_text())
    cases = data["cases"]
    copies = []
    for i in range(count):
        text = json.dumps(cases[i % len(cases)])
        for folder in sorted(set(re.findall(r'"(artifacts/[^/"]+)/', text))):
            shutil.copytree(run_dir / folder, into / f"{folder}-r{i}", copy_function=os.link)
            text = text.replace(f'"{folder}/', f'"{folder}-r{i}/')
        case = json.loads(text)
        case["case_id"] = f"{case['case_id']}~r{i}"
        case["name"] = f"{case['name']} [r{i}]"
        copies.append(case)
    data["cases"] = copies
    (into / "results.json").write_text(json.dumps(data))
    files = _tree(into / "artifacts")[1]
    farm = str(Path(sys.executable).parent / "farm")
    t0 = time.monotonic()
    proc = subprocess.Popen([farm, "report", str(into)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    ps, peak = psutil.Process(proc.pid), 0.0
    while proc.poll() is None:
        try:
            peak = max(peak, ps.memory_info().rss / (1024 * 1024))
        except psutil.Error:
            break
        time.sleep(0.05)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        raise SystemExit(f"farm report exited {proc.returncode}:\n"
                         f"{proc.stderr.read().decode(errors='replace')[-2000:]}")
    size = (into / "report.html").stat().st_size / 1024
    print(f"\nfarm report of {count} cases ({files} artifact files, "
          f"{_tree(into / 'artifacts')[0] / 2**20:.0f} MB): {wall:.2f} s, peak RSS {peak:.0f} MB, "
          f"report.html {size:.0f} KB")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--case", default="login_success", help="a zero-token demo case")
    ap.add_argument("--devices", default="browser:2")
    ap.add_argument("--every", type=float, default=2.0, help="seconds between samples")
    ap.add_argument("--screenshots", default="", help="farm run --screenshots MODE")
    ap.add_argument("--report-cases", type=int, default=0, help="then time `farm report` "
                    "of a run directory of this many cases (0: not)")
    ap.add_argument("--keep", type=Path, help="copy the run directory here")
    args = ap.parse_args()
    env = {**os.environ, "FARM_NO_PROGRESS": "1"}
    with tempfile.TemporaryDirectory(prefix="farm-soak-") as tmp_root:
        root = Path(tmp_root)
        env["FARM_STATE_DIR"] = str(root / "state")
        env["TMPDIR"] = str(root / "tmp")
        (root / "tmp").mkdir()
        (root / "big").mkdir()
        suite = _suite([args.case], root, args.cases)
        run_dir = root / "run"
        farm = str(Path(sys.executable).parent / "farm")
        cmd = [farm, "run", str(suite), "--devices", args.devices, "--report-dir",
               str(run_dir), "--overwrite", "--no-progress"]
        if args.screenshots:
            cmd += ["--screenshots", args.screenshots]
        print(f"farm run: {args.cases} x {args.case} on {args.devices}, a sample every "
              f"{args.every} s", flush=True)
        t0 = time.monotonic()
        samples, tail, peak = soak(cmd, env, run_dir, root / "tmp", args.cases, args.every)
        wall = time.monotonic() - t0
        table(samples, args.cases)
        print(f"\nwhole run {wall:.0f} s; after the last case (report, close): {tail:.2f} s, "
              f"farm's peak RSS then {peak:.0f} MB; files left in TMPDIR at exit: "
              f"{_tree(root / 'tmp')[1]}")
        if args.keep:
            shutil.copytree(run_dir, args.keep, dirs_exist_ok=True)
        if args.report_cases:
            big_report(run_dir, root / "big", args.report_cases, env)


if __name__ == "__main__":
    main()
