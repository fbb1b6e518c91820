"""`farm run … --junit-xml FILE`: in farm's first moments FILE already says the run has not
finished, replaced whole (no stray temporary file beside it), and without loading the HTML
report renderer first (a fifth of a second in which a CI cancel left the old green file)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from farm import cli


def test_the_placeholder_is_written_whole_without_the_report_renderer(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # farm.report (whose package loads the HTML renderer) cannot be imported here
    for name in [m for m in sys.modules if m.startswith("farm.report")] + ["farm.report"]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setattr(cli, "_START_JUNIT", {})
    junit = tmp_path / "out" / "green.xml"
    junit.parent.mkdir()
    junit.write_text('<testsuites tests="1" failures="0"/>\n')
    cli._junit_at_start(["run", "ci", "--junit-xml", str(junit)])
    assert sorted(p.name for p in junit.parent.iterdir()) == ["green.xml"]   # no *.tmp
    text = junit.read_text(encoding="utf-8")
    assert 'type="RunNotFinished"' in text and "has not written its results" in text
