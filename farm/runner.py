"""run_case: one case attempt on one device. Both executors call it; nothing in a case's
behaviour may depend on which executor ran it.

Outcome mapping (see farm.errors): TestFailure → failed, NeedsModel → skipped,
InfraError → error (retried elsewhere), CaseTimeout → error (not retried), Interrupted →
interrupted, anything else → error ("internal").
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urljoin

from farm.agent.api import Agent
from farm.config import Settings
from farm.devices.base import Device
from farm.errors import (CaseTimeout, InfraError, Interrupted, NeedsModel,
                         TestFailure)
from farm.results import ArtifactStore, CaseError, CaseResult, StepRecord, now_iso
from farm.schedule import Job
from farm.suite.loader import display_path
from farm.suite.model import Case, Step
from farm.suite.vars import Variables

log = logging.getLogger("farm.runner")


@dataclass
class Services:
    """What a case needs besides its device; built once per run (or per worker)."""

    settings: Settings
    artifacts: ArtifactStore
    run_id: str
    env: dict[str, str]                                   # process env + served app URLs
    app_dirs: dict[Path, str] = field(default_factory=dict)   # served dir → base URL
    model: Any = None
    cancel: threading.Event = field(default_factory=threading.Event)
    on_step: Callable[[str, StepRecord], None] | None = None  # (device name, record)
    _model_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def models(self) -> Any:
        """The run's model clients (built once from settings on first use), or None."""
        with self._model_lock:
            if self.model is None and self.settings.model:
                from farm.llm.models import build_models
                self.model = build_models(self.settings)
            return self.model


def case_variables(case: Case, services: Services) -> Variables:
    return Variables.from_sources(defaults=case.vars, env=services.env,
                                  secrets_dir=services.settings.secrets_dir,
                                  secrets=case.secrets)


def resolve_url(raw: str, case: Case, services: Services) -> str:
    """Absolute URLs pass through; a relative path is taken from the case file's folder and
    served over the app server when it lies in a served directory."""
    if "://" in raw or raw.startswith(("about:", "data:")):
        return raw
    path = (case.file.parent / raw.split("?")[0].split("#")[0]).resolve()
    suffix = raw[len(raw.split("?")[0].split("#")[0]):]
    for folder, base in services.app_dirs.items():
        try:
            rel = path.relative_to(folder.resolve())
        except ValueError:
            continue
        return urljoin(base.rstrip("/") + "/", rel.as_posix()) + suffix
    return path.as_uri() + suffix


