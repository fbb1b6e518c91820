"""`farm report --merge` as a sharded CI pipeline uses it: two jobs each run their shard of a
small zero-token web suite in Chromium (`farm run --shard I/2`), the pipeline downloads both
run folders into one, and `farm report --merge FOLDER --out nightly` makes the morning's one
run: every case once, the failure's JUnit attachment a file under --out."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.support.farm_cli import FarmCli

pytestmark = pytest.mark.integration

CASE = """\
web:
  serve: ./site
  url: index.html
tasks:
  - name: t{n}
    flow:
      - assertText: {text}
"""


def test_two_ci_jobs_merge_into_one_nightly_report_mrg49(tmp_path: Path):
    suite = tmp_path / "suite"
    (suite / "site").mkdir(parents=True)
    (suite / "site" / "index.html").write_text("<h1>Orders</h1>")
    for n in range(1, 5):
        (suite / f"c{n}.yaml").write_text(CASE.format(n=n, text="Nope" if n == 3 else "Orders"))
    cli = FarmCli(tmp_path)
    try:
        for i in (1, 2):
            done = cli.run("run", suite, "--devices", "browser:1", "--no-progress",
                           "--shard", f"{i}/2", "--report-dir", tmp_path / "dl" / f"job{i}")
            assert done.returncode in (0, 1), done.stdout + done.stderr
        done = cli.run("report", "--merge", tmp_path / "dl", "--out", tmp_path / "nightly")
    finally:
        cli.close()
    assert done.returncode == 0, done.stderr
    assert "merged 2 shard run(s), 4 case(s)" in done.stderr
    nightly = tmp_path / "nightly"
    merged = json.loads((nightly / "results.json").read_text())
    assert sorted(c["case_id"] for c in merged["cases"]) == [f"suite/c{n}" for n in range(1, 5)]
    assert merged["counts"]["failed"] == 1 and merged["counts"]["passed"] == 3
    assert merged["exit_code"] == 1 and "missing_shards" not in merged
    tests = list(ET.parse(nightly / "junit.xml").iter("testcase"))
    assert sorted(t.get("name") for t in tests) == ["c1", "c2", "c3", "c4"]
    attached = re.findall(r"\[\[ATTACHMENT\|([^\]]+)\]\]", (nightly / "junit.xml").read_text())
    assert attached and all(Path(a).is_file() and Path(a).is_relative_to(nightly.resolve())
                            for a in attached)
    page = (nightly / "report.html").read_text()
    assert "from 2 shards (1/2, 2/2)" in page
    assert all((nightly / src).is_file() for src in re.findall(r'src="(artifacts/[^"]+)"', page))
