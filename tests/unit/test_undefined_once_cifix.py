"""A case file naming an unset ``${SHOP_API_KEY}`` three times in one value: farm says it once
for that place (it said the same line three times, on stderr and in the JUnit error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = ("name: cart\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n"
        "      - javascript: \"${SHOP_API_KEY} ${SHOP_API_KEY} ${SHOP_API_KEY} ${OTHER}\"\n"
        "      - aiInput: ${SHOP_API_KEY}\n        locate: the key field\n")


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("SHOP_API_KEY", "OTHER", "FARM_STATE_DIR", "FARM_REPORT_DIR", "FARM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "ci").mkdir()
    (tmp_path / "ci" / "fail_cart.yaml").write_text(CASE)
    return tmp_path


def test_an_undefined_variable_is_said_once_per_place(here, monkeypatch, capsys):
    code, out, err = farm(monkeypatch, capsys, "run", "ci", "--junit-xml", "out/junit.xml")
    assert code == 4, out + err
    lines = [line for line in err.splitlines() if "undefined variable ${SHOP_API_KEY}" in line]
    assert [line.split(": undefined")[0].strip() for line in lines] == [
        "ci/fail_cart.yaml:7:22", "ci/fail_cart.yaml:8:18"], err
    assert "2 problems" not in err and "4 problems" not in err and "3 problems" in err
    body = (here / "out" / "junit.xml").read_text()
    assert body.count("ci/fail_cart.yaml:7:22: undefined variable ${SHOP_API_KEY}") == 2, body
