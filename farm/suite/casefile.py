"""One case file's `Node` tree -> `Case`: top-level keys, target section, tasks, variables.

Midscene YAML scripts load unchanged: every key of Midscene's script format either does what
Midscene's docs say or is refused with file:line and the reason (farm.suite.targets), never
accepted and ignored; farm's own keys (``timeout``, ``retries``, ``tags``, ``secrets``,
``vars``) extend ``farm.yaml``'s defaults.
"""

from __future__ import annotations

import difflib
import re
from functools import partial
from pathlib import Path

from farm.config import MAX_RETRIES
from farm.errors import SuiteError
from farm.suite.checks import Problems, quoted_number
from farm.suite.kinds import KINDS
from farm.suite.model import Case, Step, SuiteDefaults, Task
from farm.suite.moved_options import lift_agent_options, read_config, written_as
from farm.suite.steps import parse_flow
from farm.suite.targets import (UNSUPPORTED, WEB_SECTIONS, read_mobile, read_outputs, read_web,
                                section_of)
from farm.suite.vars import (PLACEHOLDER, from_workers, invalid_name, malformed, nearest_name,
                             references, undefined)
from farm.suite.yamlpos import Node

TARGETS = (*WEB_SECTIONS, "android", "ios")
CASE_KEYS = {*TARGETS, "tasks", "name", "agent", "config", "timeout", "retries", "tags", "secrets",
             "vars"}
TASK_KEYS = {"name", "flow", "continueOnError"}
# Midscene's report options: groupName titles the case in the report, groupDescription is
# shown under it, reportFileName also writes the case's own <run dir>/<name>.html; farm's
# agents print no per-script report message, so autoPrintReportMsg (either way) holds.
REPORT_KEYS = {"groupName", "groupDescription", "generateReport", "autoPrintReportMsg",
               "reportFileName", "persistExecutionDump"}
AGENT_KEYS = {"testId", "replanningCycleLimit", "aiActContext", "aiActionContext", "cache",
              *REPORT_KEYS}
# a top-level key only a case has (or one of Midscene's agent options written there): a YAML
# file with none of them, nor one close to them, is some other tool's (compose.yaml, data)
CASE_MARKS = {*TARGETS, *UNSUPPORTED, "tasks", "flow", "agent", "config", *AGENT_KEYS}
NO_REPORT = ("{at}: false is not supported by farm: every case is in the run's "
             "one merged report (report.html, results.json, junit.xml)")
# Midscene shrinks the screenshots it sends the model by this factor; farm sends them whole.
NO_SHRINK = ("{at} is not supported by farm: the model gets each "
             "screenshot at the size the device takes it; for a smaller one on the web, set a "
             "smaller viewportWidth / viewportHeight (or deviceScaleFactor: 1)")
# Not a Midscene agent option: Midscene passes it on to an agent that never reads it.
STRAY_STRATEGY = ("agent.strategy is not a Midscene agent option and has no effect (Midscene "
                  "ignores it too; the cache is read-write); write it as agent.cache.strategy")
CACHE_STRATEGIES = ["read-write", "read-only", "write-only"]
DEPRECATED_TARGET = ("`target:` is deprecated in Midscene (read as `page:`); rename it to "
                     "`page:` or `browser:`")
# after an undefined ${NAME} in a javascript: step: it may be a template literal's own
JS_ESCAPE = "; if ${{{0}}} is JavaScript's own, write $${{{0}}} (farm reads $${{ as a literal ${{)"
UNNAMED = 'unnamed results are numbered "0", "1", … over the case'
# A day: a longer case is a typo (and past threading.TIMEOUT_MAX a device thread's wait crashes).
MAX_CASE_SECONDS = 24 * 3600


def file_case_id(root: Path, path: Path) -> str:
    """The id of the case (or batch) file ``path`` of the suite at ``root``: the suite's
    folder name, then the file's path in it without its suffix (``demo/login_success``)."""
    return f"{root.name}/{path.relative_to(root).with_suffix('').as_posix()}"


_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(h|m|s)")


def duration_seconds(text: str) -> float | None:
    """``90s``, ``5m``, ``1h30m`` in seconds, as ``farm run --timeout`` reads them; None for
    a text that is no such duration."""
    compact = text.strip().lower().replace(" ", "")
    parts = _DURATION_PART.findall(compact)
    if not parts or "".join(n + u for n, u in parts) != compact \
            or len({u for _, u in parts}) < len(parts):
        return None
    return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)


