"""No behaviour depends on which executor ran a case.

Every test here runs twice: on the local executor (``farm run SUITE --devices KIND:N``) and on
real `farm worker` processes (``farm worker --broker URL --devices KIND:N`` started first, then
``farm run SUITE --broker URL --devices KIND:N``), and asserts on what a user sees: the exit
code, results.json (statuses, error kinds, attempts, ``quarantined``), the summary line, the
junit file and `farm devices`.

Outcomes and retries run on real headless Chromium; infrastructure faults, health checks and
the watchdog on the ``fake`` kind of the test device plugin (tests/support/devices.py). Each
scenario is one `farm run` per executor, shared by the tests that look at it; in cluster mode
each distinct worker set (devices + plugin switches) gets a database of one redis-server and is
started once.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, ROOT, FarmCli, by_name, results
from tests.support.flaky_backend import FlakyBackend
from tests.support.redis_server import RedisServer
from tests.support.suites import sleep_suite, write_case

pytestmark = pytest.mark.integration

FAULTS = ROOT / "tests" / "integration" / "suites" / "faults"


@dataclass
class Run:
    """One finished `farm run`, as its user sees it."""

    code: int
    output: str
    run_dir: Path
    devices_listing: str = ""

    @cached_property
    def summary(self) -> dict[str, Any]:
        return results(self.run_dir)

    @property
    def cases(self) -> dict[str, dict[str, Any]]:
        return by_name(self.summary)

    @property
    def summary_line(self) -> str:
        return next(line for line in reversed(self.output.splitlines())
                    if line.startswith("farm: ") and "(run " in line)

    @cached_property
    def junit(self) -> dict[str, dict[str, Any]]:
        """case id → what junit.xml says: result (passed/failure/error/skipped), its type,
        attempt, flaky, the tags of earlier attempts (flakyFailure, rerunError, ...) and the
        earlier attempts a passed case's facts list."""
        out = {}
        for tc in ET.parse(self.run_dir / "junit.xml").getroot().iter("testcase"):
            out_text = next((c.text or "" for c in tc if c.tag == "system-out"), "")
            props = dict(line.split(": ", 1)        # the facts heading system-out
                         for line in out_text.split("\n\n", 1)[0].splitlines())
            verdict = next((c for c in tc if c.tag in ("failure", "error", "skipped")), None)
            out[props["case_id"].split("/", 1)[1]] = {
                "result": verdict.tag if verdict is not None else "passed",
                "type": verdict.get("type") if verdict is not None else None,
                "attempt": int(props["attempt"]), "flaky": props.get("flaky") == "true",
                "earlier": [c.tag for c in tc if c.tag.startswith(("flaky", "rerun"))],
                "earlier_said": [line.split(": ", 1)[1] for line in out_text.splitlines()
                                 if line.startswith("earlier_attempt: ")]}
        return out

    def explain(self) -> str:
        return f"exit {self.code}\n{self.output}"


@dataclass(frozen=True)
class Pool:
    """Devices as ``--devices`` names them, and the plugin switches of whoever builds them."""

    devices: str
    env: tuple[tuple[str, str], ...] = ()

    @property
    def count(self) -> int:
        return sum(int(part.partition(":")[2] or 1) for part in self.devices.split(","))


# Each scenario's devices. In cluster mode every pool is a set of `farm worker`s of its own
# (its own Redis database), all started when the executor is set up; a pool whose device gets
# quarantined is spent, so no two scenarios share one.
POOLS = {
    "browsers": Pool("browser:2"),
    "one_broken": Pool("fake:2", (("FARM_TEST_FAKE_FAIL", "fake-1"),)),
    "sick": Pool("fake:1", (("FARM_TEST_FAKE_UNHEALTHY", "1"), ("FARM_WATCHDOG_GRACE_SECONDS", "1"),
                            ("FARM_TEST_FAKE_JOURNAL", "{tmp}/journal"))),
}


