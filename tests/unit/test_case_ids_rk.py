"""One file, one case id however it is reached: with no farm.yaml, the folder holding the
Midscene batch file above it (up to the working directory) is its suite's, so its history,
--last-failed and [new failure] stay on one id; ids do not depend on the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

from tests.support.midscene_layout import case, collect, collected, qa, write  # noqa: F401 (fixtures)


def test_a_script_has_one_id_however_it_is_run(collect, qa):
    """`farm run web/login.yaml` said web/login, `farm run index.yaml` qa/web/login, and
    b2/index.yaml web/login_zero: history, --lf and [new failure] split over two ids."""
    ids = {}
    for how in ("web/login.yaml", "web", "index.yaml", ".", "b2/index.yaml"):
        code, out, err = collect(how)
        assert code == 0, err
        ids[how] = collected(out)
    assert ids["web/login.yaml"] == ["qa/web/login"]
    assert ids["web"] == ids["index.yaml"] == ids["."] == ["qa/web/login", "qa/web/login_zero"]
    assert ids["b2/index.yaml"] == ["qa/web/login_zero"]


def test_the_same_id_from_above_the_project(collect, qa, monkeypatch, capsys, tmp_path):
    """Run from the folder above qa/: the same ids (they name no folder above the project)."""
    from tests.support.farm_cli import run_main
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(monkeypatch, capsys, "run", "qa/web/login.yaml", "--collect-only")
    assert code == 0, err
    assert collected(out) == ["qa/web/login"]


def test_without_a_batch_file_ids_are_as_before(collect, tmp_path):
    """No batch file above: the folder run is the suite, as before."""
    write(tmp_path / "qa" / "shop" / "mobile" / "buy.yaml")
    assert collected(collect("shop")[1]) == ["shop/mobile/buy"]
    assert collected(collect("shop/mobile/buy.yaml")[1]) == ["mobile/buy"]


def test_a_suite_with_farm_yaml_keeps_its_ids(collect, tmp_path):
    """`farm run suites/...` with a farm.yaml: the suite's folder name first, as before."""
    write(tmp_path / "qa" / "suites" / "shop" / "farm.yaml", "timeout: 60\n")
    write(tmp_path / "qa" / "suites" / "shop" / "cart" / "add.yaml")
    for how in ("suites", "suites/shop", "suites/shop/cart/add.yaml"):
        code, out, err = collect(how)
        assert code == 0, err
        assert collected(out) == ["shop/cart/add"], how
