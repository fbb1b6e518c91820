"""What changed across runs: pure functions from the results history's records to the
figures of the history page (no I/O here; farm/report/history_page.py renders them)."""

from __future__ import annotations

import re
import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from farm.results_history import (FINISHED, FLAKY_BEFORE, NO_DEVICES, RED, WINDOW, CaseRecord,
                                  FailedStep, RunRecord, classify, counts_for_verdicts,
                                  no_devices, pass_rate, suite_of)

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$")
_UNIT = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
TOP = 25          # rows in each ranking
STEPS_SHOWN = 3   # failing steps named per case in the flaky ranking
SLICES = ("--shard", "--last-failed")     # a run so chosen is part of a run, never a whole one
# Two things were both called "flaky": a case that failed, then passed on a retry in one run
# (status ``flaky``), and a case whose verdict flips from run to run (`classify`'s "unstable"
# of a red case, "flaky" in an older farm's results.json). The page names them apart:
# *flaky (passed on retry)* and *unstable across runs*.
# A case is unstable when its verdict goes back to what it was within its last WINDOW runs
# (green, red, green again; or red, green, red): new failure and fixed are first changes.
UNSTABLE = "unstable"
WORDS = {"new failure": "new failure", "still failing": "still failing",
         "flaky": "flaky (passed on retry)", UNSTABLE: "unstable across runs", "fixed": "fixed"}
ORDER = {"new failure": 0, UNSTABLE: 1, "still failing": 2, "flaky": 3, "fixed": 5}


def parse_since(text: str) -> float:
    """``7d`` / ``12h`` / ``30m`` / ``2w`` / ``90s`` → seconds; ValueError otherwise."""
    match = _SINCE.match(text or "")
    if not match:
        raise ValueError(f"--since {text!r}: give a number and a unit, e.g. 7d, 12h, 30m, 2w")
    return float(match.group(1)) * _UNIT[match.group(2)]


@dataclass
class RunRow:
    run: RunRecord
    finished: int       # cases that reached a verdict: passed, flaky, failed, error
    passed: int         # ... of which passed (flaky included)
    rate: float | None  # passed / finished, as the run's report and the dashboard count it
    new: list[str] = field(default_factory=list)        # cases newly red in this run
    fixed: list[str] = field(default_factory=list)      # cases green again in this run
    flaky: list[str] = field(default_factory=list)      # cases that passed only on a retry
    unstable: list[str] = field(default_factory=list)   # red or green again, back and forth
    partial: bool = False   # a subset of the window's usual run (`mark_partial`): its rate is
    # over a few cases, not a night's; off the pass-rate line
    missing: list[str] = field(default_factory=list)    # a sharded run's shards not in the
    # history ("3/3"; `missing_shards`): partial


@dataclass
class Change:
    case_id: str
    name: str
    status: str
    verdict: str                 # new failure / still failing / flaky / unstable / fixed
    error: str | None = None
    step: FailedStep | None = None   # where it failed (a flaky one: its failed attempt)
    recent: tuple[int, int, int] = (0, 0, 0)   # of its last WINDOW finished runs (this one's
    # included): (failed or its own error, passed only on a retry, runs)
    carried: str | None = None   # the run this state is from, when the newest run (cut
    # short) did not finish the case: the newest run that ran the case to its end
    run: str | None = None       # the run whose report shows the case: a sharded run's shard
    flaky_before: bool = False   # flaky now and in the window before too: its run's report
    # says *flaky before* (results.json's since_last), and so does this page

    @property
    def words(self) -> str:
        """The verdict as the page says it: an unstable case's with its recent record
        (``passed (unstable across runs: 4 of last 7 failed)``), never a bare *fixed*."""
        if self.verdict == "flaky" and self.flaky_before:
            return f"{WORDS['flaky']} · {FLAKY_BEFORE}"
        if self.verdict != UNSTABLE:
            return WORDS[self.verdict]
        red, flaky, runs = self.recent
        also = f", {flaky} flaky (passed on retry)" if flaky else ""
        verb = "failed" if self.status in RED else "passed"
        return f"{verb} (unstable across runs: {red} of last {runs} failed{also})"

    @property
    def rank(self) -> tuple[int, str]:
        """Its place in the table: new failures first, an unstable pass after the flaky."""
        green = self.verdict == UNSTABLE and self.status not in RED
        return (4 if green else ORDER[self.verdict]), self.case_id


