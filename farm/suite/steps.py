"""Flow items (``- aiTap: ...``) -> `Step`, accepting Midscene's YAML forms.

Which kinds exist, their options, shapes and platforms (of a kind, or of an option:
`OPTION_PLATFORMS`) come from `farm.suite.kinds`. Strings stay templates (``${NAME}`` intact;
a step's ``name:`` aside, substituted at load); only their shape is checked here.  Variable
references are checked for the whole file by the loader.
"""

from __future__ import annotations

import difflib
from typing import Any

from farm.devices.keys import IOS_GESTURES, key_names, native_key, unknown_key
from farm.suite.checks import KEYWORD_FIELD, Problems, got, suggest, whole_number
from farm.suite.kinds import (KINDS, MEANINGS, NEAR_MISSES, OPTION_NEAR_MISSES,
                              OPTION_PLATFORMS, OTHER_WAYS, PLATFORM_GAPS, REFUSED_OPTIONS,
                              WAIT_FOR_INTERVAL_MS, StepKind)
from farm.suite.model import Step
from farm.suite.xpath_syntax import xpath_problem
from farm.suite.yamlpos import Node

INPUT_MODES = ["replace", "clear", "typeOnly"]
DIRECTIONS = ["up", "down", "left", "right"]
SCROLL_TYPES = ["singleAction", "scrollToBottom", "scrollToTop", "scrollToLeft", "scrollToRight"]
# Midscene's pre-1.0 scrollType names.
SCROLL_ALIASES = {"once": "singleAction", "untilBottom": "scrollToBottom",
                  "untilTop": "scrollToTop", "untilLeft": "scrollToLeft",
                  "untilRight": "scrollToRight"}
SCROLL_KEYS = ("direction", "scrollType", "distance", "locate")
# runWdaRequest: {method, endpoint, data} (Midscene's form; `url` is taken for `endpoint`)
WDA_KEYS = ("method", "endpoint", "url", "data")
WDA_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"]
_ALL_OPTIONS = set().union(*(k.allowed for k in KINDS.values()))
# aiAct's planningStrategy, as Midscene's agent read it (farm.agent.loop.PLANNING)
PLANNING_STRATEGIES = ["fast", "standard", "max"]
PINCH_DIRECTIONS = ["in", "out"]


def parse_flow(node: Node, where: str, p: Problems, platform: str) -> list[Step]:
    """A task's ``flow:`` list -> Steps (bad items are reported and skipped).

    ``platform`` is the case's target ("" when unknown: platform checks are then skipped).
    """
    items = p.sequence(node, where, "a list of steps like `- aiTap: <target>`")
    if items is None:
        return []
    if not items:
        p.add(node, f"{where} is empty: expected at least one step like `- aiTap: <target>`")
    steps = []
    for item in items:
        step = parse_step(item, p, platform)
        if step is not None:
            steps.append(step)
    return steps


def _kind_of(node: Node, p: Problems) -> str | None:
    """The step's single kind key, or None after reporting why there is none."""
    if node.kind == "scalar":
        word = (node.text or "").strip().rstrip(":").strip()
        if word in KINDS:
            p.add(node, f"a step must be a mapping: expected {KINDS[word].form}, "
                        f"got the bare string {word!r}")
        else:
            p.add(node, "expected a step like `aiTap: <target>`, got "
                        f"{node.describe()}{_suggest_kind(word)}")
        return None
    if node.kind == "seq":
        p.add(node, "expected a step like `aiTap: <target>`, got a list")
        return None
    kinds = [k for k in node.value if k in KINDS]
    if len(kinds) > 1:
        p.add(node.keys[kinds[1]], f"one step has two kinds '{kinds[0]}' and '{kinds[1]}': "
                                   "put each in its own `- ` item")
        return None
    if kinds:
        return kinds[0]
    unknown = [k for k in node.value if k not in _ALL_OPTIONS]
    if unknown:
        name = unknown[0]
        hint = _suggest_kind(name) or f"; expected one of: {', '.join(KINDS)}"
        p.add(node.keys[name], f"unknown step kind '{name}'{hint}")
    else:
        p.add(node, f"step has no kind (only {', '.join(node.value)}): expected one of: "
                    f"{', '.join(KINDS)}")
    return None


_MEANT = {word.lower(): kind for word, kind in NEAR_MISSES.items()}


