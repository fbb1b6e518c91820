"""--collect-only predicts aiLocate as the run finds it: zero-token tiers first, as aiTap."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = ("web:\n  url: https://example.com\n{extra}tasks:\n  - name: t\n    flow:\n"
        "      - {step}\n")


def case(step: str = "aiTap: Sign in", extra: str = "") -> str:
    return CASE.format(step=step, extra=extra)


def write(path: Path, text: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case() if text is None else text)
    return path


def collected(out: str) -> list[str]:
    return sorted(line.split()[0] for line in out.splitlines() if "[web]" in line)


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS... --collect-only`` in ``tmp_path / "qa"``: (exit code, stdout, stderr)."""
    (tmp_path / "qa").mkdir()
    monkeypatch.chdir(tmp_path / "qa")
    monkeypatch.delenv("FARM_MODEL", raising=False)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args, "--collect-only")


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    """Midscene's layout: scripts in web/, a batch index.yaml beside the folder, another
    batch in b2/ naming a script of web/ (no farm.yaml anywhere)."""
    root = tmp_path / "qa"
    root.mkdir(exist_ok=True)
    write(root / "web" / "login.yaml")
    write(root / "web" / "login_zero.yaml")
    write(root / "index.yaml", "concurrent: 1\nfiles:\n  - web/*.yaml\n")
    write(root / "b2" / "index.yaml", "files:\n  - ../web/login_zero.yaml\n")
    return root


def test_ailocate_found_by_text_is_not_predicted_to_skip(collect, tmp_path):
    """aiLocate is located as aiTap's target is (zero-token tiers first): --collect-only
    predicted a skip and exit 1 with --fail-on-skip the run never had."""
    write(tmp_path / "qa" / "loc.yaml", case("aiLocate: Username"))
    code, out, err = collect("loc.yaml", "--fail-on-skip")
    assert code == 0, err
    assert "would be skipped" not in err + out
    write(tmp_path / "qa" / "ask.yaml", case("aiQuery: the total"))
    code, out, err = collect("ask.yaml", "--fail-on-skip")
    assert "would be skipped" in err + out and code == 1
