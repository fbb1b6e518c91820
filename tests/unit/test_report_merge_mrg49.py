"""`farm report --merge`: one morning report for a nightly sharded over N CI jobs. Each shard is
a real `farm run --shard I/N` (in this process, on the in-memory ``fake`` device kind: no
browser), then merged as a user would: every case once in results.json, junit.xml and
report.html, counts that add up, the report's images under --out, a missing shard said, a
shard given twice refused naming both, a bad path named, --out untouched on refusal."""

from __future__ import annotations

import json
import os
import re
import shutil
import xml.etree.ElementTree as ET
from html import unescape
from pathlib import Path

import pytest
import xmlschema

from tests.support.farm_cli import run_main as farm

CASE = """\
name: Case {n}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""
FAILING = """\
name: Case {n}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - assertText: not on the empty page
"""
IDS = [f"s/c{n}" for n in range(1, 7)]
XSD = Path(__file__).parents[1] / "schemas" / "junit-10.xsd"     # the strict Jenkins xUnit one


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Six cases (s/c3 fails) and the shard runs of them: 1/3, 2/3, 3/3 in arts/jobI."""
    (tmp_path / "s").mkdir()
    for n in range(1, 7):
        (tmp_path / "s" / f"c{n}.yaml").write_text((FAILING if n == 3 else CASE).format(n=n))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_REPORT_DIR", "FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL",
                 "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def shard_runs(monkeypatch, capsys, total: int = 3) -> list[Path]:
    jobs = []
    for i in range(1, total + 1):
        job = Path("arts") / f"job{i}"
        code, _, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                            "--no-progress", "--shard", f"{i}/{total}", "--report-dir", job)
        assert code in (0, 1), err
        jobs.append(job)
    return jobs


def snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_merged_run_holds_every_case_of_every_shard_once_mrg49(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    before = {job: snapshot(job) for job in jobs}
    code, out, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err       # (the merged run's own code is in its results.json)
    assert out == f"{(here / 'nightly' / 'report.html').resolve()}\n"
    assert "merged 3 shard run(s), 6 case(s)" in err and "missing" not in err
    merged = json.loads((here / "nightly" / "results.json").read_text())
    assert sorted(c["case_id"] for c in merged["cases"]) == IDS
    assert merged["counts"]["total"] == 6 and merged["counts"]["failed"] == 1
    assert merged["counts"]["passed"] == 5 and merged["exit_code"] == 1
    assert "shard" not in merged and merged["deselected"] == []
    # each job's fake-1 is a device of its own: one timeline row each, not bars over bars
    assert sorted(merged["devices"]) == [f"fake-1 (shard {i}/3)" for i in (1, 2, 3)]
    assert {c["device"] for c in merged["cases"]} == set(merged["devices"])
    assert [s["shard"] for s in merged["shards"]] == ["1/3", "2/3", "3/3"]
    assert [Path(s["path"]) for s in merged["shards"]] == [
        (here / job / "results.json") for job in jobs]
    shard_results = [json.loads((job / "results.json").read_text()) for job in jobs]
    assert merged["started"] == min((r["started"] for r in shard_results))
    assert merged["finished"] == max((r["finished"] for r in shard_results))
    junit = ET.parse(here / "nightly" / "junit.xml")
    names = sorted(f"{t.get('classname')}/{t.get('name')}" for t in junit.iter("testcase"))
    assert names == IDS
    page = (here / "nightly" / "report.html").read_text()
    assert "from 3 shards (1/3, 2/3, 3/3)" in page
    for n in range(1, 7):
        assert f"Case {n}" in page
    assert {job: snapshot(job) for job in jobs} == before     # nothing written into a shard


def test_the_reports_images_are_under_out_and_survive_a_move_mrg49(here, monkeypatch, capsys):
    shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts/job1", "--merge",
                        "arts/job2/results.json", "--out", "nightly")
    assert code == 0, err
    shutil.move(here / "nightly", here / "moved")
    shutil.rmtree(here / "arts")                  # (the shards gone: CI artifacts expire)
    page = (here / "moved" / "report.html").read_text()
    images = {unescape(src) for src in re.findall(r'src="([^"]+)"', page)
              if not src.startswith(("data:", "http"))}
    assert images and all(src.startswith("artifacts/") for src in images)
    assert all((here / "moved" / src).is_file() for src in images), images
    folders = {src.split("/")[1] for src in images}
    assert len(folders) == 6                      # each case's own screenshots


