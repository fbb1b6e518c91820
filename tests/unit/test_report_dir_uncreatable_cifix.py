"""A --report-dir (or --junit-xml folder) that cannot be made, as one under /proc: farm says it
cannot create that folder and why, where it said "cannot write there (No such file or
directory)", as if something were missing that the user could make."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

PASSES = "name: passes\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - javascript: \"1\"\n"

pytestmark = pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "pass_login.yaml").write_text(PASSES)
    return tmp_path


@pytest.mark.parametrize("flag, given, said", [
    ("--report-dir", "/proc/farmx", "--report-dir /proc/farmx: cannot write there (cannot "
     "create the folder /proc/farmx: /proc takes no new folders)"),
    ("--report-dir", "/proc/farmx/a", "--report-dir /proc/farmx/a: cannot write there "
     "(cannot create the folder /proc/farmx: /proc takes no new folders)"),
    ("--junit-xml", "/proc/farmx/j.xml", "--junit-xml /proc/farmx/j.xml: cannot write there "
     "(cannot create the folder /proc/farmx: /proc takes no new folders)"),
])
def test_a_folder_that_cannot_be_made_is_named(here, monkeypatch, capsys, flag, given, said):
    code, out, err = farm(monkeypatch, capsys, "run", "ci", "--devices", "fake:1", flag, given)
    assert (code, err) == (4, f"farm: error: {said}\n"), out
