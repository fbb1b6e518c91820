"""--alluredir of a run whose suite does not load: one ``broken`` Allure result per file with
problems (as junit.xml's ``farm.load`` cases), so an Allure report shows the night red, not the
previous night's results (or nothing). Runs use the in-memory ``fake`` device kind: no browser."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from tests.support.farm_cli import run_main as farm

SCHEMA = Path(__file__).parents[1] / "schemas" / "allure-result.schema.json"
PASSES = "name: ok\nweb:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - javascript: \"1\"\n"
BROKEN = "web:\n  url: http://app.invalid/\ntasks:\n  - name: t\n    flow:\n" \
         "      - aiTapp: go\n      - assertTextt: here\n"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_TEST_FAKE_FAIL"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def results(folder: Path) -> list[dict]:
    schema = json.loads(SCHEMA.read_text())
    found = [json.loads(p.read_text()) for p in sorted(folder.glob("*-result.json"))]
    for result in found:
        jsonschema.validate(result, schema)
    return sorted(found, key=lambda r: r["name"])


def test_a_suite_that_does_not_load_leaves_a_broken_allure_result_per_file(here, monkeypatch,
                                                                          capsys):
    (here / "s").mkdir()
    (here / "s" / "ok.yaml").write_text(PASSES)
    (here / "s" / "bad.yaml").write_text(BROKEN)
    (here / "s" / "worse.yaml").write_text("name: [unclosed\n")
    plain = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress")
    got = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress",
               "--alluredir", "allure")
    assert got == plain and got[0] == 4
    problems = [line.strip() for line in got[2].splitlines()[1:]]
    found = results(here / "allure")
    assert [(r["name"], r["status"]) for r in found] == [
        ("s/bad.yaml", "broken"), ("s/worse.yaml", "broken")]
    assert found[0]["statusDetails"]["message"] == f"{problems[0]} (and 1 more)"
    assert found[0]["statusDetails"]["trace"].splitlines() == problems[:2]
    assert found[1]["statusDetails"]["message"] == problems[2]
    assert {"name": "suite", "value": "farm.load"} in found[0]["labels"]
    # the same load error again replaces its results: no second copy (Allure: a retry)
    farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress",
         "--alluredir", "allure")
    assert len(results(here / "allure")) == 2


def test_a_load_error_with_an_alluredir_that_cannot_be_written_says_only_the_problems(
        here, monkeypatch, capsys):
    (here / "s").mkdir()
    (here / "s" / "bad.yaml").write_text(BROKEN)
    (here / "afile").write_text("hi\n")
    plain = farm(monkeypatch, capsys, "run", "s", "--no-progress")
    assert farm(monkeypatch, capsys, "run", "s", "--no-progress",
                "--alluredir", "afile/allure") == plain
    assert plain[0] == 4 and (here / "afile").read_text() == "hi\n"
