"""AutoGLM replies: ``<think>…</think><answer>do(action="Tap", element=[500,120])</answer>``
or ``finish(message="…")``. Coordinates are 0–999 (family auto-glm).

Traps handled: a trailing ``</answer>`` without an opening tag, quotes inside Type text, a
thought that quotes ``finish(message=`` (only the answer part is read; with no tags at all,
the call is the one the reply ends with, and a ``finish(`` followed by more text is never
read as a finish).
"""

from __future__ import annotations

import re

from farm.llm.reply import Plan, PlannedAction, ReplyParseError, numbers


def _answer(text: str) -> tuple[str, str]:
    """(thought, answer): the answer is inside <answer>, else after </think>, else the text."""
    think, rest = "", text
    # str.find, not re.search(r"<think>(.*?)</think>"): the regex rescans the rest of the
    # text for every unclosed <think> (quadratic on a garbage reply)
    start = text.find("<think>")
    end = text.find("</think>", start + len("<think>")) if start != -1 else -1
    if end != -1:
        think, rest = text[start + len("<think>"):end].strip(), text[end + len("</think>"):]
    a = re.search(r"<answer>(.*?)(?:</answer>|$)", rest, re.S)
    body = a.group(1) if a else rest.replace("</answer>", "")
    return think, body.strip()


_CALL_START = re.compile(r"\b(do|finish)\s*\(")
_QUOTE_ENDS = re.compile(r"\s*(?:,\s*\w+\s*=|\))")   # a quote closes an argument before these
_CANDIDATES = 20      # calls looked at in one reply (each is scanned to its end: linear)


