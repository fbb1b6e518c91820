"""`farm report --merge`: one run directory for a nightly sharded over N CI jobs (`farm run
--shard I/N`), made of each job's run: their results.json read, checked to be shards of one
sharded run (one N, each shard once, cut from one selection), their cases merged into one
results.json, report.html and junit.xml, their artifacts hard-linked (else copied) beside
them. The merged folder is built in a fresh folder beside --out and renamed into place, so a
refused or failed merge leaves no half-written --out; nothing is written into the shard runs.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from farm.errors import FarmError, UserError
from farm.results import (CaseResult, DeselectedCase, RunSummary, ShardSource, exit_code_for,
                          read_results, timestamp, write_json)

RESULTS = "results.json"
APART_HOURS = 6       # shards of one nightly started further apart than this: warned of
_IN_SHARD = re.compile(r"--shard: in shard (\d+)/(\d+)$")    # (farm.select's reason)
JOURNAL = "results.jsonl"     # (farm.journal.JOURNAL: a run's, killed or going)


@dataclass
class ShardRun:
    """One shard's run as read: its results.json (as given or found) and its folder."""

    source: Path
    summary: RunSummary
    data: dict = field(repr=False)

    @property
    def run_dir(self) -> Path:
        return self.source.parent

    @property
    def index(self) -> int:
        return int(str(self.summary.shard).partition("/")[0])


@dataclass
class Merged:
    """What a merge made: the merged run, where, what is missing, what was not written."""

    summary: RunSummary
    out: Path
    missing: list[str]
    unwritten: list[str]
    notes: list[str] = field(default_factory=list)     # what else to say: "warning: …"


def find_runs(given: list[Path]) -> list[Path]:
    """The results.json of each PATH: a results.json (any file: a renamed CI artifact), a run
    directory, or a folder holding run directories (a CI job's downloaded artifacts: every
    results.json under it, not looked for under a run directory). A UserError naming the
    path that is none of these, and a run found that has no results.json yet (killed, or
    still going: not taken for a shard missing)."""
    found: list[Path] = []
    for path in given:
        if path.is_file():
            found.append(path)
        elif not path.is_dir():
            raise UserError(f"--merge {path}: no such file or folder")
        elif (path / RESULTS).is_file():
            found.append(path / RESULTS)
        else:
            under = _runs_under(path)
            unfinished = [p.parent for p in under if p.name == JOURNAL]
            if unfinished or not under:
                raise UserError(_not_a_run(unfinished[0] if unfinished else path) + (
                    f" (and {len(unfinished) - 1} more run(s) under {path} like it)"
                    if len(unfinished) > 1 else ""))
            found.extend(under)
    return found


def _runs_under(folder: Path) -> list[Path]:
    """Every run directory's results.json under ``folder``, sorted, or its journal where it
    has none (a run killed, or still going); links not followed."""
    found = []
    for root, dirs, files in os.walk(folder):
        if RESULTS in files or JOURNAL in files:
            found.append(Path(root) / (RESULTS if RESULTS in files else JOURNAL))
            dirs[:] = []            # (a run's own artifacts/ holds no other run)
        else:
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    return sorted(found)


def _not_a_run(path: Path) -> str:
    if (path / JOURNAL).is_file():
        from farm.journal import writer_of
        if (found := writer_of(path)) is not None:
            return (f"--merge {path}: its run is still going ({found}): merge once it "
                    f"ended and wrote its {RESULTS}")
        return (f"--merge {path}: a run that was killed before it wrote its {RESULTS}: "
                f"`farm report {path}` rebuilds it from its journal first")
    return (f"--merge {path}: not a run directory (no {RESULTS} in it), nor a folder "
            f"holding any (none under it): give each shard's run directory or {RESULTS}, "
            "or the folder they were downloaded to")


