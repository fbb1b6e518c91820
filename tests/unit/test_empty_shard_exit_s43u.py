"""A CI matrix wider than the selection: `farm run suite --shard 14/20` over 13 cases exited 5
("no case selected: 13 deselected by --shard"), turning the pipeline red with nothing wrong.
A shard empty only because there are more shards than cases exits 0, says so and writes the
empty JUnit; a -k or --tag that matched nothing before sharding is still exit 5."""

from __future__ import annotations

from pathlib import Path

from tests.support.farm_cli import run_main

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"


def _suite(here: Path) -> None:
    (here / "s").mkdir()
    for name in "abc":
        (here / "s" / f"{name}.yaml").write_text(CASE)


def test_a_shard_past_the_cases_exits_0_with_an_empty_junit(tmp_path, monkeypatch, capsys):
    _suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--shard", "5/8",
                              "--junit-xml", "out/junit.xml")
    assert (code, err) == (0, ""), err
    assert out == ("farm: shard 5/8 has no case: 3 case(s) over 8 shards\n"
                   "farm: nothing to run: no report written\n")
    assert 'tests="0"' in (tmp_path / "out" / "junit.xml").read_text()
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--shard", "5/8",
                              "--collect-only")
    assert (code, out) == (0, "") and err.startswith("farm: shard 5/8 has no case"), err


def test_a_k_that_matched_nothing_is_still_exit_5_in_a_shard(tmp_path, monkeypatch, capsys):
    _suite(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_main(monkeypatch, capsys, "run", "s", "-k", "nosuch", "--shard", "5/8")
    assert code == 5 and out.startswith("farm: no case selected: 3 deselected by -k nosuch"), out
