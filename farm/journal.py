"""Crash safety for a run: every final case result is appended to ``results.jsonl`` the moment
it is known, so a `farm run` that is killed outright still leaves what it learned;
``farm report RUN_DIR`` rebuilds the report from that journal when results.json is missing."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from farm.relay import RelayEvents
from farm.results import CaseResult, RunSummary

JOURNAL = "results.jsonl"


class JournalEvents(RelayEvents):
    """RunEvents that forward to the progress view and journal every final result."""

    def __init__(self, inner: Any, run_dir: Path) -> None:
        super().__init__(inner)
        self.path = Path(run_dir) / JOURNAL
        self._lock = threading.Lock()
        self._file = self.path.open("a", encoding="utf-8")

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        if final:
            with self._lock:
                if not self._file.closed:    # a device thread reporting after the run ended
                    self._file.write(result.model_dump_json() + "\n")
                    self._file.flush()
        self.inner.case_finished(device, result, final)

    def close(self) -> None:
        with self._lock:
            self._file.close()


def recover(run_dir: Path) -> RunSummary:
    """A RunSummary from the journal of a run that never wrote results.json."""
    from farm.results import devices_of, exit_code_for
    cases: dict[str, CaseResult] = {}
    for line in (Path(run_dir) / JOURNAL).read_text(encoding="utf-8").splitlines():
        try:
            result = CaseResult.model_validate(json.loads(line))
        except ValueError:
            continue        # the line being written when the process died
        cases[result.case_id] = result
    results = sorted(cases.values(), key=lambda r: r.case_id)
    run_id = results[0].run_id if results else Path(run_dir).name
    devices, info = devices_of(results)
    summary = RunSummary(run_id=run_id, started=min((r.started for r in results), default=""),
                         devices=devices, device_info=info, cases=results, interrupted=True)
    summary.recount()
    summary.exit_code = exit_code_for(results, interrupted=True)
    return summary
