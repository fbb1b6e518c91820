"""`farm run --broker URL --matrix --collect-only` lists each case's run per device group of
the cluster's workers (``case@group``, as the run names its results), so a user sees which
case runs on which group before running. It listed the cases alone, as without --matrix.
Real redis-server and `farm worker` processes on the ``fake`` kind of the test device
plugin."""

from __future__ import annotations

import socket

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results
from tests.support.suites import write_case

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

ANDROID = "name: Phone\nandroid:\n  launch: com.example.app\ntasks:\n  - name: t\n" \
          "    flow:\n      - sleep: 10\n"


def _listed(out: str) -> list[str]:
    """--collect-only's stdout: its case lines alone (its notes are on stderr)."""
    assert not any(line.startswith("farm:") for line in out.splitlines()), out
    return [line.split()[0] for line in out.splitlines()]


def test_collect_only_lists_the_run_of_each_case_on_each_device_group(tmp_path, redis_url,
                                                                       workers, farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite = tmp_path / "s"
    write_case(suite, "login", ["sleep: 10"])
    write_case(suite, "pay", ["sleep: 10"])
    (suite / "phone.yaml").write_text(ANDROID)
    env = {"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV}
    args = ["--broker", redis_url, "--matrix"]
    listed = farm.run("run", suite, *args, "--collect-only", **env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert _listed(listed.stdout) == ["s/login@os14", "s/login@os15", "s/pay@os14",
                                      "s/pay@os15", "s/phone"], listed.stdout
    assert "s/login@os14  [web]  login [os14]  (" in listed.stdout
    note = listed.stderr.splitlines()[-1]
    assert note.startswith("farm: --matrix: 4 run(s) of 3 case(s), one per device group of its "
                           "platform among the cluster's workers now (web: os14, os15); no "
                           "android worker in the cluster now: its 1 case(s) run once per "
                           "device group"), note
    # what it listed is what a run runs
    ran = farm.run("run", suite, *args, "--devices", "fake:2", "--report-dir", tmp_path / "r",
                   "--no-progress", **env)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert sorted(c["case_id"] for c in results(tmp_path / "r")["cases"]) == \
        [cid for cid in _listed(listed.stdout) if "@" in cid]


def test_collect_only_says_when_it_cannot_read_the_device_groups(tmp_path, farm):
    with socket.socket() as free:       # a port nothing listens on
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    suite = tmp_path / "s"
    write_case(suite, "login", ["sleep: 10"])
    listed = farm.run("run", suite, "--broker", f"redis://:hunter2@127.0.0.1:{port}/0",
                      "--matrix", "--collect-only", **CLUSTER_ENV)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert _listed(listed.stdout) == ["s/login"]
    note = listed.stderr.splitlines()[-1]
    assert note.startswith("farm: --matrix: cannot read the cluster's device groups (cannot "
                           "reach the broker redis://:***@127.0.0.1:"), note
    assert "hunter2" not in listed.stdout + listed.stderr
