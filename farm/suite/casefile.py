"""One case file's `Node` tree -> `Case`: top-level keys, target section, tasks, variables.

Midscene YAML scripts load unchanged: Midscene keys farm has no use for are accepted and
ignored; farm's own keys (``timeout``, ``retries``, ``tags``, ``secrets``, ``vars``) extend
``farm.yaml``'s defaults.
"""

from __future__ import annotations

from pathlib import Path

from farm.config import MAX_RETRIES
from farm.suite.checks import Problems
from farm.suite.model import AndroidTarget, Case, IosTarget, SuiteDefaults, Task, WebTarget
from farm.suite.steps import parse_flow
from farm.suite.vars import malformed, references
from farm.suite.yamlpos import Node

TARGETS = ("web", "android", "ios")
CASE_KEYS = {*TARGETS, "tasks", "name", "agent", "timeout", "retries", "tags", "secrets", "vars"}
TASK_KEYS = {"name", "flow", "continueOnError"}
WEB_KEYS = {"url", "viewportWidth", "viewportHeight", "userAgent", "deviceScaleFactor"}
# Midscene keys farm accepts (so Midscene scripts load unchanged) but has no use for.
_MIDSCENE_COMMON = {"output", "unstableLogContent", "aiActionContext"}
WEB_IGNORED = {"waitForNetworkIdle", "cookie", "serve", "bridgeMode",
               "closeNewTabsAfterDisconnect", "acceptInsecureCerts", "forceSameTabNavigation",
               "chromeArgs"} | _MIDSCENE_COMMON
ANDROID_KEYS, ANDROID_IGNORED = {"deviceId", "launch"}, _MIDSCENE_COMMON
IOS_KEYS, IOS_IGNORED = {"launch"}, {"wdaPort", "wdaHost"} | _MIDSCENE_COMMON
# A day: a longer case is a typo (and past threading.TIMEOUT_MAX a device thread's wait crashes).
MAX_CASE_SECONDS = 24 * 3600
UNDEFINED = "undefined variable ${{{}}} (set it in the environment, vars:, or a secrets dir)"


def check_templates(node: Node, known: set[str] | frozenset[str], p: Problems) -> None:
    """Report malformed placeholders and ``${NAME}`` (no default) with NAME not in ``known``."""
    for scalar in node.walk_scalars():
        text = scalar.text
        if not text or "${" not in text:
            continue
        for offset in malformed(text):
            end = text.find("}", offset)
            snippet = text[offset: end + 1] if 0 < end - offset < 40 else text[offset:][:20]
            p.add(scalar, f"malformed placeholder {snippet!r}: expected ${{NAME}} or "
                          "${NAME:-default} (write $${ for a literal ${)")
        for name, has_default, _ in references(text):
            if not has_default and name not in known:
                p.add(scalar, UNDEFINED.format(name))


def read_case(node: Node, path: Path, root: Path, defaults: SuiteDefaults,
              known: frozenset[str], p: Problems) -> Case | None:
    """Validate a composed case file; None (with ``p`` holding why) if anything is wrong.

    ``root``/``defaults`` are its suite's; ``known`` the variable names defined outside the
    suite (environment, secrets dir).
    """
    top = p.mapping(node, "case", "a mapping with web:/android:/ios: and tasks:")
    if top is None:
        return None
    if "target" in top:
        p.add(node.keys["target"], "`target:` is Midscene's old name for `web:`; "
                                   "rename it to `web:`")
    misspelt = p.keys(node, CASE_KEYS, "the case", ignored={"target"})
    targets = [t for t in TARGETS if t in top]
    if not targets and "target" not in top and not misspelt & set(TARGETS):
        p.add(node, "no target section: expected one of web:, android:, ios: "
                    "(the platform the case runs on)")
    elif len(targets) > 1:
        p.add(node.keys[targets[1]], f"two target sections ({', '.join(t + ':' for t in targets)}"
                                     "): a case runs on exactly one platform; split it into "
                                     "separate files")
    platform = targets[0] if len(targets) == 1 else ""
    d = defaults

    values: dict = {
        "id": f"{root.name}/{path.relative_to(root).with_suffix('').as_posix()}",
        "name": p.text(top.get("name"), "name", empty_ok=False) or path.stem,
        "file": path, "suite_root": root, "platform": platform or "web",
        "tasks": _read_tasks(node, top, p, platform, misspelt),
        "timeout": p.number(top.get("timeout"), "timeout", expected="seconds as a number > 0",
                            maximum=MAX_CASE_SECONDS) or d.timeout,
        "tags": list(dict.fromkeys(d.tags + p.string_list(top.get("tags"), "tags"))),
        "secrets": list(dict.fromkeys(d.secrets + p.string_list(top.get("secrets"), "secrets",
                                                                  names=True))),
        "vars": {**d.vars, **p.variables(top.get("vars"), "vars")},
        "cache_key": d.cache_key,
    }
    retries = p.integer(top.get("retries"), "retries", maximum=MAX_RETRIES)
    values["retries"] = d.retries if retries is None else retries
    agent = top.get("agent")
    if agent is not None and not agent.is_null:
        if p.mapping(agent, "agent", "a mapping of Midscene agent options") is not None:
            values["agent"] = agent.to_python()
            _check_agent_cache(agent, p)
    if platform:
        values[platform] = _read_target(platform, node.keys[platform], top[platform], p)

    app_envs = {a.env for a in d.apps if a.env}
    check_templates(node, known | set(values["vars"]) | app_envs, p)
    if p.errors:
        return None
    return p.build(Case, values, node)