def _suggest_kind(word: str) -> str:
    """`` (did you mean 'aiTap'?)`` for an unknown step kind: the kind it is a common name
    for (`NEAR_MISSES`), else the nearest spelling."""
    meant = _MEANT.get(word.lower())
    other = next((how for w, how in OTHER_WAYS.items() if w.lower() == word.lower()), None)
    if other is not None:
        return f" ({other})"
    return f" (did you mean '{meant}'?)" if meant else suggest(word, KINDS)


def parse_step(node: Node, p: Problems, platform: str) -> Step | None:
    """One flow item -> Step, or None after reporting every problem in it."""
    kind = _kind_of(node, p)
    if kind is None:
        return None
    spec = KINDS[kind]
    if spec.platforms and platform and platform not in spec.platforms:
        gap = PLATFORM_GAPS.get((kind, platform))
        p.add(node.keys[kind], f"{kind} only works in {' and '.join(spec.platforms)} cases "
                               f"(this case is for {platform})" + (f": {gap}" if gap else ""))
        return None
    before = len(p.errors)
    keys = _on_platform(kind, node, p, platform)
    main = keys[kind]
    allowed = spec.allowed
    _unknown_options(spec, node, keys, p)

    options: dict = {}
    if "name" in keys:
        options["name"] = p.name(keys["name"], f"{kind} name", required=True, empty_ok=False)
    timeout_ms = _step_timeout(kind, _timeout_node(kind, node, keys, allowed, p), p)
    for flag in ("cacheable", "deepLocate", "deepThink"):
        if flag in keys:
            unset = flag == "deepThink" and spec.call == "ai_act" and keys[flag].value == "unset"
            # aiAct's deepThink: 'unset' | true | false; Midscene's legacy 'unset' is false
            value = False if unset else p.boolean(keys[flag], f"{kind} {flag}")
            locate_opt = flag == "deepThink" and "locate" in allowed   # a locate step
            options["deepLocate" if locate_opt else flag] = value
    xpath = _xpath(keys.get("xpath"), f"{kind} xpath", p)
    if "errorMessage" in keys:
        options["errorMessage"] = p.text(keys["errorMessage"], "aiAssert errorMessage",
                                         required=True)
    if "planningStrategy" in keys:
        options["planningStrategy"] = _strategy(kind, keys, p)
    if "context" in keys and "context" in allowed:    # (aiAct's: over agent.aiActContext)
        options["context"] = p.text(keys["context"], f"{kind} context", required=True,
                                    empty_ok=False)
    if "checkIntervalMs" in keys:
        options["checkIntervalMs"] = p.integer(keys["checkIntervalMs"],
                                               "aiWaitFor checkIntervalMs", minimum=1)
    elif spec.call == "ai_wait_for":
        options["checkIntervalMs"] = WAIT_FOR_INTERVAL_MS
    _more_options(kind, keys, options, p)

    target, value = _main(spec, node, main, keys, options, xpath, p)
    _blank_text(spec, main if xpath is None else None, p)
    if spec.shape == "key" and value is not None and platform:
        _check_key(kind, value, keys.get("keyName") or main, platform, p)
    if len(p.errors) > before:
        return None
    return Step(kind=kind, target=target, value=value, xpath=xpath, timeout_ms=timeout_ms,
                options={k: v for k, v in options.items() if v is not None},
                line=node.line, column=node.column)


# what an empty text would make a step do, by its shape (`_blank_text`)
_VACUOUS = {"target": "it has no target to look for", "text": "a check of an empty text "
            "checks nothing", **dict.fromkeys(("task", "assertion", "query"), "it asks nothing")}
# Shapes whose main target may be left out (a literal empty one loads: `aiScroll: ""` scrolls
# the page, `aiSwipe: ""` swipes from the middle): one that comes out empty loads alike.
_TARGET_OPTIONAL = frozenset({"scroll", "swipe", "pinch"})


def _blank_text(spec: StepKind, main: Node | None, p: Problems) -> None:
    """A check's or target's text written as ``${NAME}`` that comes out empty with the values
    known at load (``waitForText: ${EMPTY:-}``): refused, as a literal empty one is, where
    the step passed at once having checked nothing."""
    if spec.main not in _VACUOUS or spec.shape == "input" or main is None \
            or spec.shape in _TARGET_OPTIONAL \
            or (why := p.blank_at_load(main)) is None:
        return
    p.add(main, f"{spec.name}: {main.value} comes out empty ({why}): {_VACUOUS[spec.main]}; "
                f"give the variable a value, or write {MEANINGS.get(spec.main, 'the text')}")


