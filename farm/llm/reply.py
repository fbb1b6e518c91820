"""What a model's reply can say, whatever grammar it came in: `Plan` and its parts, the
`ReplyParseError` a parser raises, and the lenient readers (JSON, numbers) the parsers share.

Parsers are pure and tolerant (fences, prose around the answer, missing closing tags), and
never turn an unreadable reply into a finish: they raise `ReplyParseError` instead.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ReplyParseError(ValueError):
    """The model's reply could not be read; the message is fed back to the model once."""


# A run with no model reads no reply: these models' validators are built on their first use,
# not by every `farm` start (~4 ms of CPU).
_ON_FIRST_USE = ConfigDict(defer_build=True)


class PlannedAction(BaseModel):
    model_config = _ON_FIRST_USE

    type: str
    params: dict[str, Any] = Field(default_factory=dict)


class SubGoal(BaseModel):
    model_config = _ON_FIRST_USE

    index: int
    status: str = "pending"
    text: str = ""


class Plan(BaseModel):
    model_config = _ON_FIRST_USE

    thought: str = ""
    log: str = ""
    memory: str = ""
    actions: list[PlannedAction] = Field(default_factory=list)
    complete: bool = False
    success: bool = True
    message: str = ""
    error: str = ""
    sub_goals: list[SubGoal] = Field(default_factory=list)
    done_goals: list[int] = Field(default_factory=list)


ECHO_CHARS = 4000


def echo_back(reply: str) -> str:
    """An unreadable reply as it is sent back with the retry: its start is enough to correct,
    and a huge one must not make the next request huge."""
    return reply if len(reply) <= ECHO_CHARS else reply[:ECHO_CHARS] + " […]"


_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.S)


def loads_lenient(text: str) -> Any:
    """JSON from a model: strips code fences and prose around the first {...} or [...]; when
    the cut of an object does not parse, the first complete JSON object in the reply."""
    raw = text.strip()
    if not raw:
        raise ReplyParseError("the reply was empty")
    fenced = _FENCE.search(raw)
    if fenced:
        raw = fenced.group(1).strip()
    # RecursionError: JSON nested deeper than the interpreter allows is unreadable too
    try:
        return _load(raw)
    except (ValueError, RecursionError):
        pass
    obj, arr = raw.find("{"), raw.find("[")
    tries = [(_cut, "{}")]
    if obj != -1 and (arr == -1 or obj < arr):
        # prose with braces of its own after the answer ('{"data": [1]} note: {x}'): the
        # first complete object, before a list inside it is taken for the answer
        tries.append((_first_value, "{"))
    tries.append((_cut, "[]"))     # (no first list: "[1] or [2]" in prose is no answer)
    for read, brackets in tries:
        try:
            return read(raw, brackets)
        except (ValueError, RecursionError):
            continue
    raise ReplyParseError(f"expected JSON, got: {text.strip()[:200]!r}")


def _cut(raw: str, brackets: str) -> Any:
    """The text from the first opening bracket to the last closing one, read as JSON."""
    start, end = raw.find(brackets[0]), raw.rfind(brackets[1])
    if start == -1 or end <= start:
        raise ValueError("no JSON")
    return _load(raw[start:end + 1])


def _first_value(raw: str, opener: str) -> Any:
    """The complete JSON value that begins at the first ``opener`` (text after it ignored).
    Read once from there: linear in the reply, whatever follows."""
    start = raw.find(opener)
    if start == -1:
        raise ValueError("no JSON")
    return json.JSONDecoder().raw_decode(raw, start)[0]


_LITERAL_CHARS = 20_000     # a Python literal longer than this is not read as one


def _load(raw: str) -> Any:
    """JSON, or what models write for it: a comma before the closing brace ({"pass": true,})
    and a Python dict or list ({'pass': True}); ValueError for anything else. (Without the
    repair, the list inside a dict with a trailing comma was taken for the answer.)"""
    try:
        return json.loads(raw)
    except ValueError:
        pass
    repaired = _TRAILING_COMMA.sub(lambda m: m.group(1) or "", raw)
    if repaired != raw:
        try:
            return json.loads(repaired)
        except ValueError:
            pass
    if raw[:1] in "{[" and len(raw) <= _LITERAL_CHARS:
        import ast
        try:
            value = ast.literal_eval(raw)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = None
        if isinstance(value, (dict, list)):
            try:
                return json.loads(json.dumps(value))    # JSON's types only (no tuple, set)
            except (TypeError, ValueError):
                pass
    raise ValueError("not JSON")


# a string (kept as it is), or a comma with only whitespace before a closing } or ]
_TRAILING_COMMA = re.compile(r'("(?:[^"\\]|\\.)*")|,\s*(?=[}\]])')


_NUM = re.compile(r"-?\d+(?:\.\d+)?")


def numbers(text: str) -> list[float]:
    """Every number in ``text`` (lenient coordinate extraction: '(197,525)', '<point>1 2</point>')."""
    return [float(n) for n in _NUM.findall(text)]
