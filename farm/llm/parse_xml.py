"""Midscene-style XML replies (REFERENCE.md §1), read tag by tag.

    <thought>…</thought> <log>…</log> <memory>…</memory>
    <action-type>Tap</action-type>
    <action-param-json>{"locate": {"prompt": "Sign in", "bbox": [1, 2, 3, 4]}}</action-param-json>
    <complete success="true">message</complete>   <error>…</error>
"""

from __future__ import annotations

import re

from farm.llm.reply import Plan, PlannedAction, ReplyParseError, SubGoal, loads_lenient

_KNOWN = ("thought", "planning", "log", "memory", "action-type", "action-param-json",
          "complete", "error", "update-plan-content", "mark-sub-goal-done")


def _find(text: str, tag: str) -> tuple[int, int, dict[str, str]] | None:
    """(start, end, attributes) of the content of the first ``<tag …>`` in text; a missing
    closing tag ends at the next known tag or the end of the text."""
    # Attributes stop at the next "<": "[^>]*" would rescan the rest of the text for every
    # unclosed "<tag " (quadratic on a garbage reply).
    m = re.search(rf"<{re.escape(tag)}(\s[^<>]*)?>", text, re.I)
    if m is None:
        return None
    # quoted or bare values: success=false is as false as success="false"
    attrs = {k: (v if q else bare) for k, q, v, bare in re.findall(
        r'([\w-]+)\s*=\s*(?:(["\'])(.*?)\2|([^\s"\'/>]+))', m.group(1) or "")}
    close = re.compile(rf"</{re.escape(tag)}\s*>", re.I).search(text, m.end())
    if close is not None:
        return m.end(), close.start(), attrs
    nxt = re.compile(r"<(?:%s)[\s>/]" % "|".join(map(re.escape, _KNOWN)), re.I).search(
        text, m.end())
    return m.end(), (nxt.start() if nxt else len(text)), attrs


def extract_tag(text: str, tag: str) -> tuple[str, dict[str, str]] | None:
    """(content, attributes) of the first ``<tag …>`` in text (see `_find`)."""
    found = _find(text, tag)
    return None if found is None else (text[found[0]:found[1]].strip(), found[2])


# Tags whose content is prose (or JSON: action-param-json): a tag quoted inside them ("I will
# answer <complete success=\"true\"> once the cart shows 1", an Input value "<complete>") is
# not the model's answer.
_PROSE = ("thought", "planning", "log", "memory")


def _blank(text: str, *tags: str) -> str:
    """``text`` with the content of these tags blanked (positions kept)."""
    for tag in tags:
        found = _find(text, tag)
        if found is not None:
            start, end, _ = found
            text = text[:start] + " " * (end - start) + text[end:]
    return text


_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


def _success(attrs: dict[str, str]) -> bool:
    """<complete success="…">: no attribute is success; a value neither true nor false is
    unreadable (never a pass by default)."""
    value = attrs.get("success", "true").strip().lower()
    if value not in _TRUE + _FALSE:
        raise ReplyParseError(f'<complete success="{value[:40]}">: success must be "true" or '
                              '"false"')
    return value in _TRUE


def _text(text: str, *tags: str) -> str:
    for tag in tags:
        got = extract_tag(text, tag)
        if got is not None:
            return got[0]
    return ""


def parse_xml(text: str) -> Plan:
    """A planning reply in Midscene XML → Plan; ReplyParseError when nothing usable is in it."""
    plan = Plan(thought=_text(text, "thought", "planning"), log=_text(text, "log"),
                memory=_text(text, "memory"))
    reply, text = text, _blank(text, *_PROSE)
    raw = _text(text, "action-param-json")
    text = _blank(text, "action-param-json")
    err = extract_tag(text, "error")
    if err is not None:
        plan.error = err[0]
    complete = extract_tag(text, "complete")
    if complete is not None:
        plan.complete = True
        plan.success = _success(complete[1])
        plan.message = complete[0]
    action_type = _text(text, "action-type").strip().strip("`'\"")
    if action_type:
        params = {}
        if raw.strip() and raw.strip().lower() not in ("null", "{}"):
            try:
                params = loads_lenient(raw)
            except ReplyParseError as exc:
                raise ReplyParseError(f"<action-param-json> for {action_type} is not valid "
                                      f"JSON: {raw[:200]!r}") from exc
            if not isinstance(params, dict):    # (a list found inside JSON cut short)
                raise ReplyParseError(f"<action-param-json> for {action_type} is not a JSON "
                                      f"object: {raw[:200]!r}")
        plan.actions.append(PlannedAction(type=action_type, params=params))
    goals = extract_tag(text, "update-plan-content")
    if goals is not None:
        # the text runs to </sub-goal> but never past the next <sub-goal (linear on garbage)
        for m in re.finditer(r'<sub-goal\s+index=["\']?(\d+)["\']?(?:\s+status=["\']?(\w+)'
                             r'["\']?)?\s*>((?:(?!<sub-goal)[\s\S])*?)</sub-goal>', goals[0],
                             re.I):
            plan.sub_goals.append(SubGoal(index=int(m[1]), status=m[2] or "pending",
                                          text=m[3].strip()))
    for m in re.finditer(r"<mark-sub-goal-done>\s*(?:<sub-goal\s+index=[\"']?)?(\d+)", text, re.I):
        plan.done_goals.append(int(m[1]))
    if not (plan.actions or plan.complete or plan.error):
        raise ReplyParseError("the reply has neither <action-type> nor <complete> nor <error>; "
                              "answer with exactly one action or <complete success=\"true\">"
                              f"…</complete>. Got: {reply.strip()[:200]!r}")
    return plan
