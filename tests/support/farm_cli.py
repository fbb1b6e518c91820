"""farm as a user runs it: `farm run`, `farm worker`, `farm devices` ... as subprocesses.

    cli = FarmCli(tmp_path)                                   # state under tmp_path/state
    done = cli.run("run", "suites/demo", "--devices", "browser:1")      # CompletedProcess
    proc = cli.start("run", suite, "--devices", "browser:2")  # FarmProcess: read lines as they come
    proc.wait_for_line("start faults/slow")
    out = proc.finish()
    cli.worker("fake:2", broker=url, FARM_TEST_FAKE_FAIL="fake-1")
    cli.close()                                               # kills every process tree it started

Every process gets its own FARM_STATE_DIR, no FARM_MODEL (output is not a terminal: progress
comes as plain lines), and can import
``tests`` (so ``FARM_DEVICE_PLUGINS=tests.support.devices`` works in workers as well).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, TypeVar

import psutil

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.support.devices"
T = TypeVar("T")

# Variables of the test runner's own environment that would change what farm does.
_NOT_INHERITED = ("FARM_MODEL", "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_DEVICE_PLUGINS",
                  "FARM_CLUSTER_PREFIX")


def run_main(monkeypatch: Any, capsys: Any, *args: str | Path) -> tuple[int, str, str]:
    """``farm ARGS`` in this process, as the command runs it (farm.cli.main: exit codes, no
    tracebacks): (exit code, stdout, stderr). pytest's ``monkeypatch`` puts back what main()
    changes for a process of its own (the garbage collector, its own-process flag)."""
    import farm.cli as cli
    monkeypatch.setattr(cli, "_quiet_gc", lambda: None)     # not the test process's collector
    monkeypatch.setattr(cli, "_OWN_PROCESS", False)
    monkeypatch.setattr(sys, "argv", ["farm", *map(str, args)])
    try:
        cli.main()
        code = 0
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def wait_for(predicate: Callable[[], T], timeout: float = 60, what: str = "condition",
             step: float = 0.1) -> T:
    """Poll ``predicate`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not reached within {timeout:g}s")
        time.sleep(step)


def kill_tree(proc: subprocess.Popen | int, sig: int = signal.SIGKILL) -> None:
    """Signal a process and everything it started (worker children, Chromium), the process
    first: signalled after its children, a farm could see its browser die and record that
    before its own end (a SIGKILLed run whose case "lost its device")."""
    try:
        parent = psutil.Process(proc if isinstance(proc, int) else proc.pid)
        procs = [parent] + parent.children(recursive=True)
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.send_signal(sig)
        except psutil.NoSuchProcess:
            pass
    # a Popen's own process is left to Popen to reap: reaped by psutil, Popen would say
    # "returncode: 0" of a process killed here (as a test's failure did of a farm that hung)
    psutil.wait_procs(procs if isinstance(proc, int) else procs[1:], timeout=10)
    if not isinstance(proc, int):
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass


class FarmProcess:
    """A running farm command whose output (stdout and stderr, merged) is read as it comes."""

    def __init__(self, popen: subprocess.Popen) -> None:
        self.popen = popen
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self._changed:
                self.lines.append(line.rstrip("\n"))
                self._changed.notify_all()
        with self._changed:
            self._changed.notify_all()

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def returncode(self) -> int | None:
        return self.popen.returncode

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for_line(self, needle: str, timeout: float = 90) -> str:
        """The first output line containing ``needle``, once it has been printed."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                hit = next((line for line in self.lines if needle in line), None)
                if hit is not None:
                    return hit
                left = deadline - time.monotonic()
                if left <= 0 or (not self._reader.is_alive() and self.popen.poll() is not None):
                    raise AssertionError(f"never saw {needle!r} in the output of "
                                         f"{self.popen.args!r}:\n{self.output}")
                self._changed.wait(min(left, 1.0))

    def send_signal(self, sig: int) -> None:
        self.popen.send_signal(sig)

    def finish(self, timeout: float = 240) -> str:
        """Wait for the process to exit (failing the test after ``timeout``); its output."""
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            kill_tree(self.popen)
            raise AssertionError(f"{self.popen.args!r} still running after {timeout:g}s:\n"
                                 + self.output) from None
        self._reader.join(30)
        return self.output


class FarmCli:
    """Runs farm commands with a private state directory under ``tmp``."""

    def __init__(self, tmp: Path, **env: str) -> None:
        self.tmp = Path(tmp)
        self.base_env = env
        self.started: list[subprocess.Popen] = []
        self._logs = 0

    def env(self, **extra: str) -> dict[str, str]:
        e = {k: v for k, v in os.environ.items() if k not in _NOT_INHERITED}
        e.update(FARM_STATE_DIR=str(self.tmp / "state"), PYTHONUNBUFFERED="1",
                 PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT),
                                                          os.environ.get("PYTHONPATH")])))
        e.update(self.base_env)
        e.update(extra)
        return e

    @staticmethod
    def command(*args: str | Path) -> list[str]:
        return [sys.executable, "-m", "farm.cli", *map(str, args)]

    def run(self, *args: str | Path, timeout: float = 240, cwd: Path | None = None,
            **env: str) -> subprocess.CompletedProcess:
        """Run to completion (in ``cwd``: the checkout by default); stdout and stderr kept
        apart."""
        return subprocess.run(self.command(*args), cwd=cwd or ROOT, env=self.env(**env),
                              capture_output=True, text=True, timeout=timeout)

    def start(self, *args: str | Path, **env: str) -> FarmProcess:
        """Start in the background; its output is read line by line (see FarmProcess)."""
        popen = subprocess.Popen(self.command(*args), cwd=ROOT, env=self.env(**env),
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.started.append(popen)
        return FarmProcess(popen)

    def worker(self, devices: str, *args: str, broker: str, **env: str) -> subprocess.Popen:
        """`farm worker --broker URL --devices SPEC`, its output in a worker-*.log file."""
        self._logs += 1
        log = (self.tmp / f"worker-{self._logs}.log").open("w")
        popen = subprocess.Popen(self.command("worker", "--broker", broker, "--devices",
                                              devices, *args),
                                 cwd=ROOT, env=self.env(**env), stdout=log,
                                 stderr=subprocess.STDOUT)
        log.close()
        self.started.append(popen)
        return popen

    def worker_logs(self) -> str:
        return "\n".join(p.read_text(errors="replace")
                         for p in sorted(self.tmp.glob("worker-*.log")))

    def close(self) -> None:
        for popen in self.started:
            kill_tree(popen)
        self.started.clear()


def results(run_dir: Path) -> dict[str, Any]:
    """A run's results.json."""
    return json.loads((Path(run_dir) / "results.json").read_text())


def by_name(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A run's final results by case id without its suite folder (``faults/hang`` → ``hang``)."""
    return {c["case_id"].split("/", 1)[1]: c for c in summary["cases"]}
