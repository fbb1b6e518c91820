"""A case file two batch files list (Midscene index YAML with files:) runs once in a run. Where
either batch sets shareBrowserContext: true the file left that batch's unit without a word
of it (a login its next files need): the warning said 'it runs once, as this batch lists
it'. That is refused now, naming both entries by line; without a shared context it is
still a warning, naming both and whose settings the file runs with."""

from __future__ import annotations

import pytest

from farm.errors import SuiteErrors
from farm.suite.loader import load_suites

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


def _suite(tmp_path, monkeypatch, one_shares: bool, two_shares: bool) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s").mkdir()
    for name in ("login", "cart", "search"):
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE)
    share = "shareBrowserContext: true\n"
    (tmp_path / "s" / "one.yaml").write_text(
        "files:\n  - login.yaml\n  - cart.yaml\n" + (share if one_shares else ""))
    (tmp_path / "s" / "two.yaml").write_text(
        (share if two_shares else "") + "files:\n  - search.yaml\n  - login.yaml\n")


@pytest.mark.parametrize("one_shares, two_shares, sets", [
    (True, False, "s/one.yaml sets"),
    (False, True, "s/two.yaml sets"),
    (True, True, "s/one.yaml and s/two.yaml set"),
])
def test_a_file_two_batches_list_is_refused_where_a_batch_shares_its_context(
        tmp_path, monkeypatch, one_shares, two_shares, sets):
    _suite(tmp_path, monkeypatch, one_shares, two_shares)
    line = 4 if two_shares else 3
    with pytest.raises(SuiteErrors) as refused:
        load_suites(["s"], env={})
    assert [str(e) for e in refused.value.errors] == [
        f"s/two.yaml:{line}: s/login.yaml is listed by s/one.yaml:2 and s/two.yaml:{line}, "
        f"and {sets} shareBrowserContext: true: a file runs once in a run, so one batch "
        "would run without it; list it in one batch, or run each batch on its own (farm run "
        "s/one.yaml, then farm run s/two.yaml)"]


def test_without_a_shared_context_it_runs_once_said_with_both_entries(tmp_path, monkeypatch):
    _suite(tmp_path, monkeypatch, False, False)
    warnings: list = []
    [suite] = load_suites(["s"], env={}, warnings=warnings)
    assert sorted(c.id for c in suite.cases) == ["s/cart", "s/login", "s/search"]
    assert [str(w) for w in warnings] == [
        "s/two.yaml:3: s/login.yaml is listed by s/one.yaml:2 and s/two.yaml:3: it runs "
        "once, with s/two.yaml's settings"]


def test_each_batch_run_on_its_own_keeps_its_shared_unit(tmp_path, monkeypatch):
    _suite(tmp_path, monkeypatch, True, True)
    for batch, files in (("one", ["s/login", "s/cart"]), ("two", ["s/search", "s/login"])):
        batches: list = []
        [suite] = load_suites([f"s/{batch}.yaml"], env={}, batches=batches)
        assert [b.case_ids for b in batches] == [files]
