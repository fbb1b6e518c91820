"""One byte that is not UTF-8 in a killed run's journal (disk damage: farm writes it as ASCII)
costs that line only, as any other damaged line does: `farm report RUN` rebuilds the run saying
which line it passed over, and the next `farm run` still says the run was killed — the byte
made the whole run invisible, and `farm report` stopped."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.farm_cli import run_main as farm
from tests.unit.test_report_merge_ci_night_mrg50 import killed
from tests.unit.test_report_merge_mrg49 import here  # noqa: F401 (the fixture)


def _damage(journal: Path) -> int:
    """A byte that is not UTF-8 in a result line; the line's number."""
    lines = journal.read_bytes().split(b"\n")
    number = next(i for i, line in enumerate(lines, 1) if line.startswith(b'{"run_id"'))
    lines[number - 1] = lines[number - 1].replace(b'"device":', b'"device"\xff:', 1)
    journal.write_bytes(b"\n".join(lines))
    return number


def test_a_bad_byte_costs_its_line_not_the_run_me50(here, monkeypatch, capsys):
    code, _, err = farm(monkeypatch, capsys, "run", "s", "--devices", "fake:1", "--no-progress",
                        "--report-dir", "night")
    assert code == 1, err
    killed(Path("night"))
    number = _damage(Path("night") / "results.jsonl")
    code, _, err = farm(monkeypatch, capsys, "report", "night")
    assert code in (0, 1), err
    assert f"results.jsonl:{number}" in err and "not UTF-8" in err, err
    rebuilt = json.loads(Path("night/results.json").read_text())
    assert len(rebuilt["cases"]) == 6
