"""UI-TARS replies: ``Thought: …\\nAction: click(start_box='(197,525)')``.

Accepted (REFERENCE.md §2): ``<|box_start|>(x,y)<|box_end|>``, ``'[x1,y1,x2,y2]'``,
``point='<point>x y</point>'``, start_point/end_point, full-width ``Action：``, a missing
``Action:``, ``Reflection:`` prefixes, several actions split by blank lines, and
``type(content='…\\n')`` = type, then Enter.
"""

from __future__ import annotations

import re

from farm.llm.reply import Plan, PlannedAction, ReplyParseError, numbers

# wait(): as UI-TARS's own prompt defines it, 5 s of sleep before the next screenshot
WAIT_MS = 5000
_CALL = re.compile(r"([a-z_]+)\s*\((.*?)\)\s*$", re.S)
_ARG = re.compile(r"(\w+)\s*=\s*(['\"])(.*?)\2\s*(?=,\s*\w+\s*=|$)", re.S)
# a point or box written without quotes: start_box=(197,525), start_box=[1,2,3,4]
_BARE = re.compile(r"(\w+)\s*=\s*(\([^()]*\)|\[[^\[\]]*\])\s*(?=,\s*\w+\s*=|$)")


def _split(text: str) -> tuple[str, list[str]]:
    text = text.replace("：", ":")
    m = re.search(r"(?im)^\s*Action\s*:", text)
    if m is None:     # "Thought: … Action: click(…)" on one line: the last "Action:" before a call
        m = next(reversed(list(re.finditer(r"\bAction\s*:(?=\s*[a-z_]+\s*\()", text))), None)
    if m:
        head, tail = text[:m.start()], text[m.end():]
    else:
        # no "Action:" line: the calls are the lines that look like calls
        head, tail = "", text
    thought = re.sub(r"(?im)^\s*(Thought|Reflection)\s*:\s*", "", head).strip()
    calls = []
    # a call starts a line, after a blank line or not, with its own "Action:" or not (calls
    # on "Action:" lines were read as one: two clicks tapped between their points)
    for chunk in re.split(r"\n\s*\n|\n(?=\s*(?:(?i:Action)\s*:\s*)?[a-z_]+\s*\()",
                          tail.strip()):
        chunk = re.sub(r"(?im)^\s*Action\s*:\s*", "", chunk.strip())
        if _CALL.match(chunk):
            calls.append(chunk)
        elif not m and chunk and not calls:
            thought = (thought + "\n" + chunk).strip()
    return thought, calls


def _point(args: dict[str, str], *keys: str) -> list[float] | None:
    for key in keys:
        if key in args:
            nums = numbers(args[key].replace("<|box_start|>", "").replace("<|box_end|>", ""))
            if len(nums) in (2, 4):
                return nums
            raise ReplyParseError(f"{key}={args[key]!r} is not a point or a box")
    return None


def _loc(nums: list[float] | None) -> dict | None:
    return None if nums is None else {"prompt": "", "bbox": nums}


def parse_uitars(text: str) -> Plan:
    """A UI-TARS reply → Plan (farm action names; coordinates left in the model's space)."""
    thought, calls = _split(text)
    if not calls:
        raise ReplyParseError(f"expected `Action: click(start_box='(x,y)')` or finished(...), "
                              f"got {text.strip()[:200]!r}")
    plan = Plan(thought=thought)
    for call in calls:
        m = _CALL.match(call)
        assert m is not None
        name = m.group(1).lower()
        inner = m.group(2).strip()
        args = {k: v for k, v in _BARE.findall(inner)} | {k: v for k, _, v in _ARG.findall(inner)}
        start = _point(args, "start_box", "point", "start_point")
        end = _point(args, "end_box", "end_point")
        add = lambda kind, **p: plan.actions.append(PlannedAction(type=kind, params=p))  # noqa
        if name in ("click", "left_single", "tap"):
            add("Tap", locate=_need(start, call))
        elif name == "left_double":
            add("DoubleClick", locate=_need(start, call))
        elif name == "right_single":
            add("RightClick", locate=_need(start, call))
        elif name == "long_press":
            add("LongPress", locate=_need(start, call))
        elif name == "hover":
            add("Hover", locate=_need(start, call))
        elif name in ("drag", "select"):
            add("DragAndDrop", **{"from": _need(start, call), "to": _need(end, call)})
        elif name == "type":
            content = _unescape(args.get("content", ""))
            enter = content.endswith("\n")
            add("Input", value=content.rstrip("\n"), mode="typeOnly")
            if enter:
                add("KeyboardPress", keyName="Enter")
        elif name == "hotkey":
            add("KeyboardPress", keyName=_key(args.get("key", "")))
        elif name == "scroll":
            add("Scroll", scrollType="singleAction", direction=args.get("direction", "down"),
                locate=_loc(start))
        elif name == "press_home":
            add("Home")
        elif name == "press_back":
            add("Back")
        elif name == "open_app":
            add("Launch", uri=args.get("app_name", ""))
        elif name == "wait":           # UI-TARS's own prompt: sleep 5 s, then look again
            add("Sleep", timeMs=WAIT_MS)
        elif name == "finished":
            plan.complete, plan.success = True, True
            plan.message = _unescape(args.get("content", ""))
        elif name == "call_user":
            plan.complete, plan.success = True, False
            plan.message = "the model asked for the user: " + _unescape(args.get("content", ""))
        else:
            raise ReplyParseError(f"unknown UI-TARS action {name!r} in {call[:120]!r}")
    return plan


def _unescape(content: str) -> str:
    """content='…' as UI-TARS writes it, in Python string form: its prompt asks for \\', \\"
    and \\n (a \\n mid-text, a \\" were typed as a backslash and a letter)."""
    return re.sub(r"\\(['\"\\n])", lambda m: "\n" if m[1] == "n" else m[1], content)


def _need(nums: list[float] | None, call: str) -> dict:
    if nums is None:
        raise ReplyParseError(f"{call[:120]!r} needs a start_box / point")
    return {"prompt": "", "bbox": nums}


def _key(key: str) -> str:
    names = {"enter": "Enter", "tab": "Tab", "esc": "Escape", "escape": "Escape",
             "backspace": "Backspace", "space": " ", "delete": "Delete"}
    return "+".join(names.get(k.strip().lower(), k.strip().capitalize() if len(k.strip()) > 1
                              else k.strip()) for k in key.replace(" ", "+").split("+") if k)