class _CaseRun:
    def __init__(self, job: Job, case: Case, device: Device, services: Services) -> None:
        self.job, self.case, self.device, self.services = job, case, device, services
        self.vars = case_variables(case, services)
        self.started_at = time.monotonic()
        self.deadline = self.started_at + case.timeout
        from farm.agent.loop import LoopLimits
        limits = LoopLimits(cap=case.agent.get("replanningCycleLimit")
                            or services.settings.replanning_cycle_limit,
                            max_errors=services.settings.max_execution_errors)
        # resolve: secrets reach the device only; the model sees ${NAME} placeholders
        self.agent = Agent(device, model=services.models(), deadline=lambda: self.deadline,
                           resolve=self.vars.resolve, limits=limits,
                           context=case.agent.get("aiActContext"))
        self.records: list[StepRecord] = []
        self.last_shot: str | None = None
        self.shots = 0

    def mask(self, text: str) -> str:
        return self.vars.mask(text)

    def screenshot(self, name: str) -> str | None:
        try:
            png = self.agent.grabber.grab()
        except Exception as exc:  # evidence is best effort; the verdict comes from the step
            log.debug("screenshot failed on %s: %s", self.device.name, exc)
            return None
        self.shots += 1
        path = self.services.artifacts.save_screenshot(self.case.id, self.job.attempt,
                                                       f"{self.shots:03d}-{name}", png)
        self.last_shot = path
        return path

    def check_time(self) -> None:
        if self.services.cancel.is_set():
            raise Interrupted("interrupted")
        if time.monotonic() > self.deadline:
            raise CaseTimeout(f"case timed out after {self.case.timeout:g}s")

    def execute(self, step: Step) -> tuple[Any, Any]:
        """Run one step; return (locate hit or None, output)."""
        a, r = self.agent, self.vars.resolve
        target = r(step.target) if step.target else None
        value = r(step.value) if step.value is not None else None
        xpath = r(step.xpath) if step.xpath else None
        opt = step.options
        deep = bool(opt.get("deepLocate"))
        k = step.kind
        if k == "aiTap":
            return a.ai_tap(target or "", xpath, deep), None
        if k == "aiHover":
            return a.ai_hover(target or "", xpath, deep), None
        if k == "aiInput":
            return a.ai_input(target, value or "", opt.get("mode", "replace"), xpath, deep), None
        if k == "aiKeyboardPress":
            return a.ai_keyboard_press(value or "Enter", target, xpath, deep), None
        if k == "aiScroll":
            return a.ai_scroll(target, opt.get("direction", "down"),
                               opt.get("scrollType", "singleAction"), opt.get("distance"),
                               xpath, deep), None
        if k == "aiLocate":
            return a.ai_locate(target or "", xpath, deep), None
        if k == "sleep":
            a.sleep(int(value or 0))
            return None, None
        if k == "javascript":
            return None, a.javascript(value or "")
        if k == "assertText":
            a.assert_text(value or "")
            return None, None
        if k == "assertNoText":
            a.assert_no_text(value or "")
            return None, None
        if k == "waitForText":
            a.wait_for_text(value or "", (step.timeout_ms or 10_000) / 1000)
            return None, None
        # Model steps get the template as written: ${NAME} stays a placeholder in prompts.
        raw = step.value or ""
        if k in ("ai", "aiAct", "aiAction"):
            return None, a.ai_act(raw, deep_think=bool(opt.get("deepThink")))
        if k == "aiAssert":
            return None, a.ai_assert(raw, opt.get("errorMessage"))
        if k == "aiWaitFor":
            return None, a.ai_wait_for(raw, (step.timeout_ms or 30_000) / 1000,
                                       (opt.get("checkIntervalMs") or 1000) / 1000)
        if k in ("aiQuery", "aiBoolean", "aiNumber", "aiString"):
            return None, a.ai_query(raw, k)
        raise NeedsModel(f"{k} steps are not supported on {self.device.platform} yet")

    def run(self) -> CaseResult:
        case, job = self.case, self.job
        result = CaseResult(run_id=self.services.run_id, case_id=case.id, name=case.name,
                            file=display_path(case.file), platform=case.platform, device=self.device.name,
                            attempt=job.attempt, status="passed", started=now_iso(),
                            tags=case.tags)
        index = 0
        failed_step: StepRecord | None = None
        try:
            self.check_time()
            self.start_session()
            before = self.screenshot("start")
            for task in case.tasks:
                task_failed = False
                for step in task.steps:
                    index += 1
                    rec = StepRecord(task=task.name, index=index, kind=step.kind,
                                     label=self.mask(step.label), line=step.line,
                                     started=now_iso(), before=before)
                    if task_failed:
                        rec.status = "skipped"
                        self.records.append(rec)
                        continue
                    self.records.append(rec)
                    t0 = time.monotonic()
                    used = self.agent.usage.copy()
                    self.agent.last_tiers = []
                    if hasattr(self.device, "last_observation"):
                        self.device.last_observation = None
                    try:
                        self.check_time()
                        hit, output = self.execute(step)
                        if hit is not None:
                            rec.tier, rec.rect = hit.tier, hit.rect.as_list()
                        if output is not None:
                            rec.output = _masked_output(output, self.mask)
                            if step.options.get("name") and step.kind in _QUERIES:
                                result.data[step.options["name"]] = rec.output
                    except TestFailure as exc:
                        rec.status, rec.error = "failed", self.mask(_message(exc))
                        failed_step = failed_step or rec
                        task_failed = True
                    finally:
                        rec.duration = round(time.monotonic() - t0, 3)
                        rec.observation = getattr(self.device, "last_observation", None)
                        self._record_usage(rec, used)
                    if step.kind not in _LOOKS_ONLY or rec.status != "passed":
                        before = self.screenshot(f"step{index}")
                    rec.after = before
                    if self.services.on_step:
                        self.services.on_step(self.device.name, rec)
                if task_failed and not task.continue_on_error:
                    self._skip_rest(case, task)
                    break
            if failed_step is not None:
                result.status = "failed"
                result.error = CaseError(kind="TestFailure", message=failed_step.error or "",
                                         step=failed_step.index)
                result.screenshot = failed_step.after
        except Exception as exc:   # every way a case can end early; _classify sorts them
            self._finish_current(exc)
            self._classify(result, exc)
        finally:
            try:
                self.device.end_session()
            except Exception as exc:   # the verdict is already known; a dying device shows next
                log.debug("end_session failed on %s: %s", self.device.name, exc)
        result.steps = self.records
        result.duration = round(time.monotonic() - self.started_at, 3)
        total = self.agent.usage
        if total.calls or total.retries:
            result.tokens = {"prompt": total.prompt_tokens, "completion": total.completion_tokens}
            result.usage = total.as_dict()
        return result

    def _record_usage(self, rec: StepRecord, before: Any) -> None:
        spent = self.agent.usage.minus(before)
        if spent.calls or spent.retries:
            rec.usage = spent.as_dict()
        if self.agent.last_tiers and rec.tier is None:
            rec.tier = ",".join(dict.fromkeys(self.agent.last_tiers))

    def start_session(self) -> None:
        case = self.case
        if case.web is not None:
            url = resolve_url(self.vars.resolve(case.web.url), case, self.services)
            self.device.start_session(case.web.model_copy(update={"url": url}))
        else:
            self.device.start_session(case.android or case.ios)

    def _skip_rest(self, case: Case, failed_task: Any) -> None:
        seen = False
        index = len(self.records)
        for task in case.tasks:
            if task is failed_task:
                seen = True
                continue
            if seen:
                for step in task.steps:
                    index += 1
                    self.records.append(StepRecord(task=task.name, index=index, kind=step.kind,
                                                   label=self.mask(step.label), line=step.line,
                                                   status="skipped"))

    def _finish_current(self, exc: BaseException) -> None:
        if self.records and self.records[-1].status == "passed" and not self.records[-1].after:
            rec = self.records[-1]
            rec.status = {"NeedsModel": "skipped", "Interrupted": "interrupted"}.get(
                type(exc).__name__, "error")
            rec.error = self.mask(_message(exc))

    def _classify(self, result: CaseResult, exc: BaseException) -> None:
        msg = self.mask(_message(exc))
        if isinstance(exc, NeedsModel):
            result.status, result.reason = "skipped", msg
            return
        if isinstance(exc, Interrupted):
            result.status, result.reason = "interrupted", "interrupted by user"
            return
        # A device killed by the watchdog after the deadline is a timeout, not a crash.
        if isinstance(exc, InfraError) and time.monotonic() > self.deadline:
            exc = CaseTimeout(f"case timed out after {self.case.timeout:g}s "
                              f"(device stopped answering: {msg})")
            msg = self.mask(str(exc))
        if isinstance(exc, CaseTimeout) and not msg.startswith("case timed out"):
            msg = f"case timed out after {self.case.timeout:g}s: {msg}"
        result.status = "error"
        step = self.records[-1].index if self.records else None
        if isinstance(exc, (InfraError, CaseTimeout)):
            result.error = CaseError(kind=type(exc).__name__, message=msg, step=step)
        else:
            log.error("internal error in %s:\n%s", self.case.id,
                      self.mask("".join(traceback.format_exception(exc))))
            result.error = CaseError(kind="InternalError", message=f"internal error: {msg}",
                                     step=step)
        if isinstance(exc, CaseTimeout):
            self.agent.grabber.invalidate()
            result.screenshot = self.screenshot("timeout") or self.last_shot
        else:
            result.screenshot = self.last_shot


_QUERIES = frozenset({"aiQuery", "aiBoolean", "aiNumber", "aiString"})

# Steps that only read the screen: the screenshot before them is also the one after.
_LOOKS_ONLY = frozenset({"assertText", "assertNoText", "aiLocate"})


def _message(exc: BaseException) -> str:
    msg = str(exc) or type(exc).__name__
    candidates = getattr(exc, "candidates", None)
    if candidates:
        msg += "\n  seen: " + "\n        ".join(candidates)
    return msg


def _masked_output(value: Any, mask: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):      # keep structure (aiQuery data, an ai step's summary)
        return {mask(str(k)): _masked_output(v, mask) for k, v in list(value.items())[:100]}
    if isinstance(value, (list, tuple)):
        return [_masked_output(v, mask) for v in list(value)[:200]]
    return mask(str(value))[:2000]


def run_case(job: Job, case: Case, device: Device, services: Services) -> CaseResult:
    """Run one attempt of ``case`` on ``device``; never raises for a case's own problems."""
    return _CaseRun(job, case, device, services).run()