def _read_target(platform: str, key: Node, node: Node, p: Problems):
    if platform == "web":
        if node.is_null:
            p.add(key, "web: expected a mapping with url: (the page to open), got nothing")
            return None
        items = p.mapping(node, "web", "a mapping with url: (the page to open)")
        if items is None:
            return None
        misspelt = p.keys(node, WEB_KEYS, "web:", WEB_IGNORED)
        if "url" not in items and "url" not in misspelt:
            p.add(key, "web.url is missing: expected `url: <address of the page to open>`")
        url = p.text(items.get("url"), "web.url", required="url" in items, empty_ok=False,
                     expected="the address of the page to open")
        values = {
            "url": url,
            "viewport_width": p.integer(items.get("viewportWidth"), "web.viewportWidth",
                                        minimum=1, expected="pixels as a positive integer"),
            "viewport_height": p.integer(items.get("viewportHeight"), "web.viewportHeight",
                                         minimum=1, expected="pixels as a positive integer"),
            "user_agent": p.text(items.get("userAgent"), "web.userAgent"),
            "device_scale_factor": p.number(items.get("deviceScaleFactor"),
                                            "web.deviceScaleFactor", expected="a number > 0"),
        }
        if url is None:
            return None
        return p.build(WebTarget, {k: v for k, v in values.items() if v is not None}, node)
    allowed, ignored = (ANDROID_KEYS, ANDROID_IGNORED) if platform == "android" else \
        (IOS_KEYS, IOS_IGNORED)
    if node.is_null:  # `android:` alone: any connected device, no app launch
        return AndroidTarget() if platform == "android" else IosTarget()
    items = p.mapping(node, platform, f"a mapping with {', '.join(sorted(allowed))}")
    if items is None:
        return None
    p.keys(node, allowed, f"{platform}:", ignored)
    launch = p.text(items.get("launch"), f"{platform}.launch", empty_ok=False,
                    expected="an app id or URL to launch")
    if platform == "android":
        device = p.text(items.get("deviceId"), "android.deviceId", empty_ok=False,
                        expected="an adb device serial")
        return AndroidTarget(device_id=device, launch=launch)
    return IosTarget(launch=launch)


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
    tasks = []
    for item in items:
        task = p.mapping(item, "task", "a task mapping with name: and flow:")
        if task is None:
            continue
        misspelt = p.keys(item, TASK_KEYS, "a task")
        name = p.text(task.get("name"), "task name", required="name" in task, empty_ok=False,
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
        cont = p.boolean(task.get("continueOnError"), "continueOnError")
        tasks.append(Task(name=name or "", continue_on_error=bool(cont), steps=steps))
    return tasks


CACHE_STRATEGIES = ("read-write", "read-only", "write-only")


def _check_agent_cache(agent: Node, p: Problems) -> None:
    """Midscene's ``agent.cache``: true/false, or ``{id, strategy}``."""
    node = agent.value.get("cache")
    if node is None or node.is_null or node.kind == "scalar" and isinstance(node.value, bool):
        return
    items = p.mapping(node, "agent.cache", "true, false or a mapping with id: and strategy:")
    if items is None:
        return
    p.keys(node, {"id", "strategy"}, "agent.cache")
    strategy = p.text(items.get("strategy"), "agent.cache.strategy")
    if strategy is not None and strategy not in CACHE_STRATEGIES:
        p.add(items["strategy"], f"agent.cache.strategy: expected one of "
                                 f"{', '.join(CACHE_STRATEGIES)}, got {strategy!r}")
