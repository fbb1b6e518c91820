"""A --matrix run runs a shareBrowserContext unit once per device group (``unit@group``).
Rebuilt from the journal of such a run killed before results.json, each group's unit result
was split into its files under their plain ids: the report listed ``s/a`` twice (and its
junit.xml ``a`` and ``a [2]``), neither saying on which group. Each file's result is now
named for its group, as each case of a --matrix run is (``s/a@g1``, "A [g1]")."""

from __future__ import annotations

from farm.executors.base import NullEvents
from farm.journal import JournalEvents, recover
from farm.results import CaseError, CaseResult, final_result

PLANNED = [("s/index", "batch (shared context: a.yaml, b.yaml)", "s/index.yaml", "web")]
FILES = {"s/index": [("s/a", "A", "s/a.yaml", 1), ("s/b", "B", "s/b.yaml", 1)]}


def _unit(group: str, b_status: str, attempt: int = 1) -> CaseResult:
    error = CaseError(kind="TestFailure", message="boom", step=1) if b_status == "failed" \
        else None
    parts = [CaseResult(run_id="r", case_id="s/a", name="A", file="s/a.yaml", platform="web",
                        status="passed", attempt=attempt),
             CaseResult(run_id="r", case_id="s/b", name="B", file="s/b.yaml", platform="web",
                        status=b_status, error=error, attempt=attempt)]
    return CaseResult(run_id="r", case_id=f"s/index@{group}", name=f"batch [{group}]",
                      file="s/index.yaml", platform="web", device=f"browser-{group}",
                      status=b_status, error=error, parts=parts, attempt=attempt)


def test_a_matrix_unit_s_files_are_rebuilt_once_per_group_named_for_it(tmp_path) -> None:
    journal = JournalEvents(NullEvents(), tmp_path, "r", PLANNED, files=FILES)
    journal.case_started("browser-g1", "s/index@g1", "batch [g1]", 1)
    journal.case_finished("browser-g1", _unit("g1", "passed"), True)
    journal.case_started("browser-g2", "s/index@g2", "batch [g2]", 1)
    first = _unit("g2", "failed")
    journal.case_finished("browser-g2", first, False)     # to be retried
    journal.case_started("browser-g2", "s/index@g2", "batch [g2]", 2)
    journal.case_finished("browser-g2", final_result([first, _unit("g2", "passed", 2)]), True)
    # killed before results.json
    cases = {c.case_id: c for c in recover(tmp_path).cases}
    assert {cid: (c.name, c.status) for cid, c in cases.items()} == {
        "s/a@g1": ("A [g1]", "passed"), "s/b@g1": ("B [g1]", "passed"),
        "s/a@g2": ("A [g2]", "passed"), "s/b@g2": ("B [g2]", "flaky")}
    assert [(p.case_id, p.status) for p in cases["s/b@g2"].previous] == [
        ("s/b@g2", "failed")]
