"""A Midscene batch with ``concurrent: 1`` runs its files one after another in the listed order,
as Midscene does, even when the durations farm remembers would put the longest first: teams
write such batches as create → use → cleanup. With ``continueOnError: false`` a failed file
stops the files listed after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, results

FILE = """\
web:
  url: index.html
tasks:
  - name: {name}
    flow:
      - assertText: {text}
      - javascript: "'{name}'"
        name: who
"""
LISTED = ["01_create", "02_use", "03_cleanup"]


def _batch(folder: Path, continue_on_error: bool, failing: str = "",
           listed: list[str] = LISTED) -> Path:
    (folder / "site").mkdir(parents=True)
    (folder / "site" / "index.html").write_text("<h1>Orders</h1>")
    for name in listed:
        text = "No such heading" if name == failing else "Orders"
        (folder / "scripts" / f"{name}.yaml").parent.mkdir(exist_ok=True)
        (folder / "scripts" / f"{name}.yaml").write_text(FILE.format(name=name, text=text))
    (folder / "index.yaml").write_text(
        f"concurrent: 1\ncontinueOnError: {str(continue_on_error).lower()}\n"
        "web:\n  serve: ./site\nfiles:\n" + "".join(f"  - scripts/{n}.yaml\n" for n in listed))
    return folder


def _remember_longest_last(state: Path, suite: str) -> None:
    """Durations that put the listed order upside down longest-first: 03 > 02 > 01."""
    state.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(state / "history.sqlite") as con:
        con.execute("CREATE TABLE IF NOT EXISTS durations (key TEXT NOT NULL, "
                    "seconds REAL NOT NULL, at TEXT NOT NULL)")
        con.executemany("INSERT INTO durations(key, seconds, at) VALUES (?, ?, '')",
                        [(f"web:{suite}/scripts/{name}", seconds)
                         for name, seconds in zip(LISTED, (1.0, 200.0, 400.0))
                         for _ in range(5)])


def _started(stdout: str) -> list[str]:
    """Case ids in the order the run's progress lines say they started."""
    return [line.split(" start ", 1)[1].split()[0] for line in stdout.splitlines()
            if " start " in line and line.startswith("[")]


def test_a_concurrent_1_batch_keeps_its_listed_order_across_runs(farm: FarmCli,
                                                                 tmp_path: Path) -> None:
    batch = _batch(tmp_path / "orders", continue_on_error=True)
    _remember_longest_last(tmp_path / "state", "orders")
    ids = [f"orders/scripts/{n}" for n in LISTED]
    for run in ("r1", "r2"):        # r2 also remembers r1's real durations
        done = farm.run("run", batch, "--devices", "browser:2",
                        "--report-dir", tmp_path / run)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "concurrent 1 (--devices browser:1)" in done.stdout
        assert _started(done.stdout) == ids, done.stdout
        cases = {c["case_id"]: c for c in results(tmp_path / run)["cases"]}
        assert [cases[i]["data"]["who"] for i in ids] == LISTED
        starts = [cases[i]["started"] for i in ids]
        assert starts == sorted(starts)


def test_a_failed_file_stops_the_files_listed_after_it(farm: FarmCli, tmp_path: Path) -> None:
    """continueOnError: false (Midscene's default): 01 fails, so 02 and 03 never start, though
    the remembered durations would have run them first."""
    batch = _batch(tmp_path / "orders", continue_on_error=False, failing="01_create")
    _remember_longest_last(tmp_path / "state", "orders")
    done = farm.run("run", batch, "--devices", "browser:2",
                    "--report-dir", tmp_path / "r")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _started(done.stdout) == ["orders/scripts/01_create"], done.stdout
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    assert cases["orders/scripts/01_create"]["status"] == "failed"
    for name in ("02_use", "03_cleanup"):
        assert cases[f"orders/scripts/{name}"]["status"] == "skipped"
        assert cases[f"orders/scripts/{name}"]["reason"].startswith("not run")


def test_farm_workers_keep_the_listed_order_too(farm: FarmCli, tmp_path: Path, redis_url: str,
                                                workers) -> None:
    """Two idle browser workers: the run hands out one file at a time (concurrent: 1 caps
    it), in the batch's order. (The cluster remembers no duration yet: the names are listed
    against their sorted order, which is how equal estimates would order them.)"""
    listed = ["3_create", "2_use", "1_cleanup"]
    batch = _batch(tmp_path / "orders", continue_on_error=True, listed=listed)
    workers("browser:2")
    wait_idle(redis_url, 2)
    done = farm.run("run", batch, "--broker", redis_url, "--devices", "browser:2",
                    "--report-dir", tmp_path / "r", FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = {c["case_id"]: c for c in results(tmp_path / "r")["cases"]}
    ids = [f"orders/scripts/{n}" for n in listed]
    starts = [cases[i]["started"] for i in ids]
    assert starts == sorted(starts)
    assert [cases[i]["data"]["who"] for i in ids] == listed
