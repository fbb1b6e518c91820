"""Midscene's ``javascript:`` step: evaluate the suite's code in the page, return its value."""

from __future__ import annotations

import math
import re
from typing import Any, Callable

from farm.devices.web.failures import lost
from farm.devices.web.page_wait import Errors
from farm.devices.web.scripts import RUN_JS, STRINGIFY_JS
from farm.errors import ScriptSyntaxError, StepFailed
from farm.text import clean, clean_json, first_line

# Strip string literals before looking for `return`, so "#return-btn" does not count.
_STRINGS = re.compile(r"'(?:\\.|[^'\\])*'|\"(?:\\.|[^\"\\])*\"|`(?:\\.|[^`\\])*`", re.S)
_RETURN = re.compile(r"\breturn\b")


def producers(code: str) -> list[str]:
    """The async functions to try in turn, each called with the code's source: the code as an
    expression (what Midscene's page.evaluate does); if that does not parse, a function body
    when it has a top-level ``return``, else a script for indirect eval (value of the last
    statement). Each is made in the page's global scope (`page_function`)."""
    expr = code.strip().rstrip(";").strip() or "undefined"
    has_return = bool(_RETURN.search(_STRINGS.sub("''", code)))
    return ["async () => (\n" + expr + "\n)",
            "async () => {\n" + code + "\n}" if has_return
            else "async (source) => (0, eval)(source)"]


def page_function(producer: str) -> str:
    """The page function of the step: run_script.js given ``producer``, which is evaluated
    outside it, so the suite's code sees the page's globals, not run_script.js's own names
    (``code``, ``run``, ``v``: a page's <input id="code"> read as undefined, its own run()
    called farm's and overflowed the stack)."""
    return "(" + RUN_JS + ")(" + STRINGIFY_JS + ", \n" + producer + "\n)"


# A script whose page could not answer at its limit (its code still runs: a busy loop holds
# the page's main thread, and with it run_script.js's own timer) is stopped from Python this
# long past the limit: the page's own timer answers first whenever it can.
STOP_GRACE_S = 0.2


class Stopper:
    """Runtime.terminateExecution sent over the page's DevTools session ``after_s`` from now,
    from Playwright's event loop (it runs while the device thread waits for the script): a
    script still running then is stopped (V8 unwinds it; the page goes on, its next scripts
    run). ``fired`` says it was sent; `cancel` once the script has answered. Without a
    session or an event loop (no sync Playwright page) it does nothing."""

    def __init__(self, page: Any, cdp: Any, after_s: float) -> None:
        from farm.devices.web.capture import _loop_of

        self.fired = False
        self._handle = None
        loop = getattr(page, "_loop", None)
        if cdp is not None and loop is not None and _loop_of(cdp, page):
            self._handle = loop.call_later(after_s, self._fire, cdp, page)

    def _fire(self, cdp: Any, page: Any) -> None:
        import asyncio

        from farm.devices.web.capture import _drop, _sent

        self.fired = True
        task = asyncio.ensure_future(_sent(cdp, page, "Runtime.terminateExecution", None),
                                     loop=page._loop)
        task.add_done_callback(_drop)       # (a page gone meanwhile: nothing to stop)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()


def run_script(page: Any, code: str, timeout_s: float, errors: Errors,
               killed: Callable[[], bool], said: list[str] | None = None,
               cdp: Any = None) -> Any:
    """Evaluate ``code`` in ``page``; promises are awaited up to ``timeout_s``; a script still
    running then, or one that threw, is StepFailed (the Agent makes the first a CaseTimeout
    when the case's time, not the step's own ``timeout``, was the limit); a script that
    navigated away returns None. Code that holds the page's main thread past the limit (a
    busy loop) is stopped over ``cdp``, the page's DevTools session (`Stopper`), and fails the
    same way. What JSON cannot hold (a BigInt, a DOM element) is kept as a string, and
    ``said`` (the step's notes) gets a line saying so (`value_notes`)."""
    # rounded up, so a limit that is the case's deadline ends past it (the Agent then calls
    # it a case timeout, farm.agent.api)
    ms = max(1, math.ceil(timeout_s * 1000))
    late = f"javascript did not finish within {timeout_s:g}s"
    stopper = Stopper(page, cdp, ms / 1000 + STOP_GRACE_S)
    try:
        res = _evaluated(page, code, ms, errors, killed, stopper, late)
    finally:
        stopper.cancel()
    if res is None:
        return None
    if res.get("timeout"):
        raise StepFailed(late)
    if "error" in res:
        raise StepFailed(f"javascript error: {res['error']}")
    if said is not None:
        said.extend(value_notes(res.get("notes") or []))
    if "str" in res:
        return clean(res["str"])
    return clean_json(res["json"])


