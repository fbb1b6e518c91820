"""CaseCache: one case attempt's view of the cache store.

It knows the namespace (suite/case, platform, app version), the mode, and how often each
prompt has been used so far (the n-th use of a prompt is its n-th entry). `CaseCache.count`
is the one place where a lookup's result (hit, miss, stale, replanned) is recorded.
Plan entries are kept only from an attempt that passed (or from its steps that passed before a
Ctrl-C stopped it), and the entries a failed attempt used
or wrote (plans and locates) are dropped: `CaseCache.finish`, at the case's end.
A store that fails (Redis away, disk full) turns the cache off for the attempt: the cache only
ever saves time, it never fails a case. The run says so once on stderr (`warn_unavailable`, per
store), and each step that wanted the cache records it as ``unavailable``, not as a miss: a
mistyped FARM_CACHE_URL must not look like a cold cache.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
import weakref
from typing import Any, Callable

from farm import metrics
from farm.cache.keys import Kind, Namespace, reads, withheld_key, writes
from farm.cache.store import CacheStore, Entry, StoreReadOnly
from farm.results import CacheUse
from farm.usage import Usage

log = logging.getLogger("farm.cache")

DEFAULT_TTL = 30 * 86400.0
UNAVAILABLE = "unavailable"     # a step's `CacheUse.mode` when the store failed it
_ENDED = {"failed": "the case failed", "error": "the case ended with an error",
          "interrupted": "the case was interrupted", "skipped": "the case was skipped"}


def _entries(n: int) -> str:
    return f"{n} entry" if n == 1 else f"{n} entries"


class CaseCache:
    def __init__(self, store: CacheStore, ns: Namespace, mode: str,
                 mask: Callable[[str], str] = lambda text: text, package: str | None = None,
                 ttl: float | None = DEFAULT_TTL) -> None:
        self.store, self.ns, self.mode = store, ns, mode
        self.mask, self.package, self.ttl = mask, package, ttl
        self._uses: dict[tuple[str, str], int] = {}
        self._step_enabled = True
        self.step = CacheUse(mode=mode)
        self.broken = False
        # plan entries are kept only if the attempt passes (`finish`): those it wrote wait
        # here with the step's CacheUse that counted them; the entries it replayed (plans) or
        # used or wrote (locates) are remembered, to drop if it fails
        self._pending: dict[str, tuple[Entry, CacheUse, int]] = {}   # (…, its step's number)
        self._steps = 0                     # steps begun so far: the last is the one running
        self._used: dict[Kind, set[str]] = {"plan": set(), "locate": set()}
        # the steps that wrote each locate entry: one dropped at the end is not "written"
        self._wrote: dict[str, list[CacheUse]] = {}
        self._last_hit: str | None = None   # the locate entry the current step hit last
        # locate lookups of this step that found no entry: misses once the step ends, unless
        # the text tier found their target (`not_missed`)
        self._missed: dict[str, None] = {}
        # the locate entries used or written, in order (`mark`), and the entries a replayed
        # plan that did not fit its screen used or wrote (`misfit`): never kept
        self._touched: list[str] = []
        self._misplaced: set[tuple[Kind, str]] = set()
        self.replaying = False      # a cached plan's actions run (`farm.cache.plan`)
        self._ended: list[CacheUse] = []     # the steps' that ended (`_no_writes` amends them)
        self.refused: str | None = None      # why the store took no write (`_no_writes`)
        self._refused_at = 0                 # ... in which step (its number)
        # the case's model spend so far (the Agent's Usage), set by the runner: what a model
        # tier's find cost, kept in its locate entry (`found_with`) as what a hit saves
        self.usage: Callable[[], Usage] | None = None

    # ---- per step ----------------------------------------------------------------------------
    def begin_step(self, cacheable: bool = True) -> None:
        """A step starts: ``cacheable: false`` keeps this step out of the cache."""
        self._step_enabled = cacheable
        self.step = CacheUse(mode=self.mode if cacheable else "off",
                             writes_refused=self.refused if cacheable else None)
        self._last_hit = None
        self._steps += 1

    def end_step(self) -> CacheUse | None:
        """What the cache did during the step (None when it did nothing)."""
        for _ in self._missed:      # (the step's cell counted them as they came)
            metrics.cache_request("locate", "miss")
        self._missed.clear()
        used, self.step = self.step, CacheUse(mode=self.mode, writes_refused=self.refused)
        self._step_enabled = True
        self._ended.append(used)
        if used.plan:       # the plan lookup's one result: a replayed plan that failed is
            metrics.cache_request("plan", used.plan)      # replanned, not also a hit
        refused_here = used.writes_refused is not None and self._refused_at == self._steps
        return used if used.touched or used.mode == UNAVAILABLE or refused_here else None

    @property
    def active(self) -> bool:
        return self._step_enabled and not self.broken and self.mode != "off"

    def usable(self) -> bool:
        """`active`, asked by a step about to use the cache: when the store has failed, the
        step records that the cache was unavailable to it."""
        if self.broken and self._step_enabled and self.mode != "off":
            self.step.mode = UNAVAILABLE
        return self.active

    @property
    def reading(self) -> bool:
        return self.active and reads(self.mode)

    @property
    def writing(self) -> bool:
        return self.active and writes(self.mode)

    # ---- entries -----------------------------------------------------------------------------
    def slot(self, kind: Kind, prompt: str) -> str:
        """The key of the next use of ``prompt`` in this attempt."""
        n = self._uses.get((kind, prompt), 0)
        self._uses[(kind, prompt)] = n + 1
        return self.ns.key(kind, prompt, n)

    def uses(self, kind: Kind, prompt: str) -> int:
        """How many times ``prompt`` was used so far in this attempt (its next `slot`'s n)."""
        return self._uses.get((kind, prompt), 0)

    def lookup(self, key: str) -> Entry | None:
        """The stored entry (None: none, not reading, or the store failed). The caller
        decides what it means and reports it once through `count`."""
        if not self.reading:
            return None
        try:
            return self.store.get(key)
        except Exception as exc:   # the store is an optimisation: never fail a case over it
            self._broke(exc)
            return None

    def missed(self, key: str) -> None:
        """A locate lookup found no entry: a miss in the step's cache cell now, and in
        farm_cache_requests_total as the step ends (once per key), unless `not_missed`."""
        if key not in self._missed and not self.broken:
            self.step.misses += 1
            self._missed[key] = None
        elif self.broken:
            self.step.mode = UNAVAILABLE

    def not_missed(self, key: str | None) -> None:
        """The text tier found the target of a lookup that found no entry: not a miss
        (farm_cache_requests_total, the step's cache cell). Its entry is left to that tier
        (`LocateCacheTier.applies`): no later run counts a lookup for it either, and a suite
        found by page text read a 0% hit ratio for ever."""
        if key in self._missed:
            del self._missed[key]
            self.step.misses -= 1

    def count(self, kind: Kind, result: str) -> None:
        """The one place a lookup's result is recorded (instrument metrics here). Locate:
        hit | miss | stale (found, but its XPath no longer selects one element on screen, or
        that element is no longer what the prompt means).
        Plan: hit | miss | replanned (replayed, a step failed, the model planned the rest) |
        replay-failed (no model to plan the rest) | replay-error (the replay raised).
        After the store failed, a lookup found nothing because it could not look: recorded
        as unavailable, never as a miss."""
        if self.broken:
            self.step.mode = UNAVAILABLE
            return
        if kind == "plan":
            self.step.plan = result     # its metric when the step ends (`end_step`)
            return
        metrics.cache_request(kind, result)
        if result in ("hit", "miss", "stale"):
            attr = {"hit": "hits", "miss": "misses", "stale": "stale"}[result]
            setattr(self.step, attr, getattr(self.step, attr) + 1)

    def save(self, key: str, kind: Kind, prompt: str, value: Entry) -> bool:
        """Store an entry (in a writing mode); never one that holds a secret value. A plan
        entry is stored when the attempt ends, and only if it passed (`finish`)."""
        if not self.writing:
            return False
        entry = {"type": kind, "prompt": prompt, **value, "updated": time.time()}
        if not self.safe(json.dumps(entry, ensure_ascii=False)):
            log.warning("not cached: the %s entry for %r would hold a secret value", kind, prompt)
            if kind == "plan":      # `farm cache export` says why the plan is missing
                self._put(withheld_key(key), {"type": "withheld", "updated": time.time()})
            return False
        if kind == "plan":
            self._pending[key] = (entry, self.step, self._steps)
        elif not self._put(key, entry):
            return False
        else:
            self._used["locate"].add(key)
            self._last_hit = key
            self._touched.append(key)
            self._wrote.setdefault(key, []).append(self.step)
        self.step.written += 1
        return True

    def _put(self, key: str, entry: Entry) -> bool:
        if not writes(self.mode):
            return False        # the store turned out to take no writes
        try:
            self.store.put(key, entry, self.ttl)
        except StoreReadOnly as exc:
            self._no_writes(exc)
            return False
        except Exception as exc:
            self._broke(exc)
            return False
        return True

    def spent_so_far(self) -> Usage | None:
        """A copy of the case's model spend now (None when the runner set no `usage`)."""
        return self.usage().copy() if self.usage is not None else None

    def spent_since(self, before: Any) -> dict[str, Any] | None:
        """What the model spent since ``before`` (`spent_so_far`): its calls, tokens and
        cost (None when unknown); None when it made no call or nothing can tell."""
        if self.usage is None or not isinstance(before, Usage):
            return None
        spent = self.usage().minus(before)
        if not spent.calls:
            return None
        return {"calls": spent.calls, "tokens": spent.prompt_tokens + spent.completion_tokens,
                "cost_usd": None if spent.cost_unknown else round(spent.cost_usd, 6)}

    def saved_locate(self, cost: dict[str, Any]) -> None:
        """A locate entry a model tier found was used instead of asking the model again: the
        step's ``saved`` adds what finding it cost (``locates``: how many such hits; tokens
        and cost None once one of them is unknown)."""
        was = self.step.saved or {"calls": 0, "tokens": 0, "cost_usd": 0.0, "locates": 0}
        tokens, cost_usd = was.get("tokens"), was.get("cost_usd")
        self.step.saved = {
            "calls": int(was.get("calls") or 0) + int(cost.get("calls") or 0),
            "tokens": None if tokens is None or cost.get("tokens") is None
            else tokens + cost["tokens"],
            "cost_usd": None if cost_usd is None or cost.get("cost_usd") is None
            else round(cost_usd + cost["cost_usd"], 6),
            "locates": int(was.get("locates") or 0) + 1}

    def note_used(self, key: str, kind: Kind = "locate") -> None:
        """The entry ``key`` was used in this attempt: a plan replayed, a locate hit (see
        `finish`)."""
        self._used[kind].add(key)
        if kind == "locate":
            self._last_hit = key
            self._touched.append(key)

    def mark(self) -> int:
        """Where a replay starts in the locate entries used or written (`misfit`)."""
        return len(self._touched)

    def misfit(self, plan_key: str, since: int) -> None:
        """A replayed plan did not fit the screen: its entry and the locate entries used or
        written since ``since`` (`mark`, taken as the action that did not fit began: a stale
        `Tap "Log in"` that the text tier matched to a paragraph) are not kept, whatever the
        attempt's end (`finish`); those of the actions before it, which fitted ("tap Menu"
        before a "tap Settings" that did not), are, as the attempt's end says; so is the
        plan's rewrite, if the model finished the step and the case passed."""
        self._misplaced.add(("plan", plan_key))
        self._misplaced.update(("locate", key) for key in self._touched[since:])

    def finish(self, status: str, error_kind: str | None = None,
               error_message: str | None = None) -> None:
        """The attempt ended with ``status``. Plan entries it wrote are stored only if it
        passed, or, interrupted, those of the steps that passed before the one it stopped in
        (`_keep_passed`); otherwise they are not kept. When it failed or ended with an error, the
        entries it used are dropped too (in a writing mode): the plans it replayed and the
        locate entries it hit or wrote. What led to a failed case must not be replayed every
        night: the next run asks the model, or the text match, again. (Interrupted or skipped
        says nothing against them: kept; so does an error of ``error_kind`` an InfraError,
        the device or the model broke: its retry, and the next night, replay them instead of
        paying the model for the whole case again.) Neither is the locate entry whose element
        the failing step found and then could not tap because something covered it (a modal,
        a cookie banner: `covered`): the cover is the page's fault, the entry was right.
        Said in farm.log."""
        pending, self._pending = self._pending, {}
        used, self._used = self._used, {"plan": set(), "locate": set()}
        if self._last_hit and covered(error_kind, error_message) and \
                self._last_hit in used["locate"]:
            used["locate"].discard(self._last_hit)
            log.info("locate cache entry used by the failing step kept: it found the target, "
                     "which something covered (%s)", _cover_of(error_message or ""))
        wrote, self._wrote = self._wrote, {}
        misplaced, self._misplaced, self._touched = self._misplaced, set(), []
        dropped: set[str] = set()       # what `_finish` dropped: not dropped (said) twice
        try:
            self._finish(status, error_kind, pending, used, wrote, misplaced, dropped)
        finally:
            self._drop_misplaced({(kind, key) for kind, key in misplaced
                                  if key not in dropped}, pending, wrote, status)

    def _finish(self, status: str, error_kind: str | None,
                pending: dict[str, tuple[Entry, CacheUse, int]], used: dict[Kind, set[str]],
                wrote: dict[str, list[CacheUse]], misplaced: set[tuple[Kind, str]],
                dropped: set[str]) -> None:
        if status == "passed":
            self._store_pending(pending)
            self._keep_alive(sorted((used["plan"] | used["locate"])
                                    - {key for _, key in misplaced}))
            return
        if status == "interrupted":
            pending = self._keep_passed(pending)
        why = _ENDED.get(status, f"the case ended {status}")
        for _, use, _ in pending.values():
            use.written -= 1
        if pending:
            log.info("plan cache: %s not kept: %s", _entries(len(pending)), why)
        if status == "error" and _environment_broke(error_kind):
            log.info("cache entries used in this attempt kept: it ended with %s, which says "
                     "nothing against them", error_kind)
        elif status in ("failed", "error") and writes(self.mode) and not self.broken:
            dropped.update(used["plan"] | used["locate"])
            self._drop_used(used, wrote, why)

    def _drop_misplaced(self, misplaced: set[tuple[Kind, str]],
                        pending: dict[str, tuple[Entry, CacheUse, int]],
                        wrote: dict[str, list[CacheUse]], status: str) -> None:
        """Drop what a replay that did not fit used or wrote (`misfit`), but a plan the
        model planned again in its place and that was kept (the case passed)."""
        if not misplaced or not writes(self.mode) or self.broken:
            return
        kept = {key for key, (_, _, step) in pending.items()
                if status == "passed" or (status == "interrupted" and step < self._steps)}
        used: dict[Kind, set[str]] = {"plan": set(), "locate": set()}
        for kind, key in misplaced:
            if key not in kept:
                used[kind].add(key)
        self._drop_used(used, wrote, "a replayed plan did not fit the screen")

    def _store_pending(self, pending: dict[str, tuple[Entry, CacheUse, int]]) -> None:
        for key, (entry, use, _) in pending.items():
            if self.broken or not self._put(key, entry):
                use.written -= 1

    def _keep_passed(self, pending: dict[str, tuple[Entry, CacheUse, int]]
                     ) -> dict[str, tuple[Entry, CacheUse, int]]:
        """An interrupted attempt: the plans of the steps that ended before the one it was
        interrupted in (the last begun: a Ctrl-C between steps stops the next one) passed,
        and are stored, so the next run does not pay the model for them again; the rest
        (that step's own) are returned, not kept."""
        passed = {key: p for key, p in pending.items() if p[2] < self._steps}
        self._store_pending(passed)
        if passed:
            log.info("plan cache: %s of the steps that passed kept: the case was interrupted "
                     "after them", _entries(len(passed)))
        return {key: p for key, p in pending.items() if key not in passed}

    def _keep_alive(self, keys: list[str]) -> None:
        """The entries a passing attempt used live `ttl` more seconds from now (in a writing
        mode): a case replayed every night keeps its entries, where they all expired a month
        after they were written and that night paid the model for the whole suite."""
        if not keys or self.ttl is None or not writes(self.mode) or self.broken:
            return
        try:
            self.store.touch(keys, self.ttl)
        except StoreReadOnly as exc:
            self._no_writes(exc)
        except Exception as exc:
            self._broke(exc)

    def _drop_used(self, used: dict[Kind, set[str]], wrote: dict[str, list[CacheUse]],
                   why: str) -> None:
        """Drop the entries ``used``; a locate entry a step wrote and that is gone now is no
        longer counted as written by that step (results.json and the report said "1 written"
        of an entry farm.log said was dropped, and `farm cache ls` did not list)."""
        for kind, verb, then in (("plan", "replayed", "asks the model again"),
                                 ("locate", "used", "locates them again")):
            dropped = 0
            for key in sorted(used[kind]):
                gone = self._drop(key)
                dropped += gone
                for use in wrote.get(key, []) if gone else []:
                    use.written -= 1
            if dropped:
                log.info("%s cache: %s %s in this attempt dropped: %s (the next run %s)",
                         kind, _entries(dropped), verb, why, then)

    def _drop(self, key: str) -> int:
        if not writes(self.mode):
            return 0
        try:
            return self.store.delete(key)      # a full key: the prefix of itself alone
        except StoreReadOnly as exc:
            self._no_writes(exc)
            return 0
        except Exception as exc:
            self._broke(exc)
            return 0

    def forget(self, key: str) -> None:
        """Remove the entry ``key`` now (in a writing mode): one that must not be replayed
        whatever the attempt's end (a plan with no action)."""
        if self.writing:
            self._drop(key)

    def safe(self, text: str) -> bool:
        """Whether ``text`` may be stored (holds no secret value)."""
        return self.mask(text) == text

    def _no_writes(self, exc: StoreReadOnly) -> None:
        """The store reads but takes no writes: the rest of the attempt runs read-only (its
        later steps still replay what the store holds), said once per store on stderr."""
        was, self.mode = self.mode, "read-only"
        self.refused, self._refused_at = self.mask(str(exc))[:300], self._steps
        if self._step_enabled:
            self.step.mode = self.mode
        # every step of the attempt says so: one that ended before (a replay kept alive
        # at the case's end, `_keep_alive`) said "read-write" of a store that took nothing
        for use in (*self._ended, self.step):
            if use.mode in (was, self.mode):
                use.writes_refused = self.refused
        log.warning("cache store %s takes no writes (%s); this case reads it and writes "
                    "nothing", self.store.where, self.mask(str(exc))[:300])
        with _warned_lock:
            if self.store in _warned_read_only:
                return
            _warned_read_only.add(self.store)
        print(f"farm: warning: {self.mask(str(exc))[:300]}: cases read the cache and write "
              "nothing to it; run with --cache read-only to say so", file=sys.stderr,
              flush=True)

    def _broke(self, exc: BaseException) -> None:
        if not self.broken:
            why = f"{type(exc).__name__}: {self.mask(_urls_masked(str(exc)))[:300]}"
            log.warning("cache store %s failed (%s); caching is off for this case",
                        self.store.where, why)
            warn_unavailable(self.store, why, exc)
        self.broken = True
        if self._step_enabled and self.mode != "off":
            self.step.mode = UNAVAILABLE


COVERED = " is covered by "   # a tap's target under something else (`farm.agent.action_base`)


def covered(error_kind: str | None, message: str | None) -> bool:
    """Whether a case ended because its step's target was found but covered (a modal's
    backdrop): a StepFailed saying so."""
    return error_kind == "StepFailed" and bool(message) and COVERED in str(message)


def _cover_of(message: str) -> str:
    """What covered the target, from the step's error (a line of farm.log)."""
    return message.split(COVERED, 1)[-1].split(":", 1)[0][:120]


def _environment_broke(error_kind: str | None) -> bool:
    """Whether an error of class ``error_kind`` (a result's ``error.kind``) is the device's,
    the model's or the broker's (an InfraError), not the flow's."""
    if error_kind is None:
        return False
    from farm import errors
    from farm.attempts import error_class
    return issubclass(error_class(error_kind), errors.InfraError)


_warned: "weakref.WeakSet[object]" = weakref.WeakSet()
_warned_lock = threading.Lock()
_warned_read_only: "weakref.WeakSet[object]" = weakref.WeakSet()


def warn_unavailable(store: CacheStore, why: str, exc: BaseException | None = None) -> None:
    """Say on stderr, once per store (a run opens one), that it failed and cases run uncached
    (a corrupt file: which, and the command that fixes it); farm.log has a line per case."""
    from farm.cache.sqlite_store import CorruptStore
    with _warned_lock:
        if store in _warned:
            return
        _warned.add(store)
    if isinstance(exc, CorruptStore):
        print(f"farm: warning: {exc}; cases run uncached", file=sys.stderr, flush=True)
        return
    say_unavailable(store.where, why)


def say_unavailable(where: str, why: str) -> None:
    """The stderr line for a cache store at ``where`` that failed (or never opened); a URL
    in ``why`` has its password masked."""
    why = _urls_masked(why)
    setting = ("FARM_CACHE_URL (or the broker URL)" if "://" in where
               else "FARM_STATE_DIR (its cache.db)")
    print(f"farm: warning: cache store {where} unavailable ({why}): cases run uncached; "
          f"check {setting}, or run with --cache off", file=sys.stderr, flush=True)


def _urls_masked(text: str) -> str:
    """``text`` with the credentials of any URL in it masked (a driver may quote its URL)."""
    from farm.config import mask_url
    return re.sub(r"\b[a-z][a-z0-9+.-]*://\S+", lambda m: mask_url(m[0]), text)