@dataclass
class Executor:
    """Runs suites on one executor: ``local`` or ``cluster`` (then on ``brokers[pool]``)."""

    name: str
    cli: FarmCli
    brokers: dict[str, str] = field(default_factory=dict)
    runs: int = 0

    def pool_env(self, pool: str) -> dict[str, str]:
        return {k: v.format(tmp=self.cli.tmp) for k, v in POOLS[pool].env}

    def start_workers(self, redis: RedisServer) -> None:
        for name, pool in POOLS.items():
            self.brokers[name] = redis.new_db()
            self.cli.worker(pool.devices, broker=self.brokers[name],  # no /metrics ports
                            FARM_WORKER_METRICS_PORT="0", **self.pool_env(name))

    def run(self, paths: list[Path], pool: str, *args: str, listing: bool = False,
            **env: str) -> Run:
        """`farm run PATHS` on ``pool``; ``listing``: also what `farm devices` says after."""
        self.runs += 1
        run_dir = self.cli.tmp / f"run-{self.runs}"
        if self.name == "local":
            where: list[str] = []
            env = {**self.pool_env(pool), **env}
        else:
            where = ["--broker", self.brokers[pool]]
            wait_idle(self.brokers[pool], POOLS[pool].count)
        done = self.cli.run("run", *map(str, paths), "--devices", POOLS[pool].devices, *where,
                            "--report-dir", str(run_dir), *args, timeout=300, **env)
        shown = self.cli.run("devices", *where, timeout=60) if listing else None
        return Run(done.returncode, done.stdout + done.stderr, run_dir,
                   shown.stdout + shown.stderr if shown else "")


@pytest.fixture(scope="module", params=["local", pytest.param("cluster",
                                                              marks=pytest.mark.cluster)])
def executor(request, tmp_path_factory) -> Iterator[Executor]:
    cli = FarmCli(tmp_path_factory.mktemp(request.param), FARM_DEVICE_PLUGINS=PLUGIN,
                  **CLUSTER_ENV)
    (cli.tmp / "journal").mkdir()
    redis = RedisServer().start() if request.param == "cluster" else None
    executor = Executor(request.param, cli)
    try:
        if redis is not None:
            executor.start_workers(redis)
        yield executor
    finally:
        cli.close()
        if redis is not None:
            redis.stop()


# ---- outcomes and test retries: real Chromium ----------------------------------------------------
@pytest.fixture(scope="module")
def outcomes(executor: Executor) -> Run:
    """One case of each outcome on two browsers: passed, failed, skipped (needs a model),
    error (its page script outlives the case timeout), and flaky (its file allows one retry)."""
    cases = [FAULTS / f"{n}.yaml" for n in ("ok_login", "wrong_text", "needs_model", "hang",
                                             "flaky")]
    with FlakyBackend() as backend:
        return executor.run(cases, "browsers", FLAKY_URL=backend.url)


def test_each_outcome_is_reported_alike(outcomes: Run) -> None:
    assert outcomes.code == 1, outcomes.explain()          # a failure outranks the error
    got = {name: (c["status"], c["attempt"], (c["error"] or {}).get("kind"))
           for name, c in outcomes.cases.items()}
    assert got == {"ok_login": ("passed", 1, None),
                   "wrong_text": ("failed", 1, "AssertionFailed"),
                   "needs_model": ("skipped", 1, None),
                   "hang": ("error", 1, "CaseTimeout"),
                   "flaky": ("flaky", 2, None)}, outcomes.explain()
    assert "needs a model" in outcomes.cases["needs_model"]["reason"]
    failed = outcomes.cases["wrong_text"]
    assert failed["error"]["step"] == 5 and "Welcome back, admin" in failed["error"]["message"]
    counts = {k: n for k, n in outcomes.summary["counts"].items() if n}
    assert counts == {"total": 5, "passed": 1, "failed": 1, "skipped": 1, "error": 1,
                      "flaky": 1}, counts
    assert outcomes.summary["quarantined"] == []
    assert outcomes.summary_line.startswith(     # (a first run: no verdicts, nothing "new")
        "farm: 1 passed, 1 failed, 1 error, 1 flaky, 1 skipped in "), \
        outcomes.summary_line


def test_each_outcome_lands_in_junit_alike(outcomes: Run) -> None:
    junit = {name: (j["result"], j["type"], j["attempt"], j["flaky"], j["earlier"])
             for name, j in outcomes.junit.items()}
    assert junit == {"ok_login": ("passed", None, 1, False, []),
                     "wrong_text": ("failure", "AssertionFailed", 1, False, []),
                     "needs_model": ("skipped", None, 1, False, []),
                     "hang": ("error", "CaseTimeout", 1, False, []),
                     "flaky": ("passed", None, 2, True, ["flakyFailure"])}


def test_a_test_retry_that_passes_ends_flaky(outcomes: Run) -> None:
    flaky = outcomes.cases["flaky"]
    first = flaky["previous"][0]
    assert first["status"] == "failed" and first["attempt"] == 1
    assert "backend said 500" in first["error"]["message"]
    assert "warning: 1 flaky case(s) passed only after failing: faults/flaky" in outcomes.output


