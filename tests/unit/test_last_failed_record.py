""".farm/lastfailed.json as the user may find it (edited by hand, cut short by a crash):
one id written as a string is that id, not its characters; a file that is not a record of
failed cases is said once on stderr, naming it, and read as no failures recorded (the run's
end then replaces it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A suite ``s`` of two cases that pass on a fake device; state in .farm."""
    (tmp_path / "s").mkdir()
    for name in ("one", "two"):
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    (tmp_path / ".farm").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.setenv("FARM_TEST_FAKE_JOURNAL", str(tmp_path))
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


RUN = ["run", "s", "--last-failed", "--devices", "fake:1", "--no-progress", "--cache", "off"]


def test_one_failed_case_written_as_a_string_is_that_case(here, monkeypatch, capsys):
    (here / ".farm" / "lastfailed.json").write_text('{"failed": "s/two"}')
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert (code, err) == (0, "")
    assert "--last-failed: running 1 case(s) that failed last time" in out
    assert "1 passed" in out


@pytest.mark.parametrize("text, why", [
    ('{"failed": [', "not valid JSON (Expecting value: line 1 column 13 (char 12))"),
    ('{"failed": 7}', 'not a record of failed cases ({"failed": [case ids]})'),
    ('["s/two"]', 'not a record of failed cases ({"failed": [case ids]})'),
])
def test_a_file_that_is_no_record_is_said_once_and_read_as_none(here, monkeypatch, capsys,
                                                                text, why):
    (here / ".farm" / "lastfailed.json").write_text(text)
    code, out, err = farm(monkeypatch, capsys, *RUN)
    assert code == 0, out + err
    assert err == (f"farm: warning: .farm/lastfailed.json: {why}: taken as no failures "
                   "recorded (this run's failures replace it)\n")
    assert "--last-failed: no failures recorded, running every case" in out
    assert "2 passed" in out
    assert json.loads((here / ".farm" / "lastfailed.json").read_text()) == {"failed": []}
