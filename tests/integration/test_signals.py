"""Stopping a run: Ctrl-C, a second Ctrl-C, SIGTERM, SIGHUP. Whatever the user does, the results known
so far are written (results.json, junit.xml, report.html, the journal) and the exit code is 2;
a case in flight keeps its start, its steps and the images of the screens it saw."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

import psutil
import pytest

from farm.results import timestamp
from tests.support.farm_cli import ROOT, FarmCli, FarmProcess, results, wait_for
from tests.support.suites import demo_copy

SUITE = ROOT / "tests" / "integration" / "suites" / "faults"


@pytest.fixture
def cli(tmp_path):
    cli = FarmCli(tmp_path, FARM_NO_PROGRESS="0")
    yield cli
    cli.close()


@pytest.mark.parametrize("signals", [
    pytest.param([signal.SIGINT, signal.SIGINT], id="double-ctrl-c"),
    pytest.param([signal.SIGTERM], id="sigterm"),
    pytest.param([signal.SIGHUP], id="sighup"),     # a closed terminal: it was exit 129, no results
])
def test_stopping_a_run_still_writes_everything_it_knows(cli, tmp_path, signals):
    run_dir = tmp_path / "run"
    proc = cli.start("run", SUITE, "--devices", "browser:2", "--report-dir", run_dir,
                     FLAKY_URL="http://127.0.0.1:9/")   # flaky.yaml's backend: not needed here
    proc.wait_for_line("start faults/slow")       # a 12 s case: certainly in flight
    for sig in signals:
        proc.send_signal(sig)
    out = proc.finish()
    assert proc.returncode == 2, out              # not 143 (SIGTERM) nor -11 (SIGSEGV)
    assert "Traceback" not in out
    summary = results(run_dir)
    assert summary["interrupted"] is True
    status = {c["case_id"]: c["status"] for c in summary["cases"]}
    assert status["faults/slow"] == "interrupted"
    assert (run_dir / "junit.xml").exists() and (run_dir / "report.html").exists()
    started = {line.split("start ", 1)[1].split()[0] for line in out.splitlines()
               if "] start " in line}
    lines = [json.loads(line) for line in (run_dir / "results.jsonl").read_text().splitlines()]
    journal = {line["case_id"] for line in lines if "journal" not in line}   # not the markers
    assert started <= journal, f"started but not journalled: {started - journal}"
    assert set(status) == journal               # every case, run or not, is in the journal


# Chromium's renderers wait at their start for a debugger to attach: the case's new page is
# being set up for as long as the test likes
PAGE_IN_SET_UP = """\
name: page in set-up
web:
  url: about:blank
  chromeArgs: [--renderer-startup-dialog]
tasks:
  - name: look
    flow:
      - assertText: anything
"""


def _waiting_renderers(pid: int) -> list[psutil.Process]:
    """Renderers of ``pid``'s Chromium that wait at their start (for a page being set up)."""
    return [p for p in psutil.Process(pid).children(recursive=True)
            if {"--type=renderer", "--renderer-startup-dialog"} <= set(_cmdline(p))]


def _cmdline(proc: psutil.Process) -> list[str]:
    try:
        return proc.cmdline()
    except psutil.Error:
        return []


def test_sigint_to_farm_alone_stops_a_case_whose_page_is_being_set_up(cli, tmp_path):
    """`kill -INT <farm's pid>` (a CI wrapper does that) while a case's page is being set up:
    Chromium did not get the signal, farm kills it, and that ends the set-up too. (Playwright
    never settles a new page whose browser died: farm waited 30 s for the device, then
    reported the case as started when it gave up, 0.0 s, no steps.)"""
    suite = tmp_path / "stops"
    suite.mkdir()
    (suite / "setup.yaml").write_text(PAGE_IN_SET_UP)
    run_dir = tmp_path / "run"
    proc = cli.start("run", suite, "--devices", "browser:1", "--report-dir", run_dir)
    proc.wait_for_line("start stops/setup")
    wait_for(lambda: _waiting_renderers(proc.pid), what="a renderer for the case's page")
    signalled = time.time()
    proc.send_signal(signal.SIGINT)           # farm's pid alone, not its process group
    out = proc.finish()
    assert proc.returncode == 2, out
    assert "Traceback" not in out and "never retrieved" not in out, out
    case = results(run_dir)["cases"][0]
    assert case["status"] == "interrupted"
    assert case["reason"] == "interrupted: the run was stopped"
    started = timestamp(case["started"])
    assert started is not None and started < signalled       # its real start
    assert [s["status"] for s in case["steps"]] == ["skipped"]
    # the device came back from the case: not left busy, nor left behind at exit
    metrics = (run_dir / "metrics.prom").read_text()
    assert 'farm_device_busy{device="browser-1",platform="web"} 0.0' in metrics
    assert "did not come back" not in (run_dir / "farm.log").read_text()


SIGNED_IN_THEN_WAITING = """\
name: signed in, then waiting
web:
  url: ${FARM_DEMO_URL}/index.html
tasks:
  - name: sign in
    flow:
      - aiInput: Username
        value: demo
      - aiInput: Password
        value: ${DEMO_PASSWORD}
      - aiTap: Sign in
      - waitForText: Welcome back, demo
        timeout: 5000
  - name: wait
    flow:
      - sleep: 600000
      - assertText: Cart (0)
"""


def _start_in_own_group(cli: FarmCli, *args: object) -> FarmProcess:
    """`farm ARGS` as a terminal runs it: the leader of a process group of its own, so that a
    Ctrl-C (the whole group) reaches farm and its Playwright driver, never pytest."""
    popen = subprocess.Popen(cli.command(*args), cwd=ROOT, env=cli.env(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    cli.started.append(popen)
    return FarmProcess(popen)


@pytest.mark.parametrize("group", [
    pytest.param(False, id="sigint-to-farm"),
    pytest.param(True, id="ctrl-c-in-a-terminal"),
])
def test_a_case_stopped_after_a_tap_keeps_the_images_of_the_screens_it_saw(cli, tmp_path, group):
    """Ctrl-C while the case waits after signing in: the image taken after the tap (still
    being captured as the case went on) is finished and written, the steps after it show that
    image, never the login form from before the tap, and the case's screenshot is the last
    screen it saw."""
    suite = demo_copy(tmp_path / "demo")
    (suite / "waits.yaml").write_text(SIGNED_IN_THEN_WAITING)
    run_dir = tmp_path / "run"
    args = ("run", suite, "--devices", "browser:1", "--report-dir", run_dir)
    proc = _start_in_own_group(cli, *args) if group else cli.start(*args)
    # the image after step 2 is handed to the store once the tap of step 3 is done
    wait_for(lambda: list(run_dir.glob("artifacts/*/attempt-1/*-step2.jpg")),
             what="the image after step 2")
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)
    out = proc.finish()
    assert proc.returncode == 2, out
    case = results(run_dir)["cases"][0]
    steps = case["steps"]
    assert case["status"] == "interrupted"
    assert [s["status"] for s in steps[:3]] == ["passed"] * 3
    assert "interrupted" in [s["status"] for s in steps[3:5]]
    login_form = {steps[0]["before"], steps[0]["after"], steps[1]["after"]}
    tapped = steps[2]["after"]               # the screen after the tap on "Sign in"
    assert tapped and tapped not in login_form, steps[2]
    later = [s[k] for s in steps[3:] for k in ("before", "after") if s[k]]
    assert later and not login_form & set(later), later
    assert case["screenshot"] == later[-1]
    shown = [s[k] for s in steps for k in ("before", "after") if s[k]]
    assert all((run_dir / path).is_file() for path in shown), shown