def _evaluated(page: Any, code: str, ms: int, errors: Errors, killed: Callable[[], bool],
               stopper: Stopper, late: str) -> Any:
    """run_script.js's answer for ``code``, each of its `producers` tried in turn; None when
    the script navigated away."""
    from playwright.sync_api import Error as PlaywrightError

    forms = producers(code)
    for i, producer in enumerate(forms):
        with errors("javascript"):
            try:
                return clean(page.evaluate(page_function(producer), [ms, code]))
            except PlaywrightError as exc:
                msg = str(exc)
                if lost(exc) or killed():
                    raise  # errors() makes it DeviceLost
                if stopper.fired:   # (V8 unwound it: Playwright says its context went)
                    raise StepFailed(f"{late}: its code still held the page (a loop that "
                                     "does not end?); farm stopped it") from None
                if "SyntaxError" in msg and i + 1 < len(forms):
                    continue  # parse error, nothing ran: try the next form
                if "Execution context was destroyed" in msg:
                    return None  # the script navigated away: that was its effect
                # a parse error in the last form, or anything else: the suite's code
                detail = first_line(exc).removeprefix("Page.evaluate: ")
                failed = ScriptSyntaxError if "SyntaxError" in msg and _unparsable(page, code) \
                    else StepFailed     # (not JSON.parse's SyntaxError, which data may cure)
                raise failed(f"javascript error: {detail}") from exc
    return None


# Whether source parses as an async function's body (what the `producers` accept, the widest
# form); an error of another kind (a CSP refusing eval) says nothing: "parses".
_PARSES_JS = """source => { try { new (Object.getPrototypeOf(async function () {}).constructor)(
  source); return true } catch (e) { return !(e instanceof SyntaxError) } }"""


def _unparsable(page: Any, code: str) -> bool:
    """Whether ``code`` does not parse (its SyntaxError is the code's, the same on every
    attempt) rather than threw one as it ran (JSON.parse of a reply)."""
    from playwright.sync_api import Error as PlaywrightError
    try:
        return page.evaluate(_PARSES_JS, code) is False
    except PlaywrightError:
        return False


# What run_script.js kept as a string, and how a step note says it (the first one's text).
_KEPT = {
    "bigint": "a BigInt ({first}n), which JSON has not: kept as the string \"{first}\"",
    "element": "a DOM element, which is not JSON: kept as the text '{first}' (return what the "
               "case needs of it: el.textContent, el.value, …)",
    "node": "a DOM node, which is not JSON: kept as the text '{first}'",
    "circular": "a reference back to an object holding it (under {first!r}), which JSON cannot "
                "write: kept as the string \"[circular]\"",
    "unwritable": "no value JSON can write ({first}): kept as the text String(value) gives",
    "symbol": "a Symbol, which is not JSON: kept as the text '{first}'",
}


def value_notes(notes: list[dict[str, Any]]) -> list[str]:
    """The step notes of a script's value that JSON could not hold whole: ``the script's
    value holds a BigInt (10n), which JSON has not: kept as the string "10" (and 2 more)``."""
    out = []
    for note in notes:
        kind, first, count = note.get("kind"), str(note.get("first")), note.get("count") or 1
        text = _KEPT.get(str(kind), "a {kind}, which is not JSON: kept as the text '{first}'")
        more = f" (and {count - 1} more)" if count > 1 else ""
        out.append(clean(f"the script's value is or holds {text.format(first=first, kind=kind)}"
                         f"{more}"))
    return out
