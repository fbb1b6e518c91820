"""Cluster mode end to end: a private redis-server, real `farm worker` (Celery) processes and
`farm run --broker` as users run them. The fault tests run on the ``fake`` kind of the test
device plugin (tests/support/devices.py), quick and without Chromium; their cases wait in their
first step for a file the test creates (``farm-test:wait-for:PATH``), so a fault (a kill, a
SIGTERM, a Redis restart) always lands mid-case, however loaded the machine. The 20-case test
uses real headless Chromium and a simulated Android phone."""

from __future__ import annotations

import json
import re
import shutil
import signal
from collections import Counter

import psutil
import pytest

from tests.support.cluster import CLUSTER_ENV, events, leases, runs, wait_busy, wait_idle
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


def held_suite(folder, gate, n: int, *after: str):
    """``n`` cases that each stay in their first step until the file ``gate`` exists, then run
    the steps ``after``."""
    for i in range(n):
        write_case(folder, f"c{i:02d}", [f"javascript: farm-test:wait-for:{gate}", *after],
                   name=f"held c{i:02d}")
    return folder


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
    # what each worker's device is travels back with its results
    about = {c["device"].split("@")[0]: c["device_info"] for c in summary["cases"]}
    assert about["android-1"] == "farm_sim_phone, Android 14 (API 34)"
    assert all(about[b].startswith("Chromium ") for b in ("browser-1", "browser-2")), about
    assert sorted(summary["device_info"].values()) == sorted(
        c["device_info"] for c in {c["device"]: c for c in summary["cases"]}.values())
    # and `farm devices --broker` says it of each worker's device
    listed = devices(farm, redis_url).stdout
    assert re.search(r"^  android-1@\S+ +android .* farm_sim_phone, Android 14 \(API 34\)$",
                     listed, re.M), listed
    assert len(re.findall(r"^  browser-\d@\S+ +web .* Chromium \d+\.", listed, re.M)) == 2, listed
    # screenshots taken on the workers are in the report's run directory
    for case in summary["cases"]:
        for step in case["steps"]:
            if step["after"]:
                assert (tmp_path / "run" / step["after"]).is_file(), step["after"]
    html = (tmp_path / "run" / "report.html").read_text()
    assert "farm-demo-pass" not in html and "copy00_" in html
    assert out.strip().splitlines()[-1] == str((tmp_path / "run" / "report.html").resolve())


def _kill_a_busy_worker(tmp_path, redis_url, workers, farm):
    """6 held cases on 3 fake workers; the worker of one running case is SIGKILLed.
    Returns the run, that case's lease as it was, and the file that lets the cases end."""
    go = tmp_path / "go"
    suite = held_suite(tmp_path / "s", go, 6)
    workers("fake:3")
    wait_idle(redis_url, 3)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:3")
    busy = wait_busy(redis_url)[0]              # held mid-case until `go`
    # the run has taken in that the device started it (its journal's start line): killed
    # before, the run may know the device only from the attempt's claim, and names it lost
    # "right after taking the case" (test_cluster_lost_devices.py), not "mid-case"
    wait_for(lambda: _journal_started(tmp_path / "run", busy), 60,
             "the run seeing the busy case start")
    psutil.Process(busy["pid"]).kill()
    return proc, busy, go


def _journal_started(run_dir, lease: dict) -> bool:
    """The run's journal has the start of ``lease``'s case on its device."""
    path = run_dir / "results.jsonl"
    for text in (path.read_text().splitlines() if path.exists() else []):
        try:
            line = json.loads(text)
        except ValueError:      # a line being written
            continue
        if (line.get("journal"), line.get("case_id"), line.get("device")) == (
                "start", lease["case"], lease["device"]):
            return True
    return False


def _summary_line(out: str) -> str:
    return next(ln for ln in out.splitlines() if ln.startswith("farm: ") and "(run " in ln)


def test_sigkill_worker_mid_case_reruns_elsewhere(tmp_path, redis_url, workers, farm):
    proc, busy, go = _kill_a_busy_worker(tmp_path, redis_url, workers, farm)
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 6)
    victim = next(c for c in summary["cases"] if c["case_id"] == busy["case"])
    assert victim["status"] == "passed" and victim["attempt"] == 2
    assert victim["previous"][0]["error"]["kind"] == "DeviceLost"
    assert victim["device"] != busy["device"]
    # the run names the device it lost, as a local run names a dead one (its supervisor may
    # start it again and it may serve later: it is still named, with why it was lost)
    assert list(summary["lost"]) == [busy["device"]], summary["lost"]
    assert summary["lost"][busy["device"]].startswith(
        f"its worker stopped answering mid-case ({busy['case']} attempt 1"), summary["lost"]
    assert re.search(rf"; lost: {re.escape(busy['device'])}( \(came back\))? \(run ",
                     _summary_line(out)), out     # (its supervisor may start it again)
    assert f"Lost during the run: {busy['device']} (its worker stopped answering" in (
        tmp_path / "run" / "report.html").read_text()