@dataclass
class StepFails:
    """One step a case failed at, over the window's red runs of the case."""

    step: FailedStep             # as it was the last time it failed there
    fails: int                   # red runs (failed, or flaky: its failed attempt) ending here
    errors: list[str] = field(default_factory=list)    # error kinds, most frequent first


@dataclass
class Flaky:
    case_id: str
    name: str
    runs: int
    fails: int                   # runs in which it failed (every retry failed too), or
    # ended in an error of its own (a timeout: not its device's, `counts_for_verdicts`)
    flips: int                   # status changes between runs: consecutive runs whose final
    # statuses differ (passed, flaky, or red: failed or its own error); at most runs - 1
    last_fail_run: str
    last_fail_at: str
    last_error: str | None
    flaky: int = 0               # runs in which it passed only on a retry (no fail, no pass)
    steps: list[StepFails] = field(default_factory=list)   # where it failed, most often first
    unknown_steps: int = 0       # red runs recorded before farm kept the failing step


@dataclass
class Slow:
    case_id: str
    name: str
    median: float
    last: float
    change: float | None         # last vs median of the runs before it, as a fraction
    samples: list[float]


@dataclass
class Spend:
    case_id: str
    name: str
    tokens: int
    cost: float
    runs: int               # runs in which the case ran, those that spent nothing included
    free: int = 0           # ... of which spent no token (a cached replay, zero-token tiers)
    tokens_unknown: bool = False    # some run's tokens / cost unknown (farm.usage wording)
    cost_unknown: bool = False


@dataclass
class DeviceErrors:
    device: str
    errors: int
    last_run: str
    last_error: str | None
    about: str = ""             # what the device was in the last run that said


@dataclass
class Trends:
    rows: list[RunRow]
    latest: list[Change]          # the newest run's new failures, still failing, fixed
    flaky: list[Flaky]
    slowest: list[Slow]
    spend: list[Spend]
    devices: list[DeviceErrors]
    suites: list[str]

    @property
    def runs(self) -> list[RunRecord]:
        return [r.run for r in self.rows]


def only_suite(runs: list[RunRecord], suite: str | None) -> list[RunRecord]:
    """Runs restricted to one suite's cases (runs without any left out)."""
    if not suite:
        return runs
    out = []
    for run in runs:
        cases = [c for c in run.cases if suite_of(c.case_id) == suite]
        if cases:
            counts = Counter(c.status for c in cases)
            kept = [c.model_seconds for c in cases if c.model_seconds is not None]
            out.append(run.model_copy(update={
                "cases": cases, "counts": {**counts, "total": len(cases)},
                "tokens": sum(c.tokens for c in cases), "cost": sum(c.cost for c in cases),
                "tokens_unknown": any(c.tokens_unknown for c in cases),
                "cost_unknown": any(c.cost_unknown for c in cases),
                # the suite's model time, as its tokens and cost (a record from before
                # cases kept theirs: the run's)
                **({"model_seconds": round(sum(kept), 3)} if len(kept) == len(cases) else {})}))
    return out