# What a refused `context:` should go into instead, by what the kind's main value is.
_CONTEXT_INTO = {"task": "task", "assertion": "assertion", "query": "question",
                 "target": "target description", "key": "target description"}


def _unknown_options(spec: StepKind, node: Node, keys: dict[str, Node], p: Problems) -> None:
    """Report each key the kind does not take: a Midscene option farm cannot honour with why
    and what to write instead (`REFUSED_OPTIONS`), anything else as unknown."""
    kind, allowed = spec.name, spec.allowed
    for name in keys:
        if name == kind or name in allowed:
            continue
        kinds, why = REFUSED_OPTIONS.get(name, (frozenset(), ""))
        if kind in kinds:
            why = why.format(what=_CONTEXT_INTO.get(spec.main, "prompt"))
            p.add(node.keys[name], f"{kind} {name}: not supported by farm: {why}")
            continue
        meant, why = OPTION_NEAR_MISSES.get(name, ("", ""))
        hint = f" (did you mean '{meant}'?{why})" if meant in allowed else \
            _other_kinds(name, kind) or suggest(name, allowed)
        p.add(node.keys[name], f"unknown option '{name}' for {kind}{hint}"
                               f"; allowed: {', '.join(sorted(allowed))}")


# what an option another step kind takes does there, when it is given to a kind without it
_OTHER_KIND_USE = {"timeout": "", "value": "types it", "keyName": "presses it"}
_WAITS = ("waitForText", "aiWaitFor")


def _other_kinds(name: str, kind: str) -> str:
    """`` (keyName is an option of aiKeyboardPress, which presses it)`` when ``name`` is an
    option of other step kinds (not `kind`), said before a spelling guess that is not close
    (keyName is not a misspelt name); with a close one after it; "" when no kind takes it."""
    if name == "timeout":
        takers = [k for k in _WAITS if k != kind]
    else:
        takers = [k for k, s in KINDS.items() if name in s.allowed and k != kind]
    if not takers or name in ("name", "cacheable"):
        return ""
    said = ", ".join(takers[:3]) + (", …" if len(takers) > 3 else "")
    use = _OTHER_KIND_USE.get(name)
    which = "" if use is None else f", which {use}" if name != "timeout" else \
        f", which wait{'s' if len(takers) == 1 else ''} up to it for the text or condition" \
        + (f"; {kind} checks once, at once" if "assert" in kind.lower() else "")
    close = difflib.get_close_matches(name.lower(), [a.lower() for a in KINDS[kind].allowed],
                                      n=1, cutoff=0.85)
    return f" ({name} is an option of {said}{which}" + \
        (f"; or did you mean '{close[0]}'?)" if close else ")")


def _timeout_node(kind: str, node: Node, keys: dict[str, Node], allowed: frozenset[str],
                  p: Problems) -> Node | None:
    """The step's ``timeout:`` (where its kind honours one), or aiWaitFor's ``timeoutMs:``
    (the name Midscene's agent.aiWaitFor takes, passed through by its YAML runner)."""
    given = [n for n in ("timeout", "timeoutMs") if n in keys and n in allowed]
    if len(given) > 1:
        p.add(node.keys["timeoutMs"], f"{kind}: give `timeout` once (`timeoutMs` is another name "
                                 "for it)")
    return keys[given[0]] if given else None


def _on_platform(kind: str, node: Node, p: Problems, platform: str) -> dict[str, Node]:
    """The step's keys, less (after reporting each) an option this case's platform cannot
    honour (`OPTION_PLATFORMS`)."""
    keys = dict(node.value)
    for name, platforms in OPTION_PLATFORMS.items():
        if name in keys and name in KINDS[kind].allowed and platform \
                and platform not in platforms:
            p.add(node.keys[name], f"{name} (on {kind}) only works in "
                                   f"{' and '.join(platforms)} cases (this case is for "
                                   f"{platform})")
            del keys[name]
    return keys


