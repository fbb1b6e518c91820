"""A shard killed mid-run and rebuilt by `farm report` keeps the CI run it was part of
(results.json's ``run_group``, from FARM_RUN_GROUP or the CI's run id): the history page
folds it with its night's other shards by that id, and --merge compares it with theirs."""

from __future__ import annotations

import json

from tests.support.farm_cli import run_main as farm
from tests.unit.test_report_merge_ci_night_mrg50 import killed
from tests.unit.test_report_merge_mrg49 import here, shard_runs  # noqa: F401 (the fixture)


def test_a_killed_shard_rebuilt_keeps_its_run_group_me50(here, monkeypatch, capsys):
    for name in ("GITHUB_RUN_ID", "CI_PIPELINE_ID", "BUILDKITE_BUILD_ID", "CIRCLE_WORKFLOW_ID",
                 "BUILD_TAG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("FARM_RUN_GROUP", "nightly-4711")
    jobs = shard_runs(monkeypatch, capsys, total=2)
    killed(jobs[1])
    lines = [json.loads(line) for line in (jobs[1] / "results.jsonl").read_text().splitlines()]
    [head] = [line for line in lines if line.get("journal") == "run"]
    assert head["run_group"] == "nightly-4711"
    monkeypatch.delenv("FARM_RUN_GROUP")        # `farm report` later, in another shell
    code, _, err = farm(monkeypatch, capsys, "report", str(jobs[1]))
    assert code in (0, 1), err
    rebuilt = json.loads((jobs[1] / "results.json").read_text())
    assert (rebuilt["shard"], rebuilt["run_group"]) == ("2/2", "nightly-4711")
