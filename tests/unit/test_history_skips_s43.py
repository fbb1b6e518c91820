"""A case a step skipped on its device (no model configured) held that device for real: its time
is remembered, so the next run and --collect-only weigh it by it. Before, a case skipped five
times at 5-7 s each still read "never ran here, 30s each assumed". A case skipped before any
device opened, or left unrun by a stop, took no device time and is not remembered."""

from __future__ import annotations

from farm.history import DurationHistory
from farm.results import CaseResult
from farm.schedule import expected_duration


def _skipped(case_id: str, seconds: float, device: str | None, reason: str) -> CaseResult:
    return CaseResult(run_id="r1", case_id=case_id, name=case_id, file="x", platform="web",
                      status="skipped", duration=seconds, device=device, reason=reason)


def test_a_case_skipped_on_its_device_keeps_its_time(tmp_path):
    history = DurationHistory(tmp_path / "state")
    typo = 'needs a model (set FARM_MODEL): no zero-token match for "Frobnicate" on screen'
    history.record([_skipped("s/typo", 5.2, "browser-1", typo)])
    history.record([_skipped("s/typo", 6.8, "browser-2", typo)])
    remembered = history.load()
    assert remembered == {"web:s/typo": [5.2, 6.8]}
    assert expected_duration(remembered, "s/typo", "web", 30.0) < 30.0


def test_a_case_skipped_before_a_device_opened_is_not_remembered(tmp_path):
    history = DurationHistory(tmp_path / "state")
    history.record([
        _skipped("s/ai", 0.0, None, "needs a model (set FARM_MODEL): ai at line 7"),
        _skipped("s/queued", 0.0, None, "not run: the run was interrupted"),
        _skipped("s/after", 0.4, "browser-1", "not run: the batch's setup file s/a.yaml failed")])
    assert history.load() == {}
