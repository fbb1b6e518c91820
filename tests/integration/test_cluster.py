"""Cluster mode end to end: a private redis-server, real `farm worker` (Celery) processes and
`farm run --broker` as users run them. Sleep-only cases run on the ``fake`` kind of the test
device plugin (tests/support/devices.py) so the fault tests are quick; the 20-case test uses
real headless Chromium and a simulated Android phone."""

from __future__ import annotations

import shutil
import signal
from collections import Counter

import psutil
import pytest

from tests.support.cluster import CLUSTER_ENV, leases, runs, wait_busy, wait_idle
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, results, wait_for
from tests.support.redis_server import free_port
from tests.support.suites import sleep_suite, write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def run_on(farm: FarmCli, url: str, suite, run_dir, *args: str, **env: str):
    """`farm run SUITE --broker URL` in the background (plugin kinds known, test prefix)."""
    return farm.start("run", suite, "--broker", url, "--report-dir", run_dir, *args,
                      **{"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV, **env})


def devices(farm: FarmCli, url: str, *args: str):
    return farm.run("devices", "--broker", url, *args, timeout=60, **CLUSTER_ENV)


def one_final_result_each(summary: dict, n: int) -> None:
    ids = Counter(c["case_id"] for c in summary["cases"])
    assert len(ids) == n and set(ids.values()) == {1}, ids


def start_android_sim(farm: FarmCli) -> int:
    """`farm sim android` as a user runs it: the phone an android worker attaches to."""
    port = free_port()
    sim = farm.start("sim", "android", "--count", "1", "--app", ROOT / "suites" / "demo" / "app",
                     "--package", "com.farm.demo.shop", "--port", str(port))
    sim.wait_for_line("Ctrl-C stops", 60)
    return port


def test_twenty_demo_cases_on_browser_and_simulated_android_workers(tmp_path, redis_url,
                                                                    workers, farm):
    suite = tmp_path / "demo"
    shutil.copytree(ROOT / "suites" / "demo", suite)
    (suite / "ai_shopping.yaml").unlink()            # needs a model: not this test's subject
    web = sorted(p for p in suite.glob("*.yaml") if p.name != "farm.yaml")
    android = sorted((suite / "mobile").glob("android_*.yaml"))
    for i in range(16 - len(web)):
        src = web[i % len(web)]
        (suite / f"copy{i:02d}_{src.name}").write_text(src.read_text())
    for i in range(4 - len(android)):
        src = android[i % len(android)]
        (suite / "mobile" / f"copy{i:02d}_{src.name}").write_text(src.read_text())
    port = start_android_sim(farm)
    workers("browser:2,android:1", ANDROID_ADB_SERVER_PORT=str(port))
    wait_idle(redis_url, 3)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "browser:2,android:1")
    out = proc.finish(300)
    assert proc.returncode == 0, out
    assert "deselected 2 ios case(s)" in out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 20)
    assert summary["counts"]["passed"] == 20, out
    devices_used = Counter(c["device"].split("@")[0] for c in summary["cases"])
    assert set(devices_used) == {"browser-1", "browser-2", "android-1"}, devices_used
    assert sum(c["platform"] == "android" for c in summary["cases"]) == 4
    # screenshots taken on the workers are in the report's run directory
    for case in summary["cases"]:
        for step in case["steps"]:
            if step["after"]:
                assert (tmp_path / "run" / step["after"]).is_file(), step["after"]
    html = (tmp_path / "run" / "report.html").read_text()
    assert "farm-demo-pass" not in html and "copy00_" in html
    assert out.strip().splitlines()[-1] == str((tmp_path / "run" / "report.html").resolve())


def test_sigkill_worker_mid_case_reruns_elsewhere(tmp_path, redis_url, workers, farm):
    suite = sleep_suite(tmp_path / "s", 6, 3000)
    workers("fake:3")
    wait_idle(redis_url, 3)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:3")
    busy = wait_busy(redis_url)[0]
    psutil.Process(busy["pid"]).kill()
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 6)
    victim = next(c for c in summary["cases"] if c["case_id"] == busy["case"])
    assert victim["status"] == "passed" and victim["attempt"] == 2
    assert victim["previous"][0]["error"]["kind"] == "DeviceLost"
    assert victim["device"] != busy["device"]


def test_redis_restart_mid_run_loses_nothing(tmp_path, private_redis, workers, farm):
    server = private_redis()
    suite = sleep_suite(tmp_path / "s", 8, 2500)
    workers("fake:2", broker=server.url)
    wait_idle(server.url, 2)
    proc = run_on(farm, server.url, suite, tmp_path / "run", "--devices", "fake:2")
    wait_busy(server.url, 2)
    server.stop()
    # the outage lasts until the run's client has noticed it
    log = tmp_path / "run" / "farm.log"
    wait_for(lambda: log.exists() and "broker unreachable" in log.read_text(), 60,
             "the run's client noticing the outage")
    server.start()
    out = proc.finish(180)
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 8)
    statuses = Counter(c["status"] for c in summary["cases"])
    # completes, or any case that could not finish says so; never silently missing
    assert proc.returncode in (0, 3), out
    assert statuses["passed"] + statuses["error"] == 8
    for c in summary["cases"]:
        if c["status"] == "error":
            assert c["error"]["message"], c


