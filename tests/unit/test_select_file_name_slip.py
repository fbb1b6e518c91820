"""`-k login_success.yaml` (the file's name, as pytest's -k takes `test_x.py`) selected nothing
and said only "16 deselected by -k login_success.yaml": a case's id has no .yaml. A note now
says so, with the -k that selects it."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.select import SelectOptions, select_cases
from farm.suite.loader import load_suites

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def demo_cases():
    return [c for s in load_suites([ROOT / "suites" / "demo"], env={}) for c in s.cases]


def _notes(cases, keyword: str) -> list[str]:
    chosen = select_cases(cases, SelectOptions(keyword=keyword))
    assert chosen.selected == []
    return chosen.notes


def test_a_file_name_in_k_is_said_with_the_k_that_selects_it(demo_cases):
    assert _notes(demo_cases, "login_success.yaml") == [
        "no case selected: 16 deselected by -k login_success.yaml",
        "-k login_success.yaml: a case's id is its file's path without .yaml: -k login_success "
        "selects demo/login_success (or give `farm run` the file itself)"]
    assert _notes(demo_cases, "LOGIN_SUCCESS.YML or nothing")[1].startswith(
        "-k LOGIN_SUCCESS.YML or nothing: a case's id is its file's path without .yaml: -k "
        "'LOGIN_SUCCESS or nothing' selects demo/login_success (")


def test_no_note_when_without_yaml_it_still_selects_nothing(demo_cases):
    assert _notes(demo_cases, "nothing.yaml") == [
        "no case selected: 16 deselected by -k nothing.yaml"]
    assert _notes(demo_cases, "nothing") == ["no case selected: 16 deselected by -k nothing"]


def test_a_hyphen_for_a_files_underscore_is_said(demo_cases):
    """`-k cart-remove` (the file is cart_remove.yaml) said only "16 deselected"."""
    assert _notes(demo_cases, "cart-remove") == [
        "no case selected: 16 deselected by -k cart-remove",
        "-k cart-remove: a word matches as written (- is not _): -k cart_remove selects "
        "demo/cart_remove"]
    assert _notes(demo_cases, "no-such-case") == [
        "no case selected: 16 deselected by -k no-such-case"]