def test_a_missing_shard_is_said_on_the_console_in_the_report_and_results_mrg49(
        here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    shutil.rmtree(jobs[1])
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    merged = json.loads((here / "nightly" / "results.json").read_text())
    assert code == 0, err       # (as `farm report RUN_DIR`: the report was written)
    assert merged["exit_code"] == (1 if merged["counts"]["failed"] else 0)
    assert "farm: warning: shard 2/3 missing: its cases are not in this report\n" in err
    merged = json.loads((here / "nightly" / "results.json").read_text())
    assert merged["missing_shards"] == ["2/3"]
    assert [s["shard"] for s in merged["shards"]] == ["1/3", "3/3"]
    ran = {c["case_id"] for c in merged["cases"]}
    assert merged["counts"]["total"] == len(ran) < 6
    assert sorted(d["case_id"] for d in merged["deselected"]) == sorted(set(IDS) - ran)
    page = (here / "nightly" / "report.html").read_text()
    assert "Shard 2/3 missing: its cases are not in this report." in page
    xmlschema.XMLSchema(str(XSD)).validate(str(here / "nightly" / "junit.xml"))
    junit = ET.parse(here / "nightly" / "junit.xml")
    said = {(p.get("name"), p.get("value")) for p in junit.iter("property")}
    assert {("merged_from", "1/3, 3/3"), ("missing_shards", "2/3")} <= said
    assert "from 2 shards (1/3, 3/3); missing: 2/3" in page


def test_a_shard_given_twice_is_refused_naming_both_out_untouched_mrg49(here, monkeypatch,
                                                                       capsys):
    jobs = shard_runs(monkeypatch, capsys, total=2)
    shutil.copytree(jobs[1], "arts/job2-copy")    # the same run downloaded twice: fine
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    assert len(json.loads(Path("nightly/results.json").read_text())["cases"]) == 6
    rerun = Path("arts/job2-rerun")               # a second run of shard 2/2: refused
    shutil.copytree(jobs[1], rerun)
    data = json.loads((rerun / "results.json").read_text())
    data["run_id"] = "20990101-000000-beef"
    (rerun / "results.json").write_text(json.dumps(data))
    before = snapshot(here / "nightly")
    code, out, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly",
                          "--overwrite")
    assert (code, out) == (4, "")
    assert "shard 2/2 given twice: " in err and "Traceback" not in err
    assert os.path.join("arts", "job2", "results.json") in err
    assert os.path.join("arts", "job2-rerun", "results.json") in err
    assert snapshot(here / "nightly") == before
    assert sorted(p.name for p in here.iterdir()) == ["arts", "nightly", "s", "state"]


def test_mixed_splits_whole_runs_and_bad_files_are_refused_by_name_mrg49(here, monkeypatch,
                                                                        capsys):
    shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                        "--no-progress", "--shard", "1/3", "--report-dir", "other/job1of3")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts/job1", "--merge",
                        "other/job1of3", "--out", "nightly")
    assert code == 4 and "shards of different splits" in err and "other/job1of3" in err
    farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress",
         "--report-dir", "whole")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--merge", "whole",
                        "--out", "nightly")
    assert code == 4 and err.startswith(f"farm: error: {os.path.join('whole', 'results.json')}"
                                        ": a whole run, not a shard's")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "s", "--out", "nightly")
    assert (code, err.splitlines()[0][:43]) == (4, "farm: error: --merge s: not a run directory")
    Path("arts/job2/results.json").write_text('{"run_id": "x",\n  "started": oops}\n')
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 4 and err.startswith(
        f"farm: error: {os.path.join('arts', 'job2', 'results.json')}: not valid JSON at line 2")
    assert not Path("nightly").exists() and "Traceback" not in err
    assert not [p for p in here.iterdir() if p.name.startswith(".")]   # no temp folder left


def test_out_that_holds_other_files_or_a_shard_is_refused_mrg49(here, monkeypatch, capsys):
    shard_runs(monkeypatch, capsys, total=2)
    Path("mine").mkdir()
    Path("mine/notes.txt").write_text("keep me\n")
    for out, said in (("mine", "--out mine is not empty and holds no run (notes.txt"),
                      ("arts/job1", "--out arts/job1: it holds the shard run"),
                      ("arts", "--out arts: it holds the shard run")):
        code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", out,
                            "--overwrite")
        assert code == 4 and said in err, err
    assert Path("mine/notes.txt").read_text() == "keep me\n"
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts")
    assert code == 4 and "give --out DIR" in err
    code, _, err = farm(monkeypatch, capsys, "report", "arts/job1", "--overwrite")
    assert code == 4 and "--overwrite: only with --merge" in err


def test_an_earlier_merge_is_replaced_only_with_overwrite_mrg49(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    before = snapshot(here / "nightly")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", jobs[0], "--out", "nightly")
    assert (code, err) == (4, "farm: error: --out nightly already holds a run (results.json): "
                              "use --overwrite to replace it, or another directory\n")
    assert snapshot(here / "nightly") == before
    # the parent folder holds the earlier merge too: it is replaced, not one of the shards
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", ".", "--out", "nightly",
                        "--overwrite")
    assert code == 0, err
    assert json.loads(Path("nightly/results.json").read_text())["counts"]["total"] == 6
    monkeypatch.chdir(here / "nightly")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "../arts", "--out", ".",
                        "--overwrite")
    assert code == 4 and "--out .: the working directory" in err
    monkeypatch.chdir(here)
    assert sorted(p.name for p in here.iterdir()) == ["arts", "nightly", "s", "state"]


def test_shards_of_another_selection_are_refused_mrg49(here, monkeypatch, capsys):
    """Shard 1/2 of the nightly and shard 2/2 of a run with one case more (a later commit's
    suite, or another -k): their cases would not add up to either run."""
    jobs = shard_runs(monkeypatch, capsys, total=2)
    (here / "s" / "c7.yaml").write_text(CASE.format(n=7))
    code, _, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                        "--no-progress", "--shard", "2/2", "--report-dir", "later/job2")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", jobs[0], "--merge",
                        "later/job2", "--out", "nightly")
    assert code == 4 and "were not cut from one selection" in err, err
    assert os.path.join("later", "job2", "results.json") in err
    assert not Path("nightly").exists()
