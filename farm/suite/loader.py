"""Find suites on disk, read ``farm.yaml`` and case files, and validate everything up front.

A *suite root* is the nearest directory (the path given or an ancestor) holding ``farm.yaml``,
or else the directory given.  Every ``*.yaml``/``*.yml`` below a root is one case, except
``farm.yaml`` itself, hidden files and directories, ``node_modules``, Midscene's output folder
``midscene_run``, pnpm's lock and workspace files, Midscene cache files found elsewhere (a
warning names them) and the directories the suite serves as apps.  A directory below a root
that has its own ``farm.yaml`` is a separate suite.  A directory holding batch files
(farm.suite.batch: ``index.yaml`` or any other name) runs those batches: the files below it
that none of them lists do not run, and a warning names them (a batch file below it too: it
does not run unless named).

``${NAME}`` may also come from the working directory's ``.env`` (farm.suite.dotenv).

Nothing runs until every file is valid: `load_suites` raises one `SuiteErrors` listing every
problem in every file, each with file, line and column.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from farm.config import MAX_RETRIES
from farm.dotenv_lines import dotenv_values
from farm.text import is_utf16
from farm.errors import SuiteError, SuiteErrors
from farm.suite.casefile import (case_seconds, check_secret_names, check_templates,
                                 file_case_id, not_a_case, read_case)
from farm.suite.checks import Problems
from farm.suite.batch import (INDEX, NOT_CASE_DIRS, NOT_CASE_FILES, SOLVED_FILE,
                              SOLVED_SUFFIX, SUITE_FILE, check_shared, looks_like_batch,
                              listed_lines, may_be_batch, nested_batch_warning, read_batch,
                              Scope, unlisted_warning, with_batch)
from farm.suite.targets import DEFAULT_LOG
from farm.suite.dotenv import (DOTENV, UNDEFINED_NAME, explain_undefined, left_out,
                               read_dotenv, with_dotenv)
from farm.suite.model import AppSpec, Batch, Case, Suite, SuiteDefaults
from farm.suite.vars import (LoadValues, Variables, invalid_name, is_valid_name,
                             read_secrets_dir)
from farm.suite.yamlpos import EMPTY_MESSAGE, Node, only_aliases, peek, read_yaml

CASE_SUFFIXES = (".yaml", ".yml")
SKIP_DIRS = set(NOT_CASE_DIRS)
CACHE_FILE = ("a Midscene cache file (midsceneVersion: and caches:), not a case: skipped "
              "(Midscene writes them to midscene_run/cache/; farm keeps its own cache, see "
              "`farm cache ls`)")
# Set in (nearly) every shell or OS environment: a vars: entry of one of these is shadowed.
SHELL_VARIABLES = frozenset({"HOME", "PATH", "USER", "LOGNAME", "SHELL", "PWD", "OLDPWD",
                             "LANG", "TERM", "TMPDIR", "HOSTNAME", "SHLVL", "TZ", "DISPLAY",
                             "MAIL", "EDITOR"})
SUITE_KEYS = {"timeout", "retries", "tags", "secrets", "vars", "apps", "cache", "exclude"}
APP_KEYS = {"serve", "env", "android", "ios"}


_cwd = [""]     # the working directory last seen (`display_path`)


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when below it (shorter messages). A
    working directory deleted during the run (a CI cleanup step) is the one last seen there:
    it was three tracebacks from the device threads and the finished cases' results lost."""
    text = str(path)
    try:
        cwd = _cwd[0] = os.getcwd()
    except FileNotFoundError:
        cwd = _cwd[0]
        if not cwd:
            return text
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


