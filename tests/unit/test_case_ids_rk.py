"""One file, one case id however it is reached: with no farm.yaml, the folder holding the
Midscene batch file above it (up to the working directory) is its suite's, so its history,
--last-failed and [new failure] stay on one id; ids do not depend on the working directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = ("web:\n  url: https://example.com\n{extra}tasks:\n  - name: t\n    flow:\n"
        "      - {step}\n")


def case(step: str = "aiTap: Sign in", extra: str = "") -> str:
    return CASE.format(step=step, extra=extra)


def write(path: Path, text: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case() if text is None else text)
    return path


def collected(out: str) -> list[str]:
    return sorted(line.split()[0] for line in out.splitlines() if "[web]" in line)


@pytest.fixture
def collect(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture):
    """``farm run ARGS... --collect-only`` in ``tmp_path / "qa"``: (exit code, stdout, stderr)."""
    (tmp_path / "qa").mkdir()
    monkeypatch.chdir(tmp_path / "qa")
    monkeypatch.delenv("FARM_MODEL", raising=False)
    return lambda *args: run_main(monkeypatch, capsys, "run", *args, "--collect-only")


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    """Midscene's layout: scripts in web/, a batch index.yaml beside the folder, another
    batch in b2/ naming a script of web/ (no farm.yaml anywhere)."""
    root = tmp_path / "qa"
    root.mkdir(exist_ok=True)
    write(root / "web" / "login.yaml")
    write(root / "web" / "login_zero.yaml")
    write(root / "index.yaml", "concurrent: 1\nfiles:\n  - web/*.yaml\n")
    write(root / "b2" / "index.yaml", "files:\n  - ../web/login_zero.yaml\n")
    return root


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
