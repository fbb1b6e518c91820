"""`farm run --collect-only` says how many of the cases it lists the run would skip (a step
that needs a model, no model set: before they start when it is their first, else when they
reach it, as the demo's ai_shopping types a password first); with --fail-on-skip that the run
would exit 1, and it exits 1 itself, so a CI dry run fails where the real run would."""

from __future__ import annotations

import pytest

from tests.support.farm_cli import run_main

CASE = """name: {name}
web:
  url: https://example.com
tasks:
  - name: t
    flow:
      - {step}
"""
SAID = ("farm: 2 case(s) would be skipped (before they start): a step needs a model (set "
        "FARM_MODEL)")


@pytest.fixture
def suite(tmp_path, monkeypatch):
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FARM_MODEL", "")
    monkeypatch.delenv("FARM_FAIL_ON_SKIP", raising=False)
    (tmp_path / "suite").mkdir()
    for name, step in (("ai1", "aiAssert: a blue mug"), ("ai2", "aiAssert: the cart is empty"),
                       ("plain", "assertText: x")):
        (tmp_path / "suite" / f"{name}.yaml").write_text(CASE.format(name=name, step=step))
    return tmp_path / "suite"


def test_collect_only_counts_the_cases_that_would_be_skipped(suite, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only")
    assert code == 0
    assert SAID in err.splitlines() and "would be skipped" not in out


def test_collect_only_with_fail_on_skip_exits_1_as_the_run_would(suite, monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only",
                              "--fail-on-skip")
    assert code == 1
    assert f"{SAID}: the run would exit 1 (--fail-on-skip)" in err.splitlines()


def test_collect_only_of_cases_that_would_all_run_says_nothing_of_skips(suite, monkeypatch,
                                                                         capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only", "-k",
                              "plain", "--fail-on-skip")
    assert code == 0
    assert "would be skipped" not in out + err


def test_a_case_whose_model_step_comes_later_counts_too(suite, monkeypatch, capsys):
    (suite / "later.yaml").write_text(CASE.format(name="later", step="assertText: x") +
                                      "      - aiAssert: the cart is empty\n")
    (suite / "replay.yaml").write_text(CASE.format(name="replay", step="assertText: x") +
                                       "      - ai: add the blue mug to the cart\n")
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only",
                              "--fail-on-skip")
    assert code == 1
    assert ("farm: 4 case(s) would be skipped (2 before they start, 2 when they reach it): a "
            "step needs a model (set FARM_MODEL); 1 of them unless the plan cache holds their "
            "ai step's plan: the run would exit 1 (--fail-on-skip)") in err.splitlines(), err
