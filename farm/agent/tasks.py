"""TaskBuilder: one action (planned by the model or built from a suite step) → [Locate task per
locator field] + the Action task. TaskRunner: runs them in order (pending → running →
finished / failed); a Locate task's result fills its Action's locator field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal

from pydantic import ValidationError

from farm.agent.actions import (PLATFORMS, Action, ActionContext, BoxAt, Locate,
                                locator_fields, platform_actions)
from farm.agent.locator import LocateHit, said_in
from farm.cache.xpaths import anchor
from farm.devices.base import Device
from farm.errors import FarmError, InfraError, StepFailed, TestFailure

if TYPE_CHECKING:   # a run of zero-token steps reads no plan: farm.llm's reply models and
    from farm.llm.plan import PlannedAction     # patterns stay out of its start (~1.5 ms CPU)

Status = Literal["pending", "running", "finished", "failed"]


class PlanError(Exception):
    """The planned action cannot be built (unknown action, bad params): feedback, not a crash."""


@dataclass
class Task:
    kind: Literal["locate", "action"]
    action: Action
    field: str | None = None          # for locate tasks: which locator field
    status: Status = "pending"
    error: str = ""
    hit: LocateHit | None = None
    output: Any = None                 # for the action task: what ``Action.run`` returned
    exception: BaseException | None = None   # why it failed (raised again by deterministic steps)

    @property
    def label(self) -> str:
        if self.kind == "locate":
            loc: Locate = getattr(self.action, self.field or "")
            return f"Locate {loc.describe()}"
        return " ".join(x for x in (self.action.name, self.action.detail(),
                                    self.action.target()) if x)


def make_action(name: str, params: dict[str, Any],
                registry: dict[str, type[Action]]) -> Action:
    """The action ``name`` with ``params``; PlanError when either is wrong."""
    cls = registry.get(name) or next(
        (c for n, c in registry.items() if n.lower() == name.strip().lower()), None)   # "tap"
    if cls is None:
        own = {p: platform_actions(p) for p in PLATFORMS}
        elsewhere = [p for p, actions in own.items()
                     if any(a.name.lower() == name.strip().lower() for a in actions)]
        here = [p for p, actions in own.items() if all(a.name in registry for a in actions)]
        where = (f" on {' and '.join(here) or 'this device'}: it is an action of "
                 f"{' and '.join(elsewhere)}" if elsewhere else "")
        raise PlanError(f"unknown action {name!r}{where}; use one of: {', '.join(registry)}")
    try:
        return cls.model_validate(params)
    except ValidationError as exc:
        problems = "; ".join(_problem(e) for e in exc.errors())
        raise PlanError(f"bad parameters for {name}: {problems}") from None


def described(action: Action) -> Action:
    """``action`` as the model planned it, its targets checked: an empty one ({"prompt": ""})
    is no target where the action may have none, else a PlanError asking for a description
    (not a locate of nothing that says "no element matches XPath None")."""
    cls = type(action)
    for field in locator_fields(cls):
        loc = getattr(action, field)
        if loc is not None and not (loc.prompt.strip() or loc.xpath or loc.bbox or loc.at):
            if not cls.model_fields[field].is_required():   # {"prompt": ""}: no target
                setattr(action, field, None)
                continue
            key = cls.model_fields[field].alias or field
            raise PlanError(f'bad parameters for {action.name}: {key}: the target has no '
                            'description; give {"prompt": "<the element>"}')
    return action


def _problem(error: Any) -> str:
    """One validation error as the model reads it: ``field: what is wrong`` (no field for a
    check of the whole action)."""
    where = ".".join(map(str, error["loc"]))
    message = error["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def tasks_for(action: Action) -> list[Task]:
    """A Locate task per locator field that is set, then the Action task."""
    tasks = [Task("locate", action, field=f) for f in locator_fields(type(action))
             if getattr(action, f) is not None]
    return tasks + [Task("action", action)]


def build_tasks(planned: PlannedAction, registry: dict[str, type[Action]]) -> list[Task]:
    """The tasks for one planned action; PlanError when the action or its params are wrong."""
    return tasks_for(described(make_action(planned.type, planned.params, registry)))


Locator = Callable[[Locate], LocateHit]


@dataclass
class TaskRunner:
    """Runs a task list in order; stops at the first failure. Infra errors propagate (the
    case is an error); test-level failures mark the task failed and become feedback."""

    locate: Locator
    ctx: ActionContext
    on_acted: Callable[[], None] = lambda: None
    done: list[Task] = field(default_factory=list)
    remember_boxes: bool = True     # read what a box-only target hit, for the plan cache
    keep: Callable[[str], bool] = lambda text: True     # ... keeping only strings this takes

    def run(self, tasks: list[Task]) -> Task | None:
        """Run ``tasks``; return the failed task, or None when all finished."""
        for task in tasks:
            task.status = "running"
            self.done.append(task)
            try:
                if task.kind == "locate":
                    loc: Locate = getattr(task.action, task.field or "")
                    task.hit = self.locate(loc)
                    loc.rect, loc.tier = task.hit.rect, task.hit.tier
                    loc.disabled = not getattr(task.hit, "enabled", True)
                    loc.node = getattr(task.hit, "node", None)
                    if loc.box_only and self.remember_boxes:
                        remember_box(loc, self.ctx.device, self.keep)
                else:
                    task.output = task.action.run(self.ctx)
                    self.on_acted()
            except (InfraError, KeyboardInterrupt):
                task.status = "failed"
                raise
            except TestFailure as exc:
                task.status, task.error, task.exception = "failed", _msg(exc), exc
                if task.kind == "action":   # it may have touched the device before failing
                    self.on_acted()
                return task
            except FarmError as exc:   # NeedsModel, CaseTimeout: not the model's to fix
                task.status, task.error = "failed", _msg(exc)
                raise
            task.status = "finished"
        return None


def remember_box(loc: Locate, device: Device,
                 keep: Callable[[str], bool] = lambda text: True) -> None:
    """What the plan cache replays a box-only target by (`as_planned`), read now, before the
    action changes the screen: the XPath of the element its box hit, else the box itself with
    the screen's size; and what that element was (`element_seen`: strings ``keep`` takes),
    which a replay checks it still finds there."""
    from farm.cache.locate import element_seen
    assert loc.rect is not None
    try:
        tree = device.hierarchy()
        loc.anchor = anchor(tree, loc.rect, device.query_xpath, keep) if tree is not None \
            else None
        loc.was = element_seen(tree, loc.rect, keep) if tree is not None else None
    except StepFailed:         # no tree to read here: the box is what there is
        loc.anchor, loc.was = None, None
    loc.at = None if loc.anchor else BoxAt(rect=loc.rect.as_list(), screen=list(device.size()))


def _msg(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    cands = [c for c in getattr(exc, "candidates", None) or () if not said_in(c, text)]
    return text + (" (seen: " + "; ".join(cands[:5]) + ")" if cands else "")
