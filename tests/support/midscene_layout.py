"""A Midscene project's layout for the unit tests of its ids, batches and step logs: a case
file's text, a writer, `--collect-only` run in the project (``collect``) and the project
itself (``qa``: scripts in web/, a batch index.yaml beside the folder, another batch in b2/
naming a script of web/, no farm.yaml anywhere)."""

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