# ---- infrastructure errors and quarantine: the fake device kind ----------------------------------
@pytest.fixture(scope="module")
def broken_device(executor: Executor) -> Run:
    """Two fake devices, fake-1 loses every session: its cases are retried on fake-2 until it
    has failed three times in a row and is quarantined."""
    suite = sleep_suite(executor.cli.tmp / "infra", 6, 500)
    return executor.run([suite], "one_broken", listing=True)


def test_an_infra_error_is_retried_on_another_device(broken_device: Run) -> None:
    assert broken_device.code == 0, broken_device.explain()
    cases = broken_device.cases
    assert {c["status"] for c in cases.values()} == {"passed"}, broken_device.explain()
    retried = [c for c in cases.values() if c["attempt"] == 2]
    assert len(retried) == 3, cases               # quarantined after its third failure
    bad = {c["previous"][0]["device"] for c in retried}
    assert len(bad) == 1 and next(iter(bad)).startswith("fake-1"), bad
    for case in retried:
        first = case["previous"][0]
        assert first["status"] == "error" and first["error"]["kind"] == "DeviceLost"
        assert case["device"] not in bad
    assert all(c["attempt"] == 1 for c in cases.values() if c not in retried)
    junit = broken_device.junit
    assert {j["result"] for j in junit.values()} == {"passed"}
    # passed, not flaky: the device broke, not the app (a flakyError would make CI say flaky)
    assert all(j["earlier"] == [] for j in junit.values()), junit
    said = [j["earlier_said"] for j in junit.values() if j["attempt"] == 2]
    assert len(said) == 3 and all(len(s) == 1 and s[0].startswith("attempt 1 error on fake-1")
                                  for s in said), said


def test_a_device_with_three_infra_errors_in_a_row_is_quarantined(broken_device: Run) -> None:
    bad = next(c["previous"][0]["device"] for c in broken_device.cases.values()
               if c["attempt"] == 2)
    assert broken_device.summary["quarantined"] == [bad], broken_device.explain()
    assert broken_device.summary_line.split(" (run ")[0].endswith(f"; quarantined: {bad}"), \
        broken_device.summary_line
    listed = [line for line in broken_device.devices_listing.splitlines() if bad in line]
    assert listed and all("quarantined" in line for line in listed), \
        broken_device.devices_listing


# ---- health check and watchdog: the fake device kind ---------------------------------------------
@pytest.fixture(scope="module")
def sick_device(executor: Executor) -> tuple[Run, list[str]]:
    """One fake device, unhealthy at its first check, and three cases in this order: one that
    sleeps, one whose script ignores its 1 s timeout (only a kill ends it), one that sleeps on
    the device the watchdog killed. Also the device's own journal of what happened to it."""
    suite = executor.cli.tmp / "sick"
    write_case(suite, "a_first", ["sleep: 100"])
    write_case(suite, "b_hang", ["javascript: farm-test:hang"], timeout=1)
    write_case(suite, "c_after", ["sleep: 100"])
    run = executor.run([suite], "sick")
    logs = list((executor.cli.tmp / "journal").glob("*.log"))
    assert len(logs) == 1, logs
    return run, logs[0].read_text().split()


def test_an_unhealthy_device_is_restarted_and_the_case_still_runs(sick_device) -> None:
    run, journal = sick_device
    first = run.cases["a_first"]
    assert (first["status"], first["attempt"]) == ("passed", 1), run.explain()
    assert run.summary["devices"] == [first["device"]]
    # the device's own account: asked, found sick, closed, opened again, then the session
    assert journal[:5] == ["open", "unhealthy", "close", "open", "session"], journal


def test_the_watchdog_ends_a_hung_case_as_a_timeout_and_the_run_goes_on(sick_device) -> None:
    run, journal = sick_device
    assert run.code == 3, run.explain()
    hang, after = run.cases["b_hang"], run.cases["c_after"]
    assert (hang["status"], hang["attempt"], hang["error"]["kind"]) == (
        "error", 1, "CaseTimeout"), run.explain()
    assert "timed out" in hang["error"]["message"]
    assert (after["status"], after["attempt"]) == ("passed", 1), run.explain()
    assert after["device"] == hang["device"]
    assert run.summary["quarantined"] == []
    assert (run.junit["b_hang"]["result"], run.junit["b_hang"]["type"]) == ("error",
                                                                            "CaseTimeout")
    # killed by the watchdog, found dead at the next check, restarted for the last case
    assert journal[5:12] == ["session", "hang", "kill", "unhealthy", "close", "open",
                             "session"], journal