def case_seconds(node: Node | None, expected: str, p: Problems) -> float | None:
    """A case's (or farm.yaml's) ``timeout:``, in seconds; a whole thousand of 5000 or more
    (``timeout: 30000``) is warned about: every other time in a suite file is milliseconds
    (Midscene's), and a hung case would hold its device for hours, not seconds."""
    seconds = None
    if node is not None and node.kind == "scalar" and isinstance(node.value, str):
        seconds = duration_seconds(node.value)      # (as farm run --timeout reads it)
    if seconds is not None:
        node = Node("scalar", node.line, node.column, seconds, raw=node.raw, plain=True)
    elif node is not None and node.kind == "scalar" and isinstance(node.value, str) \
            and "${" not in node.value and not quoted_number(node):
        p.add(node, f"timeout: expected {expected}, got {node.describe()} (or a duration, as "
                    "farm run --timeout takes: 90s, 5m, 1h30m)")
        return None
    value = p.number(node, "timeout", expected=expected, maximum=MAX_CASE_SECONDS)
    if node is not None and seconds is None and value is not None and value >= 5000 and value % 1000 == 0:
        p.warn(node, f"timeout: {value:g} seconds is {value / 3600:.1f} hours: a case's "
                     "timeout is in seconds (a step's timeout: and sleep: are milliseconds); "
                     f"for {value / 1000:g} s write timeout: {value / 1000:g}")
    return value


def check_secret_names(node: Node | None, known: set[str] | frozenset[str],
                       p: Problems) -> None:
    """A ``secrets:`` name no variable has, where one does in another casing (``secrets:
    [pw]`` beside ``vars: {PW: …}``): names match exactly, so that value was never masked and
    showed in logs, results and the report. A warning at the name (it may be set later)."""
    if node is None or node.kind != "seq":
        return
    for item in node.value:
        name = item.text if item.kind == "scalar" else None
        cased = sorted(k for k in known if name and k != name and k.lower() == name.lower())
        if name and name not in known and cased:
            p.warn(item, f"secrets: no variable is named {name!r} (did you mean "
                         f"{' or '.join(cased)}? names match exactly, and only a secret's "
                         "value is masked)")


def check_templates(node: Node, known: set[str] | frozenset[str], p: Problems,
                    secrets: list[str] | None = None) -> None:
    """Report malformed placeholders and ``${NAME}`` (no default) with NAME not in ``known``,
    each once per place: a value naming ``${KEY}`` three times had the same line thrice. A
    case's (``secrets``: its ``secrets:``) secret in a cluster run may be its worker's
    (`farm.suite.vars.from_workers`)."""
    results = _result_names(node)
    scripts = {id(s) for s in _javascript_scalars(node)}
    for scalar in node.walk_scalars():
        text = scalar.text
        if not text or "${" not in text:
            continue
        said: dict[str, int] = {}      # message -> where in `text` it is first said
        for offset in malformed(text):
            end = text.find("}", offset)
            snippet = text[offset: end + 1] if 0 < end - offset < 40 else text[offset:][:20]
            said.setdefault(_malformed(text[offset:], snippet), offset)
        for name, has_default, offset in references(text):
            if not has_default and name not in known and not (
                    secrets is not None and from_workers(name, secrets)):
                said.setdefault(_undefined(name, results, known) + (
                    JS_ESCAPE.format(name) if id(scalar) in scripts else ""), offset)
        for message, offset in said.items():
            p.add_at(*scalar.place(PLACEHOLDER, offset), message)


# a placeholder with a name but one no variable can have (``${登录密码}``, ``${ＵＳＥＲ}``)
_NAMED = re.compile(r"\$\{([^\s{}:$]+)(?::-[^}]*)?\}")


def _malformed(rest: str, snippet: str) -> str:
    """What is wrong with the ``${`` ``rest`` starts with: a name that is not ASCII is said
    as such (as under ``vars:``), not as a malformed placeholder."""
    named = _NAMED.match(rest)
    if named and not named[1].isascii():
        return f"placeholder {snippet!r}: {invalid_name(named[1])}"
    return (f"malformed placeholder {snippet!r}: expected ${{NAME}} or ${{NAME:-default}} "
            "(write $${ for a literal ${)")