def _holds_batch(folder: Path) -> bool:
    """Whether ``folder`` holds a Midscene batch file (index.yaml or any other name)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return False
    for name in names:
        path = folder / name
        if (name.startswith(".") or name == SUITE_FILE or name in NOT_CASE_FILES
                or path.suffix.lower() not in CASE_SUFFIXES or not path.is_file()):
            continue
        try:
            glance = peek(path)
        except OSError:
            continue
        if not may_be_batch(glance):
            continue
        if is_batch_file(path):
            return True
    return False


def is_batch_file(path: Path) -> bool:
    """Whether ``path`` is a real Midscene batch file: its ``files:`` key, no ``tasks:`` (a
    near miss — a Jekyll _config.yml's ``title:`` — makes no folder a project, which would
    change every id under it; nor is its line a case's, `farm run index.yaml:12`)."""
    node, errors = read_yaml(path, display_path(path))
    return not errors and looks_like_batch(node) and "files" in node.value


@dataclass
class _SuiteInfo:
    root: Path
    defaults: SuiteDefaults
    excluded: set[str] = field(default_factory=set)     # real paths of served app dirs
    files: dict[str, Path] = field(default_factory=dict)  # real path -> case file
    has_file: bool = False


class _Loading:
    """State of one `load_suites` call: suites found so far and every error."""

    def __init__(self, known: frozenset[str], dotenv: Mapping[str, str],
                 warnings: list[SuiteError]) -> None:
        self.known = known          # variable names from env, secrets dir and .env
        # by suite root: the names its farm.yaml's vars: and apps' env: write (None: farm.yaml
        # unread), which a case's ${NAME} is never "undefined" for (`_not_follow_ons`)
        self.written: dict[Path, set[str] | None] = {}
        self.dotenv = dotenv        # the working directory's .env (farm.suite.dotenv)
        self.values = LoadValues({}, dotenv=dotenv)   # a number field's ${NAME}: load_suites
        self.near_dotenv: dict[Path, dict[str, str]] = {}   # other .env files, for hints
        self.suites: dict[Path, _SuiteInfo] = {}
        self.errors: list[SuiteError] = []
        self.skipped: list[str] = []   # "hidden file x/.y.yaml", for `farm run -v`
        self.warnings = warnings       # from the start: the .env's (farm.suite.dotenv)
        self.batches: list[Batch] = []
        self.batch_of: dict[str, Batch] = {}     # real path of a listed file -> its batch
        self.listed_at: dict[str, str] = {}      # real path -> "batch.yaml:line" listing it
        self.listed_batches: set[str] = set()    # batch files a batch's glob matched (shown)
        self.broken_batches: set[str] = set()    # batch files with a problem (shown)
        self.ids: dict[str, tuple[Case, str]] = {}   # case id -> its case, "file:line"
        # an output: / unstableLogContent: file -> (case id, "file:line:col", "web.output")
        self.outputs: dict[str, tuple[str, str, str]] = {}
        self.batch_folders: dict[Path, list[Batch]] = {}   # a folder run as its batch files
        self.batch_homes: dict[str, bool] = {}     # folder -> holds a batch file (`root_of`)
        # (suite root, an app's URL variable) -> its directory, "file:line"
        self.app_envs: dict[tuple[Path, str], tuple[Path, str]] = {}
        self.var_nodes: list[tuple[Path, str, str, Node]] = []   # vars: (root, file, name, key)
        # suite root -> {an exclude: pattern: (farm.yaml as shown, line, column)}
        self.exclude_at: dict[Path, dict[str, tuple[str, int, int]]] = {}

    def root_of(self, directory: Path) -> Path:
        """The suite root of a file in ``directory`` (or of ``directory`` run as a folder):
        the nearest farm.yaml's folder; else the nearest of ``directory`` and its ancestors,
        up to the working directory, holding a Midscene batch file (its scripts' project:
        a script has one id whether it is named alone, in its folder or through a batch file;
        `farm run web/login.yaml` said web/login, `farm run index.yaml` beside web/
        qa/web/login, and its history, --last-failed and [new failure] split over both);
        else ``directory`` itself."""
        found = find_root(directory)
        if found is not None:
            return found
        try:
            cwd = Path(os.getcwd())
        except FileNotFoundError:
            return directory
        here = Path(os.path.abspath(directory))
        if here != cwd and cwd not in here.parents:
            return directory
        for candidate in (here, *here.parents):
            key = str(candidate)
            if key not in self.batch_homes:
                self.batch_homes[key] = _holds_batch(candidate)
            if self.batch_homes[key]:
                return candidate
            if candidate == cwd:
                break
        return directory

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
            self.walk(path, self.root_of(path))
        elif path.is_file() and path.suffix.lower() in CASE_SUFFIXES and self.add_batch(path):
            return
        elif path.exists():  # a FIFO or a device too: reading it says what is wrong
            if path.suffix.lower() not in CASE_SUFFIXES:
                self.errors.append(SuiteError(display_path(path), "not a YAML file: expected a "
                                              "suite directory or a .yaml/.yml case file"))
                return
            self.suite(self.root_of(path.parent)).files[
                os.path.realpath(path)] = path
        else:
            self.errors.append(SuiteError(display_path(path), "no such file or directory: "
                                          "expected a suite directory or a .yaml case file"))

    def walk(self, top: Path, top_root: Path) -> None:
        roots = {str(top): top_root}
        for dirpath, dirnames, filenames in os.walk(top, onerror=self.unlistable):
            here = Path(dirpath)
            root = roots.get(dirpath) or roots[str(here.parent)]
            if here != top and SUITE_FILE in filenames:
                root = here  # a nested farm.yaml starts its own suite
            roots[dirpath] = root
            info = self.suite(root)
            skipped: list[str] = []
            names = _case_names(here, filenames, skipped)
            if self.add_batches(here, names, root):
                dirnames[:] = []    # a folder holding a batch file is that batch
                continue
            # Prune in place so os.walk never descends into skipped directories.
            self.skipped.extend(f"hidden directory {display_path(here / d)}{os.sep}"
                                for d in sorted(dirnames) if d.startswith("."))
            self.skipped.extend(f"{NOT_CASE_DIRS[d]} {display_path(here / d)}{os.sep}"
                                for d in sorted(dirnames) if d in NOT_CASE_DIRS)
            self.skipped.extend(skipped)
            self.note_folder_links(here, dirnames, root)
            dirnames[:] = sorted(
                d for d in dirnames
                if not d.startswith(".") and d not in SKIP_DIRS
                and os.path.realpath(here / d) not in info.excluded
            )
            for name in names:
                pattern = _excluded(info, here / name)
                if pattern is not None:
                    self.skipped.append(f"excluded file {display_path(here / name)} "
                                        f"(farm.yaml's exclude: {pattern!r})")
                    continue
                self.add_file(info, here / name)

    def note_folder_links(self, here: Path, dirnames: list[str], root: Path) -> None:
        """os.walk does not enter a link to a folder (a loop, a case read twice), as Midscene's
        glob does not: listed for ``-v``, and a warning for one outside the suite that holds
        YAML files (shared cases linked in did not run, and only ``-v`` said why)."""
        inside = os.path.realpath(root)
        for d in sorted(dirnames):
            if d.startswith(".") or d in SKIP_DIRS or not os.path.islink(here / d):
                continue
            shown = f"{display_path(here / d)}{os.sep}"
            self.skipped.append(f"link to a folder {shown} (not followed: name it to run its "
                                "cases)")
            target = os.path.realpath(here / d)
            if os.path.commonpath([inside, target]) != inside and _holds_yaml(Path(target)):
                self.warnings.append(SuiteError(shown, "a link to a folder, not followed: its "
                                                "cases do not run (name it to run them)"))

    def add_file(self, info: _SuiteInfo, path: Path) -> None:
        """``path`` as a case of ``info``'s suite, once per file: of a file and a link to it
        both found, the file itself (its id stays what it was before the link was added,
        whatever the names' order: ``a_smoke.yaml -> login.yaml`` made the login case
        ``s/a_smoke``, its history and --last-failed left under ``s/login``), said for ``-v``."""
        real = os.path.realpath(path)
        kept = info.files.setdefault(real, path)
        if kept == path:
            return
        if os.path.islink(kept) and not os.path.islink(path):
            info.files[real], kept, path = path, path, kept
        what = "link to a case file" if os.path.islink(path) else "another path to a case file"
        self.skipped.append(f"{what} {display_path(path)} (the same file as "
                            f"{display_path(kept)}: it runs once, as that one)")

    def unlistable(self, exc: OSError) -> None:
        """A folder discovery cannot list (no read permission): its cases would be left out
        without a word, where an unreadable case file is a problem of the suite. (One removed
        while it was walked has no cases left to look for.)"""
        if isinstance(exc, FileNotFoundError):
            return
        where = display_path(Path(exc.filename)) if exc.filename else "a folder"
        self.errors.append(SuiteError(where, f"cannot read folder: {exc.strerror or exc} "
                                             "(its cases could not be looked for)"))

    def add_batches(self, folder: Path, names: list[str], root: Path) -> bool:
        """Add the batch files among ``names`` (files of ``folder``, in the suite at ``root``;
        index.yaml first): a folder holding a batch file runs that batch. True when there
        is one."""
        found = [batch for name in sorted(names, key=lambda n: n != INDEX)
                 if (batch := self.add_batch(folder / name, root)) is not None]
        if found and folder not in self.batch_folders:
            self.batch_folders[folder] = found
        return bool(found)

    def add_batch(self, path: Path, root: Path | None = None) -> Batch | None:
        """If ``path`` is a Midscene batch file, add the files it lists (with its settings)
        and return the batch. ``root``: the suite a folder being walked found it in (its
        cases' ids are that suite's whether or not a batch file lists them); else the suite
        of the batch file named alone (the one its folder's farm.yaml marks, or its folder)."""
        if not path.is_file() or not may_be_batch(peek(path)):    # most files: a glance
            return None
        shown = display_path(path)
        node, errors = read_yaml(path, shown)
        if errors or not looks_like_batch(node):
            return None
        p = Problems(shown, values=self.values)      # a ${NAME} in concurrent:, retry:...
        own = find_root(path.parent) or path.parent     # what its globs may search
        info = self.suite(root or own)
        inside = os.path.realpath(info.root) + os.sep

        def owner(file: Path, home: Path) -> _SuiteInfo:
            # A file outside the batch's suite is a case of its own folder's suite: its id is
            # the one `farm run` of that folder gives it, whichever batch lists it.
            return (info if os.path.realpath(file).startswith(inside)
                    else self.suite(self.root_of(home)))

        scope = Scope(own, display_path(own), (own / SUITE_FILE).is_file())
        batch, files = read_batch(node, path, shown, p,
                                  lambda file, home: _excluded(owner(file, home), file), scope)
        lines = listed_lines(node, path, scope)
        self.errors.extend(p.errors)
        if p.errors:
            self.broken_batches.add(shown)
        self.batches.append(batch)
        batch.unit_id = file_case_id(info.root, path)
        for file, home in files.items():
            if may_be_batch(peek(file)) and self._not_a_case(file) == "batch":
                self.listed_batches.add(display_path(file))
                self.warnings.append(SuiteError(display_path(file), (
                    f"a batch file matched by {shown}'s files: it does not run as a case "
                    f"(`farm run {display_path(file)}` runs it)")))
                continue
            real = os.path.realpath(file)
            owner(file, home).files.setdefault(real, file)
            line = lines.get(file, node.line)
            if real in self.batch_of and self.batch_of[real].file != batch.file:
                self._listed_twice(display_path(file), self.batch_of[real], batch,
                                   self.listed_at[real], line)
            self.batch_of[real], self.listed_at[real] = batch, f"{shown}:{line}"
        return batch

    def _listed_twice(self, file: str, first: Batch, batch: Batch, first_at: str,
                      line: int) -> None:
        """``file``, listed by ``first`` (at ``first_at``), is listed by ``batch`` too: a file
        is one case of a run, so it runs once, as the later batch lists it. Where either
        batch shares its browser context that loses the file from the other's unit (a login
        its next files need): refused, naming both entries."""
        both = f"{first_at} and {batch.file}:{line}"
        if not (first.share_context or batch.share_context):
            self.warnings.append(SuiteError(batch.file, f"{file} is listed by {both}: it runs "
                                            f"once, with {batch.file}'s settings", line))
            return
        sharing = " and ".join(b.file for b in (first, batch) if b.share_context)
        self.errors.append(SuiteError(batch.file, (
            f"{file} is listed by {both}, and {sharing} set"
            f"{'' if ' and ' in sharing else 's'} shareBrowserContext: true: a file runs once "
            f"in a run, so one batch would run without it; list it "
            f"in one batch, or run each batch on its own (farm run {first.file}, then farm "
            f"run {batch.file})"), line))

    def report_unlisted(self) -> None:
        """Say which YAML files of a folder run as its batch are not run: no batch lists
        them (a warning naming a few; ``-v`` lists each)."""
        run = {real for info in self.suites.values() for real in info.files}
        served = {real for info in self.suites.values() for real in info.excluded}
        known = {b.file for b in self.batches}
        for folder, batches in self.batch_folders.items():
            left = {f: self._not_a_case(f) for f in self._not_excluded(
                _yaml_below(folder, served), folder) if os.path.realpath(f) not in run}
            by = " or ".join(b.file for b in batches)
            for nested in (f for f, what in left.items() if what == "batch"):
                if display_path(nested) not in known | self.listed_batches:
                    self.skipped.append(f"batch file below {by}: {display_path(nested)}")
                    self.warnings.append(SuiteError(display_path(nested), nested_batch_warning(
                        display_path(nested), batches[0].file)))
            shown = [display_path(f) for f, what in left.items() if what is None]
            if not shown:
                continue
            self.skipped.extend(f"file not listed by {by}: {f}" for f in shown)
            # a batch refused (files: [] lists none) runs nothing: its error says why, and
            # "... are not in its files:, so they do not run" would say it lists others
            if any(b.file not in self.broken_batches for b in batches):
                self.warnings.append(SuiteError(batches[0].file,
                                                unlisted_warning(shown, len(batches))))

    def _not_excluded(self, files: list[Path], folder: Path) -> list[Path]:
        """``files`` (below a batch's ``folder``) but those farm.yaml's exclude: leaves out,
        said for ``-v`` as discovery says them: they are excluded, not unlisted."""
        out = []
        for file in files:
            info = self.suites.get(find_root(file.parent) or folder)
            pattern = _excluded(info, file) if info is not None else None
            if pattern is None:
                out.append(file)
            else:
                self.skipped.append(f"excluded file {display_path(file)} "
                                    f"(farm.yaml's exclude: {pattern!r})")
        return out

    def _not_a_case(self, path: Path) -> str | None:
        """"batch" for a batch file, "cache" for a Midscene cache file (neither runs as a
        case), else None."""
        node, errors = read_yaml(path, display_path(path))
        if errors:
            return None
        return "batch" if looks_like_batch(node) else "cache" if _is_midscene_cache(node) \
            else None

    # -- farm.yaml ----------------------------------------------------------------------------

    def read_defaults(self, root: Path) -> SuiteDefaults:
        path = root / SUITE_FILE
        if not os.path.lexists(path):   # a FIFO or a dangling link is read, and reported
            return SuiteDefaults()
        shown = display_path(path)
        node, errors = read_yaml(path, shown)
        self.errors.extend(errors)
        if node is None:  # empty farm.yaml just marks the suite root
            if errors:  # unread: what it defines is not known, so no ${NAME} is "undefined"
                self.written[root] = None
            return SuiteDefaults()
        self.written[root] = _written(node)
        p = Problems(shown)
        top = p.mapping(node, "farm.yaml", "a mapping of suite settings (timeout:, retries:, "
                                           "tags:, secrets:, vars:, apps:)")
        if top is None:
            self.errors.extend(p.errors)
            self.written[root] = None
            return SuiteDefaults()
        p.keys(node, SUITE_KEYS, "farm.yaml")
        values: dict = {
            "tags": p.string_list(top.get("tags"), "tags"),
            "secrets": p.string_list(top.get("secrets"), "secrets", names=True),
            "vars": p.variables(top.get("vars"), "vars"),
            "apps": self.read_apps(top.get("apps"), root, p),
            "cache_key": _cache_key(top.get("cache"), p),
            "exclude": p.string_list(top.get("exclude"), "exclude"),
        }
        excluded = top.get("exclude")
        self.exclude_at[root] = {item.text: (shown, item.line, item.column)
                                 for item in (excluded.value if excluded is not None
                                              and excluded.kind == "seq" else [])
                                 if item.kind == "scalar" and item.text}
        p.values = self.values.within(values["vars"], values["secrets"],
                                      {a.env for a in values["apps"] if a.env})
        values["timeout"] = case_seconds(top.get("timeout"), "seconds per case as a number > 0",
                                         p)
        values["retries"] = p.integer(top.get("retries"), "retries", maximum=MAX_RETRIES)
        defaults = p.build(SuiteDefaults, {k: v for k, v in values.items() if v is not None},
                            node) or SuiteDefaults()
        known = self.known | set(defaults.vars) | {a.env for a in defaults.apps if a.env} \
            | _written(node)    # (one whose value failed is said there, not "undefined")
        self.note_vars(root, shown, top.get("vars"))
        check_templates(node, known, p, defaults.secrets)
        check_secret_names(top.get("secrets"), known, p)
        self.errors.extend(p.errors)
        self.warnings.extend(p.warnings)
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
            if serve_path is not None and not os.path.isdir(serve_path):   # (a long name too)
                what = (f"{serve!r} is a file, not a directory" if os.path.exists(serve_path)
                        else f"directory {serve!r} does not exist")
                p.add(items["serve"], f"{where}.serve: {what} "
                                      "(expected a directory relative to farm.yaml)")
            elif serve_path is not None and (wide := _too_wide(serve_path)):
                p.add(items["serve"], f"{where}.serve: {serve!r} is {wide}: farm would serve "
                                      "every file in it; serve the app's own folder")
                serve_path = None
            env = p.text(items.get("env"), f"{where}.env", empty_ok=False,
                         expected="a variable name")
            if env is not None and not is_valid_name(env):
                p.add(items["env"], f"{where}.env: {invalid_name(env)}")
            elif env is not None and serve_path is not None and os.path.isdir(serve_path):
                self.claim_app_env(root, env, serve_path, items["env"], where, p)
            app = p.build(AppSpec, {
                "name": name, "serve": serve_path, "env": env,
                "android": p.text(items.get("android"), f"{where}.android", empty_ok=False,
                                  expected="an Android package name"),
                "ios": p.text(items.get("ios"), f"{where}.ios", empty_ok=False,
                              expected="an iOS bundle id"),
            }, spec)
            if app is not None:
                out.append(app)
        return out

    def claim_app_env(self, root: Path, env: str, folder: Path, at: Node, where: str,
                      p: Problems) -> None:
        """A suite's cases get one value for a variable: two of its apps serving different
        directories under one URL variable would send one app's cases to the other's pages.
        (Another suite's app may use the same variable: each suite's cases get their own.)"""
        folder = Path(os.path.realpath(folder))
        first = self.app_envs.setdefault((root, env), (folder, f"{p.file}:{at.line}"))
        if first[0] != folder:
            p.add(at, f"{where}.env: {env} is also the URL variable of an app that serves "
                      f"another directory ({first[1]}): the suite's cases get one value for "
                      "it, so one app's cases would open the other's pages; give each app a "
                      "variable of its own")

    def note_vars(self, root: Path, shown: str, node: Node | None) -> None:
        if node is not None and node.kind == "map":
            self.var_nodes.extend((root, shown, name, key) for name, key in node.keys.items())

    def report_vars(self) -> None:
        self.report_served_vars()
        self.report_shell_vars()

    def report_shell_vars(self) -> None:
        """A `vars:` entry named like a variable every shell or OS sets (HOME, PATH) is never
        used where the environment has it: the environment wins over ``vars:`` (so CI can
        override a var), and the value silently read is the shell's (a case opened
        file:///root/ for ``url: ${HOME}``). Neither value is said."""
        for _, shown, name, key in self.var_nodes:
            if name in SHELL_VARIABLES and name in self.values.env:
                self.warnings.append(SuiteError(
                    shown, f"vars.{name}: the environment's {name} (set by every shell) wins "
                           "over vars:, so this value is never used: give the variable "
                           "another name", key.line, key.column))

    def report_unused_excludes(self) -> None:
        """An ``exclude:`` pattern that matches nothing (``fixture`` for fixtures/) is most
        likely a slip: a warning, or one of the problems when the suite has others (a file it
        was meant to leave out then fails to load, and the warnings are not printed)."""
        for root, where in sorted(self.exclude_at.items()):
            for pattern in _unused_excludes(root, list(where)):
                shown, line, column = where[pattern]
                said = SuiteError(shown, f"exclude: {pattern!r} matches no file or folder of "
                                         "the suite (globs are relative to farm.yaml's folder)",
                                  line, column)
                (self.errors if self.errors else self.warnings).append(said)

    def report_served_vars(self) -> None:
        """A `vars:` value of a variable one of its suite's apps is served under is never
        used: the served URL replaces it in every case of the suite."""
        for root, shown, name, key in self.var_nodes:
            if (root, name) in self.app_envs:
                self.errors.append(SuiteError(
                    shown, f"vars.{name}: {name} is the URL variable of an app the suite "
                           f"serves ({self.app_envs[root, name][1]}), whose URL replaces this "
                           "value in every case of the suite: give the variable another name",
                    key.line, key.column))

    # -- cases --------------------------------------------------------------------------------

    def read_case(self, path: Path, info: _SuiteInfo) -> Case | None:
        shown = display_path(path)
        node, errors = read_yaml(path, shown)
        if (errors and not only_aliases(errors)) or node is None:
            self.errors.extend(errors or [SuiteError(shown, EMPTY_MESSAGE, 1, 1)])
            return None
        self.errors.extend(errors)      # anchors and aliases: the rest is still checked
        if _is_midscene_cache(node):
            self.warnings.append(SuiteError(shown, CACHE_FILE))
            return None
        if _misnamed_settings(path, node):
            self.errors.append(SuiteError(
                shown, f"this holds suite settings ({', '.join(node.value)}), which farm reads "
                       f"only from a file named {SUITE_FILE}: rename it to {SUITE_FILE} (as it "
                       "is, it is taken for a case)", node.line, node.column))
            return None
        if not_a_case(node):
            self.errors.append(SuiteError(shown, _not_a_case(path, info), node.line,
                                          node.column))
            return None
        d = info.defaults
        if node.kind == "map":
            self.note_vars(info.root, shown, node.value.get("vars"))
        p = Problems(shown, values=self.values.within(d.vars, d.secrets,
                                                      {a.env for a in d.apps if a.env}))
        partial: dict = {}
        case = read_case(node, path, info.root, info.defaults, self.known, p, partial)
        said = _not_follow_ons(p.errors, self.written.get(info.root, set()), node)
        self.errors.extend(explain_undefined(said, path, info.root, display_path,
                                             self.near_dotenv))
        self.warnings.extend(p.warnings)
        if case is not None and not p.errors and not self.claim_id(case, node):
            return None
        if case is not None and not p.errors:
            self.claim_outputs(case)
        elif partial:       # its own problems aside, what it shares with others is said too
            self.claim_partly(Case.model_construct(**partial), node, p.errors)
        batch = self.batch_of.get(os.path.realpath(path))
        if case is None or p.errors:
            return None
        if batch is not None:
            batch.case_ids.append(case.id)
            case = with_batch(case, batch)
        return with_dotenv(case, self.dotenv)

    def claim_outputs(self, case: Case) -> None:
        """Take the files ``case``'s output: / unstableLogContent: name; one another case (or
        the case's other one) names too is an error at both places: each run of it writes the
        file whole, so the last to end would win and the other's results be lost, unsaid. A
        path with ${NAME} is only known when the case ends: not compared."""
        shown = display_path(case.file)
        for key, path in (("output", case.output), ("unstableLogContent", case.log_content)):
            where = next((k for k in case.outputs_at if k.endswith("." + key)), None)
            if not path or "${" in path or where is None:
                continue
            line, column = case.outputs_at[where]
            real = os.path.normpath(os.path.abspath(path))
            first = self.outputs.setdefault(real, (case.id, f"{shown}:{line}:{column}", where))
            if first[0] == case.id and first[2] == where:
                continue
            them = f"this case's {first[2]} ({first[1]})" if first[0] == case.id \
                else f"{first[1]} ({first[2]}, case {first[0]})"
            if key == "unstableLogContent" and path == DEFAULT_LOG:
                # `true` names no file: Midscene writes its one default file, each script
                # overwriting the last; farm would lose every case's log but one, unsaid
                self.errors.append(SuiteError(shown, (
                    f"{where}: true writes {DEFAULT_LOG} in the working directory, and so "
                    f"does {them}: Midscene overwrites it (the last script to end wins), farm "
                    f"refuses to lose the other's step log; give each case its own file, "
                    f"e.g. unstableLogContent: logs/{case.file.stem}.json"), line, column))
                continue
            self.errors.append(SuiteError(shown, (
                f"{where} {path!r}: {them} writes the same file: each is written whole when "
                "its case ends, so the last one wins and the other's results are lost; give "
                "each its own file name"), line, column))

    def claim_partly(self, case: Case, node: Node, errors: list[SuiteError]) -> None:
        """`claim_id` and `claim_outputs` for a case file with problems of its own (``case``
        holds the fields it read), in the same pass as theirs: fixing them must not bring up
        "duplicate case id" or "writes the same file" only then. Its id is claimed unless its
        agent.testId is one of the problems (the id is then unknown)."""
        at = _id_node(node)
        if at is node or not any((e.line, e.column) == (at.line, at.column) for e in errors):
            self.claim_id(case, node)
        self.claim_outputs(case)

    def claim_id(self, case: Case, node: Node) -> bool:
        """Take ``case.id`` for this case; False (and a positioned error naming both files)
        when another case has it: a run looks cases up by id, so one of them would never run
        and the other would run twice."""
        at = _id_node(node)
        shown = display_path(case.file)
        if case.id not in self.ids:
            self.ids[case.id] = (case, f"{shown}:{at.line}")
            return True
        first, where = self.ids[case.id]
        self.errors.append(SuiteError(
            shown, f"duplicate case id '{case.id}': {where} and {shown}:{at.line}; "
                   f"{_how_to_tell_apart(first, case)}", at.line, at.column))
        return False


def load_suites(paths: Sequence[Path | str] | Path | str, env: Mapping[str, str] | None = None,
                secrets_dir: Path | None = None, skipped: list[str] | None = None,
                warnings: list[str] | None = None,
                batches: list[Batch] | None = None,
                dotenv: Path | None = DOTENV) -> list[Suite]:
    """Discover and load every suite under ``paths`` (directories or case files).

    ``env`` (default ``os.environ``) and ``secrets_dir`` decide which ``${NAME}`` are
    defined; no value is substituted, except in a number, true/false or fixed-word field
    (``direction:``) written as one ``${NAME}`` and in names (read at load from ``env``, ``.env`` or ``vars:``, never a
    secret; farm.suite.checks).
    ``dotenv`` (default the working directory's ``.env``; None: none) gives each case the
    values of the variables it refers to as defaults (see farm.suite.dotenv).  Returns
    suites sorted by root, cases sorted by id; a suite is included when it has a
    ``farm.yaml`` or at least one case.  Raises `SuiteErrors` with every problem of every
    file, or `ConfigError` if ``secrets_dir`` is unreadable.  ``skipped``, when given,
    receives what discovery passed over on purpose, one line each (``hidden file
    suite/.draft.yaml``, ``hidden directory suite/.old/``).
    """
    if isinstance(paths, (str, os.PathLike)):   # one path, not its characters ("/" of
        paths = [paths]                         # "suites/demo" walked the whole disk)
    from_dotenv, known, unreadable = _dotenv_names(dotenv, env, secrets_dir)
    loading = _Loading(known, from_dotenv, left_out(dotenv, display_path))
    loading.errors.extend(unreadable)
    loading.values = LoadValues(
        dict(os.environ if env is None else env), dotenv=from_dotenv,
        secret_files=frozenset(read_secrets_dir(secrets_dir) if secrets_dir else ()))
    for given in dict.fromkeys(str(p) for p in paths):
        loading.add_path(given)
    loading.report_unlisted()
    if skipped is not None:
        skipped.extend(loading.skipped)
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
    loading.report_vars()
    loading.report_unused_excludes()
    if warnings is not None:
        warnings.extend(f"{w.location}: {w.message}" for w in loading.warnings)
    if batches is not None:
        batches.extend(loading.batches)
    for batch in loading.batches:
        loading.errors.extend(check_shared(batch, [c for s in suites for c in s.cases],
                                           display_path))
    if loading.errors:
        raise SuiteErrors(sorted(loading.errors, key=lambda e: (e.file, e.line or 0,
                                                                e.column or 0)))
    return suites


def _dotenv_names(dotenv: Path | None, env: Mapping[str, str] | None, secrets_dir: Path | None
                  ) -> tuple[dict[str, str], set[str], list[SuiteError]]:
    """The ``dotenv`` file's values, the variable names defined at load, and the error of a
    ``.env`` that is not UTF-8: said with every other problem, not instead of them, its
    names (ASCII) known, so a case's ${NAME} from it is not also "undefined"."""
    unreadable: list[SuiteError] = []
    try:
        from_dotenv = read_dotenv(dotenv) if dotenv is not None else {}
    except SuiteErrors as exc:
        from_dotenv, unreadable = {}, list(exc.errors)
    known = Variables.from_sources({}, env=env, secrets_dir=secrets_dir).names | set(from_dotenv)
    if unreadable and dotenv is not None:
        data = dotenv.read_bytes()
        known |= set(dotenv_values(data.decode("utf-16" if is_utf16(data) else "latin-1",
                                               "replace")))
    return from_dotenv, known, unreadable


def _written(node: Node) -> set[str]:
    """The variable names a farm.yaml or case ``node`` writes: its ``vars:`` keys and its
    apps' ``env:``, whether or not their values are valid."""
    if node.kind != "map":
        return set()
    names = set()
    defined = node.value.get("vars")
    if defined is not None and defined.kind == "map":
        names |= set(defined.value)
    apps = node.value.get("apps")
    for app in (apps.value.values() if apps is not None and apps.kind == "map" else ()):
        env = app.value.get("env") if app.kind == "map" else None
        if env is not None and env.kind == "scalar" and isinstance(env.value, str):
            names.add(env.value)
    return names


def _not_follow_ons(errors: list[SuiteError], suite: set[str] | None,
                    node: Node) -> list[SuiteError]:
    """``errors`` of a case file (``node``) less "undefined variable ${NAME}" for a name its
    suite's farm.yaml or its own ``vars:`` writes (its definition failed, and that is said
    there), or for any name when ``suite`` is None (farm.yaml could not be read)."""
    written = _written(node) | (suite or set())
    out = []
    for e in errors:
        named = UNDEFINED_NAME.match(e.message)
        if named and (suite is None or named[1] in written):
            continue
        out.append(e)
    return out


def _unused_excludes(root: Path, patterns: Sequence[str]) -> list[str]:
    """The ``exclude:`` patterns matching no file or folder of the suite at ``root`` (as
    `_excluded` matches them; hidden and installed-package folders are not looked into)."""
    paths = []
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath).relative_to(root)
        paths.extend((here / n).as_posix() for n in (*dirnames, *filenames))
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS]
    unused = []
    for pattern in patterns:
        glob = pattern.strip().removeprefix("./")
        if not any(fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(rel, glob.rstrip("/"))
                   for rel in paths):
            unused.append(pattern)
    return unused


