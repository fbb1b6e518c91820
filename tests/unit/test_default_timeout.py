"""--timeout / FARM_DEFAULT_TIMEOUT is the run's default case timeout: it replaced every
case's own ``timeout:`` too (a case that says ``timeout: 2`` ran with the setting's 1 s, or
with a CI's generous 600 s). A case's own timeout now wins, as a test's own does in
pytest-timeout and Playwright; the setting still replaces a farm.yaml's (the suite's default),
which is how a slow machine gives every case longer."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from farm.config import load_settings
from farm.session import _collect

CASE = "web:\n  url: about:blank\n{own}tasks:\n  - name: t\n    flow:\n      - sleep: 10\n"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for key in list(__import__("os").environ):
        if key.startswith("FARM_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


def timeouts(suite: Path, **flags) -> dict[str, float]:
    _, cases, _ = _collect([suite], load_settings(**flags), False, io.StringIO())
    return {c.id: c.timeout for c in cases}


def suite_of(tmp_path: Path, farm_yaml: str) -> Path:
    suite = tmp_path / "s"
    suite.mkdir()
    (suite / "farm.yaml").write_text(farm_yaml)
    (suite / "own.yaml").write_text(CASE.format(own="timeout: 2\n"))
    (suite / "other.yaml").write_text(CASE.format(own=""))
    return suite


def test_the_setting_is_for_cases_without_a_timeout_of_their_own(tmp_path, monkeypatch):
    suite = suite_of(tmp_path, "timeout: 30\n")
    assert timeouts(suite) == {"s/own": 2, "s/other": 30}
    assert timeouts(suite, default_timeout=1) == {"s/own": 2, "s/other": 1}
    monkeypatch.setenv("FARM_DEFAULT_TIMEOUT", "600")
    assert timeouts(suite) == {"s/own": 2, "s/other": 600}


def test_without_a_farm_yaml_timeout_the_setting_replaces_300(tmp_path):
    suite = suite_of(tmp_path, "retries: 0\n")
    assert timeouts(suite) == {"s/own": 2, "s/other": 300}
    assert timeouts(suite, default_timeout=45) == {"s/own": 2, "s/other": 45}
