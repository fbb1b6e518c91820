"""`farm run --report-dir R --overwrite` leaves R holding the new run's outputs alone. The
previous run's cache-store.json (which `farm cache export R` reads) and its cases' own report
pages (Midscene ``reportFileName``) stayed beside the new run's; a run stopped at its start
(its /metrics port taken) leaves R as it was. Files farm did not write stay. Runs use the in-memory
``fake`` device kind (tests/support/devices.py): no browser."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.support.farm_cli import run_main as farm

CASE = """\
name: {name}
{agent}web:
  url: http://app.invalid/
tasks:
  - name: t
    flow:
      - javascript: "1"
"""


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with suite ``s``: ``one`` has its own report page (one-own.html),
    ``two`` has none; both pass on a fake device."""
    (tmp_path / "s").mkdir()
    (tmp_path / "s" / "one.yaml").write_text(CASE.format(
        name="One", agent="agent:\n  reportFileName: one-own\n"))
    (tmp_path / "s" / "two.yaml").write_text(CASE.format(name="Two", agent=""))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_DEVICE_PLUGINS", "tests.support.devices")
    for name in ("FARM_REPORT_DIR", "FARM_STATE_DIR", "FARM_RESULTS_HISTORY_URL",
                 "FARM_BROKER_URL", "CELERY_BROKER_URL", "FARM_CACHE", "FARM_METRICS_PORT"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


RUN = ["run", "s", "--devices", "fake:1", "--no-progress", "--report-dir", "r"]


def _first_run(here: Path, monkeypatch, capsys) -> None:
    assert farm(monkeypatch, capsys, *RUN)[0] == 0
    assert {"one-own.html", "cache-store.json"} <= {p.name for p in (here / "r").iterdir()}
    (here / "r" / "notes.txt").write_text("mine\n")      # not farm's: stays
    (here / "r" / "one-own.html.bak").write_text("mine\n")


def test_overwrite_leaves_no_page_of_a_case_the_new_run_did_not_run(here, monkeypatch,
                                                                      capsys):
    _first_run(here, monkeypatch, capsys)
    code, out, err = farm(monkeypatch, capsys, *RUN, "-k", "two", "--overwrite", "--cache", "off")
    assert (code, err) == (0, ""), out
    assert sorted(p.name for p in (here / "r").iterdir()) == [
        "artifacts", "cache-store.json", "farm.log", "junit.xml", "metrics.prom", "notes.txt",
        "one-own.html.bak", "report.css", "report.html", "results.json", "results.jsonl"]
    assert (here / "r" / "cache-store.json").read_text() == '{"off": ""}\n'    # this run's


def test_an_overwrite_run_stopped_at_its_start_leaves_the_run_before_whole(
        here, monkeypatch, capsys):
    """Its /metrics port taken, the run stops (exit 4) before it sets up its outputs: R keeps
    the run before as it was, results.json and all (it was emptied first, then left with the
    earlier run's pages and no results.json)."""
    _first_run(here, monkeypatch, capsys)
    before = {p.name: p.read_bytes() for p in (here / "r").iterdir() if p.is_file()}
    with socket.socket() as taken:      # a /metrics port another process listens on
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        code, out, err = farm(monkeypatch, capsys, *RUN, "--overwrite", "--metrics-port",
                              str(taken.getsockname()[1]))
    assert code == 4 and "cannot listen there" in err, (out, err)
    assert {p.name: p.read_bytes() for p in (here / "r").iterdir() if p.is_file()} == before


def test_overwrite_removes_an_old_page_whose_name_starts_with_a_dot(here, monkeypatch, capsys):
    """reportFileName: .team (the loader takes it; the report writes .team.html): the run
    after, with --overwrite and without that case, leaves no .team.html of the run before."""
    (here / "s" / "one.yaml").write_text(CASE.format(
        name="One", agent="agent:\n  reportFileName: .team\n"))
    assert farm(monkeypatch, capsys, *RUN)[0] == 0
    assert (here / "r" / ".team.html").is_file()
    code, out, err = farm(monkeypatch, capsys, *RUN, "-k", "two", "--overwrite")
    assert (code, err) == (0, ""), out
    assert not (here / "r" / ".team.html").exists()
