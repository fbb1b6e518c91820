"""The plan cache: the concrete actions an ``ai`` step ended with (Midscene's plan cache),
replayed with no model call when the step runs again.

Each replayed action runs the same way a planned one does (its Locate tasks through the
locator chain, whose locate cache usually answers, then the action). When one fails (its
target is gone), the replay stops there and the agent plans again from the current screen,
told which steps are done; in a writing mode the entry is rewritten with what worked. A replay
failure is never a pass: either the model finishes the task or the step fails.

With no model configured, a step whose plan is cached replays it all the same; where a
replayed action fails (the step would be planned again) the step is skipped with NeedsModel,
saying that the cached plan did not fit the screen at which step, and why.

A target the model gave only as a box (AutoGLM, UI-TARS: no description) is replayed by what
the box hit when it was planned: the XPath of that element (the XPath tier answers), or, where
no element there could be named by one, the box itself on a screen of the same size. What
it hit is kept too, and a replay that finds another element there stops (planned again): a
row of a list reordered; an icon (it showed no text) whose id now names an element that shows
text or is far from its size, by the locate cache's rule (`farm.cache.locate.changed`).

An entry is kept only if its case passes: a plan whose step "passed" in a case that then
failed (a later check saw the wrong screen) is not stored, and a replayed one is dropped, so
the next run asks the model again instead of replaying a wrong flow forever.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

from farm.agent.actions import Locate
from farm.agent.locator import LocateHit
from farm.agent.tasks import PlanError, make_action, tasks_for
from farm.cache.case import CaseCache
from farm.cache.locate import (RoleChanged, changed, has_twins, positional, seen_again,
                               seen_from, seen_text)
from farm.cache.xpaths import node_for_rect, on_screen
from farm.devices.base import Rect
from farm.errors import LocateError, NeedsModel, StepFailed

if TYPE_CHECKING:
    from farm.agent.loop import ActLoop, ActResult
    from farm.agent.tasks import TaskRunner

log = logging.getLogger("farm.cache")

# a step's `CacheUse.plan` (and farm_cache_requests_total{cache="plan"}'s result): hit | miss |
# replanned | replay-failed (no model to plan where it did not fit) | replay-error
REPLAY_ERROR = "replay-error"       # the replay ended in an error (the case's error says which)
# a plan replayed whole from an entry farm stored before it kept ``solved_with`` (~1,500
# commits before this): results.json's ``saved_unknown``; its replays, renewing the entry
# night after night, never add one (they ask no model)
OLDER_ENTRY = "solved by an older farm: its cache entry does not say what solving it cost"


class PlanCache:
    """One ai step's plan entry: the n-th use of its task text in the case."""

    def __init__(self, cache: CaseCache, task: str) -> None:
        self.cache, self.task = cache, task
        self.key = cache.slot("plan", task) if cache.usable() else None
        self._agent: Any = None
        self._before: Any = None            # the agent's usage before the step planned
        self._solved_with: dict[str, Any] | None = None     # a replayed entry's
        self._replayed = False
        self._device: Any = None            # the step's, whose screen an entry records
        self.misfit: tuple[int, str] | None = None   # the replayed step that failed, and why
        self.replanned: str | None = None   # the step's note when the model planned it again

    def replay(self, loop: "ActLoop", runner: "TaskRunner") -> bool:
        """Replay the cached actions; True when all of them ran (the step is done, no model
        call), False when there is no entry or one failed (the loop then plans from here)."""
        self._agent, self._device = loop.agent, runner.ctx.device
        usage = getattr(loop.agent, "usage", None)
        self._before = usage.copy() if usage is not None else None
        if self.key is None or not self.cache.reading:
            return False
        entry = self.cache.lookup(self.key)
        actions: list[dict[str, Any]] = _actions(entry)
        if entry is not None and not actions:
            log.info("cached plan for %r has no action to replay: the model is asked (it "
                     "judges the screen); the entry is removed", self.task)
            self.cache.forget(self.key)     # stored by an older farm, or by hand
            entry = None
        if entry is not None:
            self._solved_with = _solve_figures(entry.get("solved_with"))
        self.cache.count("plan", "miss" if entry is None else "hit")
        if entry is None:
            return False
        self.cache.note_used(self.key, "plan")     # dropped if the case fails
        self._replayed = True
        for i, planned in enumerate(actions, 1):
            since = self.cache.mark()       # (the actions before this one fitted)
            self.cache.replaying = True
            try:
                failed = _run_one(planned, loop, runner, entry.get("screen"))
            except Exception:
                # the replay ended in error at this action (a locate's model down, a lost
                # device, a timeout): not the "hit" a replay that ran whole is
                self.misfit = (i, "ended in error")
                self.cache.count("plan", REPLAY_ERROR)
                raise
            finally:
                self.cache.replaying = False
            if failed is not None:
                error, level = failed
                self.misfit = (i, error)
                self.cache.misfit(self.key, since)     # nothing this action used is kept
                if loop.models is None:     # no model to plan the rest: the step says so
                    self.cache.count("plan", "replay-failed")
                    log.log(level, "cached plan for %r: step %d of %d failed (%s); no model "
                            "to plan again", self.task, i, len(actions), error)
                    return False
                self.cache.count("plan", "replanned")
                self.replanned = (f"the cached plan failed at its step {i} of {len(actions)} "
                                  f"({error}) and was planned again")
                log.log(level, "cached plan for %r: step %d of %d failed (%s); planning again",
                        self.task, i, len(actions), error)
                loop.feedback(f"Step {i} of the remembered plan failed: {error}. The steps "
                              "done so far are listed; continue the task from this screen.")
                return False
        loop.result.message = entry.get("message") or ""
        self.cache.step.saved = _net(self._solved_with, self._spent()) \
            if self._solved_with else None
        if entry.get("solved_with") is None:    # (its renewals keep none: no model asked)
            self.cache.step.saved_unknown = OLDER_ENTRY
        return True

    def save(self, result: "ActResult") -> None:
        """Store (or rewrite) the entry after the step succeeded: kept when the case passes
        (`CaseCache.finish`), never from a case that failed. A step the model completed
        without an action is not stored: its pass was the model's judgement of the screen,
        which an empty replay would not repeat (it passed with nothing done or checked)."""
        if self.key is None:
            return
        if not result.actions:      # (a replayed plan that failed at its first action too)
            if self._replayed:
                self.cache.forget(self.key)
            return
        value: dict[str, Any] = {"actions": result.actions, "message": result.message}
        if self._device is not None and any(a.get("seen") for a in result.actions):
            value["screen"] = list(self._device.size())     # (what the sizes seen were on)
        solved_with = self._solved_with or self._spent()
        if solved_with:         # what a replay saves (`farm cache ls`)
            value["solved_with"] = solved_with
        self.cache.save(self.key, "plan", self.task, value)

    def _spent(self) -> dict[str, Any] | None:
        """What the model spent on the step since `replay`: its calls, tokens and cost (None
        when unknown); None when it was not asked."""
        usage = getattr(self._agent, "usage", None)
        if usage is None or self._before is None:
            return None
        spent = usage.minus(self._before)
        if not spent.calls:
            return None
        return {"calls": spent.calls, "tokens": spent.prompt_tokens + spent.completion_tokens,
                "cost_usd": None if spent.cost_unknown else round(spent.cost_usd, 6)}


