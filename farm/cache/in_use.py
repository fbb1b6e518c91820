"""Which cache entries the case files on disk would still use (`farm cache ls`).

A step re-worded (``press the hello button once more`` → ``… one more time``) or removed
leaves its entries in the store until they expire: no run looks them up again, and counting
their ``solved_with`` overstated what replaying saves a run. The keys a run would look up are
the ones `farm.cache.export.export_case` looks up, in the same order (the n-th use of a
prompt), so its walk over a case, with a store that records each key asked for, names them. A
step with no cached plan yet walks on (as one kept as written): the steps after it still count.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from farm.cache.export import export_case
from farm.cache.keys import split_key
from farm.cache.store import CacheStore, Entry
from farm.errors import FarmError
from farm.suite.model import Case


class _Recording:
    """``store``, read only, noting every key looked up."""

    def __init__(self, store: CacheStore) -> None:
        self.store, self.where = store, store.where
        self.asked: set[str] = set()

    def get(self, key: str) -> Entry | None:
        self.asked.add(key)
        entry = self.store.get(key)
        if entry is None and split_key(key).get("kind") == "plan":
            return {"type": "plan", "actions": []}      # no plan yet: walk on past it
        return entry


def _unscoped(key: str) -> tuple[Any, ...] | None:
    """A key without its --matrix device group (``demo/login@pixel`` is demo/login's)."""
    part = split_key(key)
    if not part:
        return None
    return (part["case"].split("@", 1)[0], part["platform"], part["version"], part["kind"],
            part["n"], part["digest"])


class InUse:
    """The entries the loaded cases would look up; `matches` tells one of them from an
    orphan, and says nothing (None) of an entry of a suite that was not loaded."""

    def __init__(self, cases: Iterable[Case], store: CacheStore,
                 env: Mapping[str, str], secrets_dir: Path | None) -> None:
        self.keys: set[tuple[Any, ...]] = set()
        self.cases: set[str] = set()       # case ids whose keys are known
        for case in cases:
            recording = _Recording(store)
            try:
                export_case(case, recording, env, secrets_dir)    # type: ignore[arg-type]
            except Exception:    # noqa: BLE001 - a step export cannot write (a case that
                continue         # a run refuses too): its case's entries are not judged
            self.cases.add(case.id)
            self.keys |= {k for k in map(_unscoped, recording.asked) if k is not None}

    def matches(self, key: str) -> bool | None:
        """True: a step of the case files uses it; False: none does (re-worded, removed);
        None: not known (its case's file was not loaded, or could not be walked)."""
        part = _unscoped(key)
        if part is None or part[0] not in self.cases:
            return None
        return part in self.keys


def in_use(selection: str, case_ids: Iterable[str], store: CacheStore,
           env: Mapping[str, str], secrets_dir: Path | None) -> InUse | None:
    """What the case files of ``selection`` would look up (`InUse`); None when none of them
    is found or loads (the listing then cannot tell orphans)."""
    from farm.suite.loader import load_suites
    paths = list(_paths(selection, case_ids))
    if not paths:
        return None
    try:
        suites = load_suites(paths, env=env, warnings=[], secrets_dir=secrets_dir)
    except (FarmError, OSError):
        return None
    found = InUse([c for s in suites for c in s.cases], store, env, secrets_dir)
    return found if found.cases else None


def _paths(selection: str, case_ids: Iterable[str]) -> Iterator[Path]:
    """Where the case files of ``selection`` (a path on disk, or case ids / a suite) are: the
    path itself, else each suite's folder in the working directory (``mine``, or under
    ``suites/``), as `farm run` is given it."""
    if selection and Path(selection).exists():
        yield Path(selection)
        return
    for suite in sorted({cid.split("/", 1)[0].split("@", 1)[0] for cid in case_ids}):
        for folder in (Path(suite), Path("suites") / suite):
            if folder.is_dir():
                yield folder
                break