def _main(spec: StepKind, node: Node, main: Node, keys: dict[str, Node], options: dict,
          xpath: str | None, p: Problems) -> tuple[str | None, str | None]:
    """(target, value) from the kind's main value and its kind-specific options."""
    kind, form = spec.name, spec.form

    def need_target(target: str | None, at: Node, how: str) -> str | None:
        if target is None or not target.strip():
            # (a list or a mapping without its prompt was said as such: not "got nothing")
            if xpath is None and at.kind == "scalar":
                p.add(at, f"{kind}: expected a target description ({how}) or an `xpath:`, "
                          "got nothing")
            return None
        return target

    if spec.shape == "locate":
        return need_target(locate_target(kind, main, keys, options, p), main, form), None
    if spec.shape == "prompt":
        return None, prompt_value(kind, spec.expected, form, main, options, p)
    if spec.shape in ("swipe", "drag", "pinch", "record"):
        return gesture(spec, main, keys, options, p)
    if spec.shape == "input":
        return _input(node, main, keys, options, p, need_target)
    if spec.shape == "key":
        return _key(kind, form, main, keys, options, p)
    if spec.shape == "scroll":
        return _scroll(main, keys, options, p), None
    if spec.shape == "ms":
        return None, _ms(kind, main, p)
    if spec.shape == "request":
        return None, _wda_request(kind, main, options, p)
    value = p.text(main, kind, required=True, empty_ok=False,
                   expected=f"{spec.expected} ({form})")
    return None, value


def _strategy(kind: str, keys: dict[str, Node], p: Problems) -> str | None:
    """aiAct's planningStrategy: fast | standard | max. ``deepThink: true`` plans as max
    does (sub-goals, boxes not trusted), so it only goes with max."""
    value = p.choice(keys["planningStrategy"], f"{kind} planningStrategy", PLANNING_STRATEGIES)
    deep = keys.get("deepThink")
    if value not in (None, "max") and deep is not None and deep.value is True:
        p.add(deep, f"{kind}: deepThink: true asks for deeper planning than planningStrategy "
                    f"{value}; give one of them (deepThink goes with planningStrategy: max)")
    return value


def _key(kind: str, form: str, main: Node, keys: dict[str, Node], options: dict,
         p: Problems) -> tuple[str | None, str | None]:
    """aiKeyboardPress: `aiKeyboardPress: Enter` (+ `locate:`) or `keyName:` + a target."""
    if "keyName" in keys:
        value = p.text(keys["keyName"], f"{kind} keyName", required=True,
                       empty_ok=False, expected=MEANINGS["key"])
        target = _target_text(kind, main, options, p, kind)
        located = _target_text(kind, keys.get("locate"), options, p, f"{kind} locate")
        if target and target.strip() and located:
            p.add(keys["locate"], f"{kind}: give the target once, either as the "
                                  "main value or as `locate:`, not both")
        return (target if target and target.strip() else located or None), value
    value = p.text(main, kind, required=True, empty_ok=False,
                   expected=f"{MEANINGS['key']} ({form})")
    target = _target_text(kind, keys.get("locate"), options, p, f"{kind} locate")
    return target or None, value


# What each platform's keys look like, for the message about one its device cannot press.
KEY_EXAMPLES = {
    "web": "a key name such as Enter, Tab, Escape, ArrowDown, PageDown or F5, one character, "
           "or a combination such as Control+A",
    "android": "one of {names}, or an Android KEYCODE_* name",
    "ios": "one of {names} (iOS presses home and the volume keys as buttons, goes back with "
           "the swipe from the screen's left edge and types the others into the focused "
           "field)"}
# Keys a device presses that are not offered for "did you mean" (a near miss of "back" is no
# navigation: farm.devices.keys.IOS_GESTURES) but are listed as ones it knows.
LISTED_ONLY = {"ios": IOS_GESTURES}


def _check_key(kind: str, key: str, at: Node, platform: str, p: Problems) -> None:
    """Refuse a key the case's device would refuse at run time (farm.devices.keys holds the
    tables ``press`` uses); a ``${NAME}`` key is only known then."""
    if "${" in key:
        return
    bad = unknown_key(key, platform)
    if bad is None:
        return
    names = key_names(platform)
    part = f" in {key!r}" if bad != key else ""
    on = {"android": " on Android", "ios": " on iOS"}.get(platform, "")
    listed = [*names, *LISTED_ONLY.get(platform, ())]
    expected = KEY_EXAMPLES[platform].format(names=", ".join(dict.fromkeys(listed)))
    native = native_key(bad, platform)
    near = f" (did you mean {native!r}?)" if native else suggest(bad, names)
    p.add(at, f"{kind}: unknown key {bad!r}{part}{on}{near}; expected {expected}")


