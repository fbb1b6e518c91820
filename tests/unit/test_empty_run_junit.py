"""`farm run` of a folder with no case and --junit-xml: a JUnit document with no test (exit 5),
as pytest writes when it collects nothing, where no file was written and CI published the
file an earlier run had left there (its cases, green) as this run's."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from tests.support.farm_cli import run_main


def test_a_run_that_finds_no_case_writes_a_junit_file_with_no_test(tmp_path, monkeypatch,
                                                                   capsys):
    import xmlschema
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    (tmp_path / "empty").mkdir()
    junit = tmp_path / "out" / "junit.xml"
    junit.parent.mkdir()
    junit.write_text('<testsuites tests="3" failures="0"><testsuite name="old" tests="3"/>'
                     '</testsuites>')                      # an earlier run's
    code, out, _ = run_main(monkeypatch, capsys, "run", tmp_path / "empty", "--junit-xml",
                            junit)
    assert code == 5 and "no cases found" in out
    root = ET.parse(junit).getroot()
    assert (root.tag, root.get("tests"), list(root)) == ("testsuites", "0", [])
    xmlschema.XMLSchema(str(Path(__file__).parents[1] / "schemas" / "junit-10.xsd")).validate(
        str(junit))


def test_a_run_that_finds_no_case_says_what_it_skipped(tmp_path, monkeypatch, capsys):
    """Every file excluded or hidden: it said only 'no cases found', the why took a -v."""
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    case = "name: a\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"
    (tmp_path / "s" / ".drafts").mkdir(parents=True)
    (tmp_path / "s" / "farm.yaml").write_text("exclude: ['wip_*.yaml']\n")
    for i in range(12):
        (tmp_path / "s" / f"wip_{i:02d}.yaml").write_text(case)
    (tmp_path / "s" / ".drafts" / "a.yaml").write_text(case)
    code, out, _ = run_main(monkeypatch, capsys, "run", "s")
    lines = out.splitlines()
    assert code == 5 and lines[-2:] == ["farm: no cases found under s",
                                        "farm: nothing to run: no report written"]
    assert lines[0] == "farm: skipped hidden directory s/.drafts/"
    assert lines[1] == ("farm: skipped excluded file s/wip_00.yaml (farm.yaml's exclude: "
                        "'wip_*.yaml')")
    assert lines[-3] == "farm: ... and 3 more skipped (-v lists them)"
    assert len(lines) == 13


def test_farm_run_help_lists_the_exit_codes(monkeypatch, capsys):
    """A CI author wiring farm into a pipeline reads them off --help, not the README."""
    code, out, _ = run_main(monkeypatch, capsys, "run", "--help")
    assert code == 0
    said = " ".join(out.split())
    for meaning in ("0 all passed", "1 a case failed", "2 interrupted", "3 infrastructure",
                    "4 usage, configuration or suite error", "5 no case selected"):
        assert meaning in said, meaning