def _not_a_case(path: Path, info: _SuiteInfo) -> str:
    """What to say of a YAML file of the suite that is no case (`not_a_case`)."""
    pattern = path.relative_to(info.root).as_posix() if path.is_relative_to(info.root) \
        else path.name
    settings = display_path(info.root / SUITE_FILE)
    return (f"not a farm case (no tasks:, no page:/browser:/web:/android:/ios: section); leave "
            f"it out with `exclude: [{pattern}]` in {settings}"
            + ("" if info.has_file else " (a new file there)"))


def _misnamed_settings(path: Path, node: Node) -> bool:
    """``farm.yml`` (or ``Farm.yaml``) holding only farm.yaml's keys: meant as the suite's
    settings, which discovery would take for a case with no target section."""
    return (path.name != SUITE_FILE and path.stem.lower() == "farm" and node.kind == "map"
            and bool(node.value) and set(node.value) <= SUITE_KEYS)


def load_case_file(path: Path | str, env: Mapping[str, str] | None = None,
                   secrets_dir: Path | None = None) -> Case:
    """Load one case file with its suite's ``farm.yaml`` defaults; raises `SuiteErrors`."""
    suites = load_suites([path], env=env, secrets_dir=secrets_dir)
    return next(c for s in suites for c in s.cases)


