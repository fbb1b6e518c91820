"""`farm report --merge`, what a review found: --overwrite deleted a folder that held a run
and the user's own files with it; the working directory reached through a link was replaced;
the merged run's YAML links were made from wherever the merge ran."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.support.farm_cli import run_main as farm
from tests.unit.test_report_merge_mrg49 import here, shard_runs  # noqa: F401 (the fixture)


def test_overwrite_replaces_only_a_folder_holding_nothing_but_a_run(here, monkeypatch,
                                                                    capsys):
    shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    Path("nightly/notes.txt").write_text("keep me\n")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly",
                        "--overwrite")
    assert code == 4 and "files farm did not write (notes.txt)" in err, err
    assert Path("nightly/notes.txt").read_text() == "keep me\n"
    assert Path("nightly/results.json").exists()
    Path("nightly/notes.txt").unlink()      # a run's files alone: replaced
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly",
                        "--overwrite")
    assert code == 0, err


def test_the_working_directory_reached_by_a_link_is_not_replaced(here, monkeypatch, capsys):
    shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    os.symlink(here / "nightly", here / "alias")
    monkeypatch.chdir(here / "nightly")     # (--out named by a link to it)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", str(here / "arts"), "--out",
                        str(here / "alias"), "--overwrite")
    assert code == 4 and "the working directory" in err, err
    assert (here / "nightly" / "results.json").exists()


def test_the_merged_run_links_yaml_from_the_folder_its_jobs_ran_in(here, monkeypatch, capsys):
    shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    merged = json.loads(Path("nightly/results.json").read_text())
    assert merged["cwd"] == json.loads(Path("arts/job1/results.json").read_text())["cwd"]
    assert Path(merged["cwd"]).resolve() == here.resolve()