def _javascript_scalars(node: Node) -> list[Node]:
    """The text of each ``javascript:`` step of a case file (its ``${`` may be JavaScript's)."""
    out = []
    tasks = node.value.get("tasks") if node.kind == "map" else None
    for task in tasks.value if tasks is not None and tasks.kind == "seq" else []:
        flow = task.value.get("flow") if task.kind == "map" else None
        for step in flow.value if flow is not None and flow.kind == "seq" else []:
            script = step.value.get("javascript") if step.kind == "map" else None
            out += list(script.walk_scalars()) if script is not None else []
    return out


def _result_names(node: Node) -> dict[str, Node]:
    """The ``name:`` of each flow step in a case file (its step node), for `_undefined`."""
    out: dict[str, Node] = {}
    tasks = node.value.get("tasks") if node.kind == "map" else None
    for task in tasks.value if tasks is not None and tasks.kind == "seq" else []:
        flow = task.value.get("flow") if task.kind == "map" else None
        for step in flow.value if flow is not None and flow.kind == "seq" else []:
            name = step.value.get("name") if step.kind == "map" else None
            if name is not None and name.kind == "scalar" and name.text:
                out.setdefault(name.text, step)
    return out


def _undefined(name: str, results: dict[str, Node], known: set[str] | frozenset[str]) -> str:
    """The message for an undefined ``${name}``: when a step of the file keeps its result
    under that name (``aiNumber: the price`` + ``name: price``, then ``aiAssert: the total is
    ${price}``), that a result is no variable, rather than where to set one; else where to
    set one, and the ``known`` name nearest it (``did you mean ${QA_URL}?``); with none near,
    the result name nearest it (``${rowz}`` for the result ``rows``), said as a result."""
    step = results.get(name)
    if step is None:
        near = nearest_name(name, results) if nearest_name(name, known) is None else None
        if near is None:
            return undefined(name, known)
        return (f"undefined variable ${{{name}}}: did you mean ${{{near}}}? "
                + _no_variable(near, results[near]))
    return f"undefined variable ${{{name}}}: {_no_variable(name, step)}"


def _no_variable(name: str, step: Node) -> str:
    """That ``name``, the result of ``step``, is no variable, and what to write instead."""
    kind = next((k for k in step.value if k in KINDS), "step")
    return (f"{name!r} is the name of the {kind} result at line {step.line}, and "
            "a step's result is no variable: farm, as Midscene, does not put one step's answer "
            "into a later step's text (the answer is in the case's data and the output: file); "
            "describe the value in the later step instead (\"the total equals the price "
            "shown\")")


def not_a_case(node: Node) -> bool:
    """A mapping none of whose keys is (or nearly is) one only a case has (`CASE_MARKS`):
    ``services:`` of a compose.yaml was three errors ("unknown key 'services' … (did you mean
    'secrets'?)", no target section, no tasks) for a file that is no case at all."""
    if node.kind != "map" or not node.value:
        return False
    marks = [m.lower() for m in CASE_MARKS]     # (taks:, andriod: are a case's slips; a
    return not any(difflib.get_close_matches(   # compose file's image: is not page:)
        str(key).lower(), marks, n=1, cutoff=0.75) for key in node.value)


