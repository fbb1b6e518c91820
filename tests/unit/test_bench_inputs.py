"""The benches' own inputs stay valid suites (a bench whose generated cases no longer load
measures an error path and its README figure cannot be reproduced), and what they add up
is added up right."""

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


def test_cpu_profile_counts_library_time_for_its_callers() -> None:
    """bench/cpu_profile.py's split by place: time in the standard library (json) and in C
    goes to whoever called it, in proportion to what each call cost."""
    import pytest

    cp = _module("cpu_profile")
    runner = (str(cp.ROOT / "farm" / "runner.py"), 10, "run")
    client = ("/venv/site-packages/playwright/_impl/connection.py", 20, "send")
    decode = ("/usr/lib/python3.11/json/decoder.py", 30, "decode")
    scan = ("~", 0, "<built-in method scanstring>")
    rows = {   # pstats rows: (cc, nc, own, cumulative, {caller: (cc, nc, own, cumulative)})
        runner: (1, 1, 0.5, 2.0, {}),
        client: (1, 1, 1.0, 2.0, {}),
        decode: (3, 3, 0.6, 0.9, {runner: (1, 1, 0.4, 0.6), client: (2, 2, 0.2, 0.3)}),
        scan: (3, 3, 0.3, 0.3, {decode: (3, 3, 0.3, 0.3)}),
    }
    assert cp.by_place(rows) == pytest.approx({"farm": 0.5 + 0.9 * 2 / 3,
                                               "Playwright's client": 1.0 + 0.9 / 3})


def test_vs_playwright_times_a_farm_step_to_the_next_one_and_pairs_steps_by_place(
        capsys) -> None:
    """bench/vs_playwright.py's by-kind lines: a farm step's time runs to the next step's start
    (the navigation wait after a tap is the tap's, as plain Playwright's click waits for it),
    the last step's is its own duration, and each is set against the plain step at its place."""
    vp = _module("vs_playwright")
    steps = [{"kind": "aiTap", "started": "2026-12-03T10:00:00.000+00:00", "duration": 0.05},
             {"kind": "waitForText", "started": "2026-12-03T10:00:00.150+00:00",
              "duration": 0.01},
             {"kind": "assertText", "started": "2026-12-03T10:00:00.170+00:00",
              "duration": 0.004}]
    spans = vp._spans(steps)
    assert [kind for kind, _ in spans] == ["aiTap", "waitForText", "assertText"]
    assert [round(s, 3) for _, s in spans] == [0.15, 0.02, 0.004]
    farm = [{"cases": {"c": [{"times": spans}]}}]
    plain = [{"cases": {"c": [{"times": [0.12, 0.05, 0.006]}]}}]
    vp.by_kind(["c"], farm, plain)
    lines = capsys.readouterr().out.splitlines()
    tap = next(line for line in lines if line.strip().startswith("aiTap"))
    assert "(click)" in tap and "farm  150.0 ms" in tap and "plain  120.0 ms" in tap
    assert "difference  +30.0 ms" in tap
    wait = next(line for line in lines if line.strip().startswith("waitForText"))
    assert "difference  -30.0 ms" in wait
