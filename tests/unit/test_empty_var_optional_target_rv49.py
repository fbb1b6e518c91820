"""A ${NAME} that comes out empty loads exactly as the literal empty value does for its kind:
refused where the target is required (aiTap, aiDragAndDrop), loaded where it is optional
(aiScroll, aiSwipe, aiPinch)."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = ('android:\n  deviceId: x\nvars:\n  EMPTY: ""\n'
        "tasks:\n  - name: t\n    flow:\n      - {step}\n")


def _errors(tmp_path: Path, step: str) -> list[str]:
    root = tmp_path / "s"
    root.mkdir(exist_ok=True)
    (root / "a.yaml").write_text(CASE.format(step=step), encoding="utf-8")
    try:
        load_suites([root], env={})
    except SuiteErrors as info:
        return [str(e) for e in info.errors]
    return []


@pytest.mark.parametrize("step", [
    "aiScroll: {v}", "aiScroll: {v}\n        scrollType: untilBottom",
    "aiSwipe: {v}\n        direction: up", "aiPinch: {v}\n        direction: in"])
def test_an_optional_target_that_comes_out_empty_loads_as_the_literal_rv49(tmp_path, step):
    assert _errors(tmp_path, step.format(v='""')) == []
    assert _errors(tmp_path, step.format(v="${EMPTY}")) == []


@pytest.mark.parametrize("step", [
    "aiTap: {v}", "waitForText: {v}", "aiDragAndDrop: {v}\n        to: b"])
def test_a_required_target_or_check_that_comes_out_empty_is_refused_rv49(tmp_path, step):
    assert _errors(tmp_path, step.format(v='""'))
    assert _errors(tmp_path, step.format(v="${EMPTY}"))


def test_a_script_empty_at_run_time_says_it_runs_nothing_not_a_check_rv49():
    from types import SimpleNamespace

    from farm.errors import StepFailed
    from farm.runner import _text
    from farm.suite.model import Step
    from farm.suite.vars import Variables
    run = SimpleNamespace(vars=Variables({"CODE": ""}, frozenset({"CODE"})))
    step = Step(kind="javascript", value="${CODE}", line=3, column=9)
    with pytest.raises(StepFailed, match="an empty script runs nothing") as info:
        _text(run, step)
    assert "check" not in str(info.value)
