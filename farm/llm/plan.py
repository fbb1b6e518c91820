"""A planning reply → `Plan`, whatever grammar it came in: `parse_plan`.

The reply types and readers live in `farm.llm.reply`, which the grammar parsers import; they
are re-exported here so callers read a plan from one place. (This module imports the parsers,
never the other way round; a parser on the first reply in its grammar: a run with no model
never reads one, and their patterns cost every `farm run` ~5 ms of CPU to compile.)
"""

from __future__ import annotations

from farm.llm.reply import (Plan, PlannedAction, ReplyParseError, SubGoal, echo_back,
                            loads_lenient, numbers)

__all__ = ["Plan", "PlannedAction", "ReplyParseError", "SubGoal", "echo_back", "loads_lenient",
           "numbers", "other_grammar", "parse_plan"]


def parse_plan(text: str, grammar: str) -> Plan:
    """Parse a planning reply in ``grammar`` ("xml", "autoglm", "uitars")."""
    if not text.strip():
        raise ReplyParseError("the reply was empty")
    if grammar == "autoglm":
        from farm.llm.parse_autoglm import parse_autoglm
        return parse_autoglm(text)
    if grammar == "uitars":
        from farm.llm.parse_uitars import parse_uitars
        return parse_uitars(text)
    from farm.llm.parse_xml import parse_xml
    return parse_xml(text)


def other_grammar(text: str, grammar: str) -> str | None:
    """The grammar other than ``grammar`` that ``text`` reads as (with an action or a
    finish in it), or None: a reply its own grammar cannot read may be another family's (a
    UI-TARS model run as gpt), and then the family setting is what to fix, not the model."""
    for other in ("xml", "uitars", "autoglm"):
        if other == grammar:
            continue
        try:
            plan = parse_plan(text, other)
        except ReplyParseError:
            continue
        if plan.actions or plan.complete:
            return other
    return None