def read_run(source: Path) -> ShardRun:
    """``source`` read as a run's results.json; a UserError naming the file (and the line of
    a JSON error) when it is not one."""
    summary, data, why = read_results(source)
    if summary is None or data is None:
        raise UserError(f"{source}: {why}" + _what_it_is(source, why or ""))
    shard = summary.shard or ""
    index, _, total = shard.partition("/")
    if shard and not (index.isdigit() and total.isdigit() and 1 <= int(index) <= int(total)):
        raise UserError(f"{source}: its \"shard\" is {shard!r}, not I/N (e.g. 2/4)")
    return ShardRun(source, summary, data)


def _what_it_is(source: Path, why: str) -> str:
    """What a file given to --merge that is no results.json seems to be (a junit.xml, a
    log), and what --merge takes instead."""
    if not why.startswith("not valid JSON"):
        return ""       # (unreadable, or a results.json of another shape: said as it is)
    try:
        with source.open("rb") as f:
            head = f.read(200).lstrip()
    except OSError:
        head = b""
    what = ("an XML file (a junit.xml?), not a run's results.json" if head.startswith(b"<")
            else "not a run's results.json")
    return (f": {what}: --merge takes each shard's run folder (where its results.json is) "
            f"or that {RESULTS}")


def check_together(runs: list[ShardRun]) -> tuple[list[ShardRun], int, list[str]]:
    """The runs, each shard once and in shard order, their N, and the shards not given
    ("3/4"); a UserError (exit 4) when they are not the shards of one sharded run."""
    if not runs:
        raise UserError("--merge: no run to merge")
    merged = next((r for r in runs if r.summary.shards), None)
    if merged is not None:
        raise UserError(f"{merged.source}: a merged run (`farm report --merge`), not a "
                        "shard's: leave it out, give the shards' own runs")
    whole = [r for r in runs if not r.summary.shard]
    if whole:
        raise UserError(f"{whole[0].source}: a whole run, not a shard's (no \"shard\" in it): "
                        "--merge joins the runs of one `farm run --shard I/N` nightly")
    totals = {r.summary.shard.partition("/")[2] for r in runs}     # type: ignore[union-attr]
    if len(totals) > 1:
        raise UserError("the runs are shards of different splits: " + ", ".join(
            f"{r.source} is shard {r.summary.shard}" for r in runs) + ": give the shards of "
            "one nightly (one N)")
    by_shard: dict[int, ShardRun] = {}
    for run in runs:
        other = by_shard.setdefault(run.index, run)
        if other is not run and other.data != run.data:
            raise UserError(f"shard {run.summary.shard} given twice: {other.source} "
                            f"(run {other.summary.run_id}) and {run.source} (run "
                            f"{run.summary.run_id}): give one run of each shard")
    total = int(totals.pop())
    chosen = [by_shard[i] for i in sorted(by_shard)]
    _one_selection(chosen)
    return chosen, total, [f"{i}/{total}" for i in range(1, total + 1) if i not in by_shard]


def _one_selection(runs: list[ShardRun]) -> None:
    """Each case in one shard only, and every shard planned on the same cases (its own and
    those it deselected): shards of one nightly, not of two runs of different suites."""
    first = runs[0]
    planned = _planned(first.summary)
    for run in runs[1:]:
        differ = planned ^ _planned(run.summary)
        if differ:
            raise UserError(f"{first.source} and {run.source} were not cut from one selection: "
                            f"{len(differ)} case(s) one of them planned and the other did not "
                            f"(e.g. {sorted(differ)[0]}): give the shards of one nightly")
    seen: dict[str, ShardRun] = {}
    for run in runs:
        for case in run.summary.cases:
            other = seen.setdefault(case.case_id, run)
            if other is not run:
                raise UserError(f"case {case.case_id} ran in two shards: {other.source} "
                                f"(shard {other.summary.shard}) and {run.source} (shard "
                                f"{run.summary.shard}): these are not shards of one run")


def _planned(summary: RunSummary) -> set[str]:
    return {c.case_id for c in summary.cases} | {d.case_id for d in summary.deselected}


