"""A long `farm run` as a QA engineer watches it: in CI (no terminal, CI=true) and in a
terminal. A stop (Ctrl-C to farm, a CI runner's SIGTERM to the job's process group) says what
farm does, leaves no per-case flood for the queued cases, writes every output with the cases
that finished and the interrupted ones marked, leaves no Chromium behind and the state dir
usable; farm.log tells the run's story afterwards (device, case, step, error; no secret); the
terminal view says how much time is left from the cases' remembered durations."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import threading
from pathlib import Path

import psutil
import pytest

from tests.support.farm_cli import ROOT, FarmCli, FarmProcess, by_name, results, wait_for
from tests.support.gate import Gate
from tests.support.suites import write_case

TOKEN = "s41-hunter2-token"


@pytest.fixture
def gate():
    with Gate() as g:
        yield g


@pytest.fixture
def cli(tmp_path):
    cli = FarmCli(tmp_path, CI="true", S41_TOKEN=TOKEN)
    yield cli
    cli.close()


def _suite(tmp: Path, gate: Gate, queued: int = 8) -> Path:
    """a_bad fails at once (its error would show the secret), b_held1 and b_held2 wait at
    ``gate`` (one on each of two devices), then ``queued`` short cases (by id: no history)."""
    folder = _served_suite(tmp)
    write_case(folder, "a_bad", ["assertText: ${S41_TOKEN}"])
    for stem in ("b_held1", "b_held2"):
        write_case(folder, stem, [gate.step()], url="${S41_URL}/index.html")
    for i in range(queued):
        write_case(folder, f"c{i:02d}", ["sleep: 100"])
    return folder


def _served_suite(tmp: Path) -> Path:
    """A suite folder whose page farm serves (a page of about:blank may not fetch the gate)."""
    folder = tmp / "s41"
    (folder / "app").mkdir(parents=True)
    (folder / "app" / "index.html").write_text("<title>s41</title><p>held here</p>")
    (folder / "farm.yaml").write_text("timeout: 300\nsecrets: [S41_TOKEN]\n"
                                      "apps:\n  site:\n    serve: app\n    env: S41_URL\n")
    return folder


def _in_own_group(cli: FarmCli, *args: object) -> FarmProcess:
    """As a CI runner starts a job's script: a process group of its own, which it signals."""
    popen = subprocess.Popen(cli.command(*args), cwd=ROOT, env=cli.env(), text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             start_new_session=True)
    cli.started.append(popen)
    return FarmProcess(popen)


def _gone(procs: list[psutil.Process]) -> bool:
    def alive(p: psutil.Process) -> bool:
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False
    return not any(alive(p) for p in procs)


@pytest.mark.parametrize("how", [
    pytest.param("sigint", id="ctrl-c-to-farm"),
    pytest.param("sigterm-group", id="ci-cancels-the-job"),   # GitLab: SIGTERM to the group
])
def test_a_stopped_ci_run_says_so_keeps_what_finished_and_leaves_nothing_behind(
        cli, tmp_path, gate, how):
    run_dir = tmp_path / "run"
    args = ("run", _suite(tmp_path, gate), "--devices", "browser:2", "--report-dir", run_dir)
    proc = _in_own_group(cli, *args) if how == "sigterm-group" else cli.start(*args)
    proc.wait_for_line("FAILED s41/a_bad")
    gate.wait_for_arrivals(2)                   # both devices held mid-case, 8 cases queued
    started = psutil.Process(proc.pid).children(recursive=True)
    assert any("chrom" in p.name() for p in started), [p.name() for p in started]
    if how == "sigterm-group":
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGINT)
    out = proc.finish(120)
    name = "SIGTERM" if how == "sigterm-group" else "SIGINT"
    assert proc.returncode == 2, out            # README: 2 = interrupted
    assert "Traceback" not in out
    assert f"farm: {name}: stopping; in-flight cases end interrupted (again to stop at " \
           "once)" in out
    # the queued cases are said once, not one SKIPPED line each
    assert "SKIPPED" not in out, out
    assert "farm: interrupted: 8 case(s) not run (counted as skipped)" in out
    summary = results(run_dir)
    status = {cid: c["status"] for cid, c in by_name(summary).items()}
    assert summary["interrupted"] is True
    assert status == {"a_bad": "failed", "b_held1": "interrupted", "b_held2": "interrupted",
                      **{f"c{i:02d}": "skipped" for i in range(8)}}
    junit = (run_dir / "junit.xml").read_text()
    assert "RunInterrupted" in junit and (run_dir / "report.html").is_file()
    wait_for(lambda: _gone(started), 30, "farm's Chromium and driver processes gone")
    logged = (run_dir / "farm.log").read_text()
    _farm_log_tells_the_story(logged, name)
    # the state dir is not left locked: the next run works, its history kept
    again = cli.run("run", run_dir.parent / "s41" / "c00.yaml", "--devices", "browser:1",
                    "--report-dir", tmp_path / "again")
    assert again.returncode == 0, again.stdout + again.stderr


