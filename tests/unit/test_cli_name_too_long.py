"""A path given on the command line or in a setting with a name over 255 bytes (a flag's
value from a mangled variable, CASE pasted twice) is said as the user's mistake, exit 4, with
the path; it was "farm: internal error: OSError: [Errno 36] File name too long" and a
traceback file, as if farm had a bug. Other OSErrors stay internal errors."""

from __future__ import annotations

import errno
import os

import pytest

import farm.cli as cli
from farm.cache.keys import Namespace
from farm.cache.sqlite_store import SqliteStore
from tests.support.farm_cli import run_main

LONG = "x" * 300
SAID = "a name in this path is longer than the file system takes\n"


@pytest.fixture(autouse=True)
def here(tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("FARM_") or key in ("CELERY_BROKER_URL", "ANDROID_SERIAL"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    store = SqliteStore(tmp_path / ".farm" / "cache.db")
    store.put(Namespace("shop/login", "web").key("locate", "Sign in", 0),
              {"type": "locate", "prompt": "Sign in", "xpaths": ["//button"], "updated": 0})
    store.close()
    return tmp_path


def test_a_case_file_with_a_too_long_name(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "cache", "ls", f"{LONG}.yaml")
    assert (code, out, err) == (4, "", f"farm: error: {LONG}.yaml: {SAID}")


def test_a_state_dir_with_a_too_long_name(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / LONG))
    code, _, err = run_main(monkeypatch, capsys, "cache", "ls")
    assert code == 4
    assert err.startswith(f"farm: error: {tmp_path / LONG}") and err.endswith(SAID)


def test_another_os_error_is_still_an_internal_error(monkeypatch, capsys):
    def broken(*_args, **_kwargs):
        raise OSError(errno.EIO, "Input/output error", "cache.db")
    monkeypatch.setattr(cli, "_store", broken)
    code, _, err = run_main(monkeypatch, capsys, "cache", "ls")
    assert code == 3
    assert err.startswith("farm: internal error: OSError: [Errno 5] Input/output error")