def _step_timeout(kind: str, node: Node | None, p: Problems) -> int | None:
    """A step's ``timeout:``, in milliseconds; one under 100 (``timeout: 5``, seconds as the
    case's own timeout: is written) is warned about: the wait would give up at once."""
    value = p.integer(node, f"{kind} timeout", minimum=1,
                      expected="milliseconds as a positive integer")
    if node is not None and value is not None and value < 100:
        p.warn(node, f"{kind} timeout: {value} milliseconds: a step's timeout is in "
                     f"milliseconds (the case's timeout: is seconds); for {value} s write "
                     f"timeout: {value * 1000}")
    return value


# digits of a number Python reads from text (its int() refuses 4,300 and more: no duration)
MAX_DIGITS = 4300


def _ms(kind: str, main: Node, p: Problems) -> str | None:
    expanded = p.expand(main, kind)      # `sleep: ${DELAY}`: the value, read at load
    if expanded is None:
        return None
    main, v, whole = expanded, expanded.value, whole_number(expanded)
    if whole is not None and whole >= 0:
        return str(whole)
    # Midscene parses a string sleep (`sleep: "1000"`) as an integer; no other number field
    if main.kind == "scalar" and isinstance(v, str) and v.strip().isdigit() \
            and len(v.strip()) < MAX_DIGITS:
        return str(int(v.strip()))
    p.add(main, f"{kind}: expected milliseconds as a non-negative integer, got {main.describe()}")
    return None


def _wda_request(kind: str, main: Node, options: dict, p: Problems) -> str | None:
    """runWdaRequest: `{method: GET, endpoint: /status, data: {...}}` -> options; the value
    is "METHOD endpoint" (for the step's label)."""
    fields = p.mapping(main, kind, "a mapping like `{method: GET, endpoint: /status}`")
    if fields is None:
        return None
    for name in fields:
        if name not in WDA_KEYS:
            p.add(main.keys[name], f"unknown key '{name}' in {kind}{suggest(name, WDA_KEYS)}; "
                                   f"expected one of: method, endpoint, data")
    if "endpoint" in fields and "url" in fields:
        p.add(main.keys["url"], f"{kind}: give `endpoint` once (`url` is another name for it)")
    at_method = p.expand(fields.get("method"), f"{kind} method", KEYWORD_FIELD)
    method = p.text(at_method, f"{kind} method", required=True, empty_ok=False,
                    expected=f"one of {', '.join(WDA_METHODS)}") if at_method else None
    if "method" not in fields:      # (said at the step: a missing key has no line)
        p.add(main, f"{kind}: expected `method: <{'|'.join(WDA_METHODS)}>`, got nothing")
    if at_method is not None and method is not None and method.upper() not in WDA_METHODS:
        p.add(at_method, f"{kind} method: expected one of {', '.join(WDA_METHODS)}, "
                         f"got {got(at_method, method)}")
    at = fields.get("endpoint") or fields.get("url")
    endpoint = p.text(at, f"{kind} endpoint", empty_ok=False, expected="a path like /status")
    if at is None:
        p.add(main, f"{kind}: expected `endpoint: <path>` (e.g. /status), got nothing")
    elif endpoint is not None and not endpoint.startswith("/"):
        p.add(at, f"{kind} endpoint: expected a path starting with '/', got {endpoint!r}")
    data: Any = fields["data"].to_python() if "data" in fields else None
    if method is None or endpoint is None:
        return None
    options.update(method=method.upper(), endpoint=endpoint, data=data)
    return f"{method.upper()} {endpoint}"


