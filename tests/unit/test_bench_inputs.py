"""The benches' own inputs stay valid suites: a bench whose generated cases no longer load
measures an error path and its README figure cannot be reproduced."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from farm.suite.loader import load_suites

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_load_bench_case_is_a_valid_suite(tmp_path: Path) -> None:
    case = tmp_path / "case.yaml"
    case.write_text(_module("load").CASE, encoding="utf-8")
    suites = load_suites([tmp_path], env={})
    assert [len(s.cases) for s in suites] == [1]
    assert len(suites[0].cases[0].tasks[0].steps) == 12
