"""`--shard 1/4 --shard 2/4` (a CI template's --shard and a job's own) took the last one
without a word, so two jobs could run the same shard and one none."""

from __future__ import annotations

from tests.support.farm_cli import run_main

CASE = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n      - sleep: 5\n"


def test_two_different_shards_are_refused_naming_both(tmp_path, monkeypatch, capsys):
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "a.yaml").write_text(CASE)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only",
                              "--shard", "1/4", "--shard", "2/4")
    assert code == 4, out + err
    assert ("--shard given 2 times: --shard 1/4 and --shard 2/4: a run is one shard of the "
            "suite: give --shard once") in err
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--collect-only",
                              "--shard", "1/4", "--shard", "1/4")
    assert code == 0 and "s/a" in out, out + err