def _net(solved: dict[str, Any], spent: dict[str, Any] | None) -> dict[str, Any]:
    """What a whole replay saved: what solving the step had cost (``solved``) less what the
    replay itself spent (``spent``: a target whose locate entry was stale, or missing, asked
    of a model tier again), never below nothing; with both figures, ``solved_with`` and
    ``replay_spent`` (nothing when the replay made no model call), as the README says a
    step's ``saved`` keeps them. A cost is known only when both are."""
    if not spent:
        spent = {"calls": 0, "tokens": 0, "cost_usd": 0.0}
    cost, paid = solved.get("cost_usd"), spent.get("cost_usd")
    return {"calls": max(0, solved["calls"] - spent["calls"]),
            "tokens": max(0, solved["tokens"] - spent["tokens"]),
            "cost_usd": None if cost is None or paid is None else round(max(0.0, cost - paid),
                                                                         6),
            "solved_with": dict(solved), "replay_spent": dict(spent)}


def _solve_figures(value: Any) -> dict[str, Any] | None:
    """A plan entry's ``solved_with`` (`PlanCache._spent`), or None when it is not farm's:
    counts that are no numbers (an entry edited by hand in a shared store) ended the run in
    an internal ValueError where its last line adds up what the replays saved."""
    if not isinstance(value, dict):
        return None
    calls, tokens, cost = value.get("calls"), value.get("tokens"), value.get("cost_usd")
    if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
               for n in (calls, tokens)):
        return None
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float))):
        cost = None     # (unknown: as a solve whose price was not known)
    return {"calls": calls, "tokens": tokens, "cost_usd": cost}


def replayable(entry: dict[str, Any] | None) -> bool:
    """Whether a plan entry has actions to replay (`PlanCache.replay` would run them)."""
    return bool(_actions(entry))


