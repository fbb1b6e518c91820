"""A batch file's shared target keys are honoured or refused at their line, never dropped."""

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


def test_a_batch_shared_dialogs_is_honoured(tmp_path, monkeypatch):
    """`web: {dialogs: accept}` in a batch file reaches its files (it was dropped)."""
    from farm.suite.loader import load_suites
    root = tmp_path / "qa"
    write(root / "web" / "a.yaml")
    write(root / "index.yaml", "web:\n  dialogs: accept\nfiles:\n  - web/a.yaml\n")
    monkeypatch.chdir(root)
    [suite] = load_suites([root / "index.yaml"])
    assert [c.web.dialogs for c in suite.cases] == ["accept"]


@pytest.mark.parametrize("key, value", [("output", "./out/all.json"),
                                        ("unstableLogContent", "true")])
def test_a_batch_shared_output_is_refused_at_its_line(collect, qa, key, value):
    """A batch's `web: {output: …}` was dropped without a word."""
    write(qa / "b5" / "index.yaml",
          f"web:\n  viewportWidth: 800\n  {key}: {value}\nfiles:\n  - ../web/login.yaml\n")
    code, out, err = collect("b5/index.yaml")
    assert code == 4
    assert f"b5/index.yaml:3:3: web.{key} is not supported in a batch file" in err
    assert f"set {key}: in each file's own target section" in err
