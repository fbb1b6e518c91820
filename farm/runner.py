"""run_case: one case attempt on one device. Both executors call it; nothing in a case's
behaviour may depend on which executor ran it.

Outcome mapping (see farm.errors): TestFailure → failed, NeedsModel → skipped,
InfraError → error (retried elsewhere), CaseTimeout → error (not retried), Interrupted →
interrupted, anything else → error ("internal").
"""

from __future__ import annotations

import logging
import re
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote, urljoin, urlsplit

from farm.agent.api import Agent, PlanMisfit
from farm.agent.actions import StepNote
from farm.attempts import (TIMEOUT_NOT_RETRIED, Outcome, ServedFileMissing, ServedFolder,
                           certain_reason, classify, error_kind, synthetic, unretried)
from farm.agent.limits import LoopLimits
from farm.agent.locator import said_in
from farm.config import Settings, mask_url, model_keys
from farm.devices.base import Device
from farm.evidence import CaseEvidence
from farm.errors import (CaseTimeout, DeviceError, DeviceLost, InfraError, Interrupted,
                         ModelRefused, ModelUnavailable, NeedsModel, StepFailed, TestFailure,
                         UserError)
from farm.results import ArtifactStore, CaseError, CaseResult, Mark, StepRecord, now_iso
from farm.schedule import Job
from farm.suite.loader import display_path
from farm.text import unmasked
from farm.suite.model import Case, Step
from farm.suite.vars import Variables

log = logging.getLogger("farm.runner")

INTERRUPTED = "interrupted: the run was stopped"     # the reason of an interrupted case


@dataclass
class Services:
    """What a case needs besides its device; built once per run (or per worker)."""

    settings: Settings
    artifacts: ArtifactStore
    run_id: str
    env: dict[str, str]                   # process env (a worker's: + its case's app URLs)
    app_dirs: dict[Path, str] = field(default_factory=dict)   # served dir → base URL
    # suite root → {its apps' URL variables → served URL}: each suite's cases get their own
    suite_urls: dict[Path, dict[str, str]] = field(default_factory=dict)
    # folders served for a case's own web.serve only: no base for another case's relative url
    serve_only: frozenset[Path] = frozenset()
    model: Any = None
    cancel: threading.Event = field(default_factory=threading.Event)
    on_step: Callable[[str, StepRecord], None] | None = None  # (device name, record)
    # after each model call's usage is counted: (device name); a worker sends the spend then
    on_spend: Callable[[str], None] | None = None
    # a shared-context unit's next file begins: (device name, unit id, file id)
    on_file: Callable[[str, str, str], None] | None = None
    cache: Any = None                       # a farm.cache CacheStore (opened on first use)
    cache_mode: str | None = None           # the run's --cache (a worker gets it per task)
    # every secret of the run (`Variables.mask`): what workers send back is masked with it too,
    # for a worker knows only the values its case refers to, not the client's other credentials
    mask: Callable[[str], str] | None = None
    hides: bool = True          # whether that mask hides anything (False: the run has no secret)
    # device name → the case attempt it is running (a `_CaseRun`): what it did so far is
    # reported from there when its device does not come back from a stopped run
    in_flight: dict[str, Any] = field(default_factory=dict)
    _model_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _cache_failed: bool = field(default=False, repr=False)
    # what opening the store did besides (a corrupt cache.db set aside: said in results.json)
    cache_note: str | None = None

    def models(self) -> Any:
        """The run's model clients (built once from settings on first use), or None."""
        with self._model_lock:
            if self.model is None and self.settings.model:
                from farm.llm.models import build_models
                self.model = build_models(self.settings)
            return self.model

    def close_cache(self) -> None:
        """Close the cache store at the run's end (its write-ahead log checkpointed into
        cache.db); a step asking later runs uncached."""
        with self._model_lock:
            store, self.cache, self._cache_failed = self.cache, None, True
        if store is not None:
            store.close()

    def cache_store(self) -> Any:
        """The cache store (opened once, on first use), or None: cache off, or it cannot be
        opened (one warning; cases run uncached)."""
        with self._model_lock:
            if self.cache is None and not self._cache_failed:
                from farm.cache import open_store
                try:
                    self.cache = _renewed(open_store(self.settings), self.settings)
                    self.cache_note = getattr(self.cache, "renewed", None) or self.cache_note
                except Exception as exc:   # an optimisation that is unavailable, not a failure
                    log.warning("cache store unavailable (%s); running uncached", exc)
                    self._cache_failed = True
                    from farm.cache.case import say_unavailable
                    from farm.cache.run_store import described
                    from farm.text import first_line
                    say_unavailable(next(iter(described(self.settings).values())),
                                    first_line(exc))
            return self.cache


def _renewed(store: Any, settings: Settings) -> Any:
    """The run's store; a damaged cache.db is set aside and a fresh one started (said once on
    stderr), and its expired entries removed, unless the run only reads the cache (--cache
    read-only: it changes nothing; a damaged file runs uncached, the warning naming the fix)."""
    from farm.cache.sqlite_store import SqliteStore, renewed_if_corrupt
    if not isinstance(store, SqliteStore) or settings.cache == "read-only":
        return store
    store, done = renewed_if_corrupt(store)
    if done:
        log.warning("%s", done)
        print(f"farm: warning: {done}", file=sys.stderr, flush=True)
    store.drop_expired()
    return store


def case_env(case: Case, services: Services) -> dict[str, str]:
    """The environment ``case``'s ``${NAME}``s read: the run's, with the URLs of its own suite's
    served apps under their variables. Another suite's app served under the same variable is
    not this case's: each suite of a run opens its own app."""
    own = services.suite_urls.get(case.suite_root)
    return {**services.env, **own} if own else services.env


def case_variables(case: Case, services: Services) -> Variables:
    """The case's variables; farm's model keys are among its secrets (`model_keys`)."""
    keys = model_keys(services.settings)
    return Variables.from_sources(defaults=case.vars, env=case_env(case, services),
                                  secrets_dir=services.settings.secrets_dir, provided=keys,
                                  secrets={*case.secrets, *keys})


