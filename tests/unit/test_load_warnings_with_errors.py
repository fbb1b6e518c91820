"""A suite whose load fails still shows the load's warnings, before its errors: one may be why
(a timeout in the wrong unit, a secret name that matches no variable), and they came only once
the errors were fixed and the suite run again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

SLOW = ("name: slow\ntimeout: 30000\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n"
        "    flow:\n      - assertText: hi\n")
BROKEN = ("name: broken\nweb:\n  url: data:text/html,hi\ntasks:\n  - name: t\n    flow:\n"
          "      - aiTapp: hi\n")


def test_the_warnings_of_a_load_that_failed_are_shown_with_its_errors(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "slow.yaml").write_text(SLOW)
    (tmp_path / "s" / "broken.yaml").write_text(BROKEN)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    text = out + err
    assert code == 4, text
    assert "slow.yaml:2:10: timeout: 30000 seconds is 8.3 hours" in text, text
    assert "broken.yaml:7:9" in text and "aiTapp" in text, text
    assert "Traceback" not in text
