"""Options a Midscene script may write in a second place, read as if written in the first.

Midscene's web target extends its agent options (``web: {url, aiActContext, cache: {id}}``
is ``agent: {aiActContext, cache: {id}}``), and its top-level ``config:`` holds the target's
``output:`` / ``unstableLogContent:``. One option given in both places is refused at the
second with the line of the first: farm will not guess which one was meant.
"""

from __future__ import annotations

from collections.abc import Iterable

from farm.suite.checks import Problems
from farm.suite.targets import MOBILE_SECTIONS, WEB_SECTIONS, read_outputs
from farm.suite.yamlpos import Node

CONFIG_KEYS = {"output", "unstableLogContent"}
# aiActionContext is aiActContext's legacy name: one of each place is still one option twice
_SAME = {"aiActionContext": "aiActContext"}


def lift_agent_options(case: Node, top: dict[str, Node], agent_keys: Iterable[str],
                       p: Problems) -> dict[str, str]:
    """Move the agent options of a web target section into the case's ``agent:`` (made when
    it has none); an agent option under ``android:`` / ``ios:`` (where Midscene reads none) is
    refused saying to move it under ``agent:``. Returns the section each moved option was
    written under (``{"cache": "web"}``): its errors name it as written, ``web.cache``."""
    agent_keys, written = set(agent_keys), {}
    for section in (s for s in (*WEB_SECTIONS, *MOBILE_SECTIONS) if s in top):
        target = top[section]
        moving = [k for k in target.keys if k in agent_keys] if target.kind == "map" else []
        if moving and section in MOBILE_SECTIONS:
            for name in moving:
                p.add(target.keys[name], f"{section}.{name} is an agent option: Midscene reads "
                                         f"it under agent: (or web:), not {section}:; move it "
                                         "under agent:")
        elif moving:
            agent = _agent_node(case, top, section)
            if agent is None:
                continue        # agent: is no mapping: _read_agent says so
            for name in moving:
                _move(section, name, target, agent, written, p)
        for name in moving:
            del target.value[name], target.keys[name]
    return written


def written_as(written: dict[str, str], name: str) -> str:
    """An agent option's name as the user wrote it: ``web.cache`` if lifted from ``web:``."""
    return f"{written.get(name, 'agent')}.{name}"


def _agent_node(case: Node, top: dict[str, Node], section: str) -> Node | None:
    agent = top.get("agent")
    if agent is None or agent.is_null:
        key = case.keys[section]
        agent = Node("map", key.line, key.column, {}, keys={})
        top["agent"] = agent
        case.keys["agent"] = case.keys.get("agent") or key
    return agent if agent.kind == "map" else None


def _move(section: str, name: str, target: Node, agent: Node, written: dict[str, str],
          p: Problems) -> None:
    same = _SAME.get(name, name)
    given = next((k for k in agent.keys if _SAME.get(k, k) == same), None)
    if given is not None:
        where = written.get(given, "agent")
        fix = "" if where == section else f", under {where}: or under {section}:"
        p.add(target.keys[name], f"{section}.{name} and {where}.{given} (line "
                                 f"{agent.keys[given].line}) both set the agent's {same}: "
                                 f"give it once{fix}")
        return
    agent.value[name], agent.keys[name] = target.value[name], target.keys[name]
    written[name] = section


def read_config(top: dict[str, Node], section: str, p: Problems) -> dict:
    """Midscene's top-level ``config: {output, unstableLogContent}``: the same as written in
    the target section (``section``, "" when the case has none), refused when both give one."""
    node = top.get("config")
    if node is None or node.is_null:
        return {}
    if p.mapping(node, "config", "a mapping with output: and/or unstableLogContent:") is None:
        return {}
    p.keys(node, CONFIG_KEYS, "config:")
    target = top.get(section) if section else None
    for name in CONFIG_KEYS & set(node.keys):
        if target is not None and target.kind == "map" and name in target.keys:
            p.add(node.keys[name], f"config.{name} and {section}.{name} (line "
                                   f"{target.keys[name].line}) both set it: give it once")
    return read_outputs(node, "config", p)