def refers_to_secret(case: Case, variables: Variables) -> bool:
    """Whether ``case`` refers to a secret of ``variables`` (its own): one of its ``secrets:``
    has a value, or a text of its steps (or its app's launch) holds one, or names a ${NAME}
    whose value holds one (a secret, a secrets-dir value, a credential-named variable, a
    variable made of one). What a phone's screen may show because of the case, blacked out of
    its images (its UI tree read for them); farm's own model keys and environment variables
    the case does not name are not."""
    if any(variables.get(name) for name in case.secrets):
        return True
    phone = case.android or case.ios
    texts = [phone.launch if phone is not None else None,
             *(text for step in case.steps for text in _step_texts(step))]
    for text in filter(None, texts):
        values = [text, *(variables.get(name) or "" for name, _, _ in
                          variables.references(text))]
        if any(value and variables.mask(value) != value for value in values):
            return True
    return False


def _step_texts(step: Step) -> list[str]:
    """The strings a step is written with: its target, value, xpath and options' (nested)."""
    out, stack = [step.target, step.value, step.xpath], list(step.options.values())
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, str):
            out.append(item)
    return [text for text in out if text]


def declared_names(case: Case, services: Services) -> frozenset[str]:
    """The variables a model's output may use: the case's and suite's ``vars:`` and
    ``secrets:``, and the variables holding served app URLs."""
    app_urls = set(services.app_dirs.values())
    return frozenset({*case.vars, *case.secrets, *(name for name, value in case_env(
        case, services).items() if value in app_urls)})


def resolve_url(raw: str, case: Case, services: Services) -> str:
    """Absolute URLs pass through; a relative path is taken from the case file's folder and
    served over the app server when it lies in a served directory."""
    if "://" in raw or raw.startswith(("about:", "data:")):
        return raw
    path = (case.file.parent / raw.split("?")[0].split("#")[0]).resolve()
    suffix = raw[len(raw.split("?")[0].split("#")[0]):]
    for folder, base in app_dirs_of(case, services).items():
        try:
            rel = path.relative_to(folder.resolve())
        except ValueError:
            continue
        return urljoin(base.rstrip("/") + "/", rel.as_posix()) + suffix
    return path.as_uri() + suffix


def app_dirs_of(case: Case, services: Services) -> dict[Path, str]:
    """The served folders ``case``'s relative url may be taken from: the suites' ``apps:``
    and its own ``web.serve``, never another case's (which made a case's verdict depend on
    the other cases of the run: its missing page became that server's 404)."""
    own = case.web.serve if case.web is not None else None
    return {folder: base for folder, base in services.app_dirs.items()
            if folder not in services.serve_only or folder == own}


def missing_served_file(url: str, services: Services) -> Path | None:
    """The file ``url`` asks of a folder farm serves for the run, when it is not there: the
    server's 404 page would open without complaint, where the same path as file:// fails.
    (Not looked at where the folder is not on this machine: a worker on another host.) A
    file:// page that is not there likewise: every attempt would fail on it the same way."""
    path = _local_path(url, services)
    return None if path is None or path.exists() else path


def served_folder(url: str, services: Services) -> str | None:
    """Why ``url`` cannot open, when it names a folder (``url: ../reg/app``), else None: a
    file:// folder opened the browser's listing of it, whose scripts the failure blamed; a
    served one without an index.html, the server's 404 page. Names its index.html when the
    folder has one."""
    path = _local_path(url, services)
    if path is None or not path.is_dir():
        return None
    index = path / "index.html"
    if index.is_file():
        if not url.startswith("file://"):
            return None                 # the server opens it
        parts = urlsplit(url)
        page = parts._replace(path=parts.path.rstrip("/") + "/index.html").geturl()
        return f"it is a folder; did you mean {mask_url(page)}?"
    return "it is a folder, with no index.html in it: name the page to open"


def _local_path(url: str, services: Services) -> Path | None:
    """The path on this machine ``url`` names: a file:// URL's, or one under a folder farm
    serves for the run; None for any other URL."""
    if url.startswith("file://"):
        from urllib.request import url2pathname
        return Path(url2pathname(urlsplit(url).path))     # (it decodes %XX itself)
    for folder, base in services.app_dirs.items():
        base = base.rstrip("/")
        if (url == base or url.startswith(base + "/")) and folder.is_dir():
            return folder / unquote(urlsplit(url).path).lstrip("/")
    return None


def case_cache(case: Case, services: Services, mask: Callable[[str], str],
               device: Device | None = None) -> Any:
    """The case attempt's view of the cache store (None when the cache is off); it stores no
    entry that ``mask`` (every secret of the run: `_CaseRun.mask`) would change. A device
    plugin's kind has entries of its own (`cache_platform`)."""
    from farm.cache.case import CaseCache
    from farm.cache.keys import Namespace, app_version, cache_platform, case_mode
    mode = case_mode(services.cache_mode or services.settings.cache, case.agent)
    store = services.cache_store() if mode != "off" else None
    if store is None:
        return None
    ns = Namespace(case.id, cache_platform(case.platform, device),
                   app_version(case.cache_key, case.agent))
    package = case.android.launch if case.android else None
    return CaseCache(store, ns, mode, mask=mask, package=package,
                     ttl=services.settings.cache_ttl_days * 86400)