def _farm_log_tells_the_story(logged: str, name: str) -> None:
    lines = logged.splitlines()
    assert TOKEN not in logged
    failed = next(line for line in lines if "FAILED s41/a_bad" in line)
    assert "WARNING farm.cases: [browser-" in failed
    assert 'at step 1 assertText "${S41_TOKEN}" (' in failed and "a_bad.yaml:" in failed
    assert 'AssertionFailed: expected text "***" is not on screen' in failed
    assert any("start s41/b_held1 (attempt 1)" in line for line in lines)
    assert any(f"{name}: stopping the run" in line for line in lines)
    assert any("interrupted: 8 queued case(s) not run: s41/c00, s41/c01" in line
               for line in lines)
    held = next(line for line in lines if "INTERRUPTED s41/b_held1" in line)
    assert "at step 1 javascript" in held
    assert not any("c03" in line for line in lines if "farm.cases" in line)   # never ran
    assert len(logged) < 20_000, logged


def _in_a_terminal(cli: FarmCli, *args: object) -> tuple[subprocess.Popen, list[bytes]]:
    """`farm ARGS` on a pseudo-terminal (what it draws is collected as it comes)."""
    master, slave = pty.openpty()
    env = cli.env(TERM="xterm-256color")
    for var in ("CI", "NO_COLOR"):
        env.pop(var, None)
    popen = subprocess.Popen(cli.command(*args), cwd=ROOT, env=env, stdin=slave, stdout=slave,
                             stderr=slave, start_new_session=True)
    os.close(slave)
    cli.started.append(popen)
    screen: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            screen.append(data)
        os.close(master)
    threading.Thread(target=read, daemon=True).start()
    return popen, screen


def test_the_terminal_view_says_the_time_left_from_remembered_durations(tmp_path, gate):
    """The second run of a suite: while its first case is held (nothing of this run has
    finished), the view says about how long the cases left will take, from the first run's
    durations; at its end it shows the failure."""
    cli = FarmCli(tmp_path, S41_TOKEN=TOKEN)
    folder = _served_suite(tmp_path)
    write_case(folder, "a_bad", ["assertText: ${S41_TOKEN}"])
    write_case(folder, "b_held", ["sleep: 3000"], url="${S41_URL}/index.html")  # the longest
    for i in range(3):
        write_case(folder, f"c{i:02d}", ["sleep: 1500"])
    try:
        first = cli.run("run", folder, "--devices", "browser:1", "--report-dir",
                        tmp_path / "first")
        assert first.returncode == 1, first.stdout + first.stderr
        write_case(folder, "b_held", ["sleep: 3000", gate.step()],   # now held there
                   url="${S41_URL}/index.html")
        popen, screen = _in_a_terminal(cli, "run", folder, "--devices", "browser:1",
                                       "--report-dir", tmp_path / "second")
        gate.wait_for_arrivals(1)               # b_held, run first (the longest), is held
        drawn = wait_for(lambda: b"s left" in (seen := b"".join(screen)) and seen, 60,
                         "the time left drawn")
        gate.open()
        assert popen.wait(120) == 1
    finally:
        cli.close()
    assert "1 failed" in b"".join(screen).decode("utf-8", "replace")
    text = drawn.decode("utf-8", "replace")
    assert "b_held" in text and "browser-1" in text and "failed" not in text
    assert TOKEN not in b"".join(screen).decode("utf-8", "replace")
