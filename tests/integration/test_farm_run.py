"""`farm run` end to end, as a user runs it: a subprocess, real headless Chromium, the demo app."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import psutil
import pytest

from tests.support.farm_cli import ROOT, FarmCli, by_name, kill_tree, results, wait_for
from tests.support.flaky_backend import FlakyBackend
from tests.support.gate import Gate
from tests.support.suites import write_case

pytestmark = pytest.mark.integration

FAULTS = ROOT / "tests" / "integration" / "suites" / "faults"


@pytest.fixture
def gate():
    with Gate() as g:
        yield g


def gated_faults(tmp: Path, gate: Gate) -> Path:
    """A copy of the faults suite's ok_login plus ``faults/wait_for_gate``, a case that stays
    inside its javascript step until ``gate`` opens (sorted after ok_login: on one device,
    with no history, ok_login runs first)."""
    folder = tmp / "faults"
    folder.mkdir()
    (folder / "farm.yaml").write_text(
        (FAULTS / "farm.yaml").read_text()
        .replace("../../../../suites/demo/app", str(ROOT / "suites" / "demo" / "app"))
        .replace("timeout: 60", "timeout: 180"))
    (folder / "ok_login.yaml").write_text((FAULTS / "ok_login.yaml").read_text())
    write_case(folder, "wait_for_gate", [gate.step(), "assertText: Sign in"],
               name="waits at the gate", url="${FARM_DEMO_URL}/index.html")
    return folder


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("demo")
    proc = FarmCli(tmp).run("run", "suites/demo", "--devices", "browser:2", "--report-dir",
                            tmp / "run", "--junit-xml", tmp / "junit.xml")
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
    # each result and the run say which browser ran it
    shell = re.compile(r"Chromium \d+(\.\d+)+ \(chromium-headless-shell\)$") \
        if Path("/usr/lib/chromium/chromium-headless-shell").exists() else \
        re.compile(r"Chromium \d+(\.\d+)+ \(\S+, headless\)$")
    assert set(summary["device_info"]) == {"browser-1", "browser-2"}
    assert all(shell.match(about) for about in summary["device_info"].values())
    assert all(c["device_info"] == summary["device_info"][c["device"]]
               for c in summary["cases"] if c["device"])
    header = re.search(r"<dt>Devices</dt><dd>([^<]*)</dd>", (run_dir / "report.html").read_text())
    assert header and header.group(1) == "browser-1, browser-2: " + summary["device_info"][
        "browser-1"]
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


@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="no /usr/bin/chromium")
def test_the_demo_suite_passes_on_full_chromium_too(tmp_path, farm):
    """Headless devices prefer chromium-headless-shell; where it is not installed (and for
    FARM_HEADLESS=false) farm runs /usr/bin/chromium, and the suite must pass there as well."""
    proc = farm.run("run", "suites/demo", "--devices", "browser:2", "--report-dir",
                    tmp_path / "run", "--no-progress", FARM_CHROMIUM_PATH="/usr/bin/chromium")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    summary = results(tmp_path / "run")
    assert summary["counts"]["failed"] == summary["counts"]["error"] == 0
    assert summary["counts"]["passed"] >= 6
    launched = re.findall(r"browser-\d: Chromium \S+ \((\S+)\)", (tmp_path / "run" /
                                                                 "farm.log").read_text())
    assert launched == ["/usr/bin/chromium"] * 2
    assert len(summary["device_info"]) == 2 and all(
        about.endswith(" (chromium, headless)") for about in summary["device_info"].values())


@pytest.mark.parametrize("long_case", ["ok_login", "wrong_text"])
def test_remembered_durations_decide_the_order(tmp_path, farm, long_case):
    """One device, two cases: whichever took longer last time starts first."""
    from farm.history import DurationHistory
    from farm.results import CaseResult
    DurationHistory(tmp_path / "state").record([
        CaseResult(run_id="old", case_id=f"faults/{name}", name=name, file="x", platform="web",
                   status="passed", duration=90.0 if name == long_case else 5.0)
        for name in ("ok_login", "wrong_text")])
    proc = farm.run("run", FAULTS / "ok_login.yaml", FAULTS / "wrong_text.yaml",
                    "--devices", "browser:1", "--report-dir", tmp_path / "run")
    starts = [line for line in proc.stdout.splitlines() if "] start " in line]
    assert starts and starts[0].endswith(f"start faults/{long_case}"), proc.stdout


def test_failing_case_reports_the_step_and_its_screenshot(tmp_path, farm):
    run_dir = tmp_path / "run"
    proc = farm.run("run", FAULTS / "wrong_text.yaml", FAULTS / "ok_login.yaml",
                    "--devices", "browser:5", "--report-dir", run_dir)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # two cases: two browsers started of the five asked for (not five Chromiums for two cases);
    # which ran what is the scheduler's (on a busy machine one may run both: the other's
    # Chromium was still starting)
    started = re.findall(r"(browser-\d+): Chromium .* up in ", (run_dir / "farm.log").read_text())
    assert sorted(started) == ["browser-1", "browser-2"]
    assert set(results(run_dir)["devices"]) <= {"browser-1", "browser-2"}
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


def test_hanging_case_times_out_with_a_screenshot_and_the_run_goes_on(tmp_path, farm):
    run_dir = tmp_path / "run"
    proc = farm.run("run", FAULTS / "hang.yaml", FAULTS / "ok_login.yaml",
                    "--devices", "browser:1", "--report-dir", run_dir)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    cases = by_name(results(run_dir))
    hang = cases["hang"]
    assert hang["status"] == "error" and hang["error"]["kind"] == "CaseTimeout"
    assert "timed out" in hang["error"]["message"]
    assert hang["screenshot"] and (run_dir / hang["screenshot"]).exists()
    assert hang["attempt"] == 1                     # timeouts are not retried
    assert cases["ok_login"]["status"] == "passed"


def _browser_process(device: str, root_pid: int) -> psutil.Process | None:
    from farm.devices.procs import find_marked_process
    return find_marked_process(f"--farm-device={device}", root=root_pid)


def test_browser_crash_mid_case_is_retried_on_another_device(tmp_path, farm, gate):
    suite = gated_faults(tmp_path, gate)
    run_dir = tmp_path / "run"
    proc = farm.start("run", suite / "wait_for_gate.yaml", suite / "ok_login.yaml",
                      "--devices", "browser:2", "--report-dir", run_dir)
    start = proc.wait_for_line("start faults/wait_for_gate")
    device = start.split("]")[0].lstrip("[")
    gate.wait_for_arrivals(1)                       # mid-case: held inside its javascript step
    victim = _browser_process(device, proc.pid)
    assert victim is not None, f"no Chromium process for {device}"
    victim.kill()
    gate.wait_for_arrivals(2)                       # the retry, held at the same step
    gate.open()
    out = proc.finish(180)
    assert proc.returncode == 0, out
    summary = results(run_dir)
    cases = by_name(summary)
    held = cases["wait_for_gate"]
    assert held["status"] == "passed" and held["attempt"] == 2
    assert held["device"] != device
    first = held["previous"][0]
    assert first["status"] == "error" and first["error"]["kind"] == "DeviceLost"
    assert first["device"] == device
    assert summary["counts"]["passed"] == 2 and summary["counts"]["total"] == 2


def test_ctrl_c_marks_inflight_interrupted_and_writes_results(tmp_path, farm, gate):
    suite = gated_faults(tmp_path, gate)
    run_dir = tmp_path / "run"
    proc = farm.start("run", suite, "--devices", "browser:1", "--report-dir", run_dir)
    gate.wait_for_arrivals(1)       # ok_login ran first; this one is in flight and stays so
    chromium = _browser_process("browser-1", proc.pid)
    assert chromium is not None
    proc.send_signal(signal.SIGINT)
    out = proc.finish(180)
    assert proc.returncode == 2, out
    summary = results(run_dir)
    assert summary["interrupted"] is True
    assert by_name(summary)["wait_for_gate"]["status"] == "interrupted"
    assert by_name(summary)["ok_login"]["status"] == "passed"
    assert (run_dir / "report.html").exists() and (run_dir / "junit.xml").exists()
    # the case that ended is remembered for the next run's order; the one cut short is not
    from farm.history import DurationHistory
    assert set(DurationHistory(tmp_path / "state").load()) == {"web:faults/ok_login"}
    wait_for(lambda: not chromium.is_running() or chromium.status() == psutil.STATUS_ZOMBIE, 30,
             "Chromium of browser-1 gone")


def test_malformed_suite_stops_before_any_device_with_exit_4(tmp_path, farm):
    suite = tmp_path / "bad"
    suite.mkdir()
    (suite / "case.yaml").write_text(
        "web:\n  url: http://127.0.0.1:9/\ntasks:\n  - name: t\n    flow:\n      - aiTapp: Go\n")
    proc = farm.run("run", suite, "--devices", "browser:1")
    assert proc.returncode == 4
    assert "Traceback" not in proc.stderr
    assert "case.yaml:6" in proc.stderr and "aiTap" in proc.stderr


def test_devices_lists_each_phone_with_its_model_and_os_and_an_endpoint_that_does_not_answer(
        farm):
    from tests.support.redis_server import free_port
    app = ROOT / "suites" / "demo" / "app"
    port = free_port()
    farm.start("sim", "android", "--count", "2", "--app", app, "--port", str(port)
               ).wait_for_line("Ctrl-C stops", 60)
    wda = re.search(r"(http://\S+)", farm.start("sim", "ios", "--count", "1", "--app", app)
                    .wait_for_line("WebDriverAgent on ", 60)).group(1)
    silent = f"http://127.0.0.1:{free_port()}"
    proc = farm.run("devices", ANDROID_ADB_SERVER_PORT=str(port),
                    FARM_IOS_WDA_URLS=f"{wda},{silent}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line.split() for line in proc.stdout.splitlines()]
    assert ["emulator-5554", "farm_sim_phone,", "Android", "14", "(API", "34)"] in lines
    assert ["emulator-5556", "farm_sim_phone,", "Android", "14", "(API", "34)"] in lines
    assert [wda, "iPhone-sim-1", "(iPhone),", "iOS", "17.0"] in lines
    assert f"{silent}  not answering: " in proc.stdout and "Traceback" not in proc.stderr


def test_devices_and_config_show(farm):
    proc = farm.run("devices")
    assert proc.returncode == 0 and "Chromium" in proc.stdout
    proc = farm.run("config", "show", FARM_MODEL_API_KEY="sk-very-secret",
                    FARM_INFRA_RETRIES="2")
    assert proc.returncode == 0
    assert "sk-very-secret" not in proc.stdout and "***" in proc.stdout
    assert re.search(r"^infra_retries\s+2$", proc.stdout, re.M), proc.stdout


def test_nothing_collected_exits_5(tmp_path, farm):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = farm.run("run", empty, "--devices", "browser:1")
    assert proc.returncode == 5 and "no cases found" in proc.stdout


def test_demo_report_opens_in_chromium_with_every_case_and_no_errors(demo_run, viewer_page,
                                                                      page_errors):
    _, run_dir, _ = demo_run
    summary = results(run_dir)
    viewer_page.goto((run_dir / "report.html").resolve().as_uri())
    viewer_page.wait_for_load_state("load")
    text = viewer_page.inner_text("body")
    for case in summary["cases"]:
        assert case["name"] in text
    viewer_page.locator("details").first.evaluate("d => d.open = true")
    viewer_page.locator("details[open]").first.wait_for()
    assert page_errors == []


def test_pass_after_failure_is_flaky_with_a_warning_and_exit_0(tmp_path, farm):
    """A backend that fails the first request only: attempt 1 fails, the retry passes."""
    run_dir = tmp_path / "run"
    with FlakyBackend() as backend:
        proc = farm.run("run", FAULTS / "flaky.yaml", "--devices", "browser:1",
                        "--retries", "1", "--report-dir", run_dir, FLAKY_URL=backend.url)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    case = by_name(results(run_dir))["flaky"]
    assert case["status"] == "flaky" and case["attempt"] == 2
    assert case["previous"][0]["status"] == "failed"
    assert "backend said 500" in case["previous"][0]["error"]["message"]
    assert "warning: 1 flaky case(s) passed only after failing: faults/flaky" in proc.stdout
    assert 'flaky' in (run_dir / "junit.xml").read_text()


def test_a_killed_run_keeps_finished_results_and_the_report_can_be_rebuilt(tmp_path, farm,
                                                                            gate):
    suite = gated_faults(tmp_path, gate)
    run_dir = tmp_path / "run"
    proc = farm.start("run", suite / "ok_login.yaml", suite / "wait_for_gate.yaml",
                      "--devices", "browser:1", "--report-dir", run_dir)
    proc.wait_for_line("PASSED faults/ok_login")   # the other case cannot finish: gate closed
    kill_tree(proc.popen)                 # no Ctrl-C courtesy: the process just dies
    assert not (run_dir / "results.json").exists()
    rebuilt = farm.run("report", run_dir)
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "1 case(s) had finished" in rebuilt.stderr
    summary = results(run_dir)
    # the journal's markers: the case after it is listed as interrupted (its attempt had
    # begun) or not run (the kill came first), never left out
    cases = {c["case_id"]: c for c in summary["cases"]}
    assert list(cases) == ["faults/ok_login", "faults/wait_for_gate"]
    assert cases["faults/ok_login"]["status"] == "passed" and summary["interrupted"] is True
    assert cases["faults/wait_for_gate"]["status"] in ("interrupted", "skipped")
    assert summary["duration"] > 0 and summary["farm_version"]
    # its end: the last thing the journal recorded (an ISO time, not ""), the duration to it
    from datetime import datetime
    span = datetime.fromisoformat(summary["finished"]) - datetime.fromisoformat(summary["started"])
    assert span.total_seconds() == pytest.approx(summary["duration"], abs=0.001)
    assert "quick login" in (run_dir / "report.html").read_text()
    # ... and it is a run of the results history (the history page, new / still failing
    # marks) as a run stopped by Ctrl-C is, once however often the report is rebuilt
    from farm.results_history import SqliteResults
    assert "now in the results history" in rebuilt.stderr
    history = SqliteResults(tmp_path / "state" / "results.sqlite").recent(10)
    assert [r.run_id for r in history] == [summary["run_id"]]
    again = farm.run("report", run_dir)
    assert again.returncode == 0 and "now in the results history" not in again.stderr