def merged_summary(runs: list[ShardRun], total: int, missing: list[str]) -> RunSummary:
    """One run of the shards' cases: counts recounted, its time from the earliest start to
    the latest end, the shards it was made of listed (its own ``shard`` none)."""
    from farm.results import devices_of
    _own_device_names(runs)
    cases = [c for r in runs for c in r.summary.cases]
    starts = [(timestamp(r.summary.started), r.summary.started) for r in runs]
    known = [s for s in starts if s[0] is not None]
    first = min(known)[1] if known else runs[0].summary.started
    ends = [(_end(r.summary), r.summary.finished) for r in runs]
    last = max((e for e in ends if e[0] is not None), default=(None, ""))
    begun = min((s[0] for s in known), default=None)
    took = (round(last[0] - begun, 3) if last[0] is not None and begun is not None
            else max(r.summary.duration for r in runs))
    summary = RunSummary(
        run_id=f"merged-{runs[0].summary.run_id}", started=first, finished=last[1],
        duration=took,
        cases=cases, farm_version=", ".join(dict.fromkeys(
            r.summary.farm_version for r in runs if r.summary.farm_version)),
        interrupted=any(r.summary.interrupted for r in runs),
        quarantined=list(dict.fromkeys(q for r in runs for q in r.summary.quarantined)),
        lost={k: v for r in runs for k, v in r.summary.lost.items()},
        deselected=_deselected(runs, {c.case_id for c in cases}),
        stopped=next((r.summary.stopped for r in runs if r.summary.stopped), None),
        fail_on_skip=any(r.summary.fail_on_skip for r in runs),
        shards=[ShardSource(shard=r.summary.shard or "", run_id=r.summary.run_id,
                            path=os.path.abspath(r.source)) for r in runs],
        missing_shards=missing,
        # the folder the jobs ran in, where they all say one (its YAML files, linked)
        cwd=cwds.pop() if len(cwds := {r.summary.cwd for r in runs}) == 1 else None)
    summary.devices, summary.device_info = devices_of(cases)
    summary.device_info = {**{k: v for r in runs for k, v in r.summary.device_info.items()},
                           **summary.device_info}
    summary.recount()
    summary.exit_code = _exit_code(summary, runs)
    return summary


def _own_device_names(runs: list[ShardRun]) -> None:
    """A device name more than one shard's run used (each CI job's ``browser-1``) made that
    shard's own, ``browser-1 (shard 2/4)``, in the runs as read (the files are left as they
    are): one timeline row each, not four jobs' bars drawn over one another."""
    from farm.results import devices_of
    used = [set(r.summary.devices) | set(devices_of(r.summary.cases)[0]) for r in runs]
    for run, names in zip(runs, used):
        shared = {n for n in names if sum(n in other for other in used) > 1}
        if not shared:
            continue
        new = {n: f"{n} (shard {run.summary.shard})" for n in shared}
        s = run.summary
        for case in s.cases:
            _rename(case, new)
        s.devices = [new.get(d, d) for d in s.devices]
        s.device_info = {new.get(k, k): v for k, v in s.device_info.items()}
        s.quarantined = [new.get(d, d) for d in s.quarantined]
        s.lost = {new.get(k, k): v for k, v in s.lost.items()}


def _rename(case: CaseResult, new: dict[str, str]) -> None:
    for earlier in (*case.previous, *case.parts):
        _rename(earlier, new)
    if case.device:
        case.device = new.get(case.device, case.device)


def _end(summary: RunSummary) -> float | None:
    end = timestamp(summary.finished)
    if end is None and (start := timestamp(summary.started)) is not None:
        end = start + summary.duration
    return end


def _deselected(runs: list[ShardRun], ran: set[str]) -> list[DeselectedCase]:
    """The cases no shard ran, once each: a case one shard left to another that ran it is no
    longer deselected; one left to a missing shard still is."""
    kept: dict[str, DeselectedCase] = {}
    for run in runs:
        for case in run.summary.deselected:
            if case.case_id in ran:
                continue
            had = kept.get(case.case_id)    # (its own shard's reason: --last-failed, -k …,
            if had is None or (_IN_SHARD.match(had.reason or "")     # over "in shard I/N")
                               and not _IN_SHARD.match(case.reason or "")):
                kept[case.case_id] = case
    return list(kept.values())