def _input(node: Node, main: Node, keys: dict[str, Node], options: dict, p: Problems,
           need_target) -> tuple[str | None, str | None]:
    """aiInput in Midscene's three forms: `aiInput: <target>` + `value:`; the old
    `aiInput: <text>` + `locate:`; an empty `aiInput:` + `locate:` + `value:`."""
    # (Midscene before 1.0 called typeOnly "append": typed after what the field holds)
    mode = p.choice(keys.get("mode"), "aiInput mode", INPUT_MODES,
                    aliases={"append": "typeOnly"}) or "replace"
    options["mode"] = mode
    dismiss = p.boolean(keys.get("autoDismissKeyboard"), "aiInput autoDismissKeyboard")
    if dismiss is not None:
        options["autoDismissKeyboard"] = dismiss
    new_form = "`aiInput: <target>` with `value: <text>`"
    empty = main.is_null or (main.kind == "scalar" and not main.text)
    if "value" in keys and "locate" in keys and not empty:
        p.add(keys["locate"], f"aiInput: this step has {main.describe()} after `aiInput:` as well "
                              "as `locate:` and `value:`, so it is unclear which is the text to "
                              f"type; write {new_form}, `aiInput: <text>` with `locate: "
                              "<target>`, or an empty `aiInput:` with `locate: <target>` and "
                              "`value: <text>`")
        return None, None
    if "value" in keys and "locate" in keys:        # Midscene's "new format 2"
        value_node, target_node = keys["value"], keys["locate"]
    elif "locate" in keys:
        value_node, target_node = main, keys["locate"]
    else:
        value_node, target_node = keys.get("value"), main
    target = _target_text("aiInput", target_node, options, p, "aiInput target")
    target = need_target(target, target_node, new_form)
    value = p.text(value_node, "aiInput value", expected="the text to type")
    given = value_node is not None and not value_node.is_null
    if value is None and mode != "clear" and not given and value_node is None and not empty:
        # `aiInput: demo` alone: Midscene reads demo as the field and says the value is
        # missing ("got nothing" read as if demo had not been seen)
        shown = main.text if main.kind == "scalar" else main.describe()
        p.add(node, f"aiInput: expected the text to type in `value:`, which is missing: "
                    f"`aiInput: {shown}` names the field to type into (Midscene's form "
                    f"{new_form}); add `value: <text>`, or, to type {shown!r}, add "
                    "`locate: <the field>` (or `mode: clear` to empty it)")
    elif value is None and mode != "clear" and not given:   # a wrong type is said by p.text
        at = value_node if value_node is not None else node
        p.add(at, f"aiInput: expected the text to type ({new_form}, or `mode: clear`), "
                  "got nothing")
    return target, value


def _scroll(main: Node, keys: dict[str, Node], options: dict, p: Problems) -> str | None:
    """aiScroll: `aiScroll: <target>` + options, or `aiScroll: {direction: ..., ...}`."""
    opts = {k: keys[k] for k in SCROLL_KEYS if k in keys}
    target = None
    if main.kind == "map":
        for name, value in main.value.items():
            if name not in SCROLL_KEYS:
                p.add(main.keys[name], f"unknown key '{name}' in aiScroll"
                                       f"{suggest(name, SCROLL_KEYS)}; expected one of: "
                                       f"{', '.join(SCROLL_KEYS)}")
            elif name in opts:
                p.add(main.keys[name], f"aiScroll: '{name}' is given twice (inside aiScroll: "
                                       "and beside it)")
            else:
                opts[name] = value
    else:
        target = p.text(main, "aiScroll", expected="a target description (or nothing for the "
                                                   "whole page)")
    located = _target_text("aiScroll", opts.get("locate"), options, p, "aiScroll locate")
    if target and target.strip() and located:
        p.add(opts["locate"], "aiScroll: give the target once, either as the main value or as "
                              "`locate:`, not both")
    options["direction"] = p.choice(opts.get("direction"), "aiScroll direction",
                                    DIRECTIONS) or "down"
    options["scrollType"] = p.choice(opts.get("scrollType"), "aiScroll scrollType", SCROLL_TYPES,
                                     SCROLL_ALIASES) or "singleAction"
    options["distance"] = p.integer(opts.get("distance"), "aiScroll distance", minimum=1,
                                    expected="pixels as a positive integer")
    target = target if target and target.strip() else located
    return target or None


def _more_options(kind: str, keys: dict[str, Node], options: dict, p: Problems) -> None:
    """Options several kinds share: durations, file uploads, what insight steps show."""
    for name in ("duration", "distance"):
        if name in keys and (kind, name) != ("aiScroll", "distance"):   # aiScroll's own parse
            options[name] = p.integer(keys[name], f"{kind} {name}", minimum=1,
                                      expected="a positive integer"
                                      + (" (ms)" if name == "duration" else " (pixels)"))
    if "repeat" in keys:
        options["repeat"] = p.integer(keys["repeat"], f"{kind} repeat", minimum=1,
                                      maximum=100, expected="how many times (1-100; farm has "
                                      "no endless swipe)")
    if "screenshotIncluded" in keys:
        options["screenshotIncluded"] = p.boolean(keys["screenshotIncluded"],
                                                  f"{kind} screenshotIncluded")
    if "domIncluded" in keys:
        node = p.expand(keys["domIncluded"], f"{kind} domIncluded")
        if node is not None and node.kind == "scalar" and node.value == "visible-only":
            options["domIncluded"] = "visible-only"
        else:
            options["domIncluded"] = p.boolean(node, f"{kind} domIncluded")
    if options.get("screenshotIncluded") is False and not options.get("domIncluded"):
        p.add(keys["screenshotIncluded"], f"{kind}: with screenshotIncluded: false the model "
                                          "needs domIncluded: true (else it sees nothing)")
    if "fileChooserAccept" in keys and "fileChooserAccept" in KINDS[kind].allowed:
        options["fileChooserAccept"] = _files(kind, keys["fileChooserAccept"], p)