def read_case(node: Node, path: Path, root: Path, defaults: SuiteDefaults,
              known: frozenset[str], p: Problems, partial: dict | None = None) -> Case | None:
    """Validate a composed case file; None (with ``p`` holding why) if anything is wrong.

    ``root``/``defaults`` are its suite's; ``known`` the variable names defined outside the
    suite (environment, secrets dir). ``partial`` receives the fields read (the id, output
    files...), errors or not: what the loader checks across files is checked in one pass.
    """
    p.base = path.parent            # reference images are read relative to the file
    top = p.mapping(node, "case", "a mapping with page:/browser:/web:/android:/ios: and tasks:")
    if top is None:
        return None
    written = lift_agent_options(node, top, {*AGENT_KEYS, "screenshotShrinkFactor"}, p)
    for name, what in UNSUPPORTED.items():
        if name in top:
            p.add(node.keys[name], f"{name}: is not supported by farm: it drives browsers, "
                                   f"Android and iOS devices, not {what}")
    misspelt = _case_keys(node, top, p)
    if set(UNSUPPORTED) & set(top):
        return None     # its steps are that platform's (runHdcShell, …): nothing more to say
    if "target" in top:
        p.warn(node.keys["target"], DEPRECATED_TARGET)
    targets = section_of(top)
    if not targets and not set(UNSUPPORTED) & set(top) and not misspelt & set(TARGETS):
        p.add(node, "no target section: expected one of page:, browser:, web:, android:, ios: "
                    "(the platform the case runs on)" + (
                        "" if "tasks" in top else "; a YAML file that is no case (data, a "
                        "tool's config): list it under exclude: in the suite's farm.yaml"))
    elif len(targets) > 1:
        p.add(node.keys[targets[1]], f"two target sections ({', '.join(t + ':' for t in targets)}"
                                     "): a case runs on exactly one platform (and one of page:, "
                                     "browser:, web:); split it into separate files")
    section = targets[0] if len(targets) == 1 else ""
    platform = "web" if section in WEB_SECTIONS else section
    d = defaults

    values: dict = {
        **_variables(top, d, p),       # first: number fields below may refer to them
        "id": file_case_id(root, path),
        "name": p.name(top.get("name"), "name", empty_ok=False) or path.stem,
        "file": path, "suite_root": root, "platform": platform or "web",
        "tasks": _read_tasks(node, top, p, platform, misspelt),
        **_timeout(top.get("timeout"), d, p),
        "tags": list(dict.fromkeys(d.tags + p.string_list(top.get("tags"), "tags"))),
        "cache_key": d.cache_key,
    }
    _sleeps_past_timeout(values, top.get("timeout"), p)
    retries = p.integer(top.get("retries"), "retries", maximum=MAX_RETRIES)
    values["retries"] = d.retries if retries is None else retries
    _apply_agent(values, top, root, written, p)
    values.update(_target(node, section, platform, path, p))

    app_envs = {a.env for a in d.apps if a.env}
    check_templates(node, known | set(values["vars"]) | app_envs, p, values["secrets"])
    check_secret_names(top.get("secrets"), known | set(values["vars"]), p)
    if partial is not None:
        partial.update(values)
    if p.errors:
        return None
    return p.build(Case, values, node)


def _target(node: Node, section: str, platform: str, path: Path, p: Problems) -> dict:
    """The case fields its target section (and Midscene's ``config:``) sets."""
    top, values = node.value, read_config(node.value, section, p)
    if section:
        values[platform] = (read_web(section, node.keys[section], top[section], path.parent, p)
                            if platform == "web" else read_mobile(platform, top[section], p))
        values["setup_line"] = _setup_line(node.keys[section], top[section])
        values["pin_line"] = next((top[section].keys[k].line for k in PIN_KEYS
                                   if k in top[section].keys), 0)
        outputs = read_outputs(top[section], section, p)
        outputs["outputs_at"] = {**values.get("outputs_at", {}), **outputs.get("outputs_at", {})}
        values.update(outputs)
    return values


# The keys pinning a case to one device: a "no such device" result is at its line, as its
# message says (it was at the launch: line, the message at the deviceId: one).
PIN_KEYS = ("deviceId", "wdaHost", "wdaPort")


def _setup_line(key: Node, section: Node) -> int:
    """Where a case's set-up is written, for a failure before its first step: the launch: or
    url: line, else the target section's."""
    for name in ("launch", "url"):
        if name in section.keys:
            return section.keys[name].line
    return key.line


def _case_keys(node: Node, top: dict[str, Node], p: Problems) -> set[str]:
    """Report the case's unknown keys (`Problems.keys`); an option of an empty target section
    written at its column (``web:`` then ``url: …`` not indented) is said to be one."""
    from farm.suite.targets import ANDROID_KEYS, IOS_KEYS, WEB_KEYS
    empty = [t for t in section_of(top) if top[t].is_null]
    keys = {"android": ANDROID_KEYS, "ios": IOS_KEYS}.get(empty[0], WEB_KEYS) \
        if len(empty) == 1 else set()
    stray = [k for k in top if k not in CASE_KEYS and k in keys]
    for name in stray:
        p.add(node.keys[name], f"{name}: is an option of {empty[0]}:, here at the column of "
                               f"{empty[0]}: itself: indent it under {empty[0]}:")
    return p.keys(node, CASE_KEYS, "the case", ignored={*UNSUPPORTED, *stray}) | \
        _nested_case_keys(top, p)


