"""unstableLogContent: two `true` say what to write; the log's images open from where it sits."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.results import StepRecord
from farm.run_outputs import _step_log
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


def test_two_default_step_logs_say_what_to_write(collect, qa):
    """Two scripts with `unstableLogContent: true` both write unstableLogContent.json (Midscene
    overwrites it): the refusal says what `true` writes and gives each its own name."""
    log = "  unstableLogContent: true\n"
    write(qa / "web" / "login.yaml", case(extra=log))
    write(qa / "web" / "login_zero.yaml", case(extra=log))
    code, out, err = collect("web")
    assert code == 4
    assert ("web.unstableLogContent: true writes unstableLogContent.json in the working "
            "directory") in err
    assert "unstableLogContent: logs/login_zero.json" in err


def test_step_log_images_open_from_the_log_file(tmp_path):
    """The log's before/after were relative to .farm/runs/<id>/, which it does not name."""
    run_dir = tmp_path / ".farm" / "runs" / "r1"
    step = StepRecord(task="t", index=1, kind="aiTap", label="aiTap x",
                      before="artifacts/c/attempt-1/001-start.jpg", after=None)
    data = _step_log(step, run_dir, tmp_path / "out")
    assert data["before"] == "../.farm/runs/r1/artifacts/c/attempt-1/001-start.jpg"
    assert data["after"] is None
    assert (tmp_path / "out" / data["before"]).resolve() == \
        run_dir / "artifacts/c/attempt-1/001-start.jpg"
