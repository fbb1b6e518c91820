"""A --matrix run of a shareBrowserContext batch names each file per group everywhere a user
reads ids back: --collect-only --matrix lists s/a@os14 ... s/b@os15, lastfailed.json records
the files that failed per group (not the unit's id), and --last-failed --matrix runs those
files again on each group, each once. Real redis-server and `farm worker` processes on the
``fake`` kind of the test device plugin (its assertText fails)."""

from __future__ import annotations

import json

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

FAILS = ("web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
         "      - assertText: No such text\n")
PASSES = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - javascript: '2'\n"


def test_matrix_ids_of_a_shared_batch_s_files_stay_apart_when_read_back(tmp_path, redis_url,
                                                                        workers, farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "a.yaml").write_text(FAILS)
    (suite / "b.yaml").write_text(PASSES)
    (suite / "index.yaml").write_text(
        "continueOnError: true\nshareBrowserContext: true\nfiles:\n  - a.yaml\n  - b.yaml\n")
    common = ("--broker", redis_url, "--matrix", "--devices", "fake:2", "--no-progress")
    env = {"FARM_DEVICE_PLUGINS": PLUGIN, **CLUSTER_ENV}

    listed = farm.run("run", suite, *common, "--collect-only", **env)
    assert listed.returncode == 0, listed.stdout + listed.stderr
    assert sorted(line.split()[0] for line in listed.stdout.splitlines()
                  if line.startswith("s/")) == ["s/a@os14", "s/a@os15", "s/b@os14", "s/b@os15"]

    first = farm.run("run", suite, *common, "--report-dir", tmp_path / "r1", **env)
    assert first.returncode == 1, first.stdout + first.stderr
    recorded = json.loads((tmp_path / "state" / "lastfailed.json").read_text())
    assert recorded == {"failed": ["s/a@os14", "s/a@os15"]}

    again = farm.run("run", suite, *common, "--last-failed", "--report-dir", tmp_path / "r2",
                     **env)
    assert again.returncode == 1, again.stdout + again.stderr
    assert sorted(c["case_id"] for c in results(tmp_path / "r2")["cases"]) == [
        "s/a@os14", "s/a@os15"]
