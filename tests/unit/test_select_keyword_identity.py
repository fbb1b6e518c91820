"""`farm run -k WORD` matches a case's name and id (its file's path in the suite), not the
path the suite was given as. It looked in the file path as shown too, so the folders above the
suite and the ``.yaml`` every file has took part: `-k a` or `-k work` selected every case of a
suite under /home/runner/work/…, and the same -k selected differently from another working
directory (a sharded CI job planned on other cases). pytest's -k leaves the folders above its
rootdir out for the same reason. Through the command, as a user runs it: --collect-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

WEB = "name: {name}\nweb:\n  url: https://example.com\ntasks:\n  - name: t\n    flow:\n" \
      "      - aiTap: go\n"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """``<tmp>/work-area/shop``: login.yml ("Sign in"), mobile/buy.yaml ("Check out")."""
    root = tmp_path / "work-area" / "shop"
    (root / "mobile").mkdir(parents=True)
    (root / "login.yml").write_text(WEB.format(name="Sign in"))
    (root / "mobile" / "buy.yaml").write_text(WEB.format(name="Check out"))
    return root


def _collected(monkeypatch, capsys, where: Path, suite: str | Path, expr: str) -> list[str]:
    monkeypatch.chdir(where)
    code, out, err = run_main(monkeypatch, capsys, "run", suite, "--collect-only", "-k", expr)
    assert code in (0, 5) and "Traceback" not in err, err
    return sorted(line.split()[0] for line in out.splitlines() if not line.startswith(
        ("farm:", "deselected:")))


@pytest.mark.parametrize("expr", ["a", "work", "area", "yaml", "yml", "work-area/shop"])
def test_a_word_of_the_folders_above_the_suite_or_of_yaml_selects_nothing(
        monkeypatch, capsys, tmp_path, suite, expr):
    assert _collected(monkeypatch, capsys, tmp_path, suite, expr) == []


@pytest.mark.parametrize("expr, selected", [
    ("shop", ["shop/login", "shop/mobile/buy"]),
    ("login", ["shop/login"]),              # its id
    ("mobile/", ["shop/mobile/buy"]),       # its id: the folder in the suite
    ("sign", ["shop/login"]),               # its name
    ("out and not sign", ["shop/mobile/buy"]),
])
def test_a_word_of_the_name_or_id_selects_its_case(monkeypatch, capsys, tmp_path, suite,
                                                   expr, selected):
    assert _collected(monkeypatch, capsys, tmp_path, suite, expr) == selected


@pytest.mark.parametrize("expr", ["work", "shop and not mobile", "o"])
def test_the_same_k_selects_the_same_cases_from_any_working_directory(
        monkeypatch, capsys, tmp_path, suite, expr):
    inside = _collected(monkeypatch, capsys, tmp_path / "work-area", "shop", expr)
    above = _collected(monkeypatch, capsys, tmp_path, Path("work-area") / "shop", expr)
    elsewhere = _collected(monkeypatch, capsys, suite / "mobile", suite, expr)
    assert inside == above == elsewhere
