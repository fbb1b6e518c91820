"""Ctrl-C while `farm` is still starting (importing click, loading settings): exit 2 and one
line saying so, as once the run is under way. A Ctrl-C while `farm.cli` was being imported
printed a Python traceback and the process died of SIGINT (no exit 2 for CI to read)."""

from __future__ import annotations

import builtins
import importlib
import sys

import pytest

import farm.cli
from tests.support.farm_cli import run_main


def test_a_ctrl_c_while_farm_imports_is_an_interrupt_not_a_traceback(monkeypatch, capsys):
    real_import = builtins.__import__

    def interrupted(name: str, *args: object, **kwargs: object) -> object:
        if name == "click":          # where the signal lands most often: click's import
            raise KeyboardInterrupt
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "farm.cli")        # (put back after the test)
    monkeypatch.setattr(builtins, "__import__", interrupted)
    try:
        importlib.import_module("farm.cli")
    except KeyboardInterrupt:       # (raised on, it would stop the whole test session)
        pytest.fail("the Ctrl-C came out of farm.cli's import as a traceback")
    except SystemExit as exc:
        assert exc.code == 2
    else:
        pytest.fail("farm.cli's import went on after a Ctrl-C")
    assert capsys.readouterr().err == "farm: interrupted\n"


def test_a_ctrl_c_while_the_settings_load_says_farm_was_interrupted(monkeypatch, capsys,
                                                                     tmp_path):
    import farm.config

    def interrupted(**_given: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(farm.config, "load_settings", interrupted)
    (tmp_path / "s").mkdir()
    code, out, err = run_main(monkeypatch, capsys, "run", tmp_path / "s")
    assert (code, out) == (2, "")
    assert err.strip().splitlines() == ["farm: interrupted"]
    assert farm.cli.EXIT_INTERRUPTED == 2