def _nested_case_keys(top: dict[str, Node], p: Problems) -> set[str]:
    """The case's own keys written inside its target section (``tasks:`` indented under
    ``web:``), said as that at the key, where it was "unknown key 'tasks' in web:" and
    "missing required key 'tasks'"; taken out of the section, which is read without them."""
    from farm.suite.targets import ANDROID_KEYS, IOS_KEYS, WEB_KEYS
    nested: set[str] = set()
    for section in section_of(top):
        node = top[section]
        allowed = {"android": ANDROID_KEYS, "ios": IOS_KEYS}.get(section, WEB_KEYS)
        for name in [k for k in node.keys if k in CASE_KEYS - allowed and k not in top] \
                if node.kind == "map" else []:
            p.add(node.keys[name], f"{name}: is a key of the case, here indented under "
                                   f"{section}: as if an option of it: write it at the column "
                                   f"of {section}:")
            del node.keys[name], node.value[name]
            nested.add(name)
    return nested


def _timeout(node: Node | None, d: SuiteDefaults, p: Problems) -> dict:
    """The case's own ``timeout:`` (``own_timeout``: --timeout / FARM_DEFAULT_TIMEOUT, the
    run's default, does not replace it, as a test's own timeout wins in pytest-timeout and
    Playwright), else its farm.yaml's, which the run's default does replace."""
    seconds = case_seconds(node, "seconds as a number > 0", p)
    return {"timeout": d.timeout} if seconds is None else {"timeout": seconds,
                                                           "own_timeout": True}


def _sleeps_past_timeout(values: dict, node: Node | None, p: Problems) -> None:
    """A ``sleep:`` (or a step's own ``timeout:``) longer than the case's timeout: the case
    could only be stopped in it, an error after the whole timeout (``sleep: 90000`` with
    ``timeout: 60`` burnt 60 s; ``waitForText`` with ``timeout: 90000`` ended an ERROR when its
    text never came). A sleep is refused against the case's own ``timeout:`` (which --timeout
    does not replace); warned against its farm.yaml's, which the run's --timeout /
    FARM_DEFAULT_TIMEOUT may raise. A wait's timeout is only its longest (its text usually
    comes in a second): a warning, never a refusal (a suite that passed kept loading)."""
    seconds = values["timeout"]
    own = values.get("own_timeout", False)
    whose = (f"the case's timeout: {seconds:g} s (line {node.line})" if own and node is not None
             else f"the case's timeout of {seconds:g} s (it sets no timeout: of its own; "
                  "farm.yaml's or farm's default, which --timeout may raise)")
    for step in (s for task in values["tasks"] or [] for s in task.steps):
        said = _waits_past(step, seconds, whose)
        if said is None:
            continue
        if own and step.kind == "sleep":      # (a wait's timeout is only its longest: a
            p.add_at(step.line, step.column, said)    # warning, as its text usually comes)
        else:
            p.warnings.append(SuiteError(p.file, said, step.line, step.column))


def _waits_past(step: Step, seconds: float, whose: str) -> str | None:
    """Why ``step`` waits past its case's timeout (a ``sleep:``, or a step's own
    ``timeout:``, as waitForText's or aiWaitFor's: it ended as an infrastructure error, the
    case stopped in it), or None."""
    if step.kind == "sleep" and (step.value or "").isdigit():
        ms = int(step.value or 0)
        if ms / 1000 > seconds:
            return (f"sleep: {ms} ms is {ms / 1000:g} s, longer than {whose}: the case would be "
                    f"stopped in the sleep, an error after {seconds:g} s (sleep: is "
                    "milliseconds); shorten the sleep or raise timeout:")
    elif step.timeout_ms is not None and step.timeout_ms / 1000 > seconds:
        ms = step.timeout_ms
        return (f"{step.kind}: timeout: {ms} ms is {ms / 1000:g} s, longer than {whose}: a "
                f"wait that long would stop the case, an error after {seconds:g} s, not this "
                "step's failure (a step's timeout: is milliseconds); shorten the step's "
                "timeout: or raise the case's")
    return None


