"""Cluster mode end to end: a private redis-server, real `farm worker` (Celery) processes and
`farm run --broker` as users run them. Sleep-only cases run on the test-only `fake` device
kind so the fault tests are quick; the 20-case test uses real headless Chromium."""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest

from tests.integration.cluster_support import (ROOT, RedisServer, env, farm_run, kill_tree,
                                               leases, results, sleep_suite, start_workers,
                                               wait_for, wait_idle)

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


@pytest.fixture
def redis_server():
    server = RedisServer().start()
    yield server
    server.stop()


@pytest.fixture
def workers(tmp_path, redis_server):
    started: list[subprocess.Popen] = []

    def start(devices: str, **extra: str) -> subprocess.Popen:
        proc = start_workers(tmp_path, redis_server.url, devices, **extra)
        started.append(proc)
        return proc
    yield start
    for proc in started:
        kill_tree(proc)


def finish(proc: subprocess.Popen, timeout: float = 120) -> str:
    out, _ = proc.communicate(timeout=timeout)
    return out


def one_final_result_each(summary: dict, n: int) -> None:
    ids = Counter(c["case_id"] for c in summary["cases"])
    assert len(ids) == n and set(ids.values()) == {1}, ids


def start_android_sim(tmp_path: Path, request) -> int:
    """`farm sim android` as a user runs it: the phone an android worker attaches to."""
    from tests.integration.cluster_support import free_port
    port = free_port()
    log = open(tmp_path / "sim.log", "w")
    sim = subprocess.Popen([sys.executable, "-m", "farm.cli", "sim", "android", "--count", "1",
                            "--app", str(ROOT / "suites" / "demo" / "app"), "--package",
                            "com.farm.demo.shop", "--port", str(port)], cwd=ROOT,
                           stdout=log, stderr=subprocess.STDOUT)
    request.addfinalizer(lambda: kill_tree(sim))
    wait_for(lambda: "Ctrl-C stops" in (tmp_path / "sim.log").read_text(), 60)
    return port


def test_twenty_demo_cases_on_browser_and_simulated_android_workers(tmp_path, redis_server,
                                                                    workers, request):
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
    port = start_android_sim(tmp_path, request)
    workers("browser:2,android:1", ANDROID_ADB_SERVER_PORT=str(port))
    wait_idle(redis_server.url, 3)
    proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices",
                    "browser:2,android:1")
    out = finish(proc, 300)
    assert proc.returncode == 0, out
    assert "deselected 2 ios case(s)" in out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 20)
    assert summary["counts"]["passed"] == 20, out
    devices = Counter(c["device"].split("@")[0] for c in summary["cases"])
    assert set(devices) == {"browser-1", "browser-2", "android-1"}, devices
    assert sum(c["platform"] == "android" for c in summary["cases"]) == 4
    # screenshots taken on the workers are in the report's run directory
    for case in summary["cases"]:
        for step in case["steps"]:
            if step["after"]:
                assert (tmp_path / "run" / step["after"]).is_file(), step["after"]
    html = (tmp_path / "run" / "report.html").read_text()
    assert "farm-demo-pass" not in html and "copy00_" in html
    assert out.strip().splitlines()[-1] == str((tmp_path / "run" / "report.html").resolve())


def test_sigkill_worker_mid_case_reruns_elsewhere(tmp_path, redis_server, workers):
    suite = sleep_suite(tmp_path / "s", 6, 3000)
    workers("fake:3")
    wait_idle(redis_server.url, 3)
    proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices", "browser:3")
    busy = wait_for(lambda: next((l for l in leases(redis_server.url).values()
                                  if l.get("state") == "busy"), None), 30)
    psutil.Process(busy["pid"]).kill()
    out = finish(proc)
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 6)
    victim = next(c for c in summary["cases"] if c["case_id"] == busy["case"])
    assert victim["status"] == "passed" and victim["attempt"] == 2
    assert victim["previous"][0]["error"]["kind"] == "DeviceLost"
    assert victim["device"] != busy["device"]


def test_redis_restart_mid_run_loses_nothing(tmp_path, redis_server, workers):
    suite = sleep_suite(tmp_path / "s", 8, 2500)
    workers("fake:2")
    wait_idle(redis_server.url, 2)
    proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices",
                    "browser:2")
    wait_for(lambda: any(l.get("state") == "busy" for l in leases(redis_server.url).values()))
    time.sleep(1.0)
    redis_server.stop()
    time.sleep(3.0)
    redis_server.start()
    out = finish(proc, 180)
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 8)
    statuses = Counter(c["status"] for c in summary["cases"])
    # completes, or any case that could not finish says so; never silently missing
    assert proc.returncode in (0, 3), out
    assert statuses["passed"] + statuses["error"] == 8
    for c in summary["cases"]:
        if c["status"] == "error":
            assert c["error"]["message"], c


def test_sigterm_drains_the_current_case(tmp_path, redis_server, workers):
    suite = sleep_suite(tmp_path / "s", 4, 3000)
    workers("fake:2")
    wait_idle(redis_server.url, 2)
    proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices", "browser:2")
    busy = wait_for(lambda: next((l for l in leases(redis_server.url).values()
                                  if l.get("state") == "busy"), None), 30)
    child = psutil.Process(busy["pid"])
    child.send_signal(signal.SIGTERM)
    wait_for(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE, 30)
    out = finish(proc)
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 4)
    drained = next(c for c in summary["cases"] if c["case_id"] == busy["case"])
    assert drained["status"] == "passed" and drained["attempt"] == 1
    assert drained["device"] == busy["device"]
    assert busy["device"] not in leases(redis_server.url)


