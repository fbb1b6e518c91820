"""`farm report --merge` of a 3-shard nightly as a CI engineer met it: a shard killed with
kill -9 merges once `farm report` rebuilt it (its journal keeps its shard), an artifacts
folder holding a killed shard says so instead of "missing", a shard that had no case is not
said missing, a case's own shard's deselection reason wins, shards of two farm versions are
warned of, a shard still running is said to be, and --merge's paths are explained."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

from farm.results import now_iso
from tests.support.farm_cli import run_main as farm
from tests.unit.test_report_merge_mrg49 import here, shard_runs  # noqa: F401 (the fixture)


def killed(job: Path) -> None:
    """``job`` as kill -9 leaves it: no results.json, its journal without its end line."""
    (job / "results.json").unlink()
    journal = job / "results.jsonl"
    lines = [line for line in journal.read_text().splitlines()
             if json.loads(line).get("journal") != "end"]
    journal.write_text("\n".join(lines) + "\n")
    for name in ("report.html", "junit.xml"):
        (job / name).unlink(missing_ok=True)


def test_a_killed_shard_rebuilt_by_farm_report_merges_mrg50(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    killed(jobs[2])
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 4 and f"`farm report {jobs[2]}` rebuilds it" in err, err
    assert "missing" not in err
    code, _, err = farm(monkeypatch, capsys, "report", str(jobs[2]))
    assert code in (0, 1), err
    assert json.loads((jobs[2] / "results.json").read_text())["shard"] == "3/3"
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    assert "merged 3 shard run(s), 6 case(s)" in err and "missing" not in err
    merged = json.loads(Path("nightly/results.json").read_text())
    assert [s["shard"] for s in merged["shards"]] == ["1/3", "2/3", "3/3"]
    assert merged["cwd"] == os.getcwd()



def test_a_cases_own_shard_says_why_it_did_not_run_mrg50(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    third = json.loads((jobs[2] / "results.json").read_text())
    gone = third["cases"].pop(0)["case_id"]     # its shard's --last-failed left it out
    third["deselected"].append({**third["deselected"][0], "case_id": gone,
                                "reason": "--last-failed: did not fail last time"})
    third["counts"]["total"] -= 1
    (jobs[2] / "results.json").write_text(json.dumps(third))
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 0, err
    merged = json.loads(Path("nightly/results.json").read_text())
    assert [(d["case_id"], d["reason"]) for d in merged["deselected"]] == [
        (gone, "--last-failed: did not fail last time")]



def test_a_junit_xml_given_to_merge_says_what_merge_takes_mrg50(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys, total=2)
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", str(jobs[0]), "--merge",
                        str(jobs[1] / "junit.xml"), "--out", "nightly")
    assert code == 4, err
    assert "an XML file (a junit.xml?), not a run's results.json: --merge takes each " \
        "shard's run folder" in err, err


def test_a_shard_still_running_is_said_to_be_not_killed_mrg50(here, monkeypatch, capsys):
    jobs = shard_runs(monkeypatch, capsys)
    killed(jobs[2])
    journal = jobs[2] / "results.jsonl"         # its farm: a live process of this host
    head = json.loads(journal.read_text().splitlines()[0])
    head.update(pid=os.getppid(), host=socket.gethostname(), started=now_iso())
    journal.write_text(json.dumps(head) + "\n")
    code, _, err = farm(monkeypatch, capsys, "report", "--merge", "arts", "--out", "nightly")
    assert code == 4, err
    assert f"--merge {jobs[2]}: its run is still going (farm process {os.getppid()})" in err
    assert "killed" not in err and not Path("nightly").exists()


def test_an_older_farms_journal_without_its_shard_still_rebuilds_mrg50(here, monkeypatch,
                                                                       capsys):
    jobs = shard_runs(monkeypatch, capsys)
    killed(jobs[2])
    journal = jobs[2] / "results.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    for line in lines:
        line.pop("shard", None)
        line.pop("cwd", None)
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = farm(monkeypatch, capsys, "report", str(jobs[2]))
    assert code in (0, 1), err
    rebuilt = json.loads((jobs[2] / "results.json").read_text())
    assert "shard" not in rebuilt and len(rebuilt["cases"]) == 2
