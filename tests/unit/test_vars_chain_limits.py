"""``vars:`` values built from each other, past what a suite needs: a chain of a thousand
(``V0: ${V1}``, ``V1: ${V2}``, …) ended in a RecursionError ("farm: internal error"), and a
few values that each repeat the next twice (``V0: ${V1}${V1}``) made the load build a value of
billions of characters. Each is a suite error at the top value's file:line (exit 4), and the
values below it, or a chain of reasonable length, still expand."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites
from farm.suite.vars import MAX_CHAIN, Variables, expand_defaults
from tests.support.farm_cli import run_main

CASE = ("name: c\nweb:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n"
        "      - javascript: \"console.log('${V0}')\"\n")


def chain(depth: int, link: str = "${{V{}}}") -> str:
    """``vars:`` lines V0 .. V<depth>, each value ``link`` of the next, the last ``end``."""
    return "".join(f"  V{i}: {link.format(i + 1)}\n" for i in range(depth)) + \
        f"  V{depth}: end\n"


def write(tmp_path: Path, suite: str, case: str = CASE) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "farm.yaml").write_text(suite)
    (tmp_path / "s" / "case.yaml").write_text(case)


def problems(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SuiteErrors) as raised:
        load_suites(["s"], env={})
    return [str(e) for e in raised.value.errors]


def test_a_chain_of_a_thousand_vars_is_a_suite_error_at_its_top(tmp_path, monkeypatch,
                                                                 capsys) -> None:
    write(tmp_path, "vars:\n" + chain(1000))
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only")
    assert code == 4 and "internal error" not in err and "Recursion" not in err
    assert "  s/farm.yaml:2:7: vars.V0: refers to a chain of more than 100 variables " \
           "(${V0} -> ${V1} -> ${V2} -> ${V3} -> …): write the value with fewer " \
           "references" in err.splitlines()


def test_a_case_var_on_top_of_the_suites_chain_is_named_in_the_case(tmp_path,
                                                                    monkeypatch) -> None:
    write(tmp_path, "vars:\n" + chain(MAX_CHAIN).replace("V0:", "TOP:"),
          "vars:\n  V0: ${TOP}\n" + CASE)
    assert problems(tmp_path, monkeypatch) == [
        "s/case.yaml:2:7: vars.V0: refers to a chain of more than 100 variables "
        "(${V0} -> ${TOP} -> ${V1} -> ${V2} -> …): write the value with fewer references"]


def test_a_value_that_doubles_through_others_is_refused_before_it_is_built(
        tmp_path, monkeypatch) -> None:
    write(tmp_path, "timeout: ${V0}\nvars:\n" + chain(60, "${{V{0}}}${{V{0}}}"))
    assert problems(tmp_path, monkeypatch) == [
        "s/farm.yaml:3:7: vars.V0: expands to more than 1,000,000 characters: write a "
        "shorter value, or one that repeats other variables less"]


def test_a_chain_within_the_limit_loads_and_expands(tmp_path, monkeypatch) -> None:
    write(tmp_path, "timeout: ${V0}\nvars:\n" + chain(MAX_CHAIN).replace("end", "7"))
    monkeypatch.chdir(tmp_path)
    [suite] = load_suites(["s"], env={})
    case = suite.cases[0]
    assert case.timeout == 7           # read when the suite loads
    assert Variables.from_sources(case.vars, env={}).get("V0") == "7"    # and at run time


def test_a_cycle_at_the_end_of_a_long_chain_is_named_without_recursion(tmp_path,
                                                                       monkeypatch) -> None:
    write(tmp_path, "vars:\n" + chain(3000).replace("end", "${V2990}"))
    said = problems(tmp_path, monkeypatch)
    assert len(said) == 11 and all("refers to itself" in line for line in said)
    assert said[0].startswith("s/farm.yaml:2992:10: vars.V2990: refers to itself "
                              "(${V2990} -> ${V2991} -> ")


def test_run_time_expansion_of_a_deep_chain_keeps_the_value_as_written() -> None:
    values = {f"V{i}": f"${{V{i + 1}}}" for i in range(5000)} | {"V5000": "end"}
    out = expand_defaults(values, values)
    assert out["V0"] == "${V1}" and out[f"V{5000 - MAX_CHAIN}"] == "end"


def test_a_ring_of_thousands_is_named_once_at_its_first_value(tmp_path, monkeypatch) -> None:
    write(tmp_path, "vars:\n" + chain(4000).replace("end", "${V0}"))
    assert problems(tmp_path, monkeypatch) == [
        "s/farm.yaml:2:7: vars.V0: refers to itself (${V0} -> ${V1} -> ${V2} -> ${V3} -> "
        "… 3996 more -> ${V4000} -> ${V0}): a value cannot be made of itself"]