def _call_end(body: str, start: int) -> int:
    """Where the call whose ``(`` is at ``start`` closes (the index of its ``)``), skipping
    quoted arguments (a quote inside Type text ends nothing unless ``,name=`` or ``)``
    follows it); ``len(body)`` for a call never closed."""
    depth, quote, i = 0, "", start
    while i < len(body):
        c = body[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote and _QUOTE_ENDS.match(body, i + 1):
                quote = ""
        elif c in "\"'":
            quote = c
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return len(body)


def _call(body: str) -> tuple[str, str]:
    """(do | finish, the text after its ``(``) of the call the answer is: the first one that
    closes where the answer ends. Prose quoting ``finish(message="…")`` before the real call
    is passed over; if no call ends the answer, the first ``do(`` is read, never a finish."""
    calls = [(m.group(1), m.end() - 1) for m in _CALL_START.finditer(body)][:_CANDIDATES]
    chosen = next(((kind, start) for kind, start in calls
                   if not body[_call_end(body, start) + 1:].strip()), None)
    if chosen is not None and chosen[0] == "finish" and any(
            kind == "do" and _call_end(body, start) < chosen[1] for kind, start in calls):
        # do(...) then finish(...): finishing skipped the action the model asked for first
        raise ReplyParseError(f"do(...) and finish(...) in one answer; answer with one call: "
                              f"{body[:200]!r}")
    chosen = chosen or next(((kind, start) for kind, start in calls if kind == "do"), None)
    if chosen is None:
        if calls:
            raise ReplyParseError(f"text follows finish(...); answer with the call alone: "
                                  f"{body[:200]!r}")
        raise ReplyParseError(f"expected do(action=...) or finish(message=...), got "
                              f"{body[:200]!r}")
    inner = body[chosen[1] + 1:].rstrip()
    return chosen[0], inner[:-1] if inner.endswith(")") else inner


def _string_arg(body: str, key: str) -> str | None:
    """The first ``key="…"`` (or ``key='…'``); the value runs to the quote that ends the
    argument list or comes before the next ``name=``, so quotes inside it survive. Only the
    first ``key=`` is tried: retrying every later one rescans the text (quadratic)."""
    for quote in ('"', "'"):
        start = re.search(rf"\b{key}\s*=\s*{quote}", body)
        if start is None:
            continue
        m = re.compile(rf"(.*?){quote}\s*(?=,\s*\w+\s*=|\)?\s*$)", re.S).match(body, start.end())
        if m:
            return m.group(1)
    return None


def _point_arg(body: str, key: str) -> list[float] | None:
    m = re.search(rf"\b{key}\s*=\s*\[([^\]]*)\]", body)
    if not m:
        return None
    nums = numbers(m.group(1))
    return nums if len(nums) in (2, 4) else None


_MS_PER = {unit: ms for units, ms in (
    (("ms", "msec", "msecs", "millisecond", "milliseconds", "毫秒"), 1),
    (("s", "sec", "secs", "second", "seconds", "秒", "秒钟"), 1000),
    (("m", "min", "mins", "minute", "minutes", "分", "分钟"), 60_000),
    (("h", "hr", "hrs", "hour", "hours", "小时", "个小时", "钟头", "个钟头"), 3_600_000),
) for unit in units}
_AMOUNT = re.compile(r"(-?\d+(?:\.\d+)?)\s*([a-z]+|[\u4e00-\u9fff]+)?")
_WORD = re.compile(r"[a-z]+|[\u4e00-\u9fff]+")
_LONGEST_WAIT_MS = 86_400_000     # a day: past any case's timeout (and no int overflow)


def _unit_ms(word: str) -> int | None:
    """Milliseconds in the unit ``word`` names ("minutes", "分钟后": its first characters in
    Chinese, which has no spaces), or None."""
    if word.isascii():
        return _MS_PER.get(word)
    return next((_MS_PER[word[:n]] for n in range(len(word), 0, -1) if word[:n] in _MS_PER),
                None)


def _wait_ms(duration: str) -> int:
    """AutoGLM's ``duration`` → milliseconds: "2 seconds", "500 ms", "1 minute", "1 hour",
    "1 minute 30 seconds", "1h30m", "5秒", "2分钟", "1小时", "3" (seconds), "a minute". (A unit
    it did not know was read as seconds: "1 hour" waited 1 s, "2分钟" 2 s.)"""
    text = duration.lower()
    amounts = [(float(n), _unit_ms(unit)) for n, unit in _AMOUNT.findall(text)]
    if not amounts:         # "a minute", "x seconds" (the prompt's own placeholder)
        scales = [ms for word in _WORD.findall(text) if (ms := _unit_ms(word)) is not None]
        total = float(scales[0] if scales else 1000)
    elif all(scale is not None for _, scale in amounts):    # "1 minute 30 seconds"
        total = sum(value * (scale or 0) for value, scale in amounts)
    else:                   # "2 to 3 seconds", "2-3 minutes": the first, in the unit after it
        value, scale = amounts[0]
        total = value * (scale or next((s for _, s in amounts if s is not None), 1000))
    return int(min(max(total, 0), _LONGEST_WAIT_MS))


def _loc(point: list[float] | None) -> dict:
    return {"prompt": "", "bbox": point}


def parse_autoglm(text: str) -> Plan:
    """An AutoGLM reply → Plan (actions renamed to farm's; coordinates left 0–999)."""
    thought, body = _answer(text)
    if not body and thought:
        raise ReplyParseError("the reply has its <think> but no do(...) or finish(...) after it")
    kind, inner = _call(body)
    if kind == "finish":
        return Plan(thought=thought, complete=True, success=True,
                    message=_string_arg(inner, "message") or "")
    action = _string_arg(inner, "action")
    if not action:
        raise ReplyParseError(f"do(...) without action=\"...\": {body[:200]!r}")
    element = _point_arg(inner, "element")
    name = action.strip().lower().replace("_", " ")
    plan = Plan(thought=thought, log=f"{action} {element or ''}".strip())

    def add(kind: str, **params) -> Plan:
        plan.actions.append(PlannedAction(type=kind, params=params))
        return plan

    if name in ("tap", "click", "double tap", "long press"):
        if element is None:
            raise ReplyParseError(f"{action} needs element=[x,y]: {body[:200]!r}")
        kind = {"tap": "Tap", "click": "Tap", "double tap": "DoubleClick",
                "long press": "LongPress"}[name]
        return add(kind, locate=_loc(element))
    if name in ("type", "type name"):
        value = _string_arg(inner, "text")
        if value is None:
            raise ReplyParseError(f"{action} needs text=\"...\": {body[:200]!r}")
        return add("Input", value=value, mode="replace")
    if name == "swipe":
        start, end = _point_arg(inner, "start"), _point_arg(inner, "end")
        if start is None or end is None:
            raise ReplyParseError(f"Swipe needs start=[x,y] and end=[x,y]: {body[:200]!r}")
        return add("Swipe", start=_loc(start), end=_loc(end))
    if name == "back":
        return add("Back")
    if name == "home":
        return add("Home")
    if name == "launch":
        return add("Launch", uri=_string_arg(inner, "app") or "")
    if name == "wait":
        return add("Sleep", timeMs=_wait_ms(_string_arg(inner, "duration") or "1 second"))
    if name in ("take over", "takeover"):
        plan.complete, plan.success = True, False
        plan.message = "the model asked a human to take over: " + (
            _string_arg(inner, "message") or "")
        return plan
    if name == "interact":      # asks a user to choose: none answers (the loop says so)
        plan.message = "the model asked a user: " + (_string_arg(inner, "message") or "")
        return plan
    if name in ("note", "call api"):
        return plan      # information-only actions: nothing to do on the device
    raise ReplyParseError(f"unknown AutoGLM action {action!r}")