def _actions(entry: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The actions of a plan entry; [] when it has none, or they are not a list of objects
    (written by hand): read as no entry, not replayed in part."""
    actions = entry.get("actions") if entry is not None else None
    if isinstance(actions, list) and all(isinstance(a, dict) for a in actions):
        return actions
    return []


def _run_one(planned: dict[str, Any], loop: "ActLoop", runner: "TaskRunner",
             screen: Any = None) -> tuple[str, int] | None:
    """Run one cached action; None when it worked, else why not and how loudly farm.log says
    so (a warning when the app plainly moved an id to another element). ``screen``: the size
    of the screen the plan was made on (`replaying`)."""
    try:
        action = make_action(str(planned.get("type")), planned.get("params") or {},
                             loop.registry)
    except PlanError as exc:
        return str(exc), logging.INFO
    tasks = tasks_for(action)
    seen = planned.get("seen") if isinstance(planned.get("seen"), dict) else {}
    for task in tasks[:-1]:
        loc: Locate = getattr(action, task.field or "")
        alias = type(action).model_fields[task.field or ""].alias or task.field or ""
        loc.was = seen_from(seen.get(alias))
        if loc.box_only and loc.at is None:    # an entry from before box targets were kept
            return (f"{task.action.name} has no target to replay: the model gave only a box, "
                    "and what it hit was not recorded"), logging.INFO
    try:
        bad = replaying(runner, screen).run(tasks)
    except NeedsModel as exc:       # no model: a target the zero-token tiers did not find
        return f"{tasks[-1].label} failed: {exc.what or exc}", logging.INFO
    if bad is not None:
        return (f"{bad.label} failed: {bad.error}",
                logging.WARNING if isinstance(bad.exception, (ElementChanged, RoleChanged))
                else logging.INFO)
    loop.done(tasks, tasks[-1].label)
    return None


def replaying(runner: "TaskRunner", screen: Any = None) -> "TaskRunner":
    """``runner``, with a box-only target found where the plan remembers its box (when the
    screen has the size it had then); every other target through the runner's locate. A
    target the model gave as a box, found again by its place alone (the box, an XPath of
    positions: a row of a list), must still hit the element it hit then (`seen_again`); so
    must one an id or its text names when others alike are on screen (every row's button:
    an id numbered by row is a place too); otherwise it is that element, unless it showed no
    text (an icon) and now shows text or is far from its size (`_check_seen`; ``screen``: the
    size of the screen it was seen on, where the plan recorded it)."""
    def locate(loc: Locate) -> LocateHit:
        hit = _remembered(loc)
        if loc.was is not None and not loc.prompt:
            _check_seen(loc, hit, runner.ctx.device, screen, runner.keep)
        return hit

    def _remembered(loc: Locate) -> LocateHit:
        if not (loc.box_only and loc.at is not None):
            return runner.locate(loc)
        screen = list(runner.ctx.device.size())
        rect = Rect(x=loc.at.rect[0], y=loc.at.rect[1], width=loc.at.rect[2],
                    height=loc.at.rect[3])
        if loc.at.screen != screen or not on_screen(rect, (screen[0], screen[1])):
            raise LocateError(f"the remembered box {loc.at.rect} was on a "
                              f"{loc.at.screen[0]}×{loc.at.screen[1]} screen; this one is "
                              f"{screen[0]}×{screen[1]}")
        return LocateHit(rect, "cache", f"the remembered box {loc.at.rect}")
    return replace(runner, locate=locate)


class ElementChanged(LocateError):
    """A replayed box target's element plainly is another one now (`_check_seen`)."""


def _check_seen(loc: Locate, hit: LocateHit, device: Any, screen: Any = None,
                keep: Callable[[str], bool] = lambda text: True) -> None:
    """LocateError when what ``hit`` found is not the element the box hit when planned (the
    list was reordered, another button took the place): the model plans again from here.
    `ElementChanged` when that element showed no text (an icon) and now shows text (strings
    ``keep`` takes) or is far from its size, whatever names it: the app moved the grey gear
    icon's id to a "Delete everything" button (the locate cache's rule, `changed`)."""
    try:
        tree = device.hierarchy()
    except StepFailed:
        return                  # no tree to compare with: replayed as before
    if tree is None or loc.was is None:
        return
    node = node_for_rect(tree, hit.rect)
    how = None if node is None else changed(
        {"tier": "plan-bbox", "element": loc.was, "screen": screen}, node, tree, device.size(),
        keep)
    if how is not None:
        raise ElementChanged(f"{loc.describe()} now hits {how[1]}; when the step was planned "
                             f"it hit {how[0]}")
    if loc.at is None and not positional(loc.xpath or ""):
        # an id or text names it: that element, unless others alike are on screen (every
        # row's "Add to cart", ids numbered by row: add-1 is another row's after a reorder)
        if node is None or not has_twins(node, tree):
            return
    now = seen_again(loc.was, tree, hit.rect)
    if now is not None:
        raise LocateError(f"{loc.describe()} now hits {now}, not what it hit when the step "
                          f"was planned ({seen_text(loc.was)})")