def analyse(runs: list[RunRecord], suite: str | None = None,
            earlier: list[RunRecord] = ()) -> Trends:
    """Everything the history page shows, from runs oldest first. ``earlier``: the runs
    before that window (oldest first), shown nowhere but the context of the window's
    verdicts, so a run's new failure / still failing / unstable / fixed is what its own
    report said (farm/results_history.py `since_last`), not a fresh start at the window's
    edge. An interrupted run is a row like any (marked so): its finished cases count
    everywhere; its skipped and interrupted cases, which did not finish, are neither verdicts
    nor durations (what they spent is still spend); when it is the newest, the cases it did
    not finish keep the state of the newest run that finished each (`_carried`). A partial run
    (`mark_partial`) is a row too, and its cases count like any run's: only its pass rate is
    not a night's. The shards of one sharded run are one run (`fold_shards`)."""
    runs = only_suite(fold_shards(runs), suite)     # (the header names the page's suites)
    seen = _Seen(_statuses(earlier))
    rows, changes = [], []
    for run in runs:
        row = _row(run)
        changes.append(seen.run(run, row))
        rows.append(row)
    mark_partial(rows)
    latest = _carried(runs, changes)
    latest.sort(key=lambda c: c.rank)
    return Trends(rows=rows, latest=latest,
                  flaky=flaky_ranking(seen.statuses, seen.last_fail, seen.names,
                                      seen.red_steps),
                  slowest=slowest(runs, seen.names), spend=spend(runs, seen.names),
                  devices=device_errors(runs),
                  suites=sorted({suite_of(c.case_id) for r in runs for c in r.cases}))


class _Seen:
    """What `analyse` has read so far, run by run: each case's statuses (in the window; and
    with the runs before it, for verdicts), names, last failure and failing steps."""

    def __init__(self, before: defaultdict[str, list[str]]) -> None:
        self.statuses: dict[str, list[str]] = defaultdict(list)     # in the window
        self.before = before                                        # before it, then in it
        self.names: dict[str, str] = {}
        self.last_fail: dict[str, tuple[RunRecord, CaseRecord]] = {}
        self.red_steps: dict[str, list[FailedStep | None]] = defaultdict(list)

    def run(self, run: RunRecord, row: RunRow) -> dict[str, Change]:
        """Read one run (the next, oldest first): fill its row's lists; its verdicts."""
        changes: dict[str, Change] = {}
        shown = {c.case_id: s.run_id for s in run.shards for c in s.cases}
        for case in run.cases:
            self.names[case.case_id] = case.name or case.case_id
            if case.status not in FINISHED:
                continue
            # (the device's error says nothing of the case: no verdict, as in its run's report)
            told = counts_for_verdicts(case)
            if told and case.status in (*RED, "flaky"):     # a timeout is the case's too
                self.last_fail[case.case_id] = (run, case)
                self.red_steps[case.case_id].append(case.last_failed_step())
            before = self.before[case.case_id]
            verdict = _verdict(before, case.status) if told else None
            lists = {"new failure": row.new, "fixed": row.fixed, UNSTABLE: row.unstable,
                     "flaky": row.flaky}
            if verdict in lists:
                lists[verdict].append(case.case_id)
            if verdict:
                changes[case.case_id] = Change(
                    case.case_id, self.names[case.case_id], case.status, verdict, case.error,
                    case.last_failed_step(), _recent(before, case.status),
                    run=shown.get(case.case_id, run.run_id),
                    # (as `since_last` says it: flaky in its last WINDOW runs before this)
                    flaky_before=case.status == "flaky" and "flaky" in before[-WINDOW:])
            if told:    # (a device's infra error says nothing of it)
                self.statuses[case.case_id].append(case.status)
                before.append(case.status)
        return changes


def _carried(runs: list[RunRecord], changes: list[dict[str, Change]]) -> list[Change]:
    """The newest run's verdicts; when it was cut short (interrupted), with the state of
    each case of it that it did not finish as the newest run that ran that case to its end
    left it (marked ``carried``): a run stopped after 6 s emptied the morning's triage, the
    cases still failing the night before gone from it. Each case is looked for on its own:
    a ``-k logout`` run between the night and the stopped run finished logout alone, so the
    night's other red cases are the night's. A case the stopped run did not have (not in its
    selection, deleted since) is no case of it: not carried."""
    if not runs:
        return []
    latest = list(changes[-1].values())
    if not runs[-1].interrupted:
        return latest
    pending = {c.case_id for c in runs[-1].cases if c.status not in FINISHED}
    for run, said in zip(reversed(runs[:-1]), reversed(changes[:-1])):
        if not pending:
            break
        for case in run.cases:
            if case.status in FINISHED and case.case_id in pending:
                pending.discard(case.case_id)
                if case.case_id in said:
                    latest.append(replace(said[case.case_id], carried=run.run_id))
    return latest


