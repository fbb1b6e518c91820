"""`farm run suite --collect-only -k "payment and not wallets"` printed 401 lines: the 40 cases
taken buried under 360 "deselected: …" lines. As pytest, the deselected cases are a count in
the last line; -v lists them with their reasons."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "s").mkdir()
    for name in ("pay_cards", "pay_wallets", "login", "search"):
        (tmp_path / "s" / f"{name}.yaml").write_text(CASE.format(name=name))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / ".farm"))
    for name in ("FARM_REPORT_DIR", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def test_collect_only_lists_the_cases_taken_and_counts_the_rest(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--collect-only",
                          "-k", "pay and not wallets")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()] == ["s/pay_cards"]
    assert err.splitlines()[-1].endswith(", 3 deselected")


def test_verbose_lists_the_deselected_with_their_reason(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "s", "--collect-only", "-v",
                          "-k", "pay and not wallets")
    assert "deselected: s/pay_wallets  [web]  -k pay and not wallets" in err.splitlines()
    assert sum(line.startswith("deselected: ") for line in err.splitlines()) == 3
    assert "deselected" not in out
