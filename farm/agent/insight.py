"""aiAssert / aiQuery / aiBoolean / aiNumber / aiString: one look at the screen, one JSON answer.

Assertions go to the judge model (FARM_ASSERT_MODEL_* or the main model), so the agent that
acted does not grade itself. An answer that cannot be read is asked again, then the model's
error; a null to aiNumber / aiBoolean / aiString (or aiAssert's "pass") is an answer (the
screen shows no such value, the model cannot tell): the step fails with the model's reason.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Callable

from farm.agent.images import data_url
from farm.agent.prompts import assert_prompt, query_prompt, reference_parts
from farm.errors import ModelUnavailable, StepFailed
from farm.llm.client import ModelClient, cut_note
from farm.llm.plan import ReplyParseError, echo_back, loads_lenient
from farm.text import cut

Ask = Callable[[str, list[dict[str, Any]], ModelClient], str]


class Look:
    """What an insight call shows the model: the screenshot (unless screenshotIncluded:
    false), the page's elements as text (domIncluded) and reference images ({prompt, images})."""

    def __init__(self, png: bytes | None, dom: str | None = None,
                 images: list[dict[str, str]] | None = None) -> None:
        self.png, self.dom, self.images = png, dom, images or []

    def parts(self, prompt: str) -> list[dict[str, Any]]:
        text = prompt
        if self.dom:
            text += "\n\nThe page's elements (role, text, box x,y,w,h):\n" + self.dom
        out: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if self.png is not None:
            out.append({"type": "image_url", "image_url": {"url": data_url(self.png)}})
        return out + reference_parts(self.images)


def ask_json(ask: Ask, client: ModelClient, purpose: str, prompt: str, png: "bytes | Look",
             check: Callable[[Any], Any]) -> Any:
    """Ask with the screenshot (or a `Look`); ``check`` validates the JSON (raising
    ReplyParseError). One retry with the error appended; a second unreadable reply is a model
    error (ModelUnavailable: the case is an infrastructure error, not a test failure)."""
    look = png if isinstance(png, Look) else Look(png)
    messages: list[dict[str, Any]] = [{"role": "user", "content": look.parts(prompt)}]
    text = ask(purpose, messages, client)
    try:
        return check(loads_lenient(text))
    except ReplyParseError as first:
        messages += [{"role": "assistant", "content": echo_back(text)},
                     {"role": "user", "content": f"{first}. Answer only the JSON."}]
        text = ask(purpose, messages, client)
        try:
            return check(loads_lenient(text))
        except ReplyParseError as second:
            raise ModelUnavailable(f"model {getattr(client, 'name', '?')}: its {purpose} "
                                   f"reply could not be parsed twice: {second}"
                                   f"{cut_note(ask)}") from None


def judge(ask: Ask, client: ModelClient, assertion: str, png: "bytes | Look"
          ) -> tuple[bool | None, str]:
    """(passed, the model's reason: "" when it gave none). passed is None when the model
    answered {"pass": null}: it could not tell from the screen. That is its verdict, not an
    unreadable reply: asked again for true or false, a model may make one up."""
    def check(data: Any) -> tuple[bool | None, str]:
        try:      # "pass": "false" (quoted) is as false as false
            verdict = data["pass"]
            return (None if verdict is None else _boolean(verdict)), _thought(data)
        except (ReplyParseError, KeyError, TypeError, AttributeError):
            raise ReplyParseError(f'expected {{"pass": true|false, "thought": "..."}}, got '
                                  f"{_shown(data)}") from None
    return ask_json(ask, client, "assert", assert_prompt(assertion), png, check)


def query(ask: Ask, client: ModelClient, question: str, kind: str, png: "bytes | Look") -> Any:
    """The extracted value, typed by ``kind``."""
    def check(data: Any) -> Any:
        if not isinstance(data, dict) or "data" not in data:
            raise ReplyParseError(f'expected {{"data": ...}}, got {_shown(data)}')
        value = data["data"]
        if value is None and kind in _NONE_FOUND:
            raise StepFailed(f'{kind} "{question}": the model {_NONE_FOUND[kind]} (it answered '
                             f"null): {_thought(data) or 'it gave no reason'}")
        if kind == "aiBoolean":
            return _boolean(value)
        if kind == "aiNumber":
            return _number(value)
        if kind in ("aiString", "aiAsk") and not isinstance(value, str):
            # a list or an object as JSON (what a script reading the output file parses),
            # never Python's repr of it
            value = json.dumps(value, ensure_ascii=False)
        return value
    return ask_json(ask, client, "query", query_prompt(question, kind), png, check)


