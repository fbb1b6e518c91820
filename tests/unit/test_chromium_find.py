"""find_chromium search order and version parsing; normalize_key (no browser launched)."""

import stat
from pathlib import Path

import pytest

from farm.config import Settings
from farm.devices import chromium
from farm.devices.keys import normalize_key
from farm.errors import ConfigError


def fake_binary(path: Path, output: str) -> Path:
    path.write_text(f"#!/bin/sh\necho '[: 123: unexpected operator' >&2\necho '{output}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_configured_path_wins_and_version_is_parsed(tmp_path: Path) -> None:
    exe = fake_binary(tmp_path / "chrome", "Chromium 156.0.8078.108 built on Debian")
    info = chromium.find_chromium(Settings(chromium_path=exe))
    assert info is not None
    assert (info.path, info.version, info.source) == (str(exe), "156.0.8078.108", "settings")


def test_missing_configured_path_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        chromium.find_chromium(Settings(chromium_path=tmp_path / "nope"))


def test_system_then_playwright_then_none(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_PATHS", ())
    monkeypatch.setattr(chromium, "SYSTEM_PATHS", ())
    monkeypatch.setattr(chromium.shutil, "which", lambda name: None)
    monkeypatch.setenv("PLAYWRIGHT_BROWSERS_PATH", str(tmp_path / "pw"))
    assert chromium.find_chromium(Settings()) is None
    exe_dir = tmp_path / "pw" / "chromium-1" / "chrome-linux64"
    exe_dir.mkdir(parents=True)
    fake_binary(exe_dir / "chrome", "Google Chrome for Testing 159.0.8154.6")
    info = chromium.find_chromium(Settings())
    assert info is not None and info.source == "playwright" and info.version == "159.0.8154.6"
    sysexe = fake_binary(tmp_path / "chromium", "Chromium 1.2.3")
    monkeypatch.setattr(chromium, "SYSTEM_PATHS", (str(sysexe),))
    assert chromium.find_chromium(Settings()).source == "system"


def test_a_headless_device_gets_the_headless_shell_and_a_visible_one_full_chromium(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shell = fake_binary(tmp_path / "chromium-headless-shell", "Chromium 156.0.8078.114")
    full = fake_binary(tmp_path / "chromium", "Chromium 156.0.8078.114")
    monkeypatch.setattr(chromium, "HEADLESS_SHELL_PATHS", (str(shell),))
    monkeypatch.setattr(chromium, "SYSTEM_PATHS", (str(full),))
    monkeypatch.setattr(chromium.shutil, "which", lambda name: None)
    assert chromium.find_chromium(Settings()).path == str(shell)
    assert chromium.find_chromium().path == str(shell)       # the simulators' screens
    assert chromium.find_chromium(Settings(headless=False)).path == str(full)
    shell.unlink()                                  # no headless shell installed: full Chromium
    assert chromium.find_chromium(Settings()).path == str(full)


@pytest.mark.parametrize("given, expected", [
    ("enter", "Enter"), ("Esc", "Escape"), ("Page Down", "PageDown"), ("backspace", "Backspace"),
    ("tab", "Tab"), ("arrow up", "ArrowUp"), ("down", "ArrowDown"), ("ctrl+a", "Control+a"),
    ("Shift+Tab", "Shift+Tab"), ("a", "a"), ("+", "+"), ("f5", "F5"), ("NumpadEnter", "NumpadEnter"),
    # a shortcut's letter is the key itself (event.key "k", as a keyboard gives it), not the
    # shifted letter, unless Shift is part of it; a capital alone is typed as the capital
    ("Control+K", "Control+k"), ("Ctrl+Alt+T", "Control+Alt+t"), ("Shift+K", "Shift+K"),
    ("Control+Shift+K", "Control+Shift+K"), ("K", "K"), ("Control+F5", "Control+F5"),
])
def test_normalize_key(given: str, expected: str) -> None:
    assert normalize_key(given) == expected


def test_a_program_that_is_not_chromium_has_no_version(tmp_path: Path, monkeypatch,
                                                        capsys) -> None:
    """FARM_CHROMIUM_PATH=/bin/true (a typo'd or wrong path): `farm devices` said
    "Chromium 9.1" from coreutils' own version; a Chromium's is four numbers."""
    from tests.support.farm_cli import run_main as farm
    fake = fake_binary(tmp_path / "true", "true (GNU coreutils) 9.1")
    assert chromium.chromium_version(str(fake)) == "unknown"
    real = fake_binary(tmp_path / "chrome", "Chromium 156.0.8078.114 built on Debian 12.1")
    assert chromium.chromium_version(str(real)) == "156.0.8078.114"
    monkeypatch.setenv("FARM_CHROMIUM_PATH", str(fake))
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", "1")      # no phones asked about
    code, out, _ = farm(monkeypatch, capsys, "devices")
    assert out.splitlines()[0] == (f"browser   not a Chromium? (its --version names no "
                                   f"Chromium version)  {fake}  (settings)")
