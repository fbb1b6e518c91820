"""`farm run --maxfail 0` as a pytest user writes it: pytest's default, no limit. A CI
template's ``--maxfail "${MAXFAIL:-0}"`` was refused as a usage error (exit 4) and ran
nothing. Through the command, in-process, on in-memory `fake` devices (no browser)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main

CASE = """\
{agent}web:
  url: about:blank
tasks:
  - name: t
    flow:
      - {step}
"""
FAILS = "assertText: not on the empty page"


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(__import__("os").environ):
        if key.startswith("FARM_") or key == "CELERY_BROKER_URL":
            monkeypatch.delenv(key)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _write(folder: Path, rel: str, step: str = 'javascript: "1"', agent: str = "") -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CASE.format(agent=agent, step=step))


def test_maxfail_0_runs_every_case_as_pytest_does(here, monkeypatch, capsys):
    for stem in ("a", "b", "c"):
        _write(here / "s", f"{stem}.yaml", FAILS)
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "--devices", "fake:1",
                              "--no-progress", "--maxfail", "0", "--report-dir", "out")
    assert code == 1, out + err
    cases = json.loads((here / "out" / "results.json").read_text())["cases"]
    assert sorted((c["case_id"], c["status"]) for c in cases) == [
        ("s/a", "failed"), ("s/b", "failed"), ("s/c", "failed")]


def test_exitfirst_and_maxfail_0_still_disagree(here, monkeypatch, capsys):
    _write(here / "s", "a.yaml")
    code, out, err = run_main(monkeypatch, capsys, "run", "s", "-x", "--maxfail", "0",
                              "--collect-only")
    assert (code, out) == (4, "")
    assert "-x and --maxfail 0 disagree" in err


def test_maxfail_0_leaves_a_batch_s_own_stop_after_a_failure(here, monkeypatch, capsys):
    """--maxfail 0 is the flag not given: a batch's ``continueOnError: false`` (Midscene's
    default: no file starts after one failed) still holds."""
    for stem in ("a", "b"):
        _write(here / "s", f"{stem}.yaml", FAILS)
    (here / "s" / "index.yaml").write_text("files:\n  - a.yaml\n  - b.yaml\n")
    code, out, err = run_main(monkeypatch, capsys, "run", "s/index.yaml", "--devices",
                              "fake:1", "--no-progress", "--maxfail", "0", "--report-dir", "out")
    assert code == 1, out + err
    cases = json.loads((here / "out" / "results.json").read_text())["cases"]
    assert sorted((c["case_id"], c["status"]) for c in cases) == [
        ("s/a", "failed"), ("s/b", "skipped")]
