"""``--shard I/N`` with an N no CI splits a run into: ``--shard 1/99999999999999999999999``
ended in "farm: internal error: OverflowError" (a list of N shard loads), and an N of a few
million filled the memory before the run started. N is at most `MAX_SHARDS`, said as the
flag's error (exit 4); within it a plan costs what its cases cost, not what N does."""

from __future__ import annotations

from pathlib import Path

import pytest

from farm.select import MAX_SHARDS, parse_shard, shard_plan
from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.mark.parametrize("given", ["1/99999999999999999999999", "1/10001", "1/" + "9" * 5000])
def test_more_shards_than_a_run_can_have_is_the_flags_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture,
        given: str) -> None:
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "c.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, _, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only", "--shard", given)
    assert code == 4 and "internal error" not in err
    assert err.splitlines() == [f"farm: error: --shard {given}: expected N of at most 10000 "
                                "(the number of CI jobs the run is split over)"]


def test_shard_numbers_with_leading_zeros_and_the_largest_n_are_taken() -> None:
    assert parse_shard("0003/0005") == (3, 5)
    assert parse_shard(f"{MAX_SHARDS}/{MAX_SHARDS}") == (MAX_SHARDS, MAX_SHARDS)
    with pytest.raises(Exception, match="expected 1 <= I <= N"):
        parse_shard("99999999999999999999/3")


def test_with_more_shards_than_cases_each_case_has_a_shard_of_its_own() -> None:
    weights = {"s/a": 3.0, "s/b": 5.0, "s/c": 5.0, "s/d": 1.0}
    assert shard_plan(weights, MAX_SHARDS) == {"s/b": 1, "s/c": 2, "s/a": 3, "s/d": 4}
    assert shard_plan(weights, 2) == {"s/b": 1, "s/c": 2, "s/a": 1, "s/d": 2}
