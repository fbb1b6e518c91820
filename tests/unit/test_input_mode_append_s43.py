"""Midscene before 1.0 wrote `mode: append` for what it now calls typeOnly (type after what the
field holds, no clearing); farm refused such scripts at load ("expected one of replace, clear,
typeOnly, got 'append'"). It takes it as typeOnly; other unknown modes are still refused."""

from __future__ import annotations

from tests.unit.test_midscene_yaml_s41 import _problems, _steps


def test_mode_append_is_typeonly(tmp_path) -> None:
    [step] = _steps(tmp_path, "      - aiInput: Search\n        value: more\n        mode: append\n")
    assert step.options["mode"] == "typeOnly"


def test_an_unknown_mode_is_still_refused(tmp_path) -> None:
    [problem] = _problems(tmp_path, "      - aiInput: Search\n        value: x\n        mode: add\n")
    assert "aiInput mode: expected one of replace, clear, typeOnly, got 'add'" in str(problem)
