"""Midscene's ``shareBrowserContext: true``: a batch's web files as one unit of work.

Midscene's batch runner opens one browser page for the whole batch and runs the files in it,
so what one file leaves behind (a login's cookies, localStorage, sessionStorage) is there for
the next. In farm cases normally spread over devices, each in a fresh context; the files of a
shared-context batch instead become one *unit*: one job, so one device, that runs them in the
batch's order (its ``setup:`` file first) in one context (`farm.runner.run_unit`). Retries
re-run the whole unit, as its files depend on each other. Results are reported per file:
`expand` turns the unit's result back into one result per file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

from farm.results import CaseResult, summed
from farm.suite.loader import display_path
from farm.suite.model import Batch, Case


def build_units(cases: list[Case]) -> list[Case]:
    """``cases`` with the members of each shared-context batch replaced, where the first of
    them stood, by one unit case holding them in run order."""
    members: dict[str, list[Case]] = {}
    for case in cases:
        if case.shared is not None:
            members.setdefault(case.shared.unit_id, []).append(case)
    out: list[Case] = []
    for case in cases:
        if case.shared is None:
            out.append(case)
        elif case is members[case.shared.unit_id][0]:
            out.append(unit_of(sorted(members[case.shared.unit_id],
                                      key=lambda c: c.shared.order if c.shared else 0)))
    return out


def unit_of(parts: list[Case]) -> Case:
    """The unit case running ``parts`` (in this order) in one browser context."""
    first = parts[0]
    assert first.shared is not None
    names = ", ".join(p.file.name for p in parts)
    return first.model_copy(update={
        "id": first.shared.unit_id, "name": f"{first.shared.batch} (shared context: {names})",
        "tasks": [], "parts": parts, "timeout": sum(p.timeout for p in parts),
        "retries": min(p.retries for p in parts), "output": None, "log_content": None,
        "tags": list(dict.fromkeys(t for p in parts for t in p.tags)),
        "secrets": list(dict.fromkeys(s for p in parts for s in p.secrets)),
        "report_file": None, "description": None})


def expand(results: list[CaseResult], cases: dict[str, Case]) -> list[CaseResult]:
    """One result per file: a unit's result becomes its files' results (device, attempt and
    earlier attempts taken from the unit's; a file that failed in an earlier attempt of the
    unit and passed in the last one is flaky). A unit that never ran on a device (skipped,
    interrupted, lost) gives each file its verdict. A --matrix run's result of a unit on a
    device group (``unit@group``) gives its files' for that group (``file@group``)."""
    out: list[CaseResult] = []
    for result in results:
        unit, group = cases.get(result.case_id), ""
        if unit is None and "@" in result.case_id:
            base, _, group = result.case_id.rpartition("@")
            unit = cases.get(base) if result.parts or result.name.endswith(f" [{group}]") \
                else None       # (not a case whose own file name holds an @)
        if unit is None or not unit.parts:
            out.append(result)
        elif not result.parts:
            out.extend(_named(result.model_copy(update={
                "case_id": p.id, "name": p.name, "file": display_path(p.file),
                "line": p.first_line,
                "tags": p.tags, "description": p.description, "report_file": p.report_file}),
                group) for p in unit.parts)
        else:
            out.extend(files_of(result, group))
    return out


def files_of(result: CaseResult, group: str = "") -> list[CaseResult]:
    """One result per file of a unit's ``result`` (one with its files' results, ``parts``).
    A file that failed in an earlier attempt and passed in the last one is flaky; one whose
    earlier attempt ended in an error (its device lost) and passed is passed, as any case
    retried after an infrastructure error (it was flaky: CI called the app flaky when a
    phone had died). ``group``: a --matrix run's device group the unit ran on, named in each
    file's id and name, as the run names each case once per group."""
    out = []
    for i, part in enumerate(result.parts):
        before = [_named(_file_attempt(attempt, i, part), group)
                  for attempt in result.previous]
        status = part.status
        if status == "passed" and any(b.status == "failed" for b in before):
            status = "flaky"
        out.append(summed(_named(part, group).model_copy(update={    # (every attempt's time)
            "status": status, "previous": before, "device": result.device,
            "attempt": result.attempt, "since_last": None})))
    return out


def _named(result: CaseResult, group: str) -> CaseResult:
    """A file's result named for the device group it ran on (as it is, without a group or
    when its id already says it: a rebuilt journal's, `farm.journal`)."""
    if not group or result.case_id.endswith(f"@{group}"):
        return result
    return result.model_copy(update={"case_id": f"{result.case_id}@{group}",
                                     "name": f"{result.name} [{group}]"})


