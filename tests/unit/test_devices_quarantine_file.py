"""`farm devices` lists the devices the last run quarantined, from .farm/quarantine.json. A file
a person edited by hand into something else (a list, a string for the device list) ended in
"farm: internal error: AttributeError" or listed "b, r, o, w, ..."."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm


@pytest.mark.parametrize("text,said", [
    ('{"run": "r1", "devices": ["browser-1", "emulator-5554"]}',
     "quarantined in run r1: browser-1, emulator-5554"),
    ("[1, 2]", None),
    ('{"run": "r1", "devices": "browser-1"}', None),
    ("not json", None),
])
def test_the_quarantine_file_is_read_or_left_out(tmp_path: Path, monkeypatch, capsys,
                                                 text, said) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FARM_STATE_DIR", raising=False)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")      # no phones asked about
    (tmp_path / ".farm").mkdir()
    (tmp_path / ".farm" / "quarantine.json").write_text(text)
    code, out, err = farm(monkeypatch, capsys, "devices")
    assert (code, err) == (0, "")
    quarantined = [line for line in out.splitlines() if line.startswith("quarantined")]
    assert quarantined == ([said] if said else [])