def _files(kind: str, node: Node, p: Problems) -> list[str] | None:
    """fileChooserAccept: one path or a list, relative to the working directory (as
    Midscene's); a missing file stops the run before anything starts."""
    import os
    items = node.value if node.kind == "seq" else [node]
    out = []
    for item in items:
        text = p.text(item, f"{kind} fileChooserAccept", required=True, empty_ok=False,
                      expected="a file path")
        if text is None:
            continue
        if not os.path.isfile(text):
            p.add(item, f"{kind} fileChooserAccept: no file {text!r} (paths are relative to "
                        "the working directory, as in Midscene)")
            continue
        out.append(os.path.abspath(text))
    return out or None


def _prompt_map(kind: str, node: Node, options: dict, p: Problems) -> str | None:
    """``{prompt, images?, convertHttpImage2Base64?}`` -> the prompt (images into options)."""
    from farm.suite.images import read_images
    allowed = ("prompt", "images", "convertHttpImage2Base64")
    for name in node.value:
        if name not in allowed:
            p.add(node.keys[name], f"unknown key '{name}' in {kind}{suggest(name, allowed)}; "
                                   f"expected one of: {', '.join(allowed)}")
    prompt = None
    if "prompt" not in node.value:      # (said at the mapping: a missing key has no line)
        p.add(node, f"{kind}: expected `prompt: <text>` in the mapping")
    else:
        prompt = p.text(node.value["prompt"], f"{kind} prompt", required=True,
                        empty_ok=False, expected="the prompt text")
    images = read_images(kind, node.value.get("images"), node.value.get(
        "convertHttpImage2Base64"), p, p.base)
    if images:
        options["images"] = images
    return prompt


def prompt_value(kind: str, expected: str, form: str, main: Node, options: dict,
                 p: Problems) -> str | None:
    """An insight / aiAct prompt: a string, or Midscene's ``{prompt, images}`` mapping."""
    if main.kind == "map":
        return _prompt_map(kind, main, options, p)
    return p.text(main, kind, required=True, empty_ok=False, expected=f"{expected} ({form})")


def locate_target(kind: str, main: Node, keys: dict[str, Node], options: dict,
                  p: Problems) -> str | None:
    """A locate step's target, in any of Midscene's forms: ``aiTap: <prompt>``; ``aiTap:`` +
    ``locate: {prompt, ...}`` (or ``locate: <prompt>``) beside it; ``aiTap: {prompt: ...}``;
    ``aiTap:`` + ``prompt:``; the legacy ``aiTap: {locate: {...}}``."""
    sources = [n for n in (main, keys.get("locate"), keys.get("prompt"))
               if n is not None and not n.is_null and not (n.kind == "scalar" and not n.text)]
    if len(sources) > 1:
        p.add(sources[1], f"{kind}: give the target once (as the value, `locate:` or `prompt:`)")
        return None
    if not sources:
        return None
    node = sources[0]
    if node.kind == "map" and set(node.value) == {"locate"}:   # legacy nested form
        node = node.value["locate"]
    if node.kind != "map":
        return p.text(node, kind, expected="a target description")
    return _locate_map(kind, node, options, p)


def _target_text(kind: str, node: Node | None, options: dict, p: Problems,
                 where: str) -> str | None:
    """A target given as a string or as Midscene's locate object ``{prompt, images, ...}``
    (aiInput, aiKeyboardPress, aiScroll: their `locate:` or main value)."""
    if node is not None and node.kind == "map":
        return _locate_map(kind, node, options, p)
    return p.text(node, where, expected="a target description")