def _file_attempt(attempt: CaseResult, i: int, file: CaseResult) -> CaseResult:
    """The ``i``-th file's share of an earlier attempt of its unit: its result there; for an
    attempt that has none (a unit result read from an older journal), the attempt's verdict,
    its model spend on the first file only (counted once, as it was paid once)."""
    if i < len(attempt.parts):
        return attempt.parts[i]
    return attempt.model_copy(update={
        "case_id": file.case_id, "name": file.name, "file": file.file, "line": file.line,
        "tags": file.tags, "description": file.description,
        "report_file": file.report_file, "parts": [],
        **({} if i == 0 else {"usage": None, "tokens": {}})})


# -- a batch file's run-wide settings ---------------------------------------------------------

@dataclass(frozen=True)
class BatchScope:
    """What the run's batch files ask of the run, each only for its own files: ``live``, the
    batches with a file in the run (-k, --tag, --exclude-tag kept one: a batch none of whose
    files runs changes nothing); ``alone``, whether every case of the run is a file of those
    batches (the run is the batch, as ``midscene --config`` runs it: its ``concurrent`` can
    cap the devices, its ``continueOnError: false`` be --maxfail 1); ``stops``, the live
    batches with ``continueOnError: false`` that have files outside a shared-context unit
    (a unit already stops after its failed file: farm.runner.run_unit); ``lanes``, case id ->
    (sequence, place) for the files of a ``concurrent: N`` batch (N > 1) in a run that is
    not the batch alone: N sequences, files dealt to them in the batch's order, so at most N
    of them run at once while other cases use the other devices."""

    live: tuple[Batch, ...] = ()
    alone: bool = False
    stops: tuple[Batch, ...] = ()
    lanes: dict[str, tuple[str, int]] = field(default_factory=dict)

    @property
    def whole_run(self) -> bool:
        """The run is one batch's alone: its ``continueOnError: false`` is --maxfail 1 (with
        other cases, or another batch's files, beside them: `BatchStop`)."""
        return self.alone and len(self.live) == 1 and bool(self.stops)


def batch_scope(batches: list[Batch], cases: list[Case], picked: set[str]) -> BatchScope:
    """The run's `BatchScope`: ``cases`` all the suites' cases, ``picked`` the ids of those
    the run's -k / --tag / --exclude-tag keep."""
    live = tuple(b for b in batches if picked & set(b.case_ids))
    if not live:
        return BatchScope()
    theirs = {cid for b in live for cid in b.case_ids}
    alone = picked <= theirs
    loose = {c.id for c in cases if c.id in picked and c.shared is None}
    stops = tuple(b for b in live if not b.continue_on_error and loose & set(b.case_ids))
    lanes: dict[str, tuple[str, int]] = {}
    for b in live if not alone else ():
        files = [cid for cid in b.case_ids if cid in loose]
        if b.concurrent > 1 and len(files) > b.concurrent:
            for i, cid in enumerate(files):
                lanes[cid] = (f"{b.file} (lane {i % b.concurrent + 1})", i // b.concurrent)
    return BatchScope(live, alone, stops, lanes)


def batch_stops(stops: tuple[Batch, ...], job_ids: list[str]) -> dict[str, frozenset[str]]:
    """Job id -> the job ids of its batch that start no more once it failed, for the files of
    ``stops`` (batches with ``continueOnError: false``); a --matrix run's ``file@group`` stops
    its batch's files of that group only (each group runs the batch as a run of its own)."""
    out: dict[str, frozenset[str]] = {}
    for batch in stops:
        ids, groups = set(batch.case_ids), {}
        for jid in job_ids:
            base, at, group = jid.rpartition("@")
            key = "" if jid in ids else group if at and base in ids else None
            if key is not None:
                groups.setdefault(key, set()).add(jid)
        for members in map(frozenset, groups.values()):
            out.update(dict.fromkeys(members, members))
    return out


class BatchStop:
    """RunEvents around another: once a file of a ``continueOnError: false`` batch ended failed
    or in error, no further file of that batch starts (each ends skipped: "not run: b.yaml
    failed (the batch has continueOnError: false)", as in a shared-context unit:
    farm.runner), while the run's other cases go on (the executor's ``stop_taking`` for the
    batch's jobs only). ``stopping``: `batch_stops`."""

    def __init__(self, inner: Any, executor: Any, stopping: dict[str, frozenset[str]]) -> None:
        self.inner, self.executor, self.stopping = inner, executor, stopping
        self.stopped: set[frozenset[str]] = set()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def case_finished(self, device: str, result: CaseResult, final: bool) -> None:
        self.inner.case_finished(device, result, final)
        siblings = self.stopping.get(result.case_id)
        if not final or siblings is None or result.status not in ("failed", "error") \
                or siblings in self.stopped:
            return
        self.stopped.add(siblings)
        how = "failed" if result.status == "failed" else "ended with an error"
        self.executor.stop_taking(f"not run: {PurePath(result.file).name} {how} (the batch "
                                  "has continueOnError: false)", only=siblings - {result.case_id})