def test_sigterm_drains_the_current_case(tmp_path, redis_url, workers, farm):
    suite = sleep_suite(tmp_path / "s", 4, 3000)
    workers("fake:2")
    wait_idle(redis_url, 2)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:2")
    busy = wait_busy(redis_url)[0]
    child = psutil.Process(busy["pid"])
    child.send_signal(signal.SIGTERM)
    wait_for(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE, 30,
             "the drained worker exiting")
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 4)
    drained = next(c for c in summary["cases"] if c["case_id"] == busy["case"])
    assert drained["status"] == "passed" and drained["attempt"] == 1
    assert drained["device"] == busy["device"]
    assert busy["device"] not in leases(redis_url)


def test_two_concurrent_runs_share_the_workers(tmp_path, redis_url, workers, farm):
    go = tmp_path / "go"
    for i in range(8):      # A's cases hold their device until B has arrived
        write_case(tmp_path / "a", f"a{i:02d}", [f"javascript: farm-test:wait-for:{go}",
                                                 "sleep: 500"])
    b = sleep_suite(tmp_path / "b", 8, 500, "b")
    workers("fake:2")
    wait_idle(redis_url, 2)
    pa = run_on(farm, redis_url, tmp_path / "a", tmp_path / "ra", "--devices", "fake:2")
    wait_busy(redis_url, 2)
    pb = run_on(farm, redis_url, b, tmp_path / "rb", "--devices", "fake:2")
    wait_for(lambda: len(runs(redis_url)) == 2, 60, "run B competing for the devices")
    go.touch()
    out_a, out_b = pa.finish(), pb.finish()
    assert pa.returncode == 0 and pb.returncode == 0, out_a + out_b
    ra, rb = results(tmp_path / "ra"), results(tmp_path / "rb")
    one_final_result_each(ra, 8)
    one_final_result_each(rb, 8)
    assert all(c["case_id"].startswith("a/") for c in ra["cases"])
    assert all(c["case_id"].startswith("b/") for c in rb["cases"])
    # fair: B does not wait for A to finish — A ends after B has started getting devices
    b_first = min(c["started"] for c in rb["cases"])
    a_last = max(c["started"] for c in ra["cases"])
    assert b_first < a_last, (b_first, a_last)


def test_quarantine_after_repeated_infra_errors(tmp_path, redis_url, workers, farm):
    suite = sleep_suite(tmp_path / "s", 3, 100)
    workers("fake:1", FARM_TEST_FAKE_FAIL="1")
    wait_idle(redis_url, 1)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:1",
                  FARM_CLUSTER_DEVICE_WAIT="3")
    out = proc.finish()
    assert proc.returncode == 3, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 3)
    assert all(c["status"] == "error" for c in summary["cases"])
    listed = devices(farm, redis_url)
    assert "quarantined: 3 infrastructure errors in a row" in listed.stdout, listed.stdout
    name = next(line.split()[0] for line in listed.stdout.splitlines() if "quarantined:" in line)
    released = devices(farm, redis_url, "--release", name)
    assert f"{name}: released" in released.stdout, released.stdout + released.stderr
    assert "quarantined:" not in released.stdout.split("released", 1)[1]


def test_matrix_runs_every_case_on_every_device_group(tmp_path, redis_url, workers, farm):
    suite = sleep_suite(tmp_path / "s", 3, 200)
    workers("fake:2")                                     # group "fake" (the kind)
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 4)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:4", "--matrix")
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    ids = Counter(c["case_id"] for c in summary["cases"])
    for group in ("os14", "os15", "fake"):
        for i in range(3):
            assert ids[f"s/c{i:02d}@{group}"] == 1, ids
    by_group = {c["case_id"]: c["device"] for c in summary["cases"]}
    assert all(by_group[f"s/c00@{g}"].startswith("fake-") for g in ("os14", "os15"))
    assert summary["counts"]["passed"] == len(summary["cases"]) == 9


def test_password_protected_redis_works_and_the_password_is_never_shown(tmp_path, private_redis,
                                                                          workers, farm):
    server = private_redis(password="s3cret-pw")
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 1)
    suite = sleep_suite(tmp_path / "s", 2, 100)
    proc = run_on(farm, server.url, suite, tmp_path / "run", "--devices", "fake:1")
    out = proc.finish()
    shown = devices(farm, server.url)
    assert proc.returncode == 0, out
    assert results(tmp_path / "run")["counts"]["passed"] == 2
    assert "redis://:***@127.0.0.1" in shown.stdout, shown.stdout
    logs = [*(tmp_path / "run").rglob("*"), *tmp_path.glob("worker-*.log")]
    for text in (out, shown.stdout, shown.stderr, *(p.read_text(errors="replace") for p in
                 logs if p.is_file() and p.suffix != ".jpg")):
        assert "s3cret-pw" not in text
