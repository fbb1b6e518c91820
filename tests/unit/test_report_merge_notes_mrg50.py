"""`farm report --merge`, what it says beside the merge: a shard that had no case is not
said missing (each planned case is in a shard given); shards of two farm versions are
merged with a warning naming them; --merge a b says to repeat --merge for each path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.support.farm_cli import run_main as farm
from tests.unit.test_report_merge_mrg49 import here, shard_runs  # noqa: F401 (the fixture)


def test_a_shard_that_had_no_case_is_not_said_missing_mrg50(here, monkeypatch, capsys):
    (here / "t").mkdir()
    for n in (1, 2):
        (here / "t" / f"c{n}.yaml").write_text((here / "s" / f"c{n}.yaml").read_text())
    for i in (1, 2, 3):
        code, _, err = farm(monkeypatch, capsys, "run", "t", "--devices", "fake:1",
                            "--no-progress", "--shard", f"{i}/3", "--report-dir", f"few/job{i}")
        assert code == 0, err
    assert not Path("few/job3/results.json").exists()       # (it had no case)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "few", "--out", "nightly")
    assert code == 0, err
    assert "missing" not in err and "shard 3/3 had no case" in err, err
    merged = json.loads(Path("nightly/results.json").read_text())
    assert "missing_shards" not in merged and merged["counts"]["total"] == 2
    shutil.rmtree("few/job2")       # a shard that had cases: still said missing
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "few", "--out", "nightly",
                        "--overwrite")
    assert code == 0 and "farm: warning: shard 2/3 missing" in err, err
    assert "shard 3/3 had no case" in err

def test_shards_of_two_farm_versions_are_merged_with_a_warning_mrg50(here, monkeypatch,
                                                                      capsys):
    jobs = shard_runs(monkeypatch, capsys)
    data = json.loads((jobs[1] / "results.json").read_text())
    ours, data["farm_version"] = data["farm_version"], "a8a4a6f4"
    (jobs[1] / "results.json").write_text(json.dumps(data))
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    assert (f"farm: warning: the shards ran different farm versions: 1/3 {ours}, "
            f"2/3 a8a4a6f4, 3/3 {ours}") in err, err
    assert "merged 3 shard run(s), 6 case(s)" in err


def test_shards_started_a_day_apart_are_merged_with_a_warning_mrg50(here, monkeypatch,
                                                                     capsys):
    jobs = shard_runs(monkeypatch, capsys)
    data = json.loads((jobs[2] / "results.json").read_text())
    data["started"] = "2020-01-01T02:00:00.000+00:00"   # last year's shard 3/3
    (jobs[2] / "results.json").write_text(json.dumps(data))
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    assert "farm: warning: shard 3/3 started " in err and " h before shard " in err, err
    assert "are they of one nightly? merged all the same" in err


def test_several_paths_after_one_merge_say_to_repeat_it_mrg50(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    for given in (jobs[:2], jobs):
        code, out, err = farm(monkeypatch, capsys, "report", "--merge", *map(str, given),
                              "--out", "nightly")
        assert (code, out) == (4, ""), err
        assert "repeat it for each (--merge a --merge b)" in err, err
        assert not Path("nightly").exists()
    args = [a for job in jobs for a in ("--merge", str(job))]
    code, _, err = farm(monkeypatch, capsys, "report", *args, "--out", "nightly")
    assert code == 0 and "merged 3 shard run(s)" in err, err