def _holds_yaml(folder: Path) -> bool:
    """Whether ``folder`` (or a folder in it discovery would enter) holds a .yaml/.yml file."""
    for _, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS]
        if any(n.lower().endswith(CASE_SUFFIXES) for n in filenames):
            return True
    return False


def _case_names(folder: Path, filenames: list[str], skipped: list[str]) -> list[str]:
    """The names among ``filenames`` (in ``folder``) discovery takes as case files, sorted;
    what it passes over on purpose goes to ``skipped``."""
    names = []
    for name in sorted(filenames):
        if name == SUITE_FILE or not name.lower().endswith(CASE_SUFFIXES):
            continue
        why = ("hidden file" if name.startswith(".") else NOT_CASE_FILES.get(name)
               or (SOLVED_FILE if name.lower().endswith(SOLVED_SUFFIX) else None))
        if why:
            skipped.append(f"{why} {display_path(folder / name)}")
        else:
            names.append(name)
    return names


def _excluded(info: _SuiteInfo, path: Path) -> str | None:
    """The pattern of the suite's farm.yaml ``exclude:`` that ``path`` matches, if any: a glob
    relative to the suite's root (``*`` crosses folders), or a folder all of whose files go
    (``fixtures``, ``fixtures/``)."""
    if not info.defaults.exclude:
        return None
    try:
        rel = path.relative_to(info.root).as_posix()
    except ValueError:
        return None
    for pattern in info.defaults.exclude:
        glob = pattern.strip().removeprefix("./")
        if fnmatch.fnmatchcase(rel, glob) or fnmatch.fnmatchcase(rel, glob.rstrip("/") + "/*"):
            return pattern
    return None