def _variables(top: dict[str, Node], d: SuiteDefaults, p: Problems) -> dict:
    """The case's ``secrets:`` and ``vars:`` over its suite's; from here on a number or
    true/false field's ``${NAME}`` reads them too (farm.suite.checks)."""
    secrets = list(dict.fromkeys(d.secrets + p.string_list(top.get("secrets"), "secrets",
                                                             names=True)))
    variables = {**d.vars, **p.variables(top.get("vars"), "vars", d.vars)}
    if p.values is not None:
        p.values = p.values.within(variables, secrets)
    return {"secrets": secrets, "vars": variables}


def _apply_agent(values: dict, top: dict[str, Node], root: Path, written: dict[str, str],
                 p: Problems) -> None:
    """The case fields ``agent:`` sets: its options, the id (testId), the report title
    (groupName, unless the case has its own name:), description and report file.
    ``written``: the options lifted from ``web:`` (named so in errors)."""
    values["agent"] = _read_agent(top.get("agent"), written, p)
    if values["agent"].get("testId"):
        values["id"] = f"{root.name}/{values['agent']['testId']}"
    report = _report_options(top.get("agent"), written, p)
    group = report.pop("groupName", None)
    if group is not None and "name" not in top:
        values["name"] = group
    elif group is not None:
        p.warn(top["agent"].keys["groupName"], f"{written_as(written, 'groupName')} is not "
                                               "used: the case has its own name: (line "
                                               f"{top['name'].line}); "
                                               "groupName titles a case that has no name:")
    values.update(report)


def _read_agent(node: Node | None, written: dict[str, str], p: Problems) -> dict:
    """Midscene's ``agent:`` section: testId, replanningCycleLimit, aiActContext (or its
    legacy name aiActionContext) and cache {id, strategy}."""
    at = partial(written_as, written)
    if node is None or node.is_null:
        return {}
    items = p.mapping(node, "agent", "a mapping of Midscene agent options")
    if items is None:
        return {}
    if "strategy" in items:
        p.warn(node.keys["strategy"], STRAY_STRATEGY)
    p.keys(node, AGENT_KEYS, "agent:", {"strategy", "screenshotShrinkFactor"})
    if "screenshotShrinkFactor" in items:
        p.add(node.keys["screenshotShrinkFactor"],
              NO_SHRINK.format(at=at("screenshotShrinkFactor")))
    out: dict = {}
    test_id = p.name(items.get("testId"), at("testId"), empty_ok=False,
                     expected="an identifier for the case")
    if test_id is not None:
        if "/" in test_id or test_id.strip() != test_id:
            p.add(items["testId"], f"{at('testId')}: {test_id!r}: expected a name without '/' "
                                   "or surrounding spaces")
        out["testId"] = test_id
    limit = p.integer(items.get("replanningCycleLimit"), at("replanningCycleLimit"),
                      minimum=1, maximum=1000)
    if limit is not None:
        out["replanningCycleLimit"] = limit
    if "aiActContext" in items and "aiActionContext" in items:
        p.add(node.keys["aiActionContext"], "agent: give aiActContext once (aiActionContext is "
                                            "its legacy name)")
    key = "aiActContext" if "aiActContext" in items else "aiActionContext"
    text = p.text(items.get(key), at(key), expected="background text for the model")
    if text:
        out["aiActContext"] = text
    cache = _read_cache(items.get("cache"), at("cache"), p)
    if cache is not None:
        out["cache"] = cache
    return out


def _report_options(node: Node | None, written: dict[str, str], p: Problems) -> dict:
    """agent.groupName (the case's title), groupDescription, reportFileName, generateReport
    and autoPrintReportMsg -> the Case fields they set."""
    if node is None or node.kind != "map":
        return {}
    items, out, at = node.value, {}, partial(written_as, written)
    for key, field in (("groupName", "groupName"), ("groupDescription", "description")):
        text = p.name(items.get(key), at(key), empty_ok=False)
        if text is not None:
            out[field] = text
    name = p.name(items.get("reportFileName"), at("reportFileName"), empty_ok=False,
                  expected="a file name for the case's own report")
    if name is not None:
        stem = name.removesuffix(".html")
        if "/" in stem or "\\" in stem or stem in (".", "..", "report"):
            p.add(items["reportFileName"], f"{at('reportFileName')}: {name!r}: expected a plain "
                                           "file name (no folder; not 'report', the run's own)")
        else:
            out["report_file"] = stem + ".html"
    if p.boolean(items.get("generateReport"), at("generateReport")) is False:
        p.add(items["generateReport"], NO_REPORT.format(at=at("generateReport")))
    p.boolean(items.get("autoPrintReportMsg"), at("autoPrintReportMsg"))
    # (farm keeps every step's record in results.json and the report whatever it says)
    p.boolean(items.get("persistExecutionDump"), at("persistExecutionDump"))
    return out


