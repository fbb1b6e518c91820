"""Which shard an output is: a sharded job's results.json, JUnit, report header and console
line say "1/4" (nothing said it, and a merged folder of JUnit files could not be told apart);
an empty shard's JUnit names no run (its "farm run <id>" named a folder never made)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from farm.progress import PlainProgress
from farm.report.html import render_html
from farm.report.junit import build_junit
from farm.results import CaseResult, RunSummary
from farm.select import read_timings
from tests.support.farm_cli import run_main


def _summary(shard: str | None) -> RunSummary:
    case = CaseResult(run_id="r1", case_id="s/a", name="a", file="s/a.yaml", platform="web",
                      status="passed", duration=2.0)
    summary = RunSummary(run_id="r1", started="2026-12-07T06:00:00+00:00", cases=[case],
                         shard=shard)
    summary.recount()
    return summary


def test_results_json_says_the_shard_and_a_whole_run_says_nothing():
    assert json.loads(_summary("1/4").model_dump_json())["shard"] == "1/4"
    assert "shard" not in json.loads(_summary(None).model_dump_json())


def test_junit_and_report_header_say_the_shard():
    assert '<property name="shard" value="1/4"/>' in build_junit(_summary("1/4"))
    assert 'name="shard"' not in build_junit(_summary(None))
    assert "<dt>Shard</dt><dd>1/4 (the other shards ran in other jobs)</dd>" in render_html(
        _summary("1/4"))
    assert "<dt>Shard</dt>" not in render_html(_summary(None))


def test_the_console_count_says_the_shard():
    stream = io.StringIO()
    view = PlainProgress(0, 18, stream=stream, shard="1/4")
    view.start()
    view.stop()
    assert stream.getvalue().splitlines()[0] == "farm: 18 case(s) to run (shard 1/4)"


CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"


def test_an_empty_shards_junit_names_the_shard_not_a_run(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    for name in "ab":
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--shard", "4/4",
                              "--junit-xml", "j4.xml")
    assert code == 0, out + err
    text = (tmp_path / "j4.xml").read_text()
    assert '<testsuites name="farm: shard 4/4 had no case"' in text
    assert '<property name="shard" value="4/4"/>' in text
    assert "farm run" not in text and "run_id" not in text
    assert not (tmp_path / ".farm").exists()
    # (a folder of every job's JUnit holds all 4 shards: the empty one counts)
    assert read_timings(tmp_path / "j4.xml").shards == {"4/4"}
