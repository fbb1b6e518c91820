"""`farm run` end to end, as a user runs it: a subprocess, real headless Chromium, the demo app."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
FAULTS = ROOT / "tests" / "integration" / "suites" / "faults"


def farm_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "farm.cli", *args]


def farm_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ, FARM_STATE_DIR=str(tmp_path / "state"), PYTHONUNBUFFERED="1")
    env.pop("FARM_MODEL", None)
    env.update(extra)
    return env


def run_farm(tmp_path: Path, *args: str, timeout: float = 240, **env: str):
    return subprocess.run(farm_cmd(*args), cwd=ROOT, env=farm_env(tmp_path, **env),
                          capture_output=True, text=True, timeout=timeout)


def results(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())


def by_name(summary: dict) -> dict[str, dict]:
    return {c["case_id"].split("/", 1)[1]: c for c in summary["cases"]}


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("demo")
    proc = run_farm(tmp, "run", "suites/demo", "--devices", "browser:2",
                    "--report-dir", str(tmp / "run"), "--junit-xml", str(tmp / "junit.xml"))
    return proc, tmp / "run", tmp


def test_demo_suite_passes_on_two_browsers(demo_run):
    proc, run_dir, tmp = demo_run
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = results(run_dir)
    counts = summary["counts"]
    assert counts["failed"] == counts["error"] == 0, proc.stdout
    assert counts["skipped"] == 1 and counts["passed"] >= 6
    skipped = [c for c in summary["cases"] if c["status"] == "skipped"]
    assert "needs a model (set FARM_MODEL)" in skipped[0]["reason"]
    # both device slots took work from the one queue
    assert {c["device"] for c in summary["cases"] if c["status"] == "passed"} == {
        "browser-1", "browser-2"}
    # the report path is the last line printed
    assert proc.stdout.strip().splitlines()[-1] == str((run_dir / "report.html").resolve())
    assert (tmp / "junit.xml").read_text() == (run_dir / "junit.xml").read_text()


def test_demo_results_have_steps_screenshots_and_masked_secrets(demo_run):
    _, run_dir, _ = demo_run
    raw = (run_dir / "results.json").read_text()
    assert "farm-demo-pass" not in raw
    for path in run_dir.rglob("*"):
        if path.is_file() and path.suffix in (".json", ".xml", ".html", ".log"):
            assert "farm-demo-pass" not in path.read_text(errors="replace"), path
    case = next(c for c in results(run_dir)["cases"] if c["status"] == "passed")
    assert case["steps"] and all(s["duration"] >= 0 for s in case["steps"])
    shots = [s["after"] for s in case["steps"] if s["after"]]
    assert shots and all((run_dir / p).read_bytes()[:2] == b"\xff\xd8" for p in shots)
    assert any(s["tier"] == "text" for s in case["steps"])


def test_the_demo_run_remembers_case_durations(demo_run):
    _, _, tmp = demo_run
    from farm.history import DurationHistory
    remembered = DurationHistory(tmp / "state").load()
    assert len(remembered) >= 6 and all(v[0] > 0 for v in remembered.values())


@pytest.mark.parametrize("long_case", ["ok_login", "wrong_text"])
def test_remembered_durations_decide_the_order(tmp_path, long_case):
    """One device, two cases: whichever took longer last time starts first."""
    from farm.history import DurationHistory
    from farm.results import CaseResult
    DurationHistory(tmp_path / "state").record([
        CaseResult(run_id="old", case_id=f"faults/{name}", name=name, file="x", platform="web",
                   status="passed", duration=90.0 if name == long_case else 5.0)
        for name in ("ok_login", "wrong_text")])
    proc = run_farm(tmp_path, "run", str(FAULTS / "ok_login.yaml"), str(FAULTS / "wrong_text.yaml"),
                    "--devices", "browser:1", "--report-dir", str(tmp_path / "run"))
    starts = [line for line in proc.stdout.splitlines() if "] start " in line]
    assert starts and starts[0].endswith(f"start faults/{long_case}"), proc.stdout


def test_failing_case_reports_the_step_and_its_screenshot(tmp_path):
    run_dir = tmp_path / "run"
    proc = run_farm(tmp_path, "run", str(FAULTS / "wrong_text.yaml"), str(FAULTS / "ok_login.yaml"),
                    "--devices", "browser:1", "--report-dir", str(run_dir))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    cases = by_name(results(run_dir))
    bad = cases["wrong_text"]
    assert bad["status"] == "failed" and cases["ok_login"]["status"] == "passed"
    assert bad["error"]["step"] == 5
    failing = bad["steps"][4]
    assert failing["status"] == "failed" and "Welcome back, admin" in failing["error"]
    assert failing["line"] == 16
    assert bad["steps"][5]["status"] == "skipped"
    assert (run_dir / bad["screenshot"]).stat().st_size > 1000
    html = (run_dir / "report.html").read_text()
    assert "Welcome back, admin" in html and bad["screenshot"] in html
    junit = (run_dir / "junit.xml").read_text()
    assert "<failure" in junit and 'failures="1"' in junit


def test_hanging_case_times_out_with_a_screenshot_and_the_run_goes_on(tmp_path):
    run_dir = tmp_path / "run"
    t0 = time.monotonic()
    proc = run_farm(tmp_path, "run", str(FAULTS / "hang.yaml"), str(FAULTS / "ok_login.yaml"),
                    "--devices", "browser:1", "--report-dir", str(run_dir))
    took = time.monotonic() - t0
    assert proc.returncode == 3, proc.stdout + proc.stderr
    cases = by_name(results(run_dir))
    hang = cases["hang"]
    assert hang["status"] == "error" and hang["error"]["kind"] == "CaseTimeout"
    assert "timed out" in hang["error"]["message"]
    assert hang["screenshot"] and (run_dir / hang["screenshot"]).exists()
    assert hang["attempt"] == 1                     # timeouts are not retried
    assert cases["ok_login"]["status"] == "passed"
    assert took < 60


def _browser_process(device: str, root_pid: int) -> psutil.Process | None:
    from farm.devices.procs import find_marked_process
    return find_marked_process(f"--farm-device={device}", root=root_pid)


def _watch(proc: subprocess.Popen, lines: list[str]) -> threading.Thread:
    def pump():
        for line in proc.stdout:
            lines.append(line.rstrip("\n"))
    t = threading.Thread(target=pump, daemon=True)
    t.start()
    return t


def _wait_for_line(lines: list[str], needle: str, timeout: float = 90) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for line in list(lines):
            if needle in line:
                return line
        time.sleep(0.1)
    raise AssertionError(f"never saw {needle!r} in output:\n" + "\n".join(lines))


def test_browser_crash_mid_case_is_retried_on_another_device(tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        farm_cmd("run", str(FAULTS / "slow.yaml"), str(FAULTS / "ok_login.yaml"),
                 "--devices", "browser:2", "--report-dir", str(run_dir)),
        cwd=ROOT, env=farm_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    lines: list[str] = []
    pump = _watch(proc, lines)
    start = _wait_for_line(lines, "start faults/slow")
    device = start.split("]")[0].lstrip("[")
    time.sleep(2)   # mid-case: inside the 12 s sleep
    victim = _browser_process(device, proc.pid)
    assert victim is not None, f"no Chromium process for {device}"
    victim.kill()
    proc.wait(timeout=180)
    pump.join(timeout=5)
    assert proc.returncode == 0, "\n".join(lines) + proc.stderr.read()
    summary = results(run_dir)
    cases = by_name(summary)
    slow = cases["slow"]
    assert slow["status"] == "passed" and slow["attempt"] == 2
    assert slow["device"] != device
    first = slow["previous"][0]
    assert first["status"] == "error" and first["error"]["kind"] == "DeviceLost"
    assert first["device"] == device
    assert summary["counts"]["passed"] == 2 and summary["counts"]["total"] == 2


def test_ctrl_c_marks_inflight_interrupted_and_writes_results(tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        farm_cmd("run", str(FAULTS / "slow.yaml"), "--devices", "browser:1",
                 "--report-dir", str(run_dir)),
        cwd=ROOT, env=farm_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    lines: list[str] = []
    _watch(proc, lines)
    _wait_for_line(lines, "start faults/slow")
    time.sleep(1)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    assert proc.returncode == 2, "\n".join(lines) + proc.stderr.read()
    summary = results(run_dir)
    assert summary["interrupted"] is True
    assert by_name(summary)["slow"]["status"] == "interrupted"
    assert (run_dir / "report.html").exists() and (run_dir / "junit.xml").exists()
    time.sleep(1)
    assert _browser_process("browser-1", proc.pid) is None


def test_malformed_suite_stops_before_any_device_with_exit_4(tmp_path):
    suite = tmp_path / "bad"
    suite.mkdir()
    (suite / "case.yaml").write_text(
        "web:\n  url: http://127.0.0.1:9/\ntasks:\n  - name: t\n    flow:\n      - aiTapp: Go\n")
    proc = run_farm(tmp_path, "run", str(suite), "--devices", "browser:1")
    assert proc.returncode == 4
    assert "Traceback" not in proc.stderr
    assert "case.yaml:6" in proc.stderr and "aiTap" in proc.stderr


def test_devices_and_config_show(tmp_path):
    proc = run_farm(tmp_path, "devices")
    assert proc.returncode == 0 and "Chromium" in proc.stdout
    proc = run_farm(tmp_path, "config", "show", FARM_MODEL_API_KEY="sk-very-secret",
                    FARM_INFRA_RETRIES="2")
    assert proc.returncode == 0
    assert "sk-very-secret" not in proc.stdout and "***" in proc.stdout
    assert re.search(r"^infra_retries\s+2$", proc.stdout, re.M), proc.stdout


def test_nothing_collected_exits_5(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = run_farm(tmp_path, "run", str(empty), "--devices", "browser:1")
    assert proc.returncode == 5 and "no cases found" in proc.stdout


def test_demo_report_opens_in_chromium_with_every_case_and_no_errors(demo_run):
    from playwright.sync_api import sync_playwright

    from farm.devices.chromium import BROWSER_FLAGS
    _, run_dir, _ = demo_run
    summary = results(run_dir)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=BROWSER_FLAGS)
        page = browser.new_page()
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("requestfailed", lambda r: problems.append("failed " + r.url))
        page.goto((run_dir / "report.html").resolve().as_uri())
        page.wait_for_load_state("load")
        text = page.inner_text("body")
        for case in summary["cases"]:
            assert case["name"] in text
        page.locator("details").first.evaluate("d => d.open = true")
        page.wait_for_timeout(300)
        browser.close()
    assert problems == []


def test_pass_after_failure_is_flaky_with_a_warning_and_exit_0(tmp_path):
    """A backend that fails the first request only: attempt 1 fails, the retry passes."""
    import http.server

    hits = {"n": 0}

    class Flaky(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits["n"] += 1
            self.send_response(500 if hits["n"] == 1 else 200)
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Flaky)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run_dir = tmp_path / "run"
        proc = run_farm(tmp_path, "run", str(FAULTS / "flaky.yaml"), "--devices", "browser:1",
                        "--retries", "1", "--report-dir", str(run_dir),
                        FLAKY_URL=f"http://127.0.0.1:{server.server_address[1]}/")
    finally:
        server.shutdown()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    case = by_name(results(run_dir))["flaky"]
    assert case["status"] == "flaky" and case["attempt"] == 2
    assert case["previous"][0]["status"] == "failed"
    assert "backend said 500" in case["previous"][0]["error"]["message"]
    assert "warning: 1 flaky case(s) passed only after failing: faults/flaky" in proc.stdout
    assert 'flaky' in (run_dir / "junit.xml").read_text()


def test_a_killed_run_keeps_finished_results_and_the_report_can_be_rebuilt(tmp_path):
    run_dir = tmp_path / "run"
    proc = subprocess.Popen(
        farm_cmd("run", str(FAULTS / "ok_login.yaml"), str(FAULTS / "slow.yaml"),
                 "--devices", "browser:1", "--report-dir", str(run_dir)),
        cwd=ROOT, env=farm_env(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    lines: list[str] = []
    _watch(proc, lines)
    _wait_for_line(lines, "PASSED faults/ok_login")
    family = psutil.Process(proc.pid).children(recursive=True)
    proc.kill()                                   # no Ctrl-C courtesy: the process just dies
    proc.wait(timeout=30)
    for child in family:
        try:
            child.kill()
        except psutil.Error:
            pass
    assert not (run_dir / "results.json").exists()
    rebuilt = run_farm(tmp_path, "report", str(run_dir))
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "1 case(s) had finished" in rebuilt.stderr
    summary = results(run_dir)
    assert [c["case_id"] for c in summary["cases"]] == ["faults/ok_login"]
    assert summary["cases"][0]["status"] == "passed" and summary["interrupted"] is True
    assert "quick login" in (run_dir / "report.html").read_text()
