"""What a run produces: CaseResult per case attempt, StepRecord per step, RunSummary per run.

Artifacts (screenshots) live beside results.json under ``artifacts/``; records hold paths
relative to the run directory so the whole directory can be moved or served.
"""

from __future__ import annotations

import functools
import io
import logging
import os
import re
import sys
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Callable, Literal

from pydantic import (BaseModel, Field, SerializationInfo, SerializerFunctionWrapHandler,
                      computed_field, field_validator, model_serializer, model_validator)

from farm import errors
from farm.text import clean
from farm.usage import Usage

UNSTABLE = "unstable"     # since_last of a red case that passed the run before, red before that
Status = Literal["passed", "failed", "error", "skipped", "interrupted", "flaky"]
StepStatus = Literal["passed", "failed", "error", "skipped", "interrupted"]

# Order used for exit codes and report sorting: worst first.
STATUS_ORDER = ["interrupted", "failed", "error", "flaky", "skipped", "passed"]


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def timestamp(iso: str | None) -> float | None:
    """The POSIX time of an ISO 8601 text from a result (`now_iso`), None when it is not one
    (missing, or written by hand)."""
    try:
        return datetime.fromisoformat(iso).timestamp()     # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


class CacheUse(BaseModel):
    """What the cache did during one step (farm.cache): the plan entry's lookup, locate
    entries used / missed / found stale (re-located), entries written."""

    mode: str = "read-write"        # read-write | read-only | write-only | off
    plan: str | None = None         # hit | miss | replanned | replay-failed | replay-error
    hits: int = 0
    misses: int = 0
    stale: int = 0
    written: int = 0
    # a plan replayed whole: what solving it had cost the model (calls, tokens, cost_usd: None
    # when the price was unknown), the spend the replay saved
    saved: dict[str, Any] | None = None
    # the store refused a write in this attempt (a read-only cache.db, a Redis replica): why;
    # the step then wrote nothing, whatever ``mode`` says it ran in (left out when None)
    writes_refused: str | None = None
    # a plan replayed whole whose ``saved`` is None: why it is not known (its entry was stored
    # by an older farm, which did not keep what solving it cost); left out when None
    saved_unknown: str | None = None

    @model_serializer(mode="wrap")
    def _without_unset(self, handler: Any) -> dict[str, Any]:
        data = handler(self)
        for key in ("writes_refused", "saved_unknown"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @property
    def touched(self) -> bool:
        return bool(self.plan or self.hits or self.misses or self.stale or self.written)

    def summary(self) -> str:
        """One line for people: ``plan hit, 7 locate hit``."""
        parts = [f"plan {self.plan}"] if self.plan else []
        parts += [f"{n} locate {what}" for n, what in ((self.hits, "hit"), (self.misses, "miss"),
                                                        (self.stale, "stale")) if n]
        parts += [f"{self.written} written"] if self.written else []
        parts += [f"writes refused: {self.writes_refused}"] if self.writes_refused else []
        return ", ".join(parts) or self.mode
class Mark(BaseModel):
    """Where a step acted, in device coordinates (the screenshot's own pixels)."""

    kind: str                       # tap | double_tap | long_press | hover | swipe | scroll | type
    points: list[list[int]]         # one point, or a path (swipe / drag / scroll: from, to)
    note: str | None = None         # ai steps: the model's thought and log line


class StepRecord(BaseModel):
    task: str
    index: int                      # position within the case, from 1
    kind: str
    label: str                      # placeholders, never secret values
    line: int = 0
    status: StepStatus = "passed"
    started: str = ""
    duration: float = 0.0           # seconds
    tier: str | None = None         # which locate tier hit (xpath, text, ...)
    observation: str | None = None  # what the device showed: tree | empty-tree | black-frame
    rect: list[int] | None = None   # located element [x, y, w, h]
    before: str | None = None       # artifact path relative to the run dir
    after: str | None = None
    error: str | None = None
    output: Any = None              # e.g. javascript return value (masked)
    usage: Usage | None = None      # model calls of this step: tokens, cost, latency
    cache: CacheUse | None = None   # what the locate / plan cache did (None: not used)
    rounds: int | None = None       # plan-act rounds of an ai step (agent iterations)
    marks: list[Mark] = Field(default_factory=list)   # where it acted, in action order
    screen: list[int] | None = None  # [w, h] of the coordinate space of rect and marks
    marked: str | None = None       # SVG: the before screenshot with rect and marks over it
    # what the step says though it passed ("its xpath X matched nothing; found ... by the text
    # tier instead"); left out of results.json when empty, so a run with nothing to note
    # writes what it wrote before
    notes: list[str] = Field(default_factory=list)
    # why the step has no ``after`` image (farm.evidence: "--screenshots off", "not taken:
    # …", "not written: …", "not run"); left out of results.json when it has one
    no_image: str | None = None

    @model_serializer(mode="wrap")
    def _without_empty_notes(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        if not self.notes:
            data.pop("notes", None)
        if self.no_image is None:
            data.pop("no_image", None)
        return data


class CaseError(BaseModel):
    kind: str                       # exception class name, e.g. AssertionFailed, DeviceLost
    message: str
    step: int | None = None


class CaseResult(BaseModel):
    """One attempt of a case; the final one carries the earlier ones in ``previous``.

    In memory ``usage`` and ``tokens`` are this attempt's own spend (`case_usage` sums the
    attempts). Written out (results.json, the journal) a retried case's ``usage`` and
    ``tokens`` are every attempt's, as its ``duration`` is and as the console, JUnit and the
    report count it, its own attempt's in ``attempt_usage`` / ``attempt_tokens`` (null when
    not retried, as ``attempt_duration``): summing ``cases[].usage`` gives the run's spend.
    Read back, a record with ``attempt_usage`` is this attempt's again; one an older farm
    wrote (without it) had this attempt's in ``usage`` already."""

    run_id: str
    case_id: str
    name: str
    file: str
    line: int = 0                   # the failing step's (else set-up's) line; else the first step's
    platform: str
    device: str | None = None
    device_info: str | None = None  # what the device is: "Chromium 156.0…", "Pixel 7, Android 14"
    attempt: int = 1
    status: Status
    reason: str | None = None       # skip reason / short summary
    error: CaseError | None = None
    started: str = ""
    duration: float = 0.0           # seconds; a retried case's: every attempt's (`summed`)
    attempt_duration: float | None = None   # a retried case's own attempt (None: not retried)
    steps: list[StepRecord] = Field(default_factory=list)
    screenshot: str | None = None   # last screenshot (failure / timeout evidence)
    previous: list["CaseResult"] = Field(default_factory=list)   # earlier attempts
    tags: list[str] = Field(default_factory=list)
    tokens: dict[str, int] = Field(default_factory=dict)
    usage: Usage | None = None      # model totals: cost_usd, calls, ... (None: no model call)
    data: dict[str, Any] = Field(default_factory=dict)    # results by step `name:`, else "0", "1"…
    since_last: str | None = None   # vs earlier runs: new failure|still failing|unstable|
    # fixed|flaky before (the results history's word; `since_last_words` is how every output
    # says it; an older results.json's "flaky" of a red case is read as "unstable")
    description: str | None = None  # Midscene agent.groupDescription
    report_file: str | None = None  # Midscene agent.reportFileName: its own page in the run dir
    parts: list["CaseResult"] = Field(default_factory=list)   # a shared-context unit's files

    @field_validator("since_last", mode="before")
    @classmethod
    def _unstable_was_flaky(cls, value: Any) -> Any:
        return UNSTABLE if value == "flaky" else value

    @model_serializer(mode="wrap")
    def _every_attempts_spend(self, handler: SerializerFunctionWrapHandler,
                              info: SerializationInfo) -> dict[str, Any]:
        data = handler(self)
        # (pydantic applies this twice to a record nested in another: the second time it
        # gets what the first returned)
        if not isinstance(data, dict) or "usage" not in data or "attempt_usage" in data:
            return data
        data = dict(data)
        own_usage, own_tokens = data["usage"], _unknown_null(data.get("tokens"), self.usage)
        if own_tokens is not None:
            data["tokens"] = own_tokens
        data["attempt_usage"] = data["attempt_tokens"] = None
        if self.previous:
            paid = any(a.usage is not None for a in (*self.previous, self))
            data["usage"] = case_usage(self).model_dump(mode=info.mode) if paid else None
            data["attempt_usage"] = own_usage
            if own_tokens is not None:
                data["tokens"] = _unknown_null(_tokens_of(self), case_usage(self))
                data["attempt_tokens"] = own_tokens
        return data

    @model_validator(mode="before")
    @classmethod
    def _own_spend(cls, data: Any) -> Any:
        """A record written out (`_every_attempts_spend`): its own attempt's spend back in
        ``usage`` / ``tokens``."""
        if isinstance(data, dict):       # (a count written null is unknown: none counted)
            data = {**data, **{key: {k: n or 0 for k, n in data[key].items()}
                               for key in ("tokens", "attempt_tokens")
                               if isinstance(data.get(key), dict)}}
        if isinstance(data, dict) and data.get("previous") and "attempt_usage" in data:
            data = dict(data)
            data["usage"] = data.pop("attempt_usage")
            if "attempt_tokens" in data:
                own = data.pop("attempt_tokens")
                data["tokens"] = own if own is not None else data.get("tokens", {})
        elif isinstance(data, dict):
            data = {k: v for k, v in data.items() if k not in ("attempt_usage",
                                                                 "attempt_tokens")}
        return data


def _unknown_null(tokens: Any, usage: Usage | None) -> Any:
    """``tokens`` as written: each count null when the calls' token count is unknown and none
    was counted (`Usage.unknown_count`: a call cut short), never a count of 0."""
    if tokens and usage is not None and usage.unknown_count:
        return dict.fromkeys(tokens)
    return tokens


def _tokens_of(case: "CaseResult") -> dict[str, int]:
    """Every attempt's ``tokens``, summed by kind."""
    total: dict[str, int] = {}
    for attempt in (*case.previous, case):
        for kind, n in attempt.tokens.items():
            total[kind] = total.get(kind, 0) + n
    return total


class DeselectedCase(BaseModel):
    """A case the run's selection left out (-k, tags, --last-failed, --shard, no device of
    its platform): listed, never counted as run."""

    case_id: str
    name: str
    file: str
    platform: str
    reason: str
    tags: list[str] = Field(default_factory=list)


# how a device lost in the run that served it again ends its why in ``RunSummary.lost``
# (a cluster worker restarted by its supervisor: `farm.executors.celery`)
CAME_BACK = "it came back later in the run"


class ShardSource(BaseModel):
    """One shard run a merged run was made of (`farm report --merge`): its shard ("2/4"),
    run id and the results.json it was read from, as given."""

    shard: str
    run_id: str
    path: str


class RunSummary(BaseModel):
    run_id: str
    started: str
    finished: str = ""
    duration: float = 0.0
    devices: list[str] = Field(default_factory=list)
    device_info: dict[str, str] = Field(default_factory=dict)   # device → what it is
    counts: dict[str, int] = Field(default_factory=dict)
    exit_code: int = 0
    interrupted: bool = False
    cases: list[CaseResult] = Field(default_factory=list)
    farm_version: str = ""
    quarantined: list[str] = Field(default_factory=list)   # devices taken out during the run
    lost: dict[str, str] = Field(default_factory=dict)    # devices that died in it: name → why
    deselected: list[DeselectedCase] = Field(default_factory=list)   # not part of this run
    stopped: str | None = None      # why cases were left out: the run's model budget spent
    # what the run's cache store went through ({"renewed": "the cache store … was corrupt …:
    # set it aside as … and started a fresh one"}: a night's cost jump explained); left out
    # of results.json when nothing happened
    cache: dict[str, str] | None = None
    # --shard I/N: which part of a sharded run this is ("1/4"), so a job's results.json,
    # JUnit and report say so (and --shard-timings knows one shard's run); left out of
    # results.json for a whole run
    shard: str | None = None
    # --fail-on-skip was set: a case skipped for itself fails the run, a failed run's too (its
    # junit, console and report say so: fixing the failure would not turn it green); left out
    # of results.json when not set
    fail_on_skip: bool = False
    # `farm report --merge`: the shard runs this run was merged from, and the shards of that
    # sharded run not given ("3/4": their cases are not in it); left out of results.json for
    # any other run
    shards: list[ShardSource] = Field(default_factory=list)
    missing_shards: list[str] = Field(default_factory=list)
    # the working directory `farm run` ran in: the cases' relative `file` paths are relative
    # to it (the report's links to a case's YAML, from wherever `farm report` rebuilds it);
    # None in an older farm's results.json (then the working directory of `farm report`)
    cwd: str | None = None
    # which run of the CI this run is part of (`run_group_from_env`: FARM_RUN_GROUP, else the
    # CI's own run id): the shards of one sharded nightly share it, and the history page
    # counts them as one run; left out of results.json when there is none
    run_group: str | None = None

    @model_serializer(mode="wrap")
    def _cache_when_said(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        for key in ("cache", "shard", "fail_on_skip", "shards", "missing_shards", "cwd",
                    "run_group"):
            if isinstance(data, dict) and data.get(key) in (None, False, []):
                data.pop(key, None)
        return data

    @computed_field        # type: ignore[prop-decorator]
    @property
    def usage(self) -> Usage:
        """The run's model spend, every attempt of every case (the console's ``model:``); its
        counts 0 when no case called a model (a replayed night: a dashboard summing
        ``usage.prompt_tokens`` read null). Written to results.json; computed again when
        read."""
        return run_usage(self)

    def recount(self) -> None:
        counts = {s: 0 for s in STATUS_ORDER}
        for c in self.cases:
            counts[c.status] += 1
        counts["total"] = len(self.cases)
        self.counts = counts


# the CI's own id of one pipeline run, the same in each of its parallel jobs (GitHub's
# with its attempt: a re-run of the workflow is another run)
CI_RUN_IDS = (("GITHUB_RUN_ID", "GITHUB_RUN_ATTEMPT"), ("CI_PIPELINE_ID",),
              ("BUILDKITE_BUILD_ID",), ("CIRCLE_WORKFLOW_ID",), ("BUILD_TAG",))


def run_group_from_env(environ: Any = None) -> str | None:
    """The run group a run is recorded with (results.json's ``run_group``): FARM_RUN_GROUP
    when set, else the CI's run id (GITHUB_RUN_ID-GITHUB_RUN_ATTEMPT, GitLab's
    CI_PIPELINE_ID, BUILDKITE_BUILD_ID, CIRCLE_WORKFLOW_ID, Jenkins' BUILD_TAG); None
    outside CI (the history page then joins shards by their start times)."""
    env = os.environ if environ is None else environ
    if (own := (env.get("FARM_RUN_GROUP") or "").strip()):
        return own
    for names in CI_RUN_IDS:
        if (head := (env.get(names[0]) or "").strip()):
            return "-".join([head, *((env.get(n) or "1").strip() for n in names[1:])])
    return None


def devices_of(results: list[CaseResult]) -> tuple[list[str], dict[str, str]]:
    """The devices any attempt ran on (an earlier attempt's too: a device quarantined after
    its attempts were retried elsewhere ran them), and what each is (its browser, or its
    model and OS, as it said when it opened)."""
    devices: set[str] = set()
    info: dict[str, str] = {}

    def walk(result: CaseResult) -> None:
        for earlier in (*result.previous, *result.parts):
            walk(earlier)
        if result.device:
            devices.add(result.device)
            if result.device_info:
                info[result.device] = result.device_info

    for r in results:
        walk(r)
    return sorted(devices), dict(sorted(info.items()))


def storable(result: CaseResult) -> CaseResult:
    """``result`` as it can be written (JSON, XML, HTML). Text from pages and models is cleaned
    where it enters farm; this is the last guard, so one odd string never costs a result."""
    try:
        result.model_dump_json()
        return result
    except Exception:
        pass
    try:
        return CaseResult.model_validate(clean(result.model_dump()))
    except Exception as exc:
        return CaseResult(run_id=result.run_id, case_id=result.case_id, name=clean(result.name),
                          file=result.file, platform=result.platform, device=result.device,
                          attempt=result.attempt, status="error", started=result.started,
                          error=CaseError(kind="InternalError", message=clean(
                              f"internal error: the result could not be stored: {exc}")))


def final_result(attempts: list[CaseResult]) -> CaseResult:
    """The case's verdict from its attempts: the last one, carrying the earlier ones; a pass
    after a failed attempt is *flaky*. A skip after a failed attempt (the retry reached a step
    that needs a model), or a device error (its device died, the infrastructure retries used
    up), is no verdict: the case failed, as that attempt says (the others, the later one
    among them, carried), never a skip or the device's error that hides the failure."""
    last = attempts[-1].model_copy()
    last.previous = attempts[:-1]
    failed = [a for a in last.previous if a.status == "failed"]
    if last.status == "passed" and failed:
        last.status = "flaky"
        last.reason = f"passed on attempt {last.attempt} after failing"
        # its file:line is where it failed (what to look into), as junit, farm.log and the
        # report's header say (`farm.run_log.verdict_line`), not its passing attempt's start
        last.line = failed[-1].line or last.line
    elif failed and (last.status == "skipped" or _lost_to_device(last)):
        verdict = failed[-1].model_copy()
        verdict.previous = [a for a in attempts if a is not failed[-1]]
        verdict.reason = f"failed on attempt {verdict.attempt}; attempt {last.attempt} " + (
            f"was skipped: {last.reason or 'skipped'}" if last.status == "skipped" else
            f"was lost to a device error: {_short_error(last.error)}")
        return summed(verdict)
    return summed(last)


def own_duration(attempt: CaseResult) -> float:
    """How long this attempt itself took (a retried case's ``duration`` is every attempt's)."""
    return attempt.duration if attempt.attempt_duration is None else attempt.attempt_duration


def summed(case: CaseResult) -> CaseResult:
    """``case`` (its verdict's attempt, carrying the others in ``previous``) with its
    ``duration`` the time of every attempt, as a user adding up device time or reading a
    slow flaky case needs it; its own attempt's time kept in ``attempt_duration``."""
    if case.previous:
        own = own_duration(case)
        case.attempt_duration = own
        case.duration = round(own + sum(own_duration(p) for p in case.previous), 3)
    return case


def _lost_to_device(attempt: CaseResult) -> bool:
    """Whether an attempt ended as its device's infrastructure error (the one
    `farm.attempts.error_outcome` retries on another device; it imports this module), not the
    case's nor the model's: a model down would answer the failed attempt's retry the same."""
    if attempt.status != "error" or attempt.error is None:
        return False
    todo: list[type[errors.FarmError]] = [errors.InfraError]
    while todo:
        cls = todo.pop()
        if cls.__name__ == attempt.error.kind:
            return not issubclass(cls, (errors.ModelUnavailable, errors.ModelRefused))
        todo.extend(cls.__subclasses__())
    return False


def _short_error(error: CaseError | None) -> str:
    """An error in a reason's few words: its kind and first line, at most 200 characters."""
    if error is None:
        return "error"
    line = (error.message.splitlines() or [""])[0]
    line = line if len(line) <= 200 else line[:199] + "…"
    return f"{error.kind}: {line}" if line else error.kind


def failing_step(case: CaseResult) -> StepRecord | None:
    """The step a case failed on: the one its error names, else the first bad step."""
    if case.error is not None and case.error.step is not None:
        for step in case.steps:
            if step.index == case.error.step:
                return step
    return next((s for s in case.steps if s.status in ("failed", "error")), None)


def case_usage(case: "CaseResult") -> Usage:
    """The model spend of a case: every attempt's (an earlier attempt was paid for too, as the
    run's report, history and metrics count it)."""
    total = Usage()
    for attempt in (*case.previous, case):
        if attempt.usage is not None:
            total.add(attempt.usage)
    return total


def run_usage(summary: "RunSummary") -> Usage:
    """The model spend of a whole run: every attempt's of every case."""
    total = Usage()
    for case in summary.cases:
        total.add(case_usage(case))
    return total


def cache_savings(summary: "RunSummary") -> str:
    """What the cache saved the run, for its last line: ``1 plan(s) replayed (saved 8 model
    call(s), 13,345 tokens, $0.0361); 3 locate(s) from the cache (saved 3 model call(s), 2,464
    tokens)``: plans replayed whole (the step passed on the replay: one whose replay raised,
    a locate's model down say, stays a "hit" but saved nothing), and targets a model had found,
    taken from the cache; "" when neither. Tokens and cost only when every one's was known."""
    plans, locates = _Saved(), _Saved()
    for case in summary.cases:
        for attempt in (*case.previous, case):
            for step in attempt.steps:
                saved = (step.cache.saved or {}) if step.cache is not None else {}
                if step.cache is not None and step.cache.plan == "hit" \
                        and step.status == "passed":
                    plans.add(saved)      # (an entry from before farm kept it: {}, said)
                    plans.unknown += step.cache.saved is None and bool(
                        step.cache.saved_unknown)
                elif saved.get("locates"):
                    locates.add(saved, int(saved["locates"]))
    said = [plans.said("plan(s) replayed"), locates.said("locate(s) from the cache")]
    return "; ".join(filter(None, said))


@dataclass
class _Saved:
    """Model spend the cache saved, summed (`cache_savings`); None: one figure was unknown."""
    count: int = 0
    calls: int = 0
    tokens: int | None = 0
    cost: float | None = 0.0
    unknown: int = 0    # plans whose entry an older farm stored: what they saved not known

    def add(self, saved: dict[str, Any], count: int = 1) -> None:
        self.count += count
        self.calls += int(saved.get("calls") or 0)
        tokens = saved.get("tokens", 0)     # (a locate found before farm counted it: None)
        self.tokens = None if self.tokens is None or tokens is None else (
            self.tokens + int(tokens or 0))
        cost = saved.get("cost_usd")
        self.cost = self.cost + cost if self.cost is not None and isinstance(
            cost, (int, float)) else None

    def said(self, what: str) -> str:
        if not self.count:
            return ""
        spend = [f"{self.calls} model call(s)"] if self.calls else []
        if self.calls and self.tokens is not None:
            spend.append(f"{self.tokens:,} tokens")
        if self.calls and self.cost:
            spend.append(f"${self.cost:.4f}")
        if self.unknown:    # (a replay of an older farm's entry saved what it cost then)
            known = f" {', '.join(spend)}; {self.unknown} of them" if spend else ":"
            return f"{self.count} {what} (saved{known} not known, solved by an older farm)"
        return f"{self.count} {what}" + (f" (saved {', '.join(spend)})" if spend else "")


# the reasons of the cases a stopped run never started: the executors' after Ctrl-C /
# SIGTERM, and `farm.journal.NOT_STARTED` for a killed run rebuilt from its journal
NOT_RUN_INTERRUPTED = ("not run: the run was interrupted",
                       "not run: farm stopped before it started")


def read_results(source: Path) -> tuple[RunSummary | None, dict | None, str | None]:
    """A run's results.json: (the run, its JSON as read, None), or (None, None, what is wrong
    with the file: "not valid JSON at line 2 column 1 (Expecting value)", "cannot read it
    (Permission denied)", "not farm's results (cases.0.status: …)"), one reader for
    `farm report RUN` and `farm report --merge`."""
    import json

    from pydantic import ValidationError
    try:
        data = json.loads(source.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        return None, None, f"not valid JSON at line {exc.lineno} column {exc.colno} ({exc.msg})"
    except UnicodeDecodeError as exc:
        return None, None, f"not valid JSON (not UTF-8 text at byte {exc.start})"
    except OSError as exc:
        return None, None, f"cannot read it ({exc.strerror or exc})"
    try:
        return RunSummary.model_validate(data), data, None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(map(str, first["loc"])) or "top level"
        more = exc.error_count() - 1
        return None, None, (f"not farm's results ({where}: {first['msg']}"
                            + (f"; {more} more problem(s))" if more else ")"))


def not_run_by_interrupt(summary: RunSummary) -> int:
    """How many cases an interrupted run never started: listed as skipped, they must not read
    as skips of their own on the console or in the report (those --maxfail or the model
    budget left out are said apart, `farm.budget.stopped_line`)."""
    if not summary.interrupted:
        return 0
    return sum(1 for c in summary.cases
               if c.status == "skipped" and c.reason in NOT_RUN_INTERRUPTED)


# A case's verdict against earlier runs (results.json's ``since_last``) as every output says
# it: "unstable" is a red case whose verdict goes back and forth from run to run, not one that
# passed on a retry (status flaky, as the README defines it), which an older farm called
# "flaky" in results.json
_SINCE_WORDS = {UNSTABLE: "unstable across runs", "flaky": "unstable across runs"}


def since_last_words(since_last: str | None) -> str | None:
    """The words the terminal's ``[…]``, the report and junit.xml give a case's verdict
    against earlier runs (``new failure``, ``still failing``, ``unstable across runs``,
    ``fixed``, ``flaky before``); None: it has none."""
    return _SINCE_WORDS.get(since_last, since_last) if since_last else None


REFUSED = "not run"     # the reason of each case an executor refused up front left unrun


def refused_before_start(summary: RunSummary) -> str | None:
    """The error that stopped ``summary``'s run before any case started (a device that does
    not answer, no adb phone, a device another run holds, no broker): each case it would have
    run is an error "not run" with it (counted as errors); None when a case did run."""
    ran = [c for c in summary.cases if c.status != "skipped"]     # (skips: before the start)
    if not ran or any(c.status != "error" or c.reason != REFUSED or c.error is None
                      for c in ran):
        return None
    return ran[0].error.message if ran[0].error else None


def never_ran(result: CaseResult) -> bool:
    """A case that ended an error without any attempt, no device of its platform left to run
    it ("no usable ios device left …"): the progress says one line for all of them
    (`farm.progress.PlainProgress`), the report counts them apart from the cases that ran."""
    return (result.status == "error" and result.error is not None and not result.steps
            and not result.device and not result.previous
            and result.error.message.startswith("no usable "))


def exit_code_for(cases: list[CaseResult], interrupted: bool = False) -> int:
    """pytest-style: 0 ok, 1 failed, 2 interrupted, 3 infra error, 5 nothing collected."""
    if interrupted or any(c.status == "interrupted" for c in cases):
        return 2
    if not cases:
        return 5
    if any(c.status == "failed" for c in cases):
        return 1
    if any(c.status == "error" for c in cases):
        return 3
    return 0


_SLUG = re.compile(r"[^A-Za-z0-9._-]+")


def slug(text: str) -> str:
    return _SLUG.sub("-", text).strip("-")[:80] or "case"


@functools.lru_cache(maxsize=1024)
def case_folder(case_id: str) -> str:
    """A case's artifact folder: readable, and unique per case id (``a b`` and ``a-b``, names
    differing only in non-ASCII letters or past 60 characters never share screenshots), and
    the same in every run."""
    import hashlib
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{slug(case_id)[:60].rstrip('-.') or 'case'}-{digest}"


RECENT_IMAGES = 16     # stored images kept at hand for the files derived from them


# An object's repr in an exception's text ("cannot identify image file <_io.BytesIO object at
# 0x7f…>": Pillow's, of bytes that are no image): an address tells a user nothing
_OBJECT_REPR = re.compile(r"\s*<[\w.]+ object at 0x[0-9a-fA-F]+>")


def _unreadable(exc: BaseException) -> str:
    """Why an image was not written, as a user reads it: no object reprs; bytes Pillow cannot
    read said as such."""
    said = _OBJECT_REPR.sub("", str(exc)).strip() or type(exc).__name__
    if said == "cannot identify image file":
        return "the device's screenshot is not an image Pillow can read (not a PNG or JPEG)"
    return said


class ArtifactStore:
    """Writes screenshots as small JPEG files under ``<run_dir>/artifacts/``, and files made
    from them (the marked copy of a step's before screenshot: an SVG that shows it by name).

    Thread-safe: several device threads write at once.
    """

    def __init__(self, run_dir: Path, max_side: int = 1280, quality: int = 70) -> None:
        self.run_dir = Path(run_dir)
        self.dir = self.run_dir / "artifacts"
        self.max_side = max_side      # longest side: a phone's 1080x2400 becomes 576x1280
        self.quality = quality
        self._lock = threading.Lock()
        self._pool: Any = None
        self._pending: list[Any] = []
        self._stored: set[str] = set()            # paths handed to the pool so far
        self._made: set[Path] = set()             # folders made so far
        self._unwritten = 0                       # images that did not reach the disk
        self._why = ""                            # (the first one's reason)
        self._untaken = 0                         # report images a device could not take
        self._untaken_why = ""                    # (the first one's device and reason)
        self._device_said: dict[tuple[str, str], str] = {}   # (device, what) → the warning
        # images not written, by path relative to the run dir → why (what the run's end says
        # of the first one): each step without its image says why (`farm.evidence`)
        self.unwritten: dict[str, str] = {}
        # the last images stored, by path: a file derived from one is made without reading
        # it back from disk
        self._recent: OrderedDict[str, bytes] = OrderedDict()
        # source path not stored yet → the files to derive from it: (their path, render)
        self._deferred: dict[str, list[tuple[Path, Callable[..., bytes]]]] = {}

    def path_for(self, case_id: str, attempt: int, name: str) -> str:
        """Where a screenshot named ``name`` of this case attempt goes, relative to the run
        dir (nothing is written yet)."""
        # (strings, not Path joins: this runs for every image of every step)
        return f"artifacts/{case_folder(case_id)}/attempt-{attempt}/{slug(name)}.jpg"

    def save_screenshot(self, case_id: str, attempt: int, name: str, png: bytes) -> str:
        """Queue a PNG (or JPEG) screenshot for storing as JPEG; return its path relative to
        the run dir at once."""
        path = self.path_for(case_id, attempt, name)
        self.store(path, png)
        return path

    def store(self, path: str, image: bytes) -> None:
        """Queue ``image`` (PNG or JPEG) for writing at ``path`` (from `path_for`). Encoding
        runs on a background thread, off the case's clock; ``flush()`` waits for it."""
        self._submit(self._write, self.run_dir / path, image)
        with self._lock:
            self._stored.add(path)
            waiting = self._deferred.pop(path, [])
            if self._as_is(image):     # as it will be on disk: what a derived file is made of
                self._recent[path] = image
                while len(self._recent) > RECENT_IMAGES:
                    self._recent.popitem(last=False)
        for out, render in waiting:    # marked copies asked for before their source arrived
            self._submit(self._derive, self.run_dir / path, out, render, self._image(path))

    def stands_for(self, path: str, other: str | None) -> None:
        """``path`` (from `path_for`) will never be written: ``other``, an image stored
        already, shows the same screen (a capture that found it unchanged), or None: nothing
        does (the capture failed). Files derived from ``path`` are made from ``other``, under
        the names they were given; without ``other``, never."""
        with self._lock:
            waiting = self._deferred.pop(path, [])
            ready = other is not None and other in self._stored
            if other is not None and not ready and waiting:
                self._deferred.setdefault(other, []).extend(waiting)
        for out, render in waiting if ready else ():
            self._submit(self._derive, self.run_dir / other, out, render, self._image(other))

    def _submit(self, fn: Callable[..., None], *args: Any) -> None:
        from concurrent.futures import ThreadPoolExecutor

        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="artifacts")
            self._pending = [f for f in self._pending if not f.done()]
            self._pending.append(self._pool.submit(fn, list(self._pending), *args))

    def derive(self, source: str, name: str, render: Callable[..., bytes],
               ext: str = "svg", refers: bool = False) -> str:
        """Queue a file made from the stored screenshot ``source`` (a path this store
        returned) by ``render(its bytes) -> the new file's bytes`` (e.g. an SVG with marks over
        it), named ``name``.``ext`` beside it; return its path. Runs on the background pool
        once ``source`` is written, off the case's clock; never when ``source`` never comes.
        ``refers``: the new file links to the image rather than holding a copy of it, and
        ``render(bytes, href=...)`` is told its path relative to the new file (the image it
        was made from: ``source``, or the one `stands_for` it)."""
        if not refers:
            render = functools.partial(_without_href, render)
        src = self.run_dir / source
        rel = f"{source.rpartition('/')[0]}/{slug(name)}.{ext}".lstrip("/")
        path = self.run_dir / rel
        with self._lock:      # the source may still be a capture in flight (farm.evidence)
            ready = source in self._stored
            if not ready:
                self._deferred.setdefault(source, []).append((path, render))
        if ready:
            self._submit(self._derive, src, path, render, self._image(source))
        return rel

    def _image(self, path: str) -> bytes | None:
        """The stored image at ``path`` if it is still at hand (None: read it from disk)."""
        with self._lock:
            return self._recent.get(path)

    def _derive(self, earlier: list[Any], src: Path, path: Path,
                render: Callable[..., bytes], image: bytes | None = None) -> None:
        from concurrent.futures import wait

        wait(earlier)   # submitted before us, so running or done already: no deadlock
        try:
            href = (src.name if src.parent == path.parent else
                    Path(os.path.relpath(src, path.parent)).as_posix())
            path.write_bytes(render(image if image is not None else src.read_bytes(),
                                    href=href))
        except Exception as exc:   # a marked copy is a nicety; never cost the run
            logging.getLogger("farm").warning("cannot mark %s: %s", src.name, exc)

    def flush(self) -> None:
        """Wait until every queued screenshot is on disk, or known not to be: images that
        could not be written (a full disk) are said once on stderr, never raised, so the run
        still tells its outcome (the report shows those images missing)."""
        with self._lock:
            pending, self._pending = self._pending, []
        for future in pending:
            try:
                future.result()
            except Exception as exc:    # (an image Pillow cannot read: a bug, not the run's)
                self.not_written(None, exc)
        with self._lock:
            count, why, self._unwritten, self._why = self._unwritten, self._why, 0, ""
        if count:
            print(f"farm: warning: {count} screenshot(s) not written under {self.dir} "
                  f"({why}): the report shows them missing", file=sys.stderr, flush=True)
        with self._lock:
            count, why, self._untaken, self._untaken_why = (self._untaken,
                                                            self._untaken_why, 0, "")
        if count:
            print(f"farm: warning: {count} report image(s) could not be taken: {why}",
                  file=sys.stderr, flush=True)
        with self._lock:
            said, self._device_said = list(self._device_said.values()), {}
        for warning in said:
            print(f"farm: warning: {warning}", file=sys.stderr, flush=True)

    def device_warning(self, device: str, what: str, warning: str) -> None:
        """Note what a device did wrong that failed no case (a plugin's close() that hung or
        raised, a size() of a wrong type): said at the run's end (`flush`), once per device
        and ``what``, the first ``warning``; before, only farm.log had it."""
        with self._lock:
            self._device_said.setdefault((device, what), warning)

    def not_taken(self, device: str, exc: BaseException,
                  mask: Callable[[str], str] | None = None) -> str:
        """Note a report image the device ``device`` could not take (its screenshot raised):
        the case's verdict stands, but the run's end says once how many and the first reason
        (a device whose every screenshot fails left a green run with a report without images,
        and a WARNING in farm.log only). Returns that reason, its secrets hidden by ``mask``
        (the step without the image says it: `farm.evidence`)."""
        said = _unreadable(exc).splitlines()[0]
        said = mask(said) if mask is not None else said
        shown = said
        if device and not said.startswith(f"{device}:"):
            said = f"{device}: {said}"
        with self._lock:
            self._untaken += 1
            self._untaken_why = self._untaken_why or said
        return shown

    def not_written(self, path: Path | None, exc: Exception) -> None:
        """Note an image (or a worker's artifact, from the cluster executor) that did not
        reach the disk: counted for `flush`, its torn file removed (a half JPEG in the report
        reads as a broken page, not as a missing image)."""
        logging.getLogger("farm").warning("cannot write %s: %s", path or "an image",
                                          _unreadable(exc))
        why = getattr(exc, "strerror", None) or _unreadable(exc)
        with self._lock:
            self._unwritten += 1
            self._why = self._why or why
            if path is not None and path.is_relative_to(self.run_dir):
                self.unwritten[path.relative_to(self.run_dir).as_posix()] = why
        if path is not None:
            try:
                path.unlink(missing_ok=True)
            except OSError:
                pass

    def _as_is(self, image: bytes) -> bool:
        """Whether ``image`` is written as it is: a JPEG small enough already."""
        return image[:3] == b"\xff\xd8\xff" and _jpeg_fits(image, self.max_side)

    def _write(self, _earlier: list[Any], path: Path, image: bytes) -> None:
        try:
            self._encode(path, image)
        except OSError as exc:          # a full disk, a run dir gone: the run goes on
            self.not_written(path, exc)

    def _encode(self, path: Path, image: bytes) -> None:
        if path.parent not in self._made:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._made.add(path.parent)
        if self._as_is(image):
            path.write_bytes(image)      # already a small JPEG (Chromium encoded it)
            return
        from PIL import Image  # lazy: Pillow is only needed once a case runs

        img = Image.open(io.BytesIO(image))
        if img.mode not in ("RGB", "L"):
            img = img.convert("RGB")
        scale = self.max_side / max(img.width, img.height)
        if scale < 1:
            img.draft("RGB", (round(img.width * scale), round(img.height * scale)))
            scale = self.max_side / max(img.width, img.height)
        if scale < 1:
            img = img.resize((round(img.width * scale), round(img.height * scale)))
        img.save(path, "JPEG", quality=self.quality)


def _without_href(render: Callable[[bytes], bytes], image: bytes, href: str) -> bytes:
    return render(image)


def _jpeg_fits(jpeg: bytes, max_side: int) -> bool:
    """The JPEG's longest side is at most ``max_side`` (read from its SOF header)."""
    size = _jpeg_size(jpeg)
    return size is not None and max(size) <= max_side


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def _jpeg_size(jpeg: bytes) -> tuple[int, int] | None:
    """A JPEG's (width, height) from its SOF header, without decoding it."""
    i = 2
    while i + 9 < len(jpeg) and jpeg[i] == 0xFF:
        marker, length = jpeg[i + 1], int.from_bytes(jpeg[i + 2:i + 4], "big")
        if marker in _SOF:
            return (int.from_bytes(jpeg[i + 7:i + 9], "big"),
                    int.from_bytes(jpeg[i + 5:i + 7], "big"))
        i += 2 + length
    return None


def image_size(image: bytes) -> tuple[str, tuple[int, int] | None]:
    """An image's media type and (width, height) read from its header, never decoded: a
    JPEG's SOF or a PNG's IHDR; None for a size it does not tell."""
    if image[:3] == b"\xff\xd8\xff":
        return "image/jpeg", _jpeg_size(image)
    if image[:8] == b"\x89PNG\r\n\x1a\n" and image[12:16] == b"IHDR":
        return "image/png", (int.from_bytes(image[16:20], "big"),
                             int.from_bytes(image[20:24], "big"))
    return "image/jpeg", None


def write_json(path: Path, summary: RunSummary) -> None:
    """results.json, whole or not at all: a fresh temporary file beside it (never through one
    planted there, and none left torn by a full disk), then renamed over it."""
    from farm.report.paths import replace_file
    # pydantic's own JSON writer: the same text as json.dumps(model_dump(), indent=2,
    # ensure_ascii=False), without the standard library's pure-Python indenting encoder
    replace_file(path, summary.model_dump_json(indent=2).encode("utf-8"))
