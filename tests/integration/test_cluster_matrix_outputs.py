"""A --matrix run names its results ``case@group``; a case's ``output:`` file and a batch's
``summary:`` were looked up by the plain case id, so the run wrote no output file and a
summary listing no file, silently. Each group's run now writes its own, the group in the
file's name (``a.json`` → ``a@os14.json``). Real redis-server and `farm worker` processes on
the ``fake`` kind of the test device plugin."""

from __future__ import annotations

import json

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN

pytestmark = [pytest.mark.integration, pytest.mark.cluster]


def test_each_group_run_writes_its_own_output_and_batch_summary(tmp_path, redis_url, workers,
                                                                farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite, out = tmp_path / "s", tmp_path / "out"
    suite.mkdir()
    for stem in ("a", "b"):
        (suite / f"{stem}.yaml").write_text(
            f"web:\n  url: about:blank\n  output: {out / stem}.json\ntasks:\n  - name: t\n"
            f"    flow:\n      - javascript: '1'\n        name: {stem}_value\n")
    (suite / "index.yaml").write_text(
        f"summary: {out / 'summary.json'}\nfiles:\n  - a.yaml\n  - b.yaml\n")
    ran = farm.run("run", suite, "--broker", redis_url, "--matrix", "--devices", "fake:2",
                   "--report-dir", tmp_path / "r", "--no-progress",
                   FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "a@os14.json", "a@os15.json", "b@os14.json", "b@os15.json",
        "summary@os14.json", "summary@os15.json"]
    assert json.loads((out / "b@os15.json").read_text()) == {"b_value": None}
    summary = json.loads((out / "summary@os14.json").read_text())
    assert (summary["group"], summary["total"], summary["passed"]) == ("os14", 2, 2)
    assert [f["case"] for f in summary["files"]] == ["s/a@os14", "s/b@os14"]
