"""`--junit-xml` naming a file that holds something other than XML (a case file, tab-completed:
`--junit-xml s/login.yaml`) is refused, exit 4, the file kept: the run wrote its JUnit XML over
the case, which was lost. An earlier run's JUnit file (with or without a BOM) or an empty file
is replaced as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.cli import _junit_replaces_no_other_file
from farm.errors import UserError
from tests.support.farm_cli import run_main

CASE = "name: c\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def test_a_case_file_given_as_junit_xml_is_kept(tmp_path: Path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--junit-xml", "s/c.yaml")
    assert (code, out) == (4, "")
    assert err == ("farm: error: --junit-xml s/c.yaml: the file holds something other than XML "
                   "(farm would write the run's JUnit XML over it): give another file name, "
                   "or delete the file first\n")
    assert (tmp_path / "s" / "c.yaml").read_text() == CASE


@pytest.mark.parametrize("content", [b"", b"\n", b'<?xml version="1.0"?><testsuites/>',
                                     b'\xef\xbb\xbf  <testsuites tests="0"/>'])
def test_an_earlier_junit_file_or_an_empty_one_may_be_replaced(tmp_path: Path, content):
    (tmp_path / "junit.xml").write_bytes(content)
    _junit_replaces_no_other_file(tmp_path / "junit.xml")
    _junit_replaces_no_other_file(tmp_path / "not-there.xml")


def test_a_json_file_is_not_replaced(tmp_path: Path):
    (tmp_path / "results.json").write_text('{"cases": []}')
    with pytest.raises(UserError, match="holds something other than XML"):
        _junit_replaces_no_other_file(tmp_path / "results.json")
