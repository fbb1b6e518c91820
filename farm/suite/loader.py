"""Find suites on disk, read ``farm.yaml`` and case files, and validate everything up front.

A *suite root* is the nearest directory (the path given or an ancestor) holding ``farm.yaml``,
or else the directory given.  Every ``*.yaml``/``*.yml`` below a root is one case, except
``farm.yaml`` itself, hidden files and directories, ``node_modules`` and the directories the
suite serves as apps.  A directory below a root that has its own ``farm.yaml`` is a separate
suite.

Nothing runs until every file is valid: `load_suites` raises one `SuiteErrors` listing every
problem in every file, each with file, line and column.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from farm.errors import SuiteError, SuiteErrors
from farm.suite.checks import Problems
from farm.suite.model import (
    AndroidTarget,
    AppSpec,
    Case,
    IosTarget,
    Suite,
    SuiteDefaults,
    Task,
    WebTarget,
)
from farm.suite.steps import parse_flow
from farm.suite.vars import Variables, is_valid_name, malformed, references
from farm.suite.yamlpos import EMPTY_MESSAGE, Node, read_yaml

SUITE_FILE = "farm.yaml"
CASE_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = {"node_modules"}
TARGETS = ("web", "android", "ios")
CASE_KEYS = {*TARGETS, "tasks", "name", "agent", "timeout", "retries", "tags", "secrets", "vars"}
SUITE_KEYS = {"timeout", "retries", "tags", "secrets", "vars", "apps"}
APP_KEYS = {"serve", "env", "android", "ios"}
TASK_KEYS = {"name", "flow", "continueOnError"}
WEB_KEYS = {"url", "viewportWidth", "viewportHeight", "userAgent", "deviceScaleFactor"}
# Midscene keys farm accepts (so Midscene scripts load unchanged) but has no use for.
_MIDSCENE_COMMON = {"output", "unstableLogContent", "aiActionContext"}
WEB_IGNORED = {"waitForNetworkIdle", "cookie", "serve", "bridgeMode",
               "closeNewTabsAfterDisconnect", "acceptInsecureCerts", "forceSameTabNavigation",
               "chromeArgs"} | _MIDSCENE_COMMON
ANDROID_KEYS, ANDROID_IGNORED = {"deviceId", "launch"}, _MIDSCENE_COMMON
IOS_KEYS, IOS_IGNORED = {"launch"}, {"wdaPort", "wdaHost"} | _MIDSCENE_COMMON
UNDEFINED = "undefined variable ${{{}}} (set it in the environment, vars:, or a secrets dir)"


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when below it (shorter messages)."""
    text, cwd = str(path), os.getcwd()
    # String prefix, not Path.relative_to: this runs once per file and pathlib is slow.
    if text.startswith(cwd.rstrip(os.sep) + os.sep):
        return Path(text[len(cwd.rstrip(os.sep)) + 1:]).as_posix()
    return text


def find_root(directory: Path) -> Path | None:
    """The nearest of ``directory`` and its ancestors holding ``farm.yaml``."""
    for candidate in (directory, *directory.parents):
        if (candidate / SUITE_FILE).is_file():
            return candidate
    return None


@dataclass
class _SuiteInfo:
    root: Path
    defaults: SuiteDefaults
    excluded: set[str] = field(default_factory=set)     # real paths of served app dirs
    files: dict[str, Path] = field(default_factory=dict)  # real path -> case file
    has_file: bool = False