# A null answer to a typed question is the model's verdict on the screen (there is no price
# on it), not an unreadable reply: asked again for "a number", a model may make one up.
_NONE_FOUND = {"aiNumber": "found no number on the screen",
               "aiBoolean": "could not tell true or false from the screen",
               "aiString": "found no such text on the screen"}


def _thought(data: dict[str, Any]) -> str:
    """The model's reason: its "thought", else the "errors" Midscene's prompts ask a model to
    list when the data is not on the screen (models tuned on them write it unasked)."""
    thought = data.get("thought")
    if thought is None or not str(thought).strip():
        errors = data.get("errors")
        thought = "; ".join(map(str, errors)) if isinstance(errors, list) else errors
    return "" if thought is None else str(thought).strip()


def _shown(data: Any) -> str:
    """What the model answered, as JSON (what it wrote), not Python's repr of it."""
    try:
        return cut(json.dumps(data, ensure_ascii=False), 200)
    except ValueError:             # NaN and the like
        return cut(repr(data), 200)


# The words a model quotes for a yes/no answer ("yes" to "is there a Sign in button?").
_WORDS = {"true": True, "false": False, "yes": True, "no": False}


def _boolean(value: Any) -> bool:
    """aiBoolean's answer (or aiAssert's "pass"): a JSON boolean, or the words true / false
    or yes / no the model quoted (an answer, not an unreadable reply: sent back, a model
    that said "yes" twice made the case an error)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().strip(".!").lower() in _WORDS:
        return _WORDS[value.strip().strip(".!").lower()]
    raise ReplyParseError(f"expected true or false, got {_shown(value)}")


_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")   # 1,234 / -12,345.50
# One number in a quoted answer with its unit or currency around it ("3 items", "€ 12.50",
# "42%", "¥1,299"): the digits, a sign right before them, thousands commas, a decimal part.
# ... but not one with a magnitude after it: "1.5k" is no 1.5 (sent back to the model).
_MAGNITUDE = re.compile(r"\s*([kmbt](?![a-z])|mn\b|bn\b|thousand|million|billion|trillion|"
                        r"[百千万萬亿億])", re.IGNORECASE)
_ONE_NUMBER = re.compile(r"(?<![\d.,])[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?(?![\d.,]*\d)")


def _unit_stripped(text: str) -> str:
    """The number in ``text`` when it holds exactly one and nothing else that is a digit
    ("3 items" -> "3"); ``text`` as it is otherwise ("3 of 5", "1.2.3", "a few")."""
    found = list(_ONE_NUMBER.finditer(text))
    if len(found) != 1:
        return text
    rest = text[:found[0].start()] + text[found[0].end():]
    if any(c.isdigit() for c in rest) or _MAGNITUDE.match(text, found[0].end()):
        return text
    return found[0].group(0)


def _number(value: Any) -> int | float:
    """aiNumber's answer: a JSON number, or a number the model quoted ("3", "$1,234.50",
    "3 items", "42%": one number with its unit or currency); a whole number stays an int
    unless written with a decimal point. A comma is read only as a thousands separator
    ("1,234"): "1,5" or "1.234,50" (a decimal comma) is sent back, never read as 15 or
    1.2345, and so is a text with two numbers ("3 of 5")."""
    if isinstance(value, str):
        text = _unit_stripped(value.strip().strip("$ "))
        if "," in text and not _THOUSANDS.fullmatch(text):
            raise ReplyParseError(f"expected a number, got {_shown(value)} (write it as a JSON "
                                  "number: a decimal point, no thousands separators)")
        text = text.replace(",", "")
        try:
            value = int(text) if text.lstrip("+-").isdigit() else float(text)
        except ValueError:
            raise ReplyParseError(f"expected a number, got {_shown(value)}") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReplyParseError(f"expected a number, got {_shown(value)}")
    return value