def _verdict(before: list[str], status: str) -> str | None:
    """`classify`'s verdict (the run's own report's, results.json's ``since_last``), with
    the two kinds of "flaky" named apart: a case that passed only on a retry is *flaky*
    whatever came before (never *fixed*: it failed again in this run; never nothing: a plain
    pass); `classify` says *unstable* of a red case that passed last time and was red before
    that, and of a pass after red of a case that was red or flaky before its last pass too
    (red, green, red, green: not *fixed*, it goes back and forth)."""
    return "flaky" if status == "flaky" else classify(before, status)


def _recent(before: list[str], status: str) -> tuple[int, int, int]:
    """(red, passed only on a retry, runs) over a case's last WINDOW finished runs, this
    one included."""
    last = [*before, status][-WINDOW:]
    return sum(s in RED for s in last), last.count("flaky"), len(last)


def _statuses(runs: list[RunRecord]) -> defaultdict[str, list[str]]:
    """Each case's statuses over ``runs`` (oldest first), as `since_last` counts them: the
    cases that finished (skipped and interrupted ones left out), interrupted runs' too, but
    not as the device's infrastructure error (`counts_for_verdicts`)."""
    seen: defaultdict[str, list[str]] = defaultdict(list)
    for run in runs:
        for case in run.cases:
            if counts_for_verdicts(case):
                seen[case.case_id].append(case.status)
    return seen


def mark_partial(rows: list[RunRow]) -> None:
    """Mark the rows whose run took part of what the window's runs usually take: chosen by
    --last-failed or --shard (a rerun of the failures, one CI job's slice), or narrowed by a
    -k / --tag / --exclude-tag the window's usual run is not narrowed by. The usual run: the
    selection most runs of the window had (ties: the narrower-by-less, then the newer), so
    a farm that runs ``--tag nightly`` every night has whole nights, and an afternoon's
    ``-k login`` among plain nights is partial. A run narrowed by less than the usual (an
    --exclude-tag that found nothing to leave out that night) took at least as much: whole.
    Platforms a run had no device for (``no android, ios devices``: a ``--devices browser:1``
    run of a three-platform suite) narrow it as a -k does: among nights on every platform it
    is partial; on a farm whose every night is browser-only, it is the usual run."""
    scopes = [_scope(row.run) for row in rows]
    seen = Counter(s for s in scopes if s is not None)
    newest = {s: i for i, s in enumerate(scopes)}
    usual = max(seen, key=lambda s: (seen[s], -len(s), newest[s]), default=frozenset())
    for row, scope in zip(rows, scopes):
        row.partial = scope is None or not scope <= usual or bool(row.missing)


def _scope(run: RunRecord) -> frozenset[str] | None:
    """The options that narrowed a run, as `mark_partial` compares them (an --exclude-tag's
    tags are what it found to leave out, so not compared); None: a slice (`SLICES`)."""
    if any(s.split(" ", 1)[0] in SLICES for s in run.selection):
        return None
    scope = set()
    for s in run.selection:
        if missing := NO_DEVICES.match(s):     # each platform apart: no ios ⊂ no android, ios
            scope.update(f"no {p} device" for p in missing.group(1).split(", "))
        else:
            scope.add(s.split(" ", 1)[0] if s.startswith("--exclude-tag") else s)
    return frozenset(scope)


def _row(run: RunRecord) -> RunRow:
    passed, finished, rate = pass_rate(Counter(c.status for c in run.cases))
    return RunRow(run=run, finished=finished, passed=passed, rate=rate,
                  missing=missing_shards(run))