class _Loading:
    """State of one `load_suites` call: suites found so far and every error."""

    def __init__(self, known: frozenset[str]) -> None:
        self.known = known          # variable names from env and secrets dir
        self.suites: dict[Path, _SuiteInfo] = {}
        self.errors: list[SuiteError] = []

    def suite(self, root: Path) -> _SuiteInfo:
        if root not in self.suites:
            defaults = self.read_defaults(root)
            info = _SuiteInfo(root, defaults, has_file=(root / SUITE_FILE).is_file())
            info.excluded = {os.path.realpath(a.serve) for a in defaults.apps if a.serve}
            self.suites[root] = info
        return self.suites[root]

    # -- discovery ----------------------------------------------------------------------------

    def add_path(self, given: Path | str) -> None:
        path = Path(os.path.abspath(given))
        if path.is_file() and path.name == SUITE_FILE:
            path = path.parent
        if path.is_dir():
            self.walk(path, find_root(path) or path)
        elif path.is_file():
            if path.suffix not in CASE_SUFFIXES:
                self.errors.append(SuiteError(display_path(path), "not a YAML file: expected a "
                                              "suite directory or a .yaml/.yml case file"))
                return
            self.suite(find_root(path.parent) or path.parent).files[
                os.path.realpath(path)] = path
        else:
            self.errors.append(SuiteError(display_path(path), "no such file or directory: "
                                          "expected a suite directory or a .yaml case file"))

    def walk(self, top: Path, top_root: Path) -> None:
        roots = {str(top): top_root}
        for dirpath, dirnames, filenames in os.walk(top):
            here = Path(dirpath)
            root = roots.get(dirpath) or roots[str(here.parent)]
            if here != top and SUITE_FILE in filenames:
                root = here  # a nested farm.yaml starts its own suite
            roots[dirpath] = root
            info = self.suite(root)
            # Prune in place so os.walk never descends into skipped directories.
            dirnames[:] = sorted(
                d for d in dirnames
                if not d.startswith(".") and d not in SKIP_DIRS
                and os.path.realpath(here / d) not in info.excluded
            )
            for name in sorted(filenames):
                if name.startswith(".") or name == SUITE_FILE or \
                        not name.endswith(CASE_SUFFIXES):
                    continue
                info.files.setdefault(os.path.realpath(here / name), here / name)

    # -- farm.yaml ----------------------------------------------------------------------------

    def read_defaults(self, root: Path) -> SuiteDefaults:
        path = root / SUITE_FILE
        if not path.is_file():
            return SuiteDefaults()
        shown = display_path(path)
        node, errors = read_yaml(path, shown)
        self.errors.extend(errors)
        if node is None:  # empty farm.yaml just marks the suite root
            return SuiteDefaults()
        p = Problems(shown)
        top = p.mapping(node, "farm.yaml", "a mapping of suite settings (timeout:, retries:, "
                                           "tags:, secrets:, vars:, apps:)")
        if top is None:
            self.errors.extend(p.errors)
            return SuiteDefaults()
        p.keys(node, SUITE_KEYS, "farm.yaml")
        values: dict = {
            "timeout": p.number(top.get("timeout"), "timeout",
                                expected="seconds per case as a number > 0"),
            "retries": p.integer(top.get("retries"), "retries"),
            "tags": p.string_list(top.get("tags"), "tags"),
            "secrets": p.string_list(top.get("secrets"), "secrets", names=True),
            "vars": p.variables(top.get("vars"), "vars"),
            "apps": self.read_apps(top.get("apps"), root, p),
        }
        defaults = _build(SuiteDefaults, {k: v for k, v in values.items() if v is not None},
                          node, p) or SuiteDefaults()
        known = self.known | set(defaults.vars) | {a.env for a in defaults.apps if a.env}
        _check_templates(node, known, p)
        self.errors.extend(p.errors)
        return defaults

    def read_apps(self, node: Node | None, root: Path, p: Problems) -> list[AppSpec]:
        if node is None or node.is_null:
            return []
        apps = p.mapping(node, "apps", "a mapping of app name to {serve:, env:, android:, ios:}")
        out = []
        for name, spec in (apps or {}).items():
            where = f"apps.{name}"
            items = p.mapping(spec, where, "a mapping with serve:, env:, android: or ios:")
            if items is None:
                continue
            p.keys(spec, APP_KEYS, where)
            serve = p.text(items.get("serve"), f"{where}.serve", empty_ok=False,
                           expected="a directory relative to farm.yaml")
            serve_path = (root / serve) if serve else None
            if serve_path is not None and not serve_path.is_dir():
                p.add(items["serve"], f"{where}.serve: directory {serve!r} does not exist "
                                      "(expected a directory relative to farm.yaml)")
            env = p.text(items.get("env"), f"{where}.env", empty_ok=False,
                         expected="a variable name")
            if env is not None and not is_valid_name(env):
                p.add(items["env"], f"{where}.env: {env!r} is not a valid variable name "
                                    "(letters, digits and _, not starting with a digit)")
            app = _build(AppSpec, {
                "name": name, "serve": serve_path, "env": env,
                "android": p.text(items.get("android"), f"{where}.android", empty_ok=False,
                                  expected="an Android package name"),
                "ios": p.text(items.get("ios"), f"{where}.ios", empty_ok=False,
                              expected="an iOS bundle id"),
            }, spec, p)
            if app is not None:
                out.append(app)
        return out

    # -- cases --------------------------------------------------------------------------------

    def read_case(self, path: Path, info: _SuiteInfo) -> Case | None:
        shown = display_path(path)
        node, errors = read_yaml(path, shown)
        if errors or node is None:
            self.errors.extend(errors or [SuiteError(shown, EMPTY_MESSAGE, 1, 1)])
            return None
        p = Problems(shown)
        case = _read_case(node, path, info, self.known, p)
        self.errors.extend(p.errors)
        return case if not p.errors else None