def _too_wide(folder: Path) -> str | None:
    from farm.appserver import too_wide     # (http.server: only when an app is served)
    return too_wide(folder)


def _yaml_below(folder: Path, served: set[str]) -> list[Path]:
    """The files below ``folder`` discovery would take as case files (not in hidden folders,
    node_modules, midscene_run or a served app's folder)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS
                             and os.path.realpath(here / d) not in served)
        out.extend(here / name for name in _case_names(here, filenames, []))
    return out


def _is_midscene_cache(node: Node) -> bool:
    """Midscene's own cache file (``midscene_run/cache/<id>.cache.yaml``), not a case."""
    return node.kind == "map" and {"midsceneVersion", "caches"} <= set(node.value)


def _cache_key(node: Node | None, p: Problems) -> str | None:
    """farm.yaml ``cache: {key: …}``: the app version the cache entries belong to."""
    if node is None or node.is_null:
        return None
    items = p.mapping(node, "cache", "a mapping with key: (the app version cache entries "
                                     "belong to, e.g. key: shop-2.4)")
    if items is None:
        return None
    p.keys(node, {"key"}, "cache")
    return p.text(items.get("key"), "cache.key", empty_ok=False, expected="an app version")


def _id_node(node: Node) -> Node:
    """Where a case's id is written: its ``agent.testId``, else the file itself."""
    agent = node.value.get("agent") if node.kind == "map" else None
    if agent is not None and agent.kind == "map" and "testId" in agent.value:
        return agent.value["testId"]
    return node


def _how_to_tell_apart(first: Case, second: Case) -> str:
    """How to give two cases with one id an id each."""
    if first.suite_root != second.suite_root:
        return (f"ids start with the suite folder's name and both suites are named "
                f"'{first.suite_root.name}' ({display_path(first.suite_root)}, "
                f"{display_path(second.suite_root)}): rename one of the folders, or set a "
                "different agent.testId")
    set_ids = [c for c in (first, second) if c.agent.get("testId")]
    if len(set_ids) == 1:
        return f"change agent.testId in {display_path(set_ids[0].file)}"
    if set_ids:
        return "give one of them a different agent.testId"
    return "rename one of the files, or set agent.testId in one of them"
