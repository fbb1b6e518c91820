"""What farm says of a suite file holding a control character (a step kind written
``"ai\\e[31mTap":``): the line shows the escape. Printed raw it turned a terminal red, and
piped (click drops escape sequences when the stream is no terminal) it read "unknown step
kind 'aiTap' (did you mean 'aiTap'?)", blaming a step that looked right."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = 'web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - "ai\\e[31mTap": go\n'


def test_a_step_kind_with_an_escape_sequence_is_shown_escaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4
    assert err.splitlines()[1] == \
        "  s/c.yaml:6:9: unknown step kind 'ai\\x1b[31mTap' (did you mean 'aiTap'?)"


def test_an_error_naming_a_path_with_a_control_character_shows_it_escaped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_SECRETS_DIR", "gone\x07dir")
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE.replace('"ai\\e[31mTap": go', "sleep: 1"))
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4 and "\x07" not in err and "gone\\x07dir" in err