def flaky_ranking(statuses: dict[str, list[str]],
                  last_fail: dict[str, tuple[RunRecord, CaseRecord]],
                  names: dict[str, str],
                  red_steps: dict[str, list[FailedStep | None]] | None = None) -> list[Flaky]:
    """The cases unstable across runs in the window: their verdict went back to what it was
    (passed, failed, passed again; or failed, passed, failed again), or they passed only on
    a retry (flaky) in some run: most status changes between runs first. A case that only
    turned red is a new failure, and one red from the window's start that turned green is
    fixed: neither is unstable, as the newest run's verdicts say (`_verdict`). An error of
    the case's own (a timeout, not its device's: ``statuses`` holds none of those) is a fail,
    as its run's report counts it red: a case that times out every other night is unstable.
    ``statuses``: each case's statuses, oldest first. A flaky run (passed on a retry) is
    neither a fail nor a pass of the case: it is counted apart. Its status changes are
    between runs' final statuses (passed, flaky, red), never the attempts inside a run: a
    case in 2 runs has at most 1. ``red_steps``: each case's failing step in its failed and
    flaky runs (`step_fails`)."""
    ranking = []
    for case_id, seen in statuses.items():
        if "failed" not in seen and "flaky" not in seen and "error" not in seen:
            continue            # the common case, decided at C speed
        states = [s for s in seen if s in ("passed", "flaky", *RED)]
        finals = ["red" if s in RED else s for s in states]
        flips = sum(a != b for a, b in zip(finals, finals[1:]))
        if "flaky" not in states and flips < 2:
            continue            # red once (a new failure), or red then green (fixed)
        run, case = last_fail[case_id]
        run = run.holding(case_id)      # (a sharded run's: the shard whose report shows it)
        error = case.error or next((a.error for a in case.attempts if a.error), None)
        steps, unknown = step_fails((red_steps or {}).get(case_id, []))
        ranking.append(Flaky(case_id, names.get(case_id, case_id), len(states),
                             sum(s in RED for s in states), flips, run.run_id, run.started, error,
                             flaky=states.count("flaky"), steps=steps[:STEPS_SHOWN],
                             unknown_steps=unknown))
    ranking.sort(key=lambda f: (-f.flips, -(f.fails + f.flaky) / f.runs, f.case_id))
    return ranking[:TOP]


def step_fails(steps: list[FailedStep | None]) -> tuple[list[StepFails], int]:
    """The steps a case's red runs ended at (oldest first), most often first (ties: the
    earlier step), and how many of those runs have no step recorded (an older farm's)."""
    found: dict[tuple[int, str], StepFails] = {}
    kinds: dict[tuple[int, str], Counter[str]] = defaultdict(Counter)
    for step in steps:
        if step is None:
            continue
        entry = found.setdefault(step.key(), StepFails(step, 0))
        entry.step, entry.fails = step, entry.fails + 1
        kinds[step.key()][step.error] += 1
    for key, entry in found.items():
        entry.errors = [kind for kind, _ in kinds[key].most_common() if kind]
    ranked = sorted(found.values(), key=lambda s: (-s.fails, s.step.index, s.step.label))
    return ranked, sum(step is None for step in steps)


def slowest(runs: list[RunRecord], names: dict[str, str]) -> list[Slow]:
    """Cases by median duration (runs that reached a verdict), with the last run against
    the ones before it. A case that finished in an interrupted run counts (it ran to its
    end); the case the interruption cut short does not (its time says nothing). A retried
    case's sample is its last attempt's own time, as the durations history keeps it: the
    sum of its attempts made a night it passed on a retry "+100 %" slower, a slowdown that
    was none."""
    samples: dict[str, list[float]] = defaultdict(list)
    for run in runs:
        for case in run.cases:
            seconds = case.duration if case.attempt_duration is None else case.attempt_duration
            if case.status in ("passed", "failed", "flaky") and seconds > 0:
                samples[case.case_id].append(seconds)
    out = []
    for case_id, seconds in samples.items():
        before = seconds[:-1]
        base = statistics.median(before) if before else None
        change = (seconds[-1] - base) / base if base else None
        out.append(Slow(case_id, names.get(case_id, case_id), statistics.median(seconds),
                        seconds[-1], change, seconds[-30:]))
    out.sort(key=lambda s: (-s.median, s.case_id))
    return out[:TOP]


