"""unstableLogContent: two `true` say what to write; the log's images open from where it sits."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.results import StepRecord
from farm.run_outputs import _step_log
from tests.support.farm_cli import run_main

from tests.support.midscene_layout import case, collect, qa, write  # noqa: F401 (fixtures)


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
