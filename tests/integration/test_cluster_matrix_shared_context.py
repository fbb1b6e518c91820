"""A --matrix run of a shareBrowserContext batch: each group's run of the unit was reported as
one case ("… (shared context: a.yaml, b.yaml) [os14]", "No steps ran.", the worst file's error
and no word of which file failed), junit.xml had one test per group and results.json one case.
Each group's run is now its files', named for the group. Real redis-server and `farm worker`
processes on the ``fake`` kind of the test device plugin (its assertText fails). Each group's
run of a file also wrote its screenshots where the other group's run wrote them: the report
showed both groups the same screens."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from tests.support.cluster import CLUSTER_ENV, wait_idle
from tests.support.farm_cli import PLUGIN, results

pytestmark = [pytest.mark.integration, pytest.mark.cluster]

FAILS = ("web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
         "      - assertText: No such text\n      - javascript: '1'\n")
PASSES = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - javascript: '2'\n"


def test_each_group_s_run_of_a_shared_batch_is_reported_per_file(tmp_path, redis_url, workers,
                                                                   farm):
    workers("fake:1", "--group", "os14")
    workers("fake:1", "--group", "os15")
    wait_idle(redis_url, 2)
    suite, run_dir = tmp_path / "s", tmp_path / "r"
    suite.mkdir()
    (suite / "a.yaml").write_text(FAILS)
    (suite / "b.yaml").write_text(PASSES)
    (suite / "index.yaml").write_text(
        "continueOnError: true\nshareBrowserContext: true\nfiles:\n  - a.yaml\n  - b.yaml\n")
    ran = farm.run("run", suite, "--broker", redis_url, "--matrix", "--devices", "fake:2",
                   "--report-dir", run_dir, "--junit-xml", tmp_path / "junit.xml",
                   "--no-progress", FARM_DEVICE_PLUGINS=PLUGIN, **CLUSTER_ENV)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    summary = results(run_dir)
    cases = {c["case_id"]: c for c in summary["cases"]}
    assert {cid: (c["name"], c["status"]) for cid, c in cases.items()} == {
        "s/a@os14": ("a [os14]", "failed"), "s/b@os14": ("b [os14]", "passed"),
        "s/a@os15": ("a [os15]", "failed"), "s/b@os15": ("b [os15]", "passed")}
    assert "No such text" in cases["s/a@os15"]["error"]["message"]
    assert [s["status"] for s in cases["s/a@os15"]["steps"]] == ["failed", "skipped"]
    shots = {cid: [s["after"] for s in c["steps"] if s.get("after")] for cid, c in cases.items()}
    assert shots["s/a@os14"] and shots["s/a@os15"]      # each group's own screens
    assert not set(shots["s/a@os14"]) & set(shots["s/a@os15"])
    assert all((run_dir / p).is_file() for p in shots["s/a@os14"] + shots["s/a@os15"])
    assert (summary["counts"]["passed"], summary["counts"]["failed"]) == (2, 2)
    suite_xml = ET.parse(tmp_path / "junit.xml").getroot()
    assert sum(int(s.get("tests")) for s in suite_xml.iter("testsuite")) == 4
    assert sorted(c.get("name") for c in suite_xml.iter("testcase")) == [
        "a@os14", "a@os15", "b@os14", "b@os15"]
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "shared context: a.yaml" not in html
    assert re.search(r"a \[os14\]", html) and re.search(r"b \[os15\]", html)