def test_a_killed_device_that_comes_back_is_still_named_lost(tmp_path, redis_url, workers, farm):
    """Its supervisor starts the killed device again and it serves the run's next case: the
    run still names it lost (an attempt died with its worker), and says it came back."""
    proc, busy, go = _kill_a_busy_worker(tmp_path, redis_url, workers, farm)
    again = wait_for(lambda: (lease := leases(redis_url).get(busy["device"], {})).get(
        "state") == "busy" and lease["pid"] != busy["pid"] and lease, 120,
        "the killed device, started again, holding another case")
    go.touch()
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(tmp_path / "run")
    one_final_result_each(summary, 6)
    served = next(c for c in summary["cases"] if c["case_id"] == again["case"])
    assert served["device"] == busy["device"] and served["status"] == "passed"
    # lost once the new process holds the device (or, if its start took longer than the
    # lease grace on a loaded machine, once that ran out with no lease: "lease expired")
    assert list(summary["lost"]) == [busy["device"]], summary["lost"]
    assert re.fullmatch(
        re.escape(f"its worker stopped answering mid-case ({busy['case']} attempt 1, ")
        + r"(a new process took the device over|lease expired)"
        + re.escape("); it came back later in the run"), summary["lost"][busy["device"]]), (
        summary["lost"])
    assert f"; lost: {busy['device']} (came back) (run " in _summary_line(out), out


def client_log(run_dir) -> str:
    log = run_dir / "farm.log"
    return log.read_text(errors="replace") if log.exists() else ""


def test_short_redis_restart_loses_nothing_and_runs_nothing_twice(tmp_path, private_redis,
                                                                  workers, farm):
    """Redis restarts (empty: no persistence) while two cases run. They finish while it is
    away, hand in their results once it is back, the queued rest runs afterwards: every case
    passes, exactly once."""
    server = private_redis()
    go = tmp_path / "go"
    suite = held_suite(tmp_path / "s", go, 6, "sleep: 50")
    workers("fake:1", broker=server.url)        # one log file per device: worker-1, worker-2
    workers("fake:1", broker=server.url)
    wait_idle(server.url, 2)
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, suite, run_dir, "--devices", "fake:2",
                  FARM_CLUSTER_OUTAGE_SECONDS="900")      # far beyond this outage, even loaded
    leases = wait_busy(server.url, 2)
    held = {lease["case"] for lease in leases}
    server.stop()
    wait_for(lambda: "broker unreachable" in client_log(run_dir), 120,
             "the run's client noticing the outage")
    go.touch()                  # both running cases finish while Redis is away
    for log in (tmp_path / "worker-1.log", tmp_path / "worker-2.log"):
        wait_for(lambda: "waiting to be handed in" in log.read_text(errors="replace"), 120,
                 f"{log.name}: a finished case waiting for Redis to hand in its result")
    # the run's client is back before the workers hand in, whichever would retry first (the
    # other order is the next test)
    devices = [psutil.Process(lease["pid"]) for lease in leases]
    for p in devices:
        p.suspend()
    try:
        server.start()
        wait_for(lambda: "broker reachable again" in client_log(run_dir), 120,
                 "the run's client back on the broker")
    finally:
        for p in devices:
            p.resume()
    out = proc.finish()
    assert proc.returncode == 0, out + client_log(run_dir) + farm.worker_logs()
    summary = results(run_dir)
    one_final_result_each(summary, 6)
    assert summary["counts"]["passed"] == 6, out
    for case in summary["cases"]:
        if case["case_id"] in held:     # the attempt that ran through the outage counted
            assert case["attempt"] == 1 and not case["previous"], case


def test_cases_handing_in_before_the_client_is_back_still_pass(tmp_path, private_redis,
                                                               workers, farm):
    """The same restart, but the run's client comes back last (a loaded machine): the two
    running cases finish and hand in their results first; they must still count as passed."""
    server = private_redis()
    go = tmp_path / "go"
    # the second step outlasts the worker's twice-a-second "is the run still there?" check
    suite = held_suite(tmp_path / "s", go, 4, "sleep: 1100", "sleep: 10")
    workers("fake:2", broker=server.url)
    wait_idle(server.url, 2)
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, suite, run_dir, "--devices", "fake:2",
                  FARM_CLUSTER_OUTAGE_SECONDS="900")
    leases = wait_busy(server.url, 2)
    run_id, held = leases[0]["run"], {lease["case"] for lease in leases}
    server.stop()
    wait_for(lambda: "broker unreachable" in client_log(run_dir), 120,
             "the run's client noticing the outage")
    client = psutil.Process(proc.pid)
    client.suspend()
    try:
        server.start()
        go.touch()
        wait_for(lambda: {e["case"] for e in events(server.url, run_id)
                          if e["type"] == "case_finished"} == held, 120,
                 "both running cases handing in their results")
    finally:
        client.resume()
    out = proc.finish()
    assert proc.returncode == 0, out
    summary = results(run_dir)
    one_final_result_each(summary, 4)
    assert summary["counts"]["passed"] == 4, out
    for case in summary["cases"]:
        if case["case_id"] in held:
            assert case["attempt"] == 1 and not case["previous"], case