def _build(model, values: dict, node: Node, p: Problems):
    """Instantiate a pydantic model from checked values; a slip becomes a SuiteError."""
    try:
        return model(**values)
    except ValidationError as exc:
        for err in exc.errors():
            where = ".".join(str(x) for x in err["loc"])
            p.add(node, f"{where}: {err['msg']}")
        return None


def _check_templates(node: Node, known: set[str] | frozenset[str], p: Problems) -> None:
    """Report malformed placeholders and ``${NAME}`` (no default) with NAME not in ``known``."""
    for scalar in node.walk_scalars():
        text = scalar.text
        if not text or "${" not in text:
            continue
        for offset in malformed(text):
            snippet = text[offset: offset + 20]
            p.add(scalar, f"malformed placeholder {snippet!r}: expected ${{NAME}} or "
                          "${NAME:-default} (write $${ for a literal ${)")
        for name, has_default, _ in references(text):
            if not has_default and name not in known:
                p.add(scalar, UNDEFINED.format(name))


def _read_case(node: Node, path: Path, info: _SuiteInfo, known: frozenset[str],
               p: Problems) -> Case | None:
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
    d = info.defaults

    values: dict = {
        "id": f"{info.root.name}/{path.relative_to(info.root).with_suffix('').as_posix()}",
        "name": p.text(top.get("name"), "name", empty_ok=False) or path.stem,
        "file": path, "suite_root": info.root, "platform": platform or "web",
        "tasks": _read_tasks(node, top, p, platform, misspelt),
        "timeout": p.number(top.get("timeout"), "timeout",
                            expected="seconds as a number > 0") or d.timeout,
        "tags": list(dict.fromkeys(d.tags + p.string_list(top.get("tags"), "tags"))),
        "secrets": list(dict.fromkeys(d.secrets + p.string_list(top.get("secrets"), "secrets",
                                                                  names=True))),
        "vars": {**d.vars, **p.variables(top.get("vars"), "vars")},
    }
    retries = p.integer(top.get("retries"), "retries")
    values["retries"] = d.retries if retries is None else retries
    agent = top.get("agent")
    if agent is not None and not agent.is_null:
        if p.mapping(agent, "agent", "a mapping of Midscene agent options") is not None:
            values["agent"] = agent.to_python()
    if platform:
        values[platform] = _read_target(platform, node.keys[platform], top[platform], p)

    app_envs = {a.env for a in d.apps if a.env}
    _check_templates(node, known | set(values["vars"]) | app_envs, p)
    if p.errors:
        return None
    return _build(Case, values, node, p)


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
        return _build(WebTarget, {k: v for k, v in values.items() if v is not None}, node, p)
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


def load_suites(paths: Sequence[Path | str], env: Mapping[str, str] | None = None,
                secrets_dir: Path | None = None) -> list[Suite]:
    """Discover and load every suite under ``paths`` (directories or case files).

    ``env`` (default ``os.environ``) and ``secrets_dir`` only decide which ``${NAME}`` are
    defined; no value is substituted.  Returns suites sorted by root, cases sorted by id; a
    suite is included when it has a ``farm.yaml`` or at least one case.  Raises `SuiteErrors`
    with every problem of every file, or `ConfigError` if ``secrets_dir`` is unreadable.
    """
    known = Variables.from_sources({}, env=env, secrets_dir=secrets_dir).names
    loading = _Loading(known)
    for given in dict.fromkeys(str(p) for p in paths):
        loading.add_path(given)
    seen: set[str] = set()
    suites = []
    for root in sorted(loading.suites):
        info = loading.suites[root]
        cases = []
        for real, file in sorted(info.files.items(), key=lambda kv: str(kv[1])):
            if real in seen:  # a file reached twice (e.g. through a symlink) loads once
                continue
            seen.add(real)
            case = loading.read_case(file, info)
            if case is not None:
                cases.append(case)
        if info.has_file or info.files:
            suites.append(Suite(root=root, defaults=info.defaults,
                                cases=sorted(cases, key=lambda c: c.id)))
    if loading.errors:
        raise SuiteErrors(sorted(loading.errors, key=lambda e: (e.file, e.line or 0,
                                                                e.column or 0)))
    return suites


def load_case_file(path: Path | str, env: Mapping[str, str] | None = None,
                   secrets_dir: Path | None = None) -> Case:
    """Load one case file with its suite's ``farm.yaml`` defaults; raises `SuiteErrors`."""
    suites = load_suites([path], env=env, secrets_dir=secrets_dir)
    return next(c for s in suites for c in s.cases)