class _CaseRun:
    def __init__(self, job: Job, case: Case, device: Device, services: Services,
                 shares: tuple[bool, bool] = (False, False)) -> None:
        self.job, self.case, self.device, self.services = job, case, device, services
        # (continues, keeps): a shared-context file opens its url in the context the previous
        # file left open / leaves it open for the next
        self.continues, self.keeps = shares
        self.vars = case_variables(case, services)
        self.started_at = time.monotonic()
        self.started_iso = now_iso()    # (the same instant: started + duration is its end)
        self.deadline = self.started_at + case.timeout
        if hasattr(device, "deadline"):   # its own waits for a page end there (a browser's)
            device.deadline = self.deadline
        limits = LoopLimits(cap=case.agent.get("replanningCycleLimit")
                            or services.settings.replanning_cycle_limit,
                            max_errors=services.settings.max_execution_errors)
        # resolve: secrets reach the device only; the model sees ${NAME} placeholders.
        # What a model plans expands only the names the suite declares, never ${ANY_ENV}.
        declared = declared_names(case, services)
        self.agent = Agent(device, model=services.models(), deadline=lambda: self.deadline,
                           resolve=self.vars.resolve, limits=limits,
                           context=case.agent.get("aiActContext"),
                           resolve_planned=lambda text, undeclared: self.vars.resolve_declared(
                               text, declared, undeclared),
                           mask=self.mask, cache=case_cache(case, services, self.mask, device),
                           locate_off=services.settings.locate_off,
                           max_scrolls=services.settings.locate_max_scrolls,
                           cancel=services.cancel, on_spend=self._spent)
        if self.agent.cache is not None:    # what a model locate cost: its entry keeps it
            self.agent.cache.usage = lambda: self.agent.usage
        self.records: list[StepRecord] = []
        self.opening = ""           # the url / app the session was opening (set-up's timeout)
        self.failure_kinds: dict[int, str] = {}   # step index → its TestFailure's class name
        self.continued: list[StepRecord] = []    # failures continueOnError let pass
        self.lost_after: str | None = None     # its device lost after a failed step (why)
        self.notes: list[str] = []      # what passed steps say all the same (a stale xpath)
        self.up_front = False       # skipped before its session opened (`_skip_before_start`)
        self.unnamed = 0            # results kept without a `name:` so far (their data keys)
        self.evidence = CaseEvidence(services.settings.screenshots, self.agent.grabber,
                                     services.artifacts, case.id, job.attempt, mask=self.mask)
        self.agent.grabber.idle = self.evidence.store_ready

    def mask(self, text: str) -> str:
        """What a record, the model and the cache may be given: the case's secrets hidden and
        every other secret of the run (one another suite declares included): a page can show
        another suite's secret, and the model and the cache are the run's too."""
        text = self.vars.mask(text)
        return self.services.mask(text) if self.services.mask is not None else text

    def _spent(self) -> None:
        if self.services.on_spend is not None:
            self.services.on_spend(self.device.name)

    def check_time(self) -> None:
        if self.services.cancel.is_set():
            raise Interrupted("interrupted")
        if time.monotonic() > self.deadline:
            raise CaseTimeout(f"case timed out after {self.case.timeout:g}s")

    def execute(self, step: Step) -> tuple[Any, Any]:
        """Run one step; return (locate hit or None, output).

        An action step runs its action of the action space, as a model-planned one would
        (templates go in as written: the action resolves ``${NAME}`` on the device)."""
        spec = step.spec
        if spec.action is not None:     # (waitForNetworkIdle: the device waits after actions)
            return self.agent.call_action(spec.action, step.action_params())
        return _CALLS[spec.call](self, step)

    def run(self) -> CaseResult:
        case, job = self.case, self.job
        result = self.result = CaseResult(
            run_id=self.services.run_id, case_id=case.id, name=case.name,
            file=display_path(case.file), platform=case.platform, device=self.device.name,
            attempt=job.attempt, status="passed", started=self.started_iso, tags=case.tags,
            description=case.description, report_file=case.report_file)
        self.services.in_flight[self.device.name] = self
        try:
            self.check_time()
            self._skip_before_start()
            self.start_session()
            self._verdict(result, self._run_tasks(result))
        except Exception as exc:   # every way a case can end early; _classify sorts them
            exc = self._cause(exc)
            if not self.records:        # it ended in set-up: where the case's set-up is written
                result.line = case.setup_line
            _end_current(self.records, exc, self.mask)
            self._classify(result, exc)    # names the step it ended in: before the rest
            self._skip_rest()
        finally:
            self.evidence.finish(self.records, result)
            for rec in self.records:      # a capture that failed has no marked copy either
                rec.marked = rec.marked if rec.before else None
            try:
                if not self.keeps or result.status in ("error", "interrupted"):
                    self.device.end_session()
            except Exception as exc:   # the verdict is already known; a dying device shows next
                log.debug("end_session failed on %s: %s", self.device.name, exc)
            self.services.in_flight.pop(self.device.name, None)
        if self.agent.cache is not None:   # plan entries are kept only if the case passed
            error = result.error
            self.agent.cache.finish(result.status, error.kind if error else None,
                                    error.message if error else None)
        result.steps = self.records
        result.line = case_line(result, case)
        result.duration = 0.0 if self.up_front else round(time.monotonic() - self.started_at, 3)
        total = self.agent.usage
        if total.spent:
            result.tokens = {"prompt": total.prompt_tokens, "completion": total.completion_tokens}
            result.usage = total.copy()
        return result

    def so_far(self) -> CaseResult:
        """What this attempt did until now, as its result would say had it been interrupted
        here (any thread: the case's device did not come back from a stopped run): its start,
        its time so far, its steps (the one it is in interrupted, the rest not run) and the
        images already handed to the store."""
        steps = [rec.model_copy() for rec in list(self.records)]
        _end_current(steps, Interrupted("interrupted"), self.mask)
        steps += self._not_run(len(steps))
        kept = self.evidence.kept
        for rec in steps:
            rec.before, rec.after = kept(rec.before), kept(rec.after)
            rec.marked = rec.marked if rec.before else None
        snapshot = self.result.model_copy(update={
            "status": "interrupted", "reason": INTERRUPTED, "steps": steps,
            "line": self.result.line if self.records else self.case.setup_line,
            "screenshot": kept(self.evidence.last),
            "duration": round(time.monotonic() - self.started_at, 3)})
        snapshot.line = case_line(snapshot, self.case)
        return snapshot

    def _run_tasks(self, result: CaseResult) -> StepRecord | None:
        """Every step of every task, in order. A failed or skipped step ends its task; after
        that the case goes on only when the task has ``continueOnError`` (as Midscene's player
        does: such a task is optional). Returns the failure that ended the case (the first
        outside a continueOnError task), if any; the ones let pass are in ``continued``."""
        shot, before = time.monotonic(), self.evidence.start()
        if late := self._image_overran(shot, "at the case's start"):    # a hung screencap
            raise CaseTimeout(late)
        ended: StepRecord | None = None         # the failure that ends the case
        for task in self.case.tasks:
            task_ended = False
            for step in task.steps:
                rec = StepRecord(task=task.name, index=len(self.records) + 1, kind=step.kind,
                                 label=self.mask(step.label), line=step.line,
                                 started=now_iso(), before=before)
                self.records.append(rec)
                if task_ended:
                    rec.status = "skipped"
                    continue
                try:
                    self._run_step(step, rec, result)
                except NeedsModel as exc:    # only this optional task needs the model
                    if not task.continue_on_error:
                        raise
                    rec.status, rec.error = "skipped", self.mask(_message(exc))
                if rec.status == "failed" and self.services.cancel.is_set():
                    rec.status = "interrupted"  # the run stopped while it ran: its own timeout
                    raise Interrupted("interrupted")    # is no verdict of the case's
                if rec.status != "skipped":    # (logScreenshot: its image is the step)
                    shot = time.monotonic()
                    before = rec.after = self.evidence.after_step(
                        rec, step.spec.looks_only, shows=step.spec.call == "record")
                    self._after_image_in_time(rec, shot)
                    self._after_image_lost(rec, shot)
                if self.services.on_step:
                    self.services.on_step(self.device.name, rec)
                task_ended = rec.status != "passed"
                if rec.status == "failed" and task.continue_on_error:
                    self.continued.append(rec)
                elif rec.status == "failed":
                    ended = rec
            if ended is not None:
                self._skip_rest()
                break
        return ended

    def _after_image_in_time(self, rec: StepRecord, started: float) -> None:
        """A step's after-image that ran the case past its deadline (a hung screencap): the
        step carries that wait and the timeout says what the device was doing."""
        if late := self._image_overran(started, "after the step"):
            rec.duration = round((rec.duration or 0) + time.monotonic() - started, 3)
            rec.status, rec.error = "error", late
            raise CaseTimeout(late)

    def _after_image_lost(self, rec: StepRecord, started: float) -> None:
        """A step whose after-image's call got no answer until farm gave the device up (its
        ``abandoned``: a phone's hung screencap) carries that wait. A step that passed ends
        the case there as the device's loss (an infrastructure error, retried elsewhere); one
        that failed keeps its own failure, the verdict (the loss is its note and the case's
        reason; the device is lost to the run all the same)."""
        gone = getattr(self.device, "abandoned", None)
        if not gone or rec.after is not None:
            return
        rec.duration = round((rec.duration or 0) + time.monotonic() - started, 3)
        said = self.mask(gone)
        if rec.status == "passed":
            rec.status, rec.error = "error", said
            raise DeviceLost(gone)
        note = f"the device was lost after the step: {said}"
        rec.notes.append(note)
        self.lost_after = f"step {rec.index}: {note}"

    def _image_overran(self, started: float, when: str) -> str | None:
        """The timeout's message when an image begun at ``started`` ran the case past its
        deadline: what the device was doing (a step carries how long: `_after_image_in_time`).
        """
        if time.monotonic() <= self.deadline or started > self.deadline:
            return None
        # what the device was waiting for instead (a browser: a navigation's silent server)
        if cut := getattr(self.device, "cut_short", None):
            return f"case timed out after {self.case.timeout:g}s: {cut}"
        how = getattr(self.device, "screenshot_command", "") or "screenshot"
        return (f"case timed out after {self.case.timeout:g}s: waiting for the device's "
                f"screenshot ({how}) {when}")

    def _verdict(self, result: CaseResult, failed_step: StepRecord | None) -> None:
        """The case's status from its steps: failed at ``failed_step``, else at the first
        failure a continueOnError task let pass (Midscene's CLI counts such a file
        ``partialFailed``, not a success, and exits 1; the later tasks' steps are kept);
        skipped when a continueOnError task skipped a step that needs a model (its check never
        ran, so the case cannot have passed, even when the later tasks did); else passed. The
        failures let pass stay in the case's reason ("continued after: step N failed: ...")."""
        failed_step = failed_step or (self.continued[0] if self.continued else None)
        if failed_step is not None:
            self._failed_at(result, failed_step)
            return
        skips = [r for r in self.records if r.status == "skipped" and r.error]
        if skips:
            result.status, result.reason = "skipped", skips[0].error
        elif self.notes:
            result.reason = "; ".join(filter(None, [result.reason, *self.notes]))

    def _note(self, rec: StepRecord, notes: tuple[str, ...]) -> None:
        """What a step says all the same (`LocateHit.notes`, an action's `StepNote`): on the
        step (results.json, the report's step row, the end of the run on the console), in the
        passed case's reason (its progress line, JUnit's note) and in farm.log."""
        for note in map(self.mask, notes):
            rec.notes.append(note)
            self.notes.append(f"step {rec.index} (line {rec.line}): {note}")
            log.warning("[%s] %s: %s", self.device.name, self.case.id, self.notes[-1])

    def _device_notes(self, rec: StepRecord) -> None:
        """What the device says of the step that just ended (`Device`'s optional
        ``step_notes``: a value a field's maxlength cut): a step note when the step passed
        (a failed step's message has it: ``failure_note``)."""
        ask = getattr(self.device, "step_notes", None)
        if not callable(ask):
            return
        try:
            notes = ask()
        except Exception as exc:   # best effort: the step's outcome is what counts
            log.debug("%s: no step notes: %s", self.device.name, exc)
            return
        if rec.status == "passed" and isinstance(notes, (list, tuple)):
            self._note(rec, tuple(n for n in notes if isinstance(n, str) and n))

    def _failed_at(self, result: CaseResult, step: StepRecord) -> None:
        """The case failed at ``step``: its error, step and screenshot are that step's."""
        result.status = "failed"
        result.error = CaseError(kind=self.failure_kinds.get(step.index, "TestFailure"),
                                 message=step.error or "", step=step.index)
        result.screenshot = step.after
        result.reason = "; ".join(filter(None, (self._continued(),
                                                self._unretried(result.error.kind),
                                                self.lost_after))) or None

    def _unretried(self, kind: str) -> str | None:
        """Why a failure of class ``kind`` that any attempt would repeat (a script's syntax
        error) is not retried, when the case had retries left; else None."""
        said = certain_reason(kind)
        return unretried(said, self.job, self.case.retries or 0) if said else None

    def _continued(self) -> str:
        """The failures continueOnError let pass, for the case's reason ("" when none)."""
        if not self.continued:
            return ""
        said = "; ".join(f"step {r.index} failed: {(r.error or '').strip().splitlines()[0]}"
                         if (r.error or "").strip() else f"step {r.index} failed"
                         for r in self.continued)
        return f"continued after: {said}"

    def _skip_before_start(self) -> None:
        """Without a model, a case whose very first step needs one is skipped before its
        device opens a session (as `farm run` skips it up front; a worker decides here). A
        file of a shared browser context opens it for the next: it runs to that step."""
        step = None if (self.continues or self.keeps or self.agent.models is not None) \
            else skipped_before_start(self.case, lambda step: _plan_cached(self.agent, step))
        if step is not None:
            self.up_front = True    # (no device time: its duration is 0, as `farm run`'s)
            raise NeedsModel(f"{step.kind} at line {step.line}")

    def _run_step(self, step: Step, rec: StepRecord, result: CaseResult) -> None:
        """Run one step into ``rec``: a test failure marks it failed; anything else ends the
        case (raised)."""
        t0 = time.monotonic()
        used = self.agent.usage.copy()
        self.agent.last_tiers, self.agent.last_rounds, self.agent.last_act = [], None, None
        self.agent.last_notes = []
        if self.agent.cache is not None:
            self.agent.cache.begin_step(step.options.get("cacheable") is not False)
        self.agent.acted.clear()
        if hasattr(self.device, "last_observation"):
            self.device.last_observation = None
        try:
            self.check_time()
            hit, output = self.execute(step)
            if hit is not None:
                rec.tier, rec.rect = hit.tier, hit.rect.as_list()
                self._note(rec, hit.notes)
            self._note(rec, (output.note,) if isinstance(output, StepNote) else ())
            rec.output = _masked_output(output, self.mask)
            self._keep(step, rec.output, result)
        except NeedsModel as exc:
            self._check_screen(exc)     # (a phone gone black: nothing for a model either)
            missed = self._on_error_page(step, exc)
            if missed is None:
                raise self._needs_model(step, exc) from exc
            rec.status, rec.error = "failed", self.mask(missed)
            self.failure_kinds[rec.index] = "LocateError"
        except TestFailure as exc:
            rec.status, rec.error = "failed", self.mask(self._noted(_message(exc)))
            self.failure_kinds[rec.index] = error_kind(exc)   # AssertionFailed, LocateError…
            self._check_screen(exc)
            if getattr(exc, "thought", None):     # a failed aiAssert: the model's reasoning
                rec.output = self.mask(f"the model: {exc.thought}")
            elif self.agent.last_act:       # a failed ai step: what it did, round by round
                rec.output = _masked_output(self.agent.last_act, self.mask)
            elif getattr(exc, "output", None) is not None:   # a shell command stopped: what
                rec.output = _masked_output(exc.output, self.mask)      # it printed by then
            if step.kind == "aiAssert":       # as Midscene's player keeps it (setResult)
                self._keep(step, _failed_verdict(exc, rec.error, self.mask), result)
        finally:
            rec.duration = round(time.monotonic() - t0, 3)
            # (a replanned ai step: which cached step broke, said when the new plan fails too)
            self._note(rec, tuple(getattr(self.agent, "last_notes", ())))
            self._device_notes(rec)
            rec.observation = getattr(self.device, "last_observation", None)
            if rec.output is None and self.agent.last_act:   # an ai step that errored (the
                rec.output = _masked_output(self.agent.last_act, self.mask)   # model's fault)
            self._record_usage(rec, used)
            if self.agent.cache is not None:
                rec.cache = self.agent.cache.end_step()
            self._mark(rec)

    def _keep(self, step: Step, value: Any, result: CaseResult) -> None:
        """A step's result in the case's data (the ``output:`` file), where Midscene's script
        player keeps it (``setResult``): under the step's ``name:``, else, for a kind whose
        output is data, under the number of the unnamed result ("0", "1", … counted over the
        case). As there, an insight step or javascript keeps its answer even when it is null
        (a script can tell "answered null" from "never ran"); an action only when it returned
        something."""
        if value is None and not (step.spec.data and step.spec.call):
            return
        name = step.options.get("name")
        if not name and step.spec.data:
            name, self.unnamed = str(self.unnamed), self.unnamed + 1
        if name:
            result.data[name] = value

    def _check_screen(self, exc: Exception) -> None:
        """A step that failed on a black screen, or did not find its target, on a phone whose
        screen is off now (`screen_went_off`, asked on that path only): the device's fault,
        raised as a DeviceError naming the phone (the case is retried on another), not a
        test failure counted flaky, nor a skip for want of a model."""
        ask = getattr(self.device, "screen_went_off", None)
        black = getattr(self.device, "last_observation", None) in ("black-frame", "empty-tree")
        if not callable(ask) or not (black or error_kind(exc) == "LocateError"):
            return
        said = ask()
        if said:
            raise DeviceError(said) from exc

    def _noted(self, msg: str) -> str:
        """A test failure's message with the device's note on the page (`Device`'s optional
        ``failure_note``: "the page answered 404 Not Found: URL") after its first line; as it
        is when the device has none to add."""
        ask = getattr(self.device, "failure_note", None)
        if not callable(ask):
            return msg
        try:
            note = ask()
        except Exception as exc:   # best effort: the failure is what the case reports
            log.debug("%s: no failure note: %s", self.device.name, exc)
            return msg
        if not isinstance(note, str) or not note.strip():
            return msg
        first, newline, rest = msg.partition("\n")
        if "fileChooserAccept" in first and "fileChooserAccept" in note:
            return msg          # (the step's own failure already says how files go in)
        if " in front of the app" in note:   # (it names the alert, its buttons and what to do)
            first = _SHOWN_ALERTS.sub("", first)
        return f"{first} ({note.strip().splitlines()[0]}){newline}{rest}"

    def _on_error_page(self, step: Step, exc: NeedsModel) -> str | None:
        """A target the zero-token tiers did not find on a page the server answered with an
        HTTP error (a 404, a 500): the step's failure, naming that answer, rather than a skip
        for a model (which would not find it there either: the run passed, the error page
        unsaid); None otherwise. (Phones read their browser's error page and HTTP errors off the
        screen: `farm.devices.native_tree`.)"""
        ask = getattr(self.device, "error_page", None)
        if step.needs_model or not callable(ask):
            return None
        try:
            said = ask()
        except Exception as exc2:   # best effort: the skip stands
            log.debug("%s: no page status: %s", self.device.name, exc2)
            return None
        if not isinstance(said, str) or not said:
            return None
        return f"{exc.what} ({said})" if exc.what else said

    def _needs_model(self, step: Step, exc: NeedsModel) -> NeedsModel:
        """``exc`` as the case reports it: a kind that always needs a model names itself and
        its line (as a case skipped before it starts does); a target only a model could find
        says that its ``xpath:`` matched nothing, when it has one (the XPath tier runs first,
        and an element it found, one or several, needs no model)."""
        if step.needs_model and not isinstance(exc, PlanMisfit):
            return NeedsModel(f"{step.kind} at line {step.line}")
        if not step.xpath or "xpath" in self.services.settings.locate_off:
            return exc
        from farm.agent.locator import xpath_missed
        return NeedsModel(f"{exc.what}, and its xpath {step.xpath} "
                          f"{xpath_missed(self.device)}")

    def _mark(self, rec: StepRecord) -> None:
        """Where the step acted, and its before screenshot with that drawn over it (an SVG
        linking to the screenshot beside it, written on the artifact pool, off the case's
        clock)."""
        rec.marks = [Mark(kind=m["kind"], points=m["points"], note=m.get("note"))
                     for m in self.agent.acted]
        if not (rec.marks or rec.rect) or not rec.before:
            return
        try:
            rec.screen = list(self.device.size())
        except (DeviceLost, Interrupted, CaseTimeout):  # a dying device: the next step says it
            return
        except Exception as exc:    # (a plugin's size() of a wrong type: said at the run's end)
            said = self.mask(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
            self.services.artifacts.device_warning(
                self.device.name, "size", f"{said} (the report's step marks are left out)")
            return
        from functools import partial

        from farm.report.marks import marks_svg
        rec.marked = self.services.artifacts.derive(
            rec.before, f"step{rec.index}-marked",
            partial(marks_svg, marks=rec.marks, rect=rec.rect, tier=rec.tier,
                    screen=rec.screen), refers=True)

    def _record_usage(self, rec: StepRecord, before: Any) -> None:
        spent = self.agent.usage.minus(before)
        if spent.spent:
            rec.usage = spent
        rec.rounds = self.agent.last_rounds
        if self.agent.last_tiers and rec.tier is None:
            rec.tier = ",".join(dict.fromkeys(self.agent.last_tiers))

    def start_session(self) -> None:
        case = self.case
        if case.web is not None:
            url = self.vars.resolve(case.web.url)
            served = self.services.app_dirs.get(case.web.serve) if case.web.serve else None
            url = (urljoin(served.rstrip("/") + "/", url.lstrip("/")) if served
                   else resolve_url(url, case, self.services))
            missing = missing_served_file(url, self.services)
            if missing:
                raise ServedFileMissing(f"cannot open {mask_url(url)}: no such file {missing}")
            if folder := served_folder(url, self.services):
                raise ServedFolder(f"cannot open {mask_url(url)}: {folder}")
            # ${NAME} in the user agent and header values, as in the url (a token header)
            headers = {k: self.vars.resolve(v) for k, v in case.web.extra_http_headers.items()}
            agent = case.web.user_agent and self.vars.resolve(case.web.user_agent)
            target = case.web.model_copy(update={"url": url, "user_agent": agent,
                                                 "extra_http_headers": headers})
            self.opening = mask_url(url)    # (its timeout message)
            self._give_mask()
            if self.continues:
                self.device.continue_session(target)
            else:
                self.device.start_session(target)
        else:
            phone = case.android or case.ios
            if phone is not None and phone.launch:     # ${NAME} in the app id or URL
                phone = phone.model_copy(update={"launch": self.vars.resolve(phone.launch)})
                self.opening = mask_url(phone.launch)
            self._give_mask()
            self.device.start_session(phone)

    def _give_mask(self) -> None:
        """The device told the case's mask, where it takes one (its ``hide``: the secrets in a
        URL it shows, `mask_url`; a screen's text holding one, blacked out of its images). No
        secret anywhere: nothing for its screenshots to black out, none scanned. A phone's
        case that refers to no secret (`refers_to_secret`: a model key or an environment
        variable it does not name is none of its) reads no UI tree for its images either:
        each such read costs ~1 s on a real phone."""
        if hasattr(self.device, "hide"):
            hides = (self.vars.hides or self.services.hides) if self.case.web is not None \
                else refers_to_secret(self.case, self.vars)
            self.device.hide = self.mask if hides else unmasked

    def _skip_rest(self) -> None:
        """The steps after the last one recorded, listed as not run (skipped): after a failed
        task, a timeout, an error or an interrupt the case has the same shape as when it
        passes."""
        self.records.extend(self._not_run(len(self.records)))

    def _not_run(self, done: int) -> list[StepRecord]:
        """The case's steps after its first ``done``, as not run (skipped)."""
        steps = [(task, step) for task in self.case.tasks for step in task.steps]
        return [StepRecord(task=task.name, index=index, kind=step.kind,
                           label=self.mask(step.label), line=step.line, status="skipped")
                for index, (task, step) in enumerate(steps[done:], start=done + 1)]

    def _cause(self, exc: Exception) -> Exception:
        """Why the device failed, when farm killed it: past the deadline the watchdog did (a
        timeout, not a crash), after Ctrl-C the run did (interrupted: any way the case ended
        once the run was stopped, a step's own timeout too, is the stop's). A model's error past
        the deadline is the case's timeout too, naming the model (the device did nothing
        wrong); a model that refused farm's key says so, whenever it did."""
        if isinstance(exc, InfraError) and not isinstance(exc, ModelRefused) \
                and time.monotonic() > self.deadline:
            # still in set-up: what it was opening (a page that never finished loading)
            doing = f" opening {self.opening}" if self.opening and not self.records else ""
            who = "the model" if isinstance(exc, ModelUnavailable) else "device"
            return CaseTimeout(self.mask(f"case timed out after {self.case.timeout:g}s{doing} "
                                         f"({who} stopped answering: {_message(exc)})"))
        if self.services.cancel.is_set():   # the run was stopped while the case ran: however
            return Interrupted("interrupted")   # the step then ended (its own timeout), in flight
        return exc

    def _where(self) -> str:
        """file:line of the step running (else of the case's url: / launch:)."""
        line = self.records[-1].line if self.records else self.case.setup_line
        return f"{display_path(self.case.file)}:{line or self.case.first_line}"

    def _classify(self, result: CaseResult, exc: BaseException) -> None:
        """Record how the case ended early; `farm.attempts` maps the exception class."""
        status, outcome = classify(exc)
        msg = self.mask(self._noted(_message(exc)) if status == "failed" else _message(exc))
        result.status = status
        if status == "interrupted":
            result.screenshot = self.evidence.last      # the last screen it saw
        if status == "skipped" and self.continued:    # a failure before it still fails it
            self._failed_at(result, self.continued[0])
            return
        if status in ("skipped", "interrupted"):
            result.reason = msg if status == "skipped" else INTERRUPTED
            return
        if outcome is Outcome.TIMEOUT and not msg.startswith("case timed out after"):
            # "case timed out during sleep 20000 ms" says what it was doing, not the limit
            doing = msg.removeprefix("case timed out")
            msg = (f"case timed out after {self.case.timeout:g}s"
                   + (doing if doing != msg else f": {msg}"))
        if isinstance(exc, UserError):      # the case's own configuration (a worker without
            msg = f"{self._where()}: {msg}"     # its ${NAME}): said as the suite says it
        elif outcome is Outcome.INTERNAL:
            log.error("internal error in %s:\n%s", self.case.id,
                      self.mask("".join(traceback.format_exception(exc))))
            msg = f"internal error: {msg}"
        step = self.records[-1].index if self.records else None
        result.error = CaseError(kind=error_kind(exc), message=msg, step=step)
        if outcome is Outcome.CERTAIN:      # (a served file not there: failed, said so)
            result.reason = self._unretried(error_kind(exc))
        if outcome is Outcome.TIMEOUT:     # never older than the last step's images
            if said := unretried(TIMEOUT_NOT_RETRIED, self.job, self.case.retries or 0):
                result.reason = "; ".join(filter(None, (result.reason, said)))
            last = self.records[-1] if self.records else None
            result.screenshot = self.evidence.now("timeout") or (
                (last.after or last.before) if last else self.evidence.last)
        else:
            result.screenshot = self.evidence.last


def case_line(result: CaseResult, case: Case) -> int:
    """results.json's ``line``: the step the verdict names (the FAILED line's file:line; a
    case skipped for a model: the step that needs one), the case's set-up line when it ended
    before its first step, else its first step's."""
    if result.line:
        return result.line
    if result.status == "skipped":      # (`_end_current`: the step it stopped at, skipped)
        return next((s.line for s in result.steps if s.status == "skipped" and s.error
                     and s.line), case.first_line)
    at = result.error.step if result.error else next(     # interrupted: the step it was in
        (s.index for s in reversed(result.steps) if s.status == "interrupted"), None)
    return next((s.line for s in result.steps if s.index == at and s.line), case.first_line)


def _end_current(records: list[StepRecord], exc: BaseException, mask: Callable[[str], str]
                 ) -> None:
    """The step a case ended in (the last recorded, not done: no after image) takes how the
    case ended: skipped (it needs a model), interrupted, or an error."""
    if records and records[-1].status == "passed" and not records[-1].after:
        rec = records[-1]
        rec.status = ("skipped" if isinstance(exc, NeedsModel) else
                      "interrupted" if isinstance(exc, Interrupted) else "error")
        rec.error = mask(_message(exc))


def skipped_before_start(case: Case, cached: Callable[[Step], bool] | None = None
                         ) -> Step | None:
    """The step for which ``case`` is skipped before it starts when there is no model (no
    device needed): its very first step, when that needs a model and its task is not
    continueOnError, unless ``cached`` says the cache holds a plan it replays (an ``ai``
    step: `plan_cached_up_front`). Otherwise the case runs up to its first step that needs
    a model, which and every step after it are skipped (one in a continueOnError task ends
    only its task). A shared-context unit: its first file's, when the unit stops after it."""
    if case.parts:
        first = case.parts[0]
        stops = first.shared is None or first.shared.setup or not first.shared.continue_on_error
        return skipped_before_start(first, cached) if stops else None
    task = next((t for t in case.tasks if t.steps), None)
    if task is None or task.continue_on_error or not task.steps[0].needs_model:
        return None
    if cached is not None and task.steps[0].spec.call == "ai_act" and cached(task.steps[0]):
        return None
    return task.steps[0]


def plan_cached_up_front(services: Services) -> Callable[[Case, Step], bool]:
    """Whether the run's cache holds a plan for a case's first step, an ``ai`` step, which a
    run with no model replays (read only; for `skipped_before_start`, before any device)."""
    def cached(case: Case, step: Step) -> bool:
        variables = case_variables(case, services)

        def mask(text: str) -> str:
            text = variables.mask(text)
            return services.mask(text) if services.mask is not None else text
        agent = Agent(_NO_DEVICE, resolve=variables.resolve, mask=mask,
                      context=case.agent.get("aiActContext"),
                      cache=case_cache(case, services, mask))
        return _plan_cached(agent, step)
    return cached


_NO_DEVICE: Any = None      # (an Agent only asked what its cache holds: no device, no chain use)


def _plan_cached(agent: Agent, step: Step) -> bool:
    """Whether ``agent``'s cache holds a plan for ``step`` (an ``ai`` step) to replay."""
    return agent.plan_cached(step.value or "", step.options.get("context"),
                             step.options.get("images"))


def _shown(step: Step) -> dict[str, Any]:
    """What an insight step shows the model (domIncluded, screenshotIncluded, images)."""
    return {k: step.options[k] for k in ("domIncluded", "screenshotIncluded", "images")
            if k in step.options}


def _locate(run: _CaseRun, step: Step) -> tuple[Any, Any]:
    """aiLocate's result as Midscene's ``agent.aiLocate`` returns it: ``rect`` {left, top,
    width, height}, ``center`` [x, y] and, on the web, ``dpr`` (the page's device pixel
    ratio); farm adds the locate ``tier`` that found it."""
    hit = run.agent.ai_locate(step.target or "", step.xpath, bool(step.options.get("deepLocate")),
                              step.options.get("images"))
    r = hit.rect
    found: dict[str, Any] = {"rect": {"left": r.x, "top": r.y, "width": r.width,
                                      "height": r.height}, "center": list(r.center)}
    if run.case.web is not None:
        found["dpr"] = run.case.web.device_scale_factor or 1
    return hit, {**found, "tier": hit.tier}


def _text(run: _CaseRun, step: Step) -> str:
    """A zero-token check's text, resolved (it is compared on the device, never sent out).
    One whose ``${NAME}`` came out empty (a secret or served URL, unknown at load: the loader
    refuses the others) fails the step: an empty text is on every screen, so it checked
    nothing."""
    text = run.vars.resolve(step.value or "")
    if not text.strip() and (step.value or "").strip():
        names = ", ".join(f"${{{n}}}" for n in dict.fromkeys(
            name for name, _, _ in run.vars.references(step.value or "")))
        vacuous = ("an empty script runs nothing" if step.kind == "javascript"
                   else "a check of an empty text checks nothing")
        raise StepFailed(f"{step.kind}: {step.value} came out empty ({names} empty or not "
                         f"set at run time): {vacuous}")
    return text


# The Agent call of each step kind that is not an action (StepKind.call, farm.suite.kinds).
# Model steps get their text as written: ${NAME} stays a placeholder in prompts.
_CALLS: dict[str, Callable[[_CaseRun, Step], tuple[Any, Any]]] = {
    "ai_locate": _locate,
    "record": lambda run, step: (None, {"title": step.value or "untitled",
                                        "content": step.options.get("content", "")}),
    "javascript": lambda run, step: (None, run.agent.javascript(
        _text(run, step), (step.timeout_ms / 1000) if step.timeout_ms else None)),
    "assert_text": lambda run, step: (None, run.agent.assert_text(_text(run, step))),
    "assert_no_text": lambda run, step: (None, run.agent.assert_no_text(_text(run, step))),
    "wait_for_text": lambda run, step: (None, run.agent.wait_for_text(
        _text(run, step), (step.timeout_ms or 10_000) / 1000)),
    "ai_act": lambda run, step: (None, run.agent.ai_act(
        step.value or "", deep_think=bool(step.options.get("deepThink")),
        deep_locate=bool(step.options.get("deepLocate")),
        planning_strategy=step.options.get("planningStrategy"),
        context=step.options.get("context"), images=step.options.get("images"))),
    "ai_assert": lambda run, step: (None, run.agent.ai_assert(
        step.value or "", step.options.get("errorMessage"), _shown(step))),
    "ai_wait_for": lambda run, step: (None, run.agent.ai_wait_for(
        step.value or "", (step.timeout_ms or 30_000) / 1000,
        (step.options.get("checkIntervalMs") or 1000) / 1000, _shown(step))),
    "ai_query": lambda run, step: (None, run.agent.ai_query(step.value or "", step.kind,
                                                            _shown(step))),
}


def _failed_verdict(exc: TestFailure, message: str | None, mask: Callable[[str], str]
                    ) -> dict[str, Any]:
    """A failed aiAssert's kept result, as Midscene keeps it: ``{pass, thought, message}``
    (no ``thought`` when the model gave no reason)."""
    thought = getattr(exc, "thought", None)
    return {"pass": False, **({"thought": mask(thought)} if thought else {}),
            "message": message}


def _message(exc: BaseException) -> str:
    """A step's error: its message, then what the locator saw that the message does not say
    already (`said_in`), one ``seen:`` line each."""
    msg = str(exc) or type(exc).__name__
    candidates = [c for c in getattr(exc, "candidates", None) or () if not said_in(c, msg)]
    if candidates:
        msg += "\n  seen: " + "\n        ".join(candidates)
    return msg


def _masked_output(value: Any, mask: Callable[[str], str]) -> Any:
    """A step's output with every secret masked, whole: its structure kept (aiQuery data, an
    ai step's summary) and nothing cut (an aiQuery of 500 rows once kept 200, unsaid). Its
    size is bounded where it comes from (a model's reply by FARM_MODEL_MAX_REPLY_BYTES, a
    shell's or WebDriverAgent's output by their caps)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):   # a numeric secret (a PIN) read back as a number
        return value if mask(str(value)) == str(value) else mask(str(value))
    if isinstance(value, dict):
        return {mask(str(k)): _masked_output(v, mask) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_masked_output(v, mask) for v in value]
    return mask(str(value))


# what a failed text check says of the alerts the screen shows (`farm.agent.screen_hint.hint`)
_SHOWN_ALERTS = re.compile(r'; the screen shows "[^"]*"(?:, "[^"]*")* \((?:an alert|alerts)\)')


def run_case(job: Job, case: Case, device: Device, services: Services) -> CaseResult:
    """Run one attempt of ``case`` on ``device``; never raises for a case's own problems."""
    if case.parts:
        return run_unit(job, case, device, services)
    return _CaseRun(job, case, device, services).run()


def run_unit(job: Job, unit: Case, device: Device, services: Services) -> CaseResult:
    """One attempt of a shared-context unit (farm.shared_context): its files in order, each
    opening its url in the browser context the one before left open. After a failed setup file,
    or a failed file with continueOnError false, the rest are not run; after an error (the
    context is gone) neither."""
    started, stop = time.monotonic(), None
    parts: list[CaseResult] = []
    for i, part in enumerate(unit.parts):
        part = _in_group(unit, part)
        if stop is not None:
            parts.append(synthetic(part, services.run_id, job.attempt, "skipped", device.name,
                                   reason=stop))
            continue
        last = i == len(unit.parts) - 1
        if services.on_file:        # (the journal: which file farm is killed in)
            services.on_file(device.name, unit.id, part.id)
        result = _CaseRun(job, part, device, services,
                          shares=(bool(parts), not last)).run()
        parts.append(result)
        stop = _stop_after(part, result, unit)
    worst = min(parts, key=lambda r: _UNIT_RANK.get(r.status, 9))
    return worst.model_copy(update={
        "case_id": unit.id, "name": unit.name, "file": display_path(unit.file), "line": 0,
        "duration": round(time.monotonic() - started, 3), "steps": [], "parts": parts,
        "tags": unit.tags, "data": {}, "description": None, "report_file": None})


def _in_group(unit: Case, part: Case) -> Case:
    """``part`` named for the device group a --matrix run runs its ``unit`` on (unit
    ``s/index@os14``: ``s/a@os14``, "a [os14]"), as the run names each case: its screenshots
    in a folder of that group's (each group's run wrote over the other's, and the report
    showed both groups one group's screens) and its cache entries the group's."""
    base = part.shared.unit_id if part.shared is not None else unit.id
    if not unit.id.startswith(f"{base}@"):
        return part
    group = unit.id.removeprefix(f"{base}@")
    return part.model_copy(update={"id": f"{part.id}@{group}", "name": f"{part.name} [{group}]"})


# The unit's verdict is its worst file's.
_UNIT_RANK = {"interrupted": 0, "error": 1, "failed": 2, "skipped": 3, "passed": 4}


def _stop_after(part: Case, result: CaseResult, unit: Case) -> str | None:
    """Why the unit's next files do not run after ``part`` ended with ``result``."""
    name = part.file.name
    if result.status in ("error", "interrupted"):
        return f"not run: {name} ended with an error, which closed the shared browser context"
    if result.status == "passed":
        return None
    if part.shared is not None and part.shared.setup:
        return f"not run: the batch's setup file {name} failed"
    if part.shared is not None and not part.shared.continue_on_error:
        return f"not run: {name} failed (the batch has continueOnError: false)"
    return None