def spend(runs: list[RunRecord], names: dict[str, str]) -> list[Spend]:
    """Model tokens and cost per case over the window, biggest first."""
    tokens: Counter[str] = Counter()
    cost: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    free: Counter[str] = Counter()
    unknown: dict[str, tuple[bool, bool]] = {}     # case → (tokens, cost) unknown in a run
    for run in runs:
        for case in run.cases:
            if case.status == "skipped":
                continue
            tokens[case.case_id] += case.tokens
            cost[case.case_id] += case.cost
            seen[case.case_id] += 1
            was = unknown.get(case.case_id, (False, False))
            unknown[case.case_id] = (was[0] or case.tokens_unknown, was[1] or case.cost_unknown)
            free[case.case_id] += not (case.tokens or case.cost or case.tokens_unknown)
    # a case that spent in the window, every run of it counted: the nights the cache replayed
    # it for nothing bring its cost per run down, which is what the cache is for
    out = [Spend(k, names.get(k, k), tokens[k], cost[k], seen[k], free[k], *unknown[k])
           for k in seen if tokens[k] or cost[k] or any(unknown[k])]
    out.sort(key=lambda s: (-s.cost, -s.tokens, s.case_id))
    return out[:TOP]


def device_errors(runs: list[RunRecord]) -> list[DeviceErrors]:
    """Infrastructure errors per device, every attempt counted (retries included): the
    errors that are the device's as quarantine counts them (`farm.attempts.next_streak`), not
    a case's timeout, the model's errors or a farm bug. The last is the one that started last
    (a record from before attempts had times: its run's start, then case id order)."""
    found: dict[str, DeviceErrors] = {}
    latest: dict[str, float] = {}
    for run in runs:
        for case in run.cases:
            attempts = [*case.attempts, case]
            for a in attempts:
                if a.status != "error" or not a.device or not _device_fault(a.error):
                    continue
                entry = found.setdefault(a.device, DeviceErrors(a.device, 0, "", None))
                entry.errors += 1
                if (a.at or run.at) < latest.get(a.device, float("-inf")):
                    continue            # cases come in id order, not time order
                latest[a.device] = a.at or run.at
                entry.last_run, entry.last_error = run.holding(case.case_id).run_id, a.error
                entry.about = run.device_info.get(a.device, entry.about)
    return sorted(found.values(), key=lambda d: (-d.errors, d.device))


def _device_fault(error: str | None) -> bool:
    """Whether a recorded error (``"<kind>: <message>"``) was the device's: an infrastructure
    error as `farm.attempts` classes it. One without a recorded error counts (as before
    errors were recorded: nothing says it was not)."""
    if not error:
        return True
    from farm.attempts import Outcome, error_outcome
    return error_outcome(error.split(":", 1)[0].strip()) is Outcome.INFRA


SHARD_WINDOW = 6 * 3600     # shards of a run that recorded no run group (run by hand, an older
# farm's records): started within this many seconds of its first shard. The jobs of one
# nightly start within minutes, or wait an hour or two for a runner; the next night starts a
# day later.


def fold_shards(runs: list[RunRecord]) -> list[RunRecord]:
    """``runs`` (oldest first) with the shards of each sharded run (``farm run --shard I/N``
    in N CI jobs) made one run, in place of its first shard: shards are one run when they
    have one run group (`farm.results.run_group_from_env`), one N and the same other
    selection; shards without a group, when they also started within SHARD_WINDOW of the
    first and none is the same shard again (the next night's shard 1 starts the next run);
    a shard alone is left as it is.
    A shard run again in one group (a retried CI job): its last run counts. The folded run
    (`_folded`): counts, tokens and cost summed, cases joined, started as its first shard,
    lasting until its last shard ended; its shards' own records in ``shards``."""
    buckets: list[dict[object, RunRecord]] = []
    keyed: list[tuple[object, ...] | None] = []
    for run in runs:
        key = _fold_key(run)
        index = (run.shard_of() or (None, 0))[0]
        bucket = None if key is None else next(
            (b for b, k in zip(reversed(buckets), reversed(keyed))
             if k is not None and _joins(b, k, run, key, index)), None)
        if bucket is None:
            buckets.append({})
            keyed.append(key)
            bucket = buckets[-1]
        bucket[index if index is not None else ("?", run.run_id)] = run
    # (a shard alone stays as it was: its row says ``--shard 2/3``, partial)
    return [_folded(list(b.values())) if len(b) > 1 else next(iter(b.values()))
            for b in buckets]


