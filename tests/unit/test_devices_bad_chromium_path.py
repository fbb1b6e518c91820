"""`farm devices` with a FARM_CHROMIUM_PATH that names no browser (a path from another
machine, a typo) stopped at "farm: error: chromium_path ..." and listed nothing else: the
command that says what is usable here hid the phones and endpoints. They are now listed, the
browser line points at the error, said last, and it still exits 4."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main as farm


def test_a_wrong_chromium_path_is_said_on_the_browser_line(tmp_path: Path, monkeypatch,
                                                           capsys) -> None:
    monkeypatch.chdir(tmp_path)
    for name in ("FARM_STATE_DIR", "FARM_IOS_WDA_URLS", "FARM_DEVICE_PLUGINS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")      # no phones asked about
    monkeypatch.setenv("FARM_CHROMIUM_PATH", str(tmp_path / "gone" / "chromium"))
    code, out, err = farm(monkeypatch, capsys, "devices")
    lines = out.splitlines()
    assert (code, err) == (4, f"farm: error: chromium_path '{tmp_path}/gone/chromium' "
                              "(FARM_CHROMIUM_PATH) does not exist or is not executable\n"), out
    assert lines[0] == "browser   none: the chromium_path set names no browser (the error below)"
    assert [line.split()[0] for line in lines[1:]] == ["android", "ios"]
