"""`-k " "` (CI's `-k "$A $B"` with both unset) selects every case, as `-k ""` does and as
pytest's -k takes a blank expression; it stopped the run with "expected a word, got nothing"."""

from __future__ import annotations

import os

import pytest

from tests.support.collect_only import counted
from tests.support.farm_cli import run_main

CASE = "web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n      - sleep: 1\n"


@pytest.fixture(autouse=True)
def suite(tmp_path, monkeypatch):
    for key in list(os.environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shop").mkdir()
    for name in ("login", "cart"):
        (tmp_path / "shop" / f"{name}.yaml").write_text(CASE)


@pytest.mark.parametrize("blank", ["", " ", "  \t "])
def test_a_blank_keyword_selects_every_case(monkeypatch, capsys, blank):
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "-k", blank, "--collect-only")
    assert (code, err) == (0, counted(2))
    assert sorted(line.split()[0] for line in out.splitlines()) == ["shop/cart", "shop/login"]


def test_a_keyword_still_selects(monkeypatch, capsys):
    code, out, err = run_main(monkeypatch, capsys, "run", "shop", "-k", " cart ",
                              "--collect-only", "-v")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == ["shop/cart"]
    assert err.splitlines()[0].startswith("deselected: shop/login")
