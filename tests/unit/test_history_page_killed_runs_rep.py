"""`farm report --history` the morning after a nightly run a CI timeout killed (kill -9: no
results.json, only its journal under .farm/runs): the page showed the nights before it and
said nothing, so the night looked like it had not been scheduled. It now says which killed
runs are not in the history and the `farm report` that adds them."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from click.testing import CliRunner

from farm.results import CaseResult, RunSummary
from farm.results_history import SqliteResults, record_for

NIGHT = (datetime.now() - timedelta(hours=3)).strftime("%Y%m%d-%H%M%S-ab12")


def _case(run_id: str, cid: str, status: str) -> CaseResult:
    return CaseResult(run_id=run_id, case_id=f"s/{cid}", name=cid, file=f"s/{cid}.yaml",
                      platform="web", status=status, device="browser-1", duration=1.0,
                      started=datetime.now().astimezone().isoformat())


def _killed_night(state: Path) -> Path:
    """A run under the state dir killed after its first case (its journal as farm writes it)."""
    from farm.executors.base import NullEvents
    from farm.journal import JournalEvents
    run_dir = state / "runs" / NIGHT
    run_dir.mkdir(parents=True)
    journal = JournalEvents(NullEvents(), run_dir, NIGHT, [("s/a", "a", "s/a.yaml", "web"),
                                                            ("s/b", "b", "s/b.yaml", "web")])
    journal.case_finished("browser-1", _case(NIGHT, "a", "passed"), final=True)
    journal.case_started("browser-1", "s/b", "b", 1)      # killed here
    return run_dir


def _farm(tmp_path: Path, monkeypatch, *args: str):
    from farm.cli import cli
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("FARM_STATE_DIR", str(tmp_path / "state"))
    for name in ("FARM_RESULTS_HISTORY_URL", "FARM_BROKER_URL", "CELERY_BROKER_URL"):
        monkeypatch.delenv(name, raising=False)
    return CliRunner().invoke(cli, list(args))


def _said(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "ended without writing its results" in line]


def test_the_history_page_names_a_killed_run_it_does_not_show(tmp_path, monkeypatch):
    state = tmp_path / "state"
    earlier = RunSummary(run_id="20200101-020000-cd34", started="2020-01-01T02:00:00+00:00",
                         cases=[_case("20200101-020000-cd34", "a", "passed")])
    earlier.recount()
    SqliteResults(state / "results.sqlite").add(record_for(earlier))
    run_dir = _killed_night(state)
    out = _farm(tmp_path, monkeypatch, "report", "--history")
    assert out.exit_code == 0, out.output
    assert _said(out.stderr) == [
        f"farm: run {NIGHT} ended without writing its results (killed?) and is not in the "
        f"results history: `farm report {run_dir}` rebuilds its report from its journal and "
        "adds it"]
    # a window that starts after it: not this page's business
    assert _said(_farm(tmp_path, monkeypatch, "report", "--history", "--since", "1h").stderr) \
        == []
    rebuilt = _farm(tmp_path, monkeypatch, "report", str(run_dir))
    assert rebuilt.exit_code == 0, rebuilt.output
    again = _farm(tmp_path, monkeypatch, "report", "--history")
    assert again.exit_code == 0 and _said(again.stderr) == []
    assert NIGHT in (state / "history.html").read_text(encoding="utf-8")


def test_a_killed_run_the_history_has_is_not_named(tmp_path, monkeypatch):
    """The journal and results.json were not written (a full disk) but the results history,
    on another disk, took the run's end: it is on the page; nothing to say."""
    state = tmp_path / "state"
    _killed_night(state)
    night = RunSummary(run_id=NIGHT, started=datetime.now().astimezone().isoformat(),
                       cases=[_case(NIGHT, "a", "passed")])
    night.recount()
    SqliteResults(state / "results.sqlite").add(record_for(night))
    out = _farm(tmp_path, monkeypatch, "report", "--history")
    assert out.exit_code == 0 and _said(out.stderr) == []


def test_a_run_folder_with_no_real_date_hides_no_killed_run(tmp_path, monkeypatch):
    """A folder named like a run id whose date is none (13th month, copied by hand)."""
    state = tmp_path / "state"
    run_dir = _killed_night(state)
    odd = state / "runs" / "20261399-000000-abcd"
    odd.mkdir()
    (odd / "results.jsonl").write_bytes((run_dir / "results.jsonl").read_bytes())
    out = _farm(tmp_path, monkeypatch, "report", "--history")
    # no run recorded (both were killed): no page, and each killed run named with its rebuild
    said = str(out.exception)               # (farm's UserError: exit 4 through `farm`)
    assert type(out.exception).__name__ == "UserError", out.output
    assert "2 run(s) there ended without writing results" in said
    assert f"runs/{NIGHT}`" in said and "runs/20261399-000000-abcd`" in said