def _locate_map(kind: str, node: Node, options: dict, p: Problems) -> str | None:
    """``{prompt, images?, convertHttpImage2Base64?, deepLocate?, xpath?, cacheable?}`` -> the
    prompt; the rest into ``options``."""
    extra = {k: v for k, v in node.value.items() if k in ("deepLocate", "deepThink", "xpath",
                                                           "cacheable")}
    for name, value in extra.items():
        if name == "xpath":
            options["xpath"] = _xpath(value, f"{kind} xpath", p)
        else:
            options["deepLocate" if name == "deepThink" else name] = p.boolean(
                value, f"{kind} {name}")
    rest = Node("map", node.line, node.column, {k: v for k, v in node.value.items()
                                                 if k not in extra},
                keys={k: v for k, v in node.keys.items() if k not in extra})
    return _prompt_map(kind, rest, options, p)


def _xpath(node: Node | None, where: str, p: Problems) -> str | None:
    """A step's ``xpath:``, refused when it cannot be an XPath (an unclosed ``[`` or quote:
    `xpath_problem`) as the suite loads: it failed only once the browser had started."""
    xpath = p.text(node, where, empty_ok=False, expected="an XPath")
    problem = xpath_problem(xpath) if xpath is not None else None
    if problem:
        p.add(node, f'{where}: invalid XPath "{xpath.strip()}": {problem}')
        return None
    return xpath


def _drag(kind: str, main: Node, keys: dict[str, Node], options: dict, p: Problems) -> None:
    """aiDragAndDrop's ``from`` and ``to`` targets: in its mapping, beside it, or (``from``)
    as its value, as aiTap's target is (``aiDragAndDrop: Card 1`` with ``to: Done column``)."""
    ends = dict(main.value) if main.kind == "map" else {}
    ends.update({k: keys[k] for k in ("from", "to") if k in keys})
    if main.kind == "scalar" and not main.is_null:
        if "from" in ends:
            p.add(keys["from"], f"{kind}: give the target to drag once (as the value or "
                                "`from:`)")
            return
        ends["from"] = main
    elif main.kind != "map" and not main.is_null:
        p.add(main, f"{kind}: expected `from:` and `to:` targets (beside {kind}: or in it),"
                    f" got {main.describe()}")
        return
    for end in ("from", "to"):
        if end not in ends:
            p.add(main, f"{kind}: expected `{end}: <target>`")
            continue
        extra = [k for k in ends[end].value if k != "prompt"] if ends[end].kind == "map" \
            else []
        if extra:
            deep = extra[0] in ("deepLocate", "deepThink")
            p.add(ends[end].keys[extra[0]], f"{kind} {end}: only `prompt:` is read here " + (
                f"(write `deepLocate: true` beside {kind}: farm locates both ends with it)"
                if deep else "(farm drags between targets located by their words; no "
                             f"'{extra[0]}')"))
            continue
        options[end] = p.text(ends[end].value.get("prompt") if ends[end].kind == "map"
                              else ends[end], f"{kind} {end}", required=True,
                              empty_ok=False, expected="a target description")


def gesture(spec: StepKind, main: Node, keys: dict[str, Node], options: dict,
            p: Problems) -> tuple[str | None, str | None]:
    """aiSwipe / aiDragAndDrop / aiPinch / logScreenshot: (target, value)."""
    kind = spec.name
    if spec.shape == "record":
        title = p.text(main, kind, expected="a title") or "untitled"
        content = p.text(keys.get("content"), f"{kind} content", expected="a description")
        if content:
            options["content"] = content
        return None, title
    if spec.shape == "drag":
        _drag(kind, main, keys, options, p)
        return None, None
    if spec.shape == "swipe":
        for end in ("start", "end"):
            if end in keys:
                options[end] = p.text(keys[end], f"{kind} {end}", empty_ok=False,
                                      expected="a target description")
        if "distance" in keys and "end" in keys:
            p.add(keys["distance"], f"{kind}: give `end:` or `distance:`, not both")
        options["direction"] = p.choice(keys.get("direction"), f"{kind} direction", DIRECTIONS)
        target = p.text(main, kind, expected="a target to start from (or nothing)")
        if target and "start" in options:
            p.add(keys["start"], f"{kind}: give the start once (as the value or `start:`)")
        return (target or None), None
    # pinch
    options["direction"] = p.choice(keys.get("direction"), f"{kind} direction",
                                    PINCH_DIRECTIONS)
    if "direction" not in keys:
        p.add(main, f"{kind}: expected `direction: in` (fingers together) or `out` (apart)")
    target = locate_target(kind, main, keys, options, p)
    return (target or None), None
