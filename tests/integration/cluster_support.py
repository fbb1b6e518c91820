"""Helpers for the cluster tests: a private redis-server, `farm worker` and `farm run`
subprocesses, and process-tree clean-up (Chromium included)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]
PY = sys.executable


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """A throwaway redis-server on a spare port: the machine's shared one is never touched."""

    def __init__(self, port: int | None = None, password: str | None = None) -> None:
        self.port = port or free_port()
        self.password = password
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        auth = f":{self.password}@" if self.password else ""
        return f"redis://{auth}127.0.0.1:{self.port}/0"

    def start(self) -> "RedisServer":
        exe = shutil.which("redis-server")
        if exe is None:
            import pytest
            pytest.skip("redis-server not installed")
        auth = ["--requirepass", self.password] if self.password else []
        self.proc = subprocess.Popen([exe, "--port", str(self.port), "--save", "",
                                      "--appendonly", "no", "--bind", "127.0.0.1", *auth],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if redis.Redis(port=self.port, password=self.password).ping():
                    return self
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def env(tmp: Path, url: str, **extra: str) -> dict[str, str]:
    e = dict(os.environ, FARM_STATE_DIR=str(tmp / "state"), PYTHONUNBUFFERED="1",
             FARM_BROKER_URL=url, FARM_CLUSTER_PREFIX="farmtest", FARM_NO_PROGRESS="1")
    e.pop("FARM_MODEL", None)
    e.pop("CELERY_BROKER_URL", None)
    e.update(extra)
    return e


def start_workers(tmp: Path, url: str, devices: str, **extra: str) -> subprocess.Popen:
    log = open(tmp / f"worker-{time.monotonic_ns()}.log", "w")
    return subprocess.Popen([PY, "-m", "farm.cli", "worker", "--devices", devices], cwd=ROOT,
                            env=env(tmp, url, **extra), stdout=log, stderr=subprocess.STDOUT)


def leases(url: str) -> dict[str, dict]:
    import redis
    r = redis.Redis.from_url(url, decode_responses=True)
    out = {}
    for k in r.scan_iter(match="farmtest:lease:*"):
        raw = r.get(k)
        if raw:
            out[k.split(":lease:", 1)[1]] = json.loads(raw)
    return out


def wait_for(predicate, timeout: float = 60, step: float = 0.1):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError("condition not met in time")


def wait_idle(url: str, n: int, timeout: float = 60) -> dict[str, dict]:
    return wait_for(lambda: (lambda l: l if sum(v.get("state") == "idle" for v in l.values())
                             >= n else None)(leases(url)), timeout)


def farm_run(tmp: Path, url: str, suite: Path, run_dir: Path, *args: str,
             **extra: str) -> subprocess.Popen:
    return subprocess.Popen([PY, "-m", "farm.cli", "run", str(suite), "--report-dir", str(run_dir),
                             *args], cwd=ROOT, env=env(tmp, url, **extra),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def kill_tree(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
    """Kill a process and everything it started (worker children, Chromium)."""
    try:
        parent = psutil.Process(proc.pid)
        procs = parent.children(recursive=True) + [parent]
    except psutil.NoSuchProcess:
        return
    for p in procs:
        try:
            p.send_signal(sig)
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(procs, timeout=10)


def sleep_suite(folder: Path, n: int, ms: int, prefix: str = "c") -> Path:
    """``n`` cases that only sleep: they run on the test-only ``fake`` device kind."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"{prefix}{i:02d}.yaml").write_text(
            f"name: sleep {prefix}{i}\nweb:\n  url: about:blank\ntasks:\n  - name: wait\n"
            f"    flow:\n      - sleep: {ms}\n")
    return folder


def results(run_dir: Path) -> dict:
    return json.loads((run_dir / "results.json").read_text())
