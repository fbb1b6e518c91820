"""`farm run` options through real `farm worker`s (Celery on a private redis-server) end as
they end on the local executor: ``-x`` / ``--maxfail N`` stop taking cases after the Nth
failure (the rest are reported not run, and no worker ever starts them), and
``--screenshots on-failure|off`` leave exactly the step images a local run leaves.

Each scenario runs once per executor and the two results are compared as a user reads them
(exit code, statuses, reasons, counts, which steps have an image). `-x` runs on the ``fake``
kind of the test device plugin (no Chromium); screenshots on one browser worker.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, FarmCli, by_name, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

PASS, FAIL = "sleep: 1", "assertText: not on the empty page"
SHOW = "javascript: \"document.body.innerHTML = '<h1>Ready</h1>'\""


def run_both(farm: FarmCli, suite: Path, out: Path, devices: str, broker: str,
             *args: str) -> dict[str, tuple[int, dict[str, Any]]]:
    """The suite once on the cluster and once locally (own state dir, no history shared):
    {executor: (exit code, results.json)}."""
    env = {"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV}
    got = {}
    for name, where in (("cluster", ["--broker", broker]), ("local", [])):
        done = farm.run("run", suite, "--devices", devices, *where, "--report-dir",
                        out / name, *args, FARM_STATE_DIR=str(out / f"{name}-state"), **env)
        assert "Traceback" not in done.stderr, done.stderr
        got[name] = (done.returncode, results(out / name))
    return got


def outcomes(summary: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {name: (c["status"], c.get("reason")) for name, c in by_name(summary).items()}


def sessions(journal: Path) -> int:
    """How many cases the fake devices of a journal directory started."""
    return sum(p.read_text().splitlines().count("session") for p in journal.glob("*.log"))


@pytest.mark.parametrize("option, failures", [(["-x"], 1), (["--maxfail", "2"], 2)])
def test_maxfail_stops_the_cluster_where_it_stops_a_local_run(tmp_path, redis_url, workers,
                                                               farm, option, failures):
    suite = tmp_path / "sel"
    for stem, step in [("alpha_ok", PASS), ("alpha_bad", FAIL), ("beta_ok", PASS),
                       ("beta_bad", FAIL), ("gamma_ok", PASS)]:
        write_case(suite, stem, [step])
    journal = tmp_path / "journal"
    journal.mkdir()
    workers("fake:1", FARM_TEST_FAKE_JOURNAL=str(journal))
    wait_idle(redis_url, 1)

    got = run_both(farm, suite, tmp_path / "runs", "fake:1", redis_url, *option)
    (code, cluster), (local_code, local) = got["cluster"], got["local"]
    # one device takes the cases in id order: alpha_bad, alpha_ok, beta_bad, beta_ok, gamma_ok
    ran = ["alpha_bad"] if failures == 1 else ["alpha_bad", "alpha_ok", "beta_bad"]
    reason = f"not run: --maxfail {failures} reached"
    expected = {name: ("skipped", reason) for name in
                ("alpha_ok", "alpha_bad", "beta_ok", "beta_bad", "gamma_ok") if name not in ran}
    assert {n: o for n, o in outcomes(cluster).items() if n not in ran} == expected
    assert [outcomes(cluster)[n][0] for n in ran] == ["failed", "passed", "failed"][:len(ran)]
    assert outcomes(cluster) == outcomes(local)
    assert cluster["counts"] == local["counts"] and code == local_code == 1
    assert sessions(journal) == len(ran)        # the worker never started a skipped case
    assert "ready (queues" in farm.worker_logs() and "metrics :" not in farm.worker_logs()


def image_shape(summary: dict[str, Any]) -> dict[str, list[bool]]:
    """Which steps of each case have an "after" image."""
    return {name: [bool(s["after"]) for s in c["steps"]] for name, c in by_name(summary).items()}


@pytest.fixture
def browser_worker(tmp_path, redis_url, workers) -> str:
    workers("browser:1")
    wait_idle(redis_url, 1, timeout=180)
    return redis_url


@pytest.mark.parametrize("mode", ["on-failure", "off"])
def test_screenshots_through_workers_as_on_the_local_executor(tmp_path, browser_worker, farm,
                                                              mode):
    suite = tmp_path / "shots"
    write_case(suite, "passes", [SHOW, "assertText: Ready"])
    write_case(suite, "fails", [SHOW, "assertText: Text that is nowhere"])
    out = tmp_path / "runs"
    got = run_both(farm, suite, out, "browser:1", browser_worker, "--screenshots", mode)
    (code, cluster), (local_code, local) = got["cluster"], got["local"]
    assert code == local_code == 1
    assert outcomes(cluster) == outcomes(local) == {"passes": ("passed", None),
                                                    "fails": ("failed", None)}
    assert image_shape(cluster) == image_shape(local)
    images = sorted((out / "cluster" / "artifacts").rglob("*.jpg"))
    failing = by_name(cluster)["fails"]
    if mode == "off":
        assert image_shape(cluster) == {"passes": [False, False], "fails": [False, False]}
        assert images == [] and failing["screenshot"] is None
    else:   # only the failing step's image, and it came back from the worker
        assert image_shape(cluster) == {"passes": [False, False], "fails": [False, True]}
        shot = failing["steps"][1]["after"]
        assert failing["screenshot"] == shot and images == [out / "cluster" / shot]
        assert images[0].read_bytes()[:3] == b"\xff\xd8\xff"


def test_a_marked_copy_comes_back_from_the_worker_as_a_local_run_writes_it(tmp_path,
                                                                          browser_worker, farm):
    """A tap's marked copy (an SVG beside the JPEGs) travels back from the worker with the
    screenshots: the cluster run's report links a file that is there, with the same marks."""
    import xml.etree.ElementTree as ET
    suite = tmp_path / "marks"
    button = ("javascript: \"document.body.innerHTML = "
              "'<button style=\\\"margin:80px\\\">Sign in</button>'\"")
    write_case(suite, "taps", [button, "aiTap: Sign in"])
    out = tmp_path / "runs"
    got = run_both(farm, suite, out, "browser:1", browser_worker)
    ns = {"s": "http://www.w3.org/2000/svg"}
    dots = {}
    for name in ("cluster", "local"):
        code, summary = got[name]
        assert code == 0, summary
        tap = by_name(summary)["taps"]["steps"][1]
        assert tap["marked"].endswith(".svg") and tap["marks"][0]["kind"] == "tap"
        svg = ET.parse(out / name / tap["marked"]).getroot()
        dot = svg.find("s:g[@class='tap']/s:circle", ns)
        dots[name] = (dot.get("cx"), dot.get("cy"))
        assert tap["marked"] in (out / name / "report.html").read_text()
    assert dots["cluster"] == dots["local"]