def sent_to(case: DeselectedCase) -> str | None:
    """The shard ("3/4") a shard's run left ``case`` to, as its reason says, else None."""
    found = _IN_SHARD.match(case.reason or "")
    return f"{found[1]}/{found[2]}" if found else None


def _empty_shards(runs: list[ShardRun], missing: list[str]) -> list[str]:
    """The shards not given that had no case: no shard given left any case to them (a CI
    matrix wider than the cases: `farm run` wrote no results.json, only its JUnit)."""
    sent = {sent_to(d) for r in runs for d in r.summary.deselected}
    return [shard for shard in missing if shard not in sent]


def _apart(runs: list[ShardRun]) -> list[str]:
    """Warnings that the shards are not of one nightly: run by different farm versions, of
    different CI runs (run_group), or started hours apart; the merge goes on."""
    notes = []
    for what, key in (("farm versions", "farm_version"), ("CI runs (run_group)", "run_group")):
        said = {r.summary.shard: getattr(r.summary, key, None) for r in runs}
        if len({v for v in said.values() if v}) > 1:
            notes.append(f"warning: the shards ran different {what}: " + ", ".join(
                f"{shard} {value or '(none said)'}" for shard, value in said.items()) +
                ": are they of one nightly? merged all the same")
    starts = sorted((t, r.summary.shard) for r in runs
                    if (t := timestamp(r.summary.started)) is not None)
    hours = (starts[-1][0] - starts[0][0]) / 3600 if starts else 0.0
    if hours > APART_HOURS:
        notes.append(f"warning: shard {starts[0][1]} started {hours:.1f} h before shard "
                     f"{starts[-1][1]}: are they of one nightly? merged all the same")
    return notes


def _exit_code(summary: RunSummary, runs: list[ShardRun]) -> int:
    """The merged run's code from its cases, as `farm run` makes it; a shard's own code that
    its cases do not explain (3: an output not written) when they say 0."""
    code = exit_code_for(summary.cases, summary.interrupted)
    if code == 0 or (code == 5 and summary.deselected):
        code = next((r.summary.exit_code for r in runs if r.summary.exit_code not in (0, 5)),
                    code)
    return code


def check_out(out: Path, overwrite: bool, runs: list[ShardRun]) -> None:
    """--out may take the merged run: new, empty, or (with ``overwrite``) holding a run an
    earlier merge or farm run left; never a shard's folder or one holding it."""
    out_abs = Path(os.path.realpath(out))   # (links resolved: the folder itself, not its name)
    for run in runs:
        where = Path(os.path.realpath(run.run_dir))
        if where == out_abs or out_abs in where.parents or where in out_abs.parents:
            raise UserError(f"--out {out}: it holds the shard run {run.run_dir} or is in it: "
                            "give a folder of its own (nothing is written into the shards)")
    here = Path(os.path.realpath(os.getcwd()))
    if here == out_abs or out_abs in here.parents:
        raise UserError(f"--out {out}: the working directory or one holding it, which the "
                        "merged folder would replace: give a folder of its own")
    if not out.exists() and not out.is_symlink():
        return
    if not out.is_dir() or out.is_symlink():
        raise UserError(f"--out {out}: not a folder: give a folder (made when missing)")
    inside = sorted(p.name for p in out.iterdir())
    if not inside:
        return
    run = next((n for n in (RESULTS, "results.jsonl") if n in inside), None)
    if run is None:
        raise UserError(f"--out {out} is not empty and holds no run ({inside[0]}, "
                        f"{len(inside)} item(s)): give a new or empty folder")
    from farm.journal import writer_of
    if (found := writer_of(out)) is not None:
        raise UserError(f"--out {out} is in use: {found} is still writing a run into it")
    if not overwrite:
        raise UserError(f"--out {out} already holds a run ({run}): use --overwrite to "
                        "replace it, or another directory")
    from farm.run_outputs import RUN_FILES, own_pages
    ours = {*RUN_FILES, "artifacts", *own_pages(out / RESULTS)}
    if others := [name for name in inside if name not in ours]:
        # (--overwrite removes the whole folder: only one that holds nothing but a run)
        raise UserError(f"--out {out} holds a run and files farm did not write "
                        f"({', '.join(others[:3])}{', …' if len(others) > 3 else ''}), which "
                        "--overwrite would delete with it: give a new or empty folder")


