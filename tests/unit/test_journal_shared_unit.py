"""A shareBrowserContext unit farm was killed in: the journal named only the unit, so the
`farm report` rebuild listed one case (the batch, its id no file's: --last-failed and the
results history matched nothing) where the run had three files. The journal now names each
file and when the next one begins: the rebuild lists each file, the one running interrupted,
those it never reached not run."""

from __future__ import annotations

from farm.executors.base import NullEvents
from farm.journal import CUT_SHORT, NOT_STARTED, UNSAVED, JournalEvents, guessed, recover
from farm.results import StepRecord

PLANNED = [("s/index", "batch (shared context: a.yaml, b.yaml, c.yaml)", "s/index.yaml", "web"),
           ("s/d", "D", "s/d.yaml", "web")]
FILES = {"s/index": [("s/a", "A", "s/a.yaml", 2), ("s/b", "B", "s/b.yaml", 3),
                     ("s/c", "C", "s/c.yaml", 1)]}


def _step(index: int, status: str = "passed") -> StepRecord:
    return StepRecord(task="t", index=index, kind="javascript", label="js", status=status)


def _rebuilt(tmp_path, *steps: StepRecord, started: bool = True) -> dict[str, tuple]:
    tmp_path.mkdir(exist_ok=True)
    journal = JournalEvents(NullEvents(), tmp_path, "run-1", PLANNED, files=FILES)
    if started:
        journal.case_started("browser-1", "s/index", "batch", 1)
    for step in steps:
        journal.step_finished("browser-1", step)
    # killed: no close()
    return {c.case_id: (c.status, c.reason) for c in recover(tmp_path).cases}


def test_the_file_running_is_interrupted_the_one_before_unsaved_the_rest_not_run(tmp_path):
    cases = _rebuilt(tmp_path, _step(1), _step(2))       # a's last step: b begins
    assert cases == {"s/a": ("interrupted", UNSAVED), "s/b": ("interrupted", CUT_SHORT),
                     "s/c": ("skipped", NOT_STARTED), "s/d": ("skipped", NOT_STARTED)}


def test_a_file_ended_early_is_left_at_the_next_file_s_first_step(tmp_path):
    # a fails at step 1 (its batch goes on); b's first step ends, then its second runs
    cases = _rebuilt(tmp_path, _step(1, "failed"), _step(1), _step(2))
    assert cases["s/a"] == ("interrupted", UNSAVED)
    assert cases["s/b"] == ("interrupted", CUT_SHORT)
    assert cases["s/c"] == ("skipped", NOT_STARTED)


def test_a_unit_killed_in_its_set_up_or_never_begun_is_listed_as_its_files(tmp_path):
    cases = _rebuilt(tmp_path / "setup")
    assert cases["s/a"] == ("interrupted", CUT_SHORT)
    assert cases["s/b"] == cases["s/c"] == ("skipped", NOT_STARTED)
    cases = _rebuilt(tmp_path / "never", started=False)
    assert set(cases) == {"s/a", "s/b", "s/c", "s/d"}
    assert set(cases.values()) == {("skipped", NOT_STARTED)}


def test_a_file_whose_result_was_unsaved_is_a_guess_the_history_does_not_take(tmp_path):
    _rebuilt(tmp_path, _step(1), _step(2))
    [a] = [c for c in recover(tmp_path).cases if c.case_id == "s/a"]
    assert guessed(a)


def test_the_run_s_journal_names_each_file_of_its_units_with_its_steps(tmp_path):
    """What `farm run` opens its journal with (farm.session): a unit's files and their step
    counts, read from the batch as loaded."""
    from farm.select import Selection
    from farm.session import _journal
    from farm.shared_context import build_units
    from farm.suite.loader import load_suites
    suite = tmp_path / "s"
    suite.mkdir()
    for name, steps in (("a", 2), ("b", 1)):
        flow = "".join(f"      - javascript: '{i}'\n" for i in range(steps))
        (suite / f"{name}.yaml").write_text(
            f"web:\n  url: about:blank\ntasks:\n  - name: t\n    flow:\n{flow}")
    (suite / "index.yaml").write_text(
        "shareBrowserContext: true\nfiles:\n  - a.yaml\n  - b.yaml\n")
    [unit] = build_units([c for s in load_suites([suite], env={}) for c in s.cases])
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal = _journal(run_dir, "run-1", [unit], Selection(selected=[unit]))
    journal.inner = NullEvents()                      # (the run's progress view)
    journal.case_started("browser-1", unit.id, unit.name, 1)
    journal.step_finished("browser-1", _step(1))
    journal.step_finished("browser-1", _step(2))      # a.yaml's last: b.yaml begins
    cases = {c.case_id: c.status for c in recover(run_dir).cases}
    assert cases == {"s/a": "interrupted", "s/b": "interrupted"}