def test_two_concurrent_runs_share_the_workers(tmp_path, redis_server, workers):
    a = sleep_suite(tmp_path / "a", 8, 1000, "a")
    b = sleep_suite(tmp_path / "b", 8, 1000, "b")
    workers("fake:2")
    wait_idle(redis_server.url, 2)
    t0 = time.monotonic()
    pa = farm_run(tmp_path, redis_server.url, a, tmp_path / "ra", "--devices", "browser:2")
    time.sleep(2.5)                 # run A holds both devices when B arrives
    pb = farm_run(tmp_path, redis_server.url, b, tmp_path / "rb", "--devices", "browser:2")
    out_a, out_b = finish(pa), finish(pb)
    total = time.monotonic() - t0
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
    assert total < 16 * 1.0 / 2 + 8


def test_quarantine_after_repeated_infra_errors(tmp_path, redis_server, workers):
    suite = sleep_suite(tmp_path / "s", 3, 100)
    workers("fake:1", FARM_FAKE_FAIL="1")
    wait_idle(redis_server.url, 1)
    proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices",
                    "browser:1", FARM_CLUSTER_DEVICE_WAIT="3")
    out = finish(proc)
    assert proc.returncode == 3, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 3)
    assert all(c["status"] == "error" for c in summary["cases"])
    devices = subprocess.run([sys.executable, "-m", "farm.cli", "devices"], cwd=ROOT,
                             env=env(tmp_path, redis_server.url), capture_output=True,
                             text=True, timeout=60)
    assert "quarantined: 3 infrastructure errors in a row" in devices.stdout, devices.stdout
    name = next(line.split()[0] for line in devices.stdout.splitlines() if "quarantined:" in line)
    released = subprocess.run([sys.executable, "-m", "farm.cli", "devices", "--release", name],
                              cwd=ROOT, env=env(tmp_path, redis_server.url),
                              capture_output=True, text=True, timeout=60)
    assert f"{name}: released" in released.stdout, released.stdout + released.stderr
    assert "quarantined:" not in released.stdout.split("released", 1)[1]


def test_matrix_runs_every_case_on_every_device_group(tmp_path, redis_server, workers):
    suite = sleep_suite(tmp_path / "s", 3, 200)
    workers("fake:2")                                     # group "fake" (the kind)
    proc_a = start_group(tmp_path, redis_server.url, "os14")
    proc_b = start_group(tmp_path, redis_server.url, "os15")
    try:
        wait_idle(redis_server.url, 4)
        proc = farm_run(tmp_path, redis_server.url, suite, tmp_path / "run", "--devices",
                        "browser:4", "--matrix")
        out = finish(proc)
    finally:
        kill_tree(proc_a)
        kill_tree(proc_b)
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    ids = Counter(c["case_id"] for c in summary["cases"])
    for group in ("os14", "os15", "fake"):
        for i in range(3):
            assert ids[f"s/c{i:02d}@{group}"] == 1, ids
    by_group = {c["case_id"]: c["device"] for c in summary["cases"]}
    assert all(by_group[f"s/c00@{g}"].startswith("fake-") for g in ("os14", "os15"))
    assert summary["counts"]["passed"] == len(summary["cases"]) == 9


def start_group(tmp_path: Path, url: str, group: str) -> subprocess.Popen:
    log = open(tmp_path / f"worker-{group}.log", "w")
    return subprocess.Popen([sys.executable, "-m", "farm.cli", "worker", "--devices", "fake:1",
                             "--group", group], cwd=ROOT, env=env(tmp_path, url), stdout=log,
                            stderr=subprocess.STDOUT)


def test_password_protected_redis_works_and_the_password_is_never_shown(tmp_path):
    from tests.integration.cluster_support import RedisServer
    server = RedisServer(password="s3cret-pw").start()
    worker = start_workers(tmp_path, server.url, "fake:1")
    try:
        wait_idle(server.url, 1)
        suite = sleep_suite(tmp_path / "s", 2, 100)
        proc = farm_run(tmp_path, server.url, suite, tmp_path / "run", "--devices", "browser:1")
        out = finish(proc)
        shown = subprocess.run([sys.executable, "-m", "farm.cli", "devices"], cwd=ROOT,
                               env=env(tmp_path, server.url), capture_output=True, text=True,
                               timeout=60)
    finally:
        kill_tree(worker)
        server.stop()
    assert proc.returncode == 0, out
    assert results(tmp_path / "run")["counts"]["passed"] == 2
    assert "redis://:***@127.0.0.1" in shown.stdout, shown.stdout
    logs = [*(tmp_path / "run").rglob("*"), *tmp_path.glob("worker-*.log")]
    for text in (out, shown.stdout, shown.stderr, *(p.read_text(errors="replace") for p in
                 logs if p.is_file() and p.suffix != ".jpg")):
        assert "s3cret-pw" not in text