def _fold_key(run: RunRecord) -> tuple[object, ...] | None:
    """What the shards of one run share: their run group, N and the rest of their selection
    (platforms a shard had no device for left out: each shard has other cases); None for a
    run that is no shard."""
    shard = run.shard_of()
    if shard is None:
        return None
    rest = tuple(sorted(s for s in run.selection
                        if not s.startswith("--shard") and not NO_DEVICES.match(s)))
    return run.run_group, shard[1], rest


def _joins(bucket: dict[object, RunRecord], its: tuple[object, ...], run: RunRecord,
           key: tuple[object, ...], index: int | None) -> bool:
    """Whether ``run`` (its `_fold_key` ``key``) is a shard of the bucket's run (``its``):
    one run group; without one, near in time and not a shard it has. A killed shard that
    `farm report` rebuilt from its journal (which keeps no run group) joins its group's
    shards so too."""
    if key == its and run.run_group:
        return True
    alike = key == its or (run.rebuilt and not run.run_group and key[1:] == its[1:])
    return alike and index not in bucket and _near(bucket, run)


def _near(bucket: dict[object, RunRecord], run: RunRecord) -> bool:
    """Whether ``run`` started within SHARD_WINDOW of the bucket's first shard (a bucket of
    run-group shards never takes one without: `_fold_key` differs)."""
    first = min(r.at for r in bucket.values())
    return run.at - first <= SHARD_WINDOW


def _folded(parts: list[RunRecord]) -> RunRecord:
    """One run of a sharded run's shards (`fold_shards`)."""
    parts.sort(key=lambda r: ((r.shard_of() or (None, 0))[0] or 0, r.at))
    first = min(parts, key=lambda r: r.at)
    cases: dict[str, CaseRecord] = {}
    counts: Counter[str] = Counter()
    platforms: set[str] = set()
    for part in sorted(parts, key=lambda r: r.at):
        cases.update((c.case_id, c) for c in part.cases)
        counts.update(part.counts)
        for s in part.selection:
            if missing := NO_DEVICES.match(s):
                platforms.update(missing.group(1).split(", "))
    selection = [s for s in first.selection
                 if not s.startswith("--shard") and not NO_DEVICES.match(s)]
    return RunRecord(
        run_id=first.run_group or first.run_id, started=first.started, at=first.at,
        duration=round(max(r.at + r.duration for r in parts) - first.at, 3),
        counts=dict(counts), tokens=sum(r.tokens for r in parts),
        cost=round(sum(r.cost for r in parts), 6),
        tokens_unknown=any(r.tokens_unknown for r in parts),
        cost_unknown=any(r.cost_unknown for r in parts),
        model_seconds=round(sum(r.model_seconds for r in parts), 3),
        interrupted=any(r.interrupted for r in parts),
        cases=sorted(cases.values(), key=lambda c: c.case_id),
        device_info={k: v for r in parts for k, v in r.device_info.items()},
        selection=selection + ([no_devices(sorted(platforms))] if platforms else []),
        rebuilt=any(r.rebuilt for r in parts), run_group=first.run_group, shards=parts)


def missing_shards(run: RunRecord) -> list[str]:
    """The shards of a sharded run's row not in the history (``["3/3"]``); shards recorded
    without their index (an older farm's ``?``) are counted, not named (``"1 of 3"``)."""
    if not run.shards:
        return []
    total = max((r.shard_of() or (None, 0))[1] for r in run.shards)
    known = {i for r in run.shards if (i := (r.shard_of() or (None, 0))[0]) is not None}
    if len(known) < len(run.shards):
        left = total - len(run.shards)
        return [f"{left} of {total}"] if left > 0 else []
    return [f"{i}/{total}" for i in range(1, total + 1) if i not in known]
