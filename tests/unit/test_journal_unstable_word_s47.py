"""A run an older farm journalled (its end line's `since_last` saying "flaky" for a red case
whose verdict flipped across runs) and `farm report` rebuilds today: the rebuilt results.json
says "unstable", as every other output does and as results.json itself reads an old "flaky";
it kept "flaky", which a CI script reads as a retry's pass."""

from __future__ import annotations

import json

from farm.journal import JOURNAL, recover
from farm.results import CaseResult

HEAD = {"journal": "run", "run_id": "r7", "started": "2026-12-03T05:00:00+00:00",
        "planned": [{"case_id": "s/flip", "name": "flip", "file": "s/flip.yaml",
                     "platform": "web"}]}


def test_an_older_journal_s_flaky_verdict_is_rebuilt_as_unstable(tmp_path):
    case = CaseResult(run_id="r7", case_id="s/flip", name="flip", file="s/flip.yaml",
                      status="failed", platform="web", device="browser-1",
                      started="2026-12-03T05:00:01.000+00:00", duration=1.5)
    end = {"journal": "end", "exit_code": 1, "since_last": {"s/flip": "flaky"}}
    (tmp_path / JOURNAL).write_text("\n".join(json.dumps(line) for line in (
        HEAD, {"journal": "attempt", "result": case.model_dump(mode="json")}, end)) + "\n")
    [rebuilt] = recover(tmp_path).cases
    assert rebuilt.status == "failed" and rebuilt.since_last == "unstable"