def test_redis_gone_past_the_outage_limit_ends_unfinished_cases_as_broker_lost(
        tmp_path, private_redis, workers, farm):
    """Redis stays away longer than FARM_CLUSTER_OUTAGE_SECONDS: exit 3; the case that finished
    before stays passed, every other one is a BrokerLost error naming the (masked) broker;
    the two on a worker at the time keep their device and the step they were in."""
    server = private_redis(password="s3cret-pw")
    gates = {f"s/c{i:02d}": tmp_path / f"go-c{i:02d}" for i in range(4)}
    for i, gate in enumerate(gates.values()):
        write_case(tmp_path / "s", f"c{i:02d}", [f"javascript: farm-test:wait-for:{gate}"])
    workers("fake:2", broker=server.url)
    wait_idle(server.url, 2)
    run_dir = tmp_path / "run"
    proc = run_on(farm, server.url, tmp_path / "s", run_dir, "--devices", "fake:2",
                  FARM_CLUSTER_OUTAGE_SECONDS="2")
    first = wait_busy(server.url, 2)[0]["case"]
    gates[first].touch()                        # one case finishes before the outage
    proc.wait_for_line(f"PASSED {first}")
    def busy() -> set[str]:
        return {lease["case"] for lease in leases(server.url).values()
                if lease.get("state") == "busy"} - {first}
    wait_for(lambda: len(busy()) == 2, 60, "its device taking the next case")
    running = busy()
    for case in running:        # the run has heard each start (a lease alone: not yet, loaded)
        proc.wait_for_line(f"start {case}")
    server.stop()                               # and Redis never comes back
    out = proc.finish()
    assert proc.returncode == 3, out
    summary = results(run_dir)
    one_final_result_each(summary, 4)
    statuses = {c["case_id"]: c["status"] for c in summary["cases"]}
    assert statuses == {cid: "passed" if cid == first else "error" for cid in gates}, statuses
    broker = f"redis://:***@127.0.0.1:{server.port}/0"
    for case in summary["cases"]:
        if case["case_id"] != first:
            assert case["error"]["kind"] == "BrokerLost", case
            assert f"lost the broker {broker}" in case["error"]["message"], case
        if case["case_id"] in running:          # not a blank result: where it was
            assert case["device"].startswith("fake-") and case["duration"] > 0, case
            assert [s["status"] for s in case["steps"]] == ["error"], case
            assert case["error"]["step"] == 1, case
    for text in (out, (run_dir / "results.json").read_text(), client_log(run_dir)):
        assert "s3cret-pw" not in text


def test_sigterm_drains_the_current_case(tmp_path, redis_url, workers, farm):
    go = tmp_path / "go"
    suite = held_suite(tmp_path / "s", go, 4)
    workers("fake:2")
    wait_idle(redis_url, 2)
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "fake:2")
    busy = wait_busy(redis_url)[0]              # held mid-case until `go`
    child = psutil.Process(busy["pid"])
    child.send_signal(signal.SIGTERM)
    wait_for(lambda: leases(redis_url).get(busy["device"], {}).get("draining"), 60,
             "the worker's lease saying it drains")
    go.touch()                                  # only now may its case finish
    wait_for(lambda: not child.is_running() or child.status() == psutil.STATUS_ZOMBIE, 60,
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


def test_a_client_credential_no_worker_was_sent_is_masked_in_what_workers_send_back(
        tmp_path, redis_url, workers, farm):
    """A worker gets only the variables its case refers to, so it cannot hide the client's
    other credentials; a page or script showing one is masked by the client, as in a local
    run (terminal, results, report)."""
    value = "client-held-4Kp2x"
    workers("browser:1")
    wait_idle(redis_url, 1)
    suite = tmp_path / "s"
    write_case(suite, "shows", [f"javascript: \"'token is ' + '{value[:8]}' + '{value[8:]}'\""])
    proc = run_on(farm, redis_url, suite, tmp_path / "run", "--devices", "browser:1",
                  SHOP_API_TOKEN=value)
    out = proc.finish()
    assert proc.returncode == 0, out
    step = results(tmp_path / "run")["cases"][0]["steps"][0]
    assert step["output"] == "token is ***", step
    for path in (p for p in (tmp_path / "run").rglob("*") if p.is_file() and p.suffix != ".jpg"):
        assert value not in path.read_text(errors="replace"), path.name
    assert value not in out