def merge(given: list[Path], out: Path, overwrite: bool = False) -> Merged:
    """Read, check and merge the shard runs at ``given`` into ``out`` (see the module)."""
    from farm.report.paths import writable_dir
    read = [read_run(p) for p in find_runs(given)]
    runs, total, missing = check_together([r for r in read if not _earlier_merge(r, out)])
    check_out(out, overwrite, runs)
    empty = _empty_shards(runs, missing)
    missing = [shard for shard in missing if shard not in empty]
    notes = [f"shard {shard} had no case (more shards than cases): each case planned is in "
             "a shard given" for shard in empty] + _apart(runs)
    summary = merged_summary(runs, total, missing)
    target = Path(os.path.abspath(out))     # (--out . too: the folder by its own name)
    writable_dir(target.parent, "--out", shown=out)
    tmp = target.parent / f".{target.name}.{secrets.token_hex(4)}.merging"
    try:
        tmp.mkdir()
        for run in runs:
            _link_tree(run.run_dir / "artifacts", tmp / "artifacts")
        write_json(tmp / RESULTS, summary)
        from farm.report.html import write_html
        write_html(summary, tmp)
        _swap(tmp, target)
    except BaseException as exc:        # (Ctrl-C too: no half-made folder left beside it)
        shutil.rmtree(tmp, ignore_errors=True)
        if not isinstance(exc, OSError):
            raise
        raise FarmError(f"--out {out}: the merged run could not be written "
                        f"({exc.strerror or exc}); nothing was left there") from None
    return Merged(summary, out, missing, _junit(summary, target), notes)


def _earlier_merge(run: ShardRun, out: Path) -> bool:
    """``run`` is what an earlier merge left in --out (found under a folder given: the
    shards' parent), which this merge replaces: not one of its shards."""
    return bool(run.summary.shards) and out.is_dir() and os.path.samefile(run.run_dir, out)


def _link_tree(src: Path, dst: Path) -> None:
    """The files under ``src`` hard-linked (else copied) to the same places under ``dst``;
    links are not followed (no file outside the run goes in), a path taken is kept."""
    if not src.is_dir() or src.is_symlink():
        return
    for root, dirs, files in os.walk(src):
        here = Path(root)
        dirs[:] = [d for d in dirs if not (here / d).is_symlink()]
        to = dst / here.relative_to(src)
        to.mkdir(parents=True, exist_ok=True)
        for name in files:
            source, target = here / name, to / name
            if source.is_symlink() or not source.is_file() or target.exists():
                continue
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)


def _swap(tmp: Path, out: Path) -> None:
    """The merged folder ``tmp`` renamed to ``out``; an (empty, or --overwrite) folder
    there set aside first and removed after."""
    old = None
    if out.is_dir():
        if not any(out.iterdir()):
            out.rmdir()
        else:
            old = out.parent / f".{out.name}.{secrets.token_hex(4)}.replaced"
            os.replace(out, old)
    try:
        os.replace(tmp, out)
    except OSError:
        if old is not None:
            os.replace(old, out)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _junit(summary: RunSummary, out: Path) -> list[str]:
    """junit.xml, written in --out itself once it is there (its attachments name the files
    by absolute path); what was not written."""
    from farm.report.junit import write_junit
    from farm.report.paths import why_not_written
    path = out / "junit.xml"
    try:
        write_junit(summary, path)
    except Exception as exc:        # noqa: BLE001 (the rest of the merge stands)
        return [f"{path}: {why_not_written(path, exc)}"]
    return []
