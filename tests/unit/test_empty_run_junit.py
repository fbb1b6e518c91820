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