def _read_cache(node: Node | None, at: str, p: Problems) -> dict | bool | None:
    """agent.cache: {id (required), strategy: read-only | read-write | write-only}, or
    true / false (farm.cache reads it); ``at``: its name as written (``web.cache``)."""
    if node is None or node.is_null:
        return None
    if node.kind == "scalar" and isinstance(node.value, bool):
        return node.value
    items = p.mapping(node, at, "true, false or a mapping with id: and strategy:")
    if items is None:
        return None
    p.keys(node, {"id", "strategy"}, f"{at}:")
    cid = p.text(items.get("id"), f"{at}.id", empty_ok=False, expected="a cache id")
    if "id" not in items:
        p.add(node, f"{at}.id is missing: expected `id: <cache name>`")
    strategy = p.choice(items.get("strategy"), f"{at}.strategy", CACHE_STRATEGIES)
    return {"id": cid, "strategy": strategy or "read-write"}


def _read_tasks(case: Node, top: dict[str, Node], p: Problems, platform: str,
                misspelt: set[str]) -> list[Task]:
    expected = "a list of tasks (`- name: ...` with `flow:`)"
    if "tasks" not in top:
        if "tasks" not in misspelt:  # else "unknown key 'tsks' (did you mean 'tasks'?)" said it
            p.add(case, f"missing required key 'tasks': expected {expected}")
        return []
    node = top["tasks"]
    items = p.sequence(node, "tasks", expected)
    if items is None:
        return []
    if not items:
        p.add(node, "tasks is empty: expected at least one task")
    tasks, flows = [], []
    for item in items:
        task = p.mapping(item, "task", "a task mapping with name: and flow:")
        if task is None:
            continue
        misspelt = p.keys(item, TASK_KEYS, "a task")
        name = p.name(task.get("name"), "task name", required="name" in task, empty_ok=False,
                      expected="the task's name")
        if "name" not in task and "name" not in misspelt:
            p.add(item, "task is missing 'name': expected `name: <what this task does>`")
        label = f"task '{name}'" if name else "task"
        steps = []
        if "flow" not in task:
            if "flow" not in misspelt:
                p.add(item, f"{label} is missing 'flow': expected a list of steps "
                            "like `- aiTap: <target>`")
        elif task["flow"].is_null:
            p.add(task["flow"], f"{label} flow: expected a list of steps like "
                                "`- aiTap: <target>`, got nothing")
        else:
            steps = parse_flow(task["flow"], f"{label} flow", p, platform)
            flows.append((task["flow"], steps))
        cont = p.boolean(task.get("continueOnError"), "continueOnError")
        tasks.append(Task(name=name or "", continue_on_error=bool(cont), steps=steps))
    _check_result_keys(flows, p)
    return tasks


def _check_result_keys(flows: list[tuple[Node, list[Step]]], p: Problems) -> None:
    """Refuse a second result under a key another step's result has (Midscene's player warns
    "result key x already exists, will overwrite" and keeps the last): results are kept under
    a step's ``name:``, else numbered "0", "1", … over the case (farm.runner)."""
    seen: dict[str, str] = {}       # key -> the step whose result has it, for the message
    unnamed = 0
    for flow, steps in flows:
        items = {(n.line, n.column): n for n in flow.value} if flow.kind == "seq" else {}
        for step in steps:
            name, item = step.options.get("name"), items.get((step.line, step.column))
            if name is None and step.spec.data:
                key, unnamed = str(unnamed), unnamed + 1
                first = f"the unnamed {step.kind} at line {step.line} ({UNNAMED})"
                this = f"this unnamed {step.kind}'s result is numbered {key!r} ({UNNAMED}),"
            elif name is not None and step.spec.keeps_named:
                key, first, this = name, f"the {step.kind} at line {step.line}", f"name {name!r} is"
            else:
                continue
            if key in seen:
                at = item.keys.get("name", item) if item is not None and name else item
                p.add(at, f"{this} already the result key of {seen[key]}: one result would "
                          "overwrite the other in the case's data and output: file; give each "
                          "step a name: of its own")
            seen.setdefault(key, first)
