"""Midscene's batch file (``index.yaml``, the config of ``midscene --config``) as a farm suite.

    files: ['./scripts/*.yaml', ../e2e/checkout.yaml]  # globs, relative to the batch file
    concurrent: 2               # at most this many files at once (per platform)
    continueOnError: false      # false: after a failed file, no further file starts
    retry: 1                    # re-runs of a failed file (pass after fail = flaky)
    summary: out/summary.json   # a JSON summary of the files' outcomes (relative to this file)
    web: {viewportWidth: 1280}  # shared target settings, overriding each file's own
    shareBrowserContext: true   # the web files run in one browser context (cookies, storage)
    setup: ./login.yaml         # with shareBrowserContext: run first; if it fails, nothing else

A YAML file with ``files:`` and no ``tasks:`` is a batch, whatever its name (`looks_like_batch`:
a misspelt ``files:`` beside other batch keys too, so the slip is reported as a batch's); a
directory holding batch files is those batches (farm.suite.loader). Keys farm cannot honour
are refused with the reason (``false``, what farm does anyway, is accepted). A listed file may
live anywhere, as in Midscene (``../e2e/**/*.yaml``): one outside the batch's suite is loaded
as a case of its own folder's suite (see `read_batch`). A glob or folder searching a folder
that holds the batch file (``/``, ``..``), outside its suite, is refused (`Scope`):
``files: ['/']`` walked the whole filesystem.

With ``concurrent: 1`` (Midscene's default) the files run one at a time in the listed order
(farm.schedule: a sequence), as Midscene runs them; ``continueOnError: false`` then starts no
file after a failed one (the run's --maxfail 1).

With ``shareBrowserContext: true`` (Midscene keeps one browser page for the whole batch) the
batch's web files become one unit (farm.shared_context): one device runs them in the files'
order, setup first, each opening its own url in the same page, so cookies, localStorage and
sessionStorage carry from file to file.
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from farm.errors import SuiteError
from farm.suite.checks import Problems, suggest
from farm.suite.model import Batch, Case, InOrder, Shared
from farm.suite.targets import MOBILE_SECTIONS, WEB_SECTIONS, read_overrides, yaml_output
from farm.suite.yamlpos import Node, read_yaml

INDEX = "index.yaml"
BATCH_KEYS = {"files", "setup", "concurrent", "continueOnError", "retry", "summary",
              "shareBrowserContext", *WEB_SECTIONS, *MOBILE_SECTIONS}
# Midscene's switches farm cannot turn on (``false`` is accepted: it is what farm does).
REFUSED = {
    "headed": "farm runs headless browsers (FARM_HEADLESS=false for a visible one)",
    "keepWindow": "farm closes its browsers when the run ends",
    "dotenvOverride": "farm reads the working directory's .env as Midscene does by default: a "
                      "variable set in the environment wins over it (unset it there to use the "
                      ".env value)",
    "dotenvDebug": "farm does not trace how .env is read",
}
# Keys people write in a batch file meaning one it has, where spelling alone points elsewhere
# (reusePage is one letter-run from page:, which is a target section): what to write instead.
MEANT = {
    "reusePage": ("reusePage is not a key of Midscene's batch config: Midscene reuses one "
                  "browser page for a batch's files with shareBrowserContext: true (a login's "
                  "cookies and storage carry over); farm does the same with it (the files run "
                  "in order in one browser context and page, on one device); without it each "
                  "file opens its own page"),
}
# Folders no case lives in, skipped by discovery and by a batch's globs unless named: installed
# packages (Midscene's globs skip them too) and Midscene's own output (reports, logs, caches).
NOT_CASE_DIRS = {"node_modules": "installed packages",
                 "midscene_run": "Midscene's output folder (reports, logs, caches)"}
# Files that are never a case, skipped by discovery and by a batch's globs unless named: the
# suite's settings and the YAML files of the tools a Midscene project lives with.
SUITE_FILE = "farm.yaml"
NOT_CASE_FILES = {"pnpm-lock.yaml": "pnpm's lock file", "pnpm-workspace.yaml": "pnpm's workspace"}
# What `farm cache export` writes beside a case: farm's output, not a case of the suite.
# Discovery and a batch's globs pass it over; named (a path, a pattern ending so) it runs.
SOLVED_SUFFIX = ".solved.yaml"
SOLVED_FILE = "`farm cache export` output"
UNLISTED_NAMED = 5      # files a batch folder leaves out, named in its warning (-v: all)
# The farm.yaml exclude: pattern a (file, its home) matches, if any (farm.suite.loader).
Excluded = Callable[[Path, Path], str | None]
SETUP_ALONE = ("setup requires shareBrowserContext: true (as in Midscene): without a shared "
               "browser context what the setup file does cannot reach the other files")


# Keys only a batch file has: a file with one of them (or a slip of `files`) and no `tasks:` is
# read as a batch, so a misspelt `files:` is reported as that, not as a case without tasks.
_BATCH_ONLY = {"files", "setup", "concurrent", "retry", "summary", "shareBrowserContext",
               *REFUSED}


# A key `tasks:` at the start of a line: a case's (in block style), never a batch file's.
_TASKS_LINE = re.compile(rb"""^["']?tasks["']?[ \t]*:""", re.M)


def may_be_batch(text: bytes | None) -> bool:
    """Whether a file's ``text`` may be a batch file, at a glance (no ``tasks:`` line), so
    discovery composes only those; None (unreadable) is left to the case loader."""
    return text is not None and _TASKS_LINE.search(text) is None


def looks_like_batch(node: Node | None) -> bool:
    """Whether ``node`` (a composed file) is meant as a batch file: no ``tasks:``, and
    ``files:`` or another key only a batch has (a misspelt ``files:`` too)."""
    if node is None or node.kind != "map" or "tasks" in node.value:
        return False
    return bool(_BATCH_ONLY & set(node.value)) or any(
        "'files'" in suggest(key, ["files"]) for key in node.value)


@dataclass(frozen=True)
class Scope:
    """The suite a batch belongs to: its folder (``root``, absolute and not resolved: a link
    in it is the suite's), as messages name it (``shown``), and whether a farm.yaml marks it
    (else it is the batch's own folder). A batch's ``files:`` and ``setup:`` may name any file
    and search any folder (its own, a sibling as ``../e2e/**/*.yaml``, the suite's) but one
    holding the batch file outside the suite: ``files: ['/']`` or ``../../**/*.yaml``
    searched the whole filesystem (`searches_above`)."""

    root: Path
    shown: str
    marked: bool

    def searches_above(self, pattern: str, base: Path) -> str | None:
        """The folder, as ``pattern`` names it (``..``, ``/``), that ``pattern`` (a glob as
        `_glob_of` gives it, relative to ``base``, the batch's folder) would search although
        it holds ``base`` and is not in the suite's folder; None when it searches none (a
        path without a wildcard searches nothing: it names one file). Its wildcards search
        from the folder before the first one (the real folder: a link to ``..`` holds the
        batch too), or one a ``..`` after a wildcard climbs to (``*/../../**/*.yaml``)."""
        parts = Path(pattern).parts
        fixed = list(itertools.takewhile(lambda part: not _WILDCARD & set(part), parts))
        if len(fixed) == len(parts):
            return None
        depth = lowest = 0          # below the start, as far down as its wildcards may go
        for part in parts[len(fixed):]:
            lowest = min(lowest, depth) if _WILDCARD & set(part) else lowest
            depth += -1 if part == ".." else 0 if part in (".", "**") else 1
        start = os.path.realpath(base / Path(*fixed))
        for _ in range(-lowest):
            start = os.path.dirname(start)
        real_base, root = os.path.realpath(base), os.path.realpath(self.root)
        if not _holds(start, real_base) or _holds(root, start):
            return None
        return os.path.normpath(os.path.join(*fixed, *[".."] * -lowest) if fixed
                                else os.path.join(*[".."] * -lowest))

    def refuse(self, node: Node, where: str, pattern: str, folder: str, base: Path,
               p: Problems) -> None:
        """Record that ``pattern`` (at ``node``) would search ``folder``, which holds the
        batch file (in ``base``): what to write instead."""
        real = os.path.realpath(base / folder)
        shown = folder if real == folder else f"{folder} ({real})"
        suite = (f", its suite's folder {self.shown} (where its farm.yaml is)"
                 if self.marked else "")
        widen = ("" if os.path.dirname(real) == real else
                 f" (moving the farm.yaml to {folder} would make it the suite's folder)"
                 if self.marked else
                 f" (a farm.yaml in {folder} would make it the suite's folder)")
        p.add(node, f"{where}: {pattern!r} would search all of {shown}, which holds the batch "
                    f"file: a batch's glob or folder may search its own folder, one beside it "
                    f"(as '../e2e/**/*.yaml'){suite} or any below these, not one holding the "
                    f"batch file; start it at the folder the files are in, or list them by "
                    f"name{widen}")


_WILDCARD = set("*?[")


def _holds(folder: str, path: str) -> bool:
    """Whether ``folder`` is ``path`` or holds it (both real, absolute)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def read_batch(node: Node, path: Path, shown: str, p: Problems,
               excluded: Excluded = lambda file, home: None,
               scope: Scope | None = None) -> tuple[Batch, dict[Path, Path]]:
    """The batch's settings and the case files it lists (sorted within each pattern, in the
    patterns' order, each once; the setup file first), each with its *home*: the folder its
    pattern names before any wildcard (``../e2e/**/*.yaml`` -> ``../e2e``). A file outside the
    batch's suite belongs to the suite of its home, so its id is what ``farm run`` of that
    folder gives it, whichever batch lists it. A glob passes over the files ``excluded``
    gives a pattern for (farm.yaml's exclude:, as discovery does); a path naming one runs it.
    A glob or folder searching a folder that holds the batch file, outside ``scope`` (the
    suite's folder), is refused, not searched (`Scope.searches_above`)."""
    top = node.value
    scope = scope or Scope(path.parent, str(path.parent), False)
    for name, why in REFUSED.items():
        if name in top and top[name].value is not False:
            p.add(node.keys[name], f"{name}: {top[name].describe()} is not supported by farm: "
                                   f"{why}; only `{name}: false` is accepted")
    for name in MEANT.keys() & node.keys.keys():
        p.add(node.keys[name], MEANT[name])
    # the switches farm takes only as false are keys of a batch file too (the list says them)
    misspelt = p.keys(node, BATCH_KEYS | REFUSED.keys(), "a batch file", MEANT)
    if "files" not in top and "files" not in misspelt:
        p.add(node, "missing required key 'files': expected the list of case files (paths or "
                    "globs, relative to the batch file) the batch runs")
    share = bool(p.boolean(top.get("shareBrowserContext"), "shareBrowserContext"))
    setup = _setup_file(top.get("setup"), share, path, p, scope)
    sections = [k for k in (*WEB_SECTIONS, *MOBILE_SECTIONS) if k in top]
    web = [k for k in sections if k in WEB_SECTIONS]
    if len(web) > 1:
        p.add(node.keys[web[1]], f"a batch file takes one of page:, browser:, web: (got "
                                 f"{', '.join(web)})")
    overrides = {("web" if s in WEB_SECTIONS else s): read_overrides(s, top[s], path.parent, p)
                 for s in sections}
    batch = Batch(
        file=shown,
        concurrent=p.integer(top.get("concurrent"), "concurrent", minimum=1, maximum=1000) or 1,
        continue_on_error=bool(p.boolean(top.get("continueOnError"), "continueOnError")),
        retry=p.integer(top.get("retry"), "retry", maximum=10),
        summary=_summary_path(top.get("summary"), path.parent, p),
        overrides={k: v for k, v in overrides.items() if v}, share_context=share)
    listed = _files(top["files"], path.parent, p, excluded, scope) if "files" in top else {}
    files = {f: home for f, home in listed.items() if f != path.resolve()}
    if setup is not None:
        if setup in files:
            p.add(top["setup"], f"setup: {setup.name} is also listed in files: a file cannot "
                                "be both the setup and a main file")
        batch.setup = str(setup)
        files = {setup: _home(top["setup"].text or "", path.parent, setup),
                 **{f: h for f, h in files.items() if f != setup}}
    batch.files = [str(f) for f in files]
    return batch, files


def _setup_file(node: Node | None, share: bool, batch: Path, p: Problems,
                scope: Scope) -> Path | None:
    """Midscene's ``setup:``: one YAML file (a path or a glob matching exactly one), a case:
    not the batch file ``batch`` itself nor another batch file (either ran no setup at all)."""
    base = batch.parent
    text = p.text(node, "setup", empty_ok=False, expected="the setup YAML file")
    if text is None or node is None:
        return None
    if not share:
        p.add(node, SETUP_ALONE)
        return None
    if (above := scope.searches_above(text, base)) is not None:
        scope.refuse(node, "setup", text, above, base, p)
        return None
    matched = _matches(text, base)
    if len(matched) != 1:
        p.add(node, f"setup: {text!r} matches {len(matched) or 'no'} .yaml file"
                    f"{'s' if matched else ''} (relative to the batch file): expected exactly "
                    "one")
        return None
    setup = matched[0].resolve()
    if setup == batch.resolve():
        p.add(node, f"setup: {text} is this batch file, not a case: name the case file that "
                    "logs in (or prepares) before the others")
        return None
    if looks_like_batch(read_yaml(setup)[0]):
        p.add(node, f"setup: {text} is a batch file, not a case: a setup is one case file, "
                    "run first in the shared browser")
        return None
    return setup


def _matches(pattern: str, base: Path, unreadable: list[OSError] | None = None) -> list[Path]:
    """The .yaml files ``pattern`` matches, sorted; as discovery takes them: not inside
    `NOT_CASE_DIRS` unless the pattern names that folder, not `farm cache export` output
    unless it ends in `SOLVED_SUFFIX`, not farm.yaml or `NOT_CASE_FILES` unless it names
    the file. A folder it could not look into is added to ``unreadable``."""
    skipped = set(NOT_CASE_DIRS) - set(Path(pattern).parts)
    solved = pattern.endswith(SOLVED_SUFFIX)
    not_cases = {SUITE_FILE, *NOT_CASE_FILES} - {Path(pattern).name}
    return sorted(Path(m) for m in _glob(pattern, base, skipped, unreadable)
                  if m.endswith((".yaml", ".yml")) and os.path.isfile(m)
                  and (solved or not m.endswith(SOLVED_SUFFIX))
                  and os.path.basename(m) not in not_cases
                  and not skipped & set(Path(os.path.relpath(m, base)).parts))


def _glob(pattern: str, base: Path, skipped: set[str],
          unreadable: list[OSError] | None = None) -> list[str]:
    """The paths ``pattern`` (relative to ``base``) matches, as glob.glob(recursive=True)
    finds them, but as discovery walks: a wildcard (``*``, ``**``) never enters a link to a
    folder (a named folder is entered), nor ``**`` a folder in ``skipped``. glob's ``**``
    followed links: one to ``/`` in the suite walked the whole filesystem, one to ``..``
    went round until the path was too long."""
    parts = Path(pattern).parts
    start = str(base)
    if parts and os.path.isabs(parts[0]):
        start, parts = parts[0], parts[1:]
    if parts and parts[-1] == "**":            # files too, as glob's trailing ** gives them
        parts = (*parts, "*")
    found: list[str] = []
    todo = [(start, 0)]
    while todo:
        here, i = todo.pop()
        if i == len(parts):
            if os.path.lexists(here):
                found.append(here)
        elif not set("*?[") & set(parts[i]):
            todo.append((os.path.join(here, parts[i]), i + 1))
        elif parts[i] == "**":
            todo.extend((folder, i + 1)
                        for folder in _folders_below(here, skipped, unreadable))
        else:
            last = i + 1 == len(parts)
            todo.extend((entry.path, i + 1) for entry in _entries(here, unreadable)
                        if (last or entry.is_dir(follow_symlinks=False))
                        and (parts[i].startswith(".") or not entry.name.startswith("."))
                        and fnmatch.fnmatch(entry.name, parts[i]))
    return list(dict.fromkeys(found))


def _entries(folder: str, unreadable: list[OSError] | None = None) -> list[os.DirEntry]:
    """What ``folder`` holds; nothing when it is not there or no folder, and nothing but
    added to ``unreadable`` when it may not be listed (its files could not be looked for)."""
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        if unreadable is not None:
            unreadable.append(exc)
        return []


def _folders_below(top: str, skipped: set[str],
                   unreadable: list[OSError] | None = None) -> list[str]:
    """``top`` and every folder below it ``**`` goes into: not hidden, not in ``skipped``,
    not through a link."""
    out, todo = [], [top]
    while todo:
        here = todo.pop()
        out.append(here)
        todo.extend(entry.path for entry in _entries(here, unreadable)
                    if entry.is_dir(follow_symlinks=False) and not entry.name.startswith(".")
                    and entry.name not in skipped)
    return out


def _home(pattern: str, base: Path, file: Path) -> Path:
    """The folder ``pattern`` names before its first wildcard (a plain path: its folder), or
    ``file``'s own folder when ``file`` (resolved) is not below it (reached through a link)."""
    parts = Path(pattern).parts
    fixed = list(itertools.takewhile(lambda part: not set("*?[") & set(part), parts))
    if len(fixed) == len(parts):
        fixed = fixed[:-1]
    home = (base / Path(*fixed)).resolve()
    return home if file.is_relative_to(home) else file.parent


def _summary_path(node: Node | None, base: Path, p: Problems) -> str | None:
    text = p.text(node, "summary", empty_ok=False, expected="a path for the JSON summary")
    if node is not None:
        yaml_output(text, node, "summary", p)
    return str(base / text) if text else None


def _files(node: Node, base: Path, p: Problems, excluded: Excluded,
           scope: Scope) -> dict[Path, Path]:
    patterns = p.sequence(node, "files", "a list of file paths or globs (relative to the "
                                          "batch file)")
    if patterns is not None and not patterns:
        p.add(node, "files is empty: expected at least one file or glob")
    out: dict[Path, Path] = {}      # file (resolved) -> its home
    for item in patterns or []:
        pattern = p.text(item, "files item", required=True, empty_ok=False,
                         expected="a file path or glob")
        if pattern is None:
            continue
        glob_of = _glob_of(pattern, base)
        if (above := scope.searches_above(glob_of, base)) is not None:
            scope.refuse(item, "files", pattern, above, base, p)
            continue
        unreadable: list[OSError] = []
        homes = {m: _home(glob_of, base, m.resolve())
                 for m in _matches(glob_of, base, unreadable)}
        for exc in {exc.filename: exc for exc in unreadable}.values():
            p.add(item, f"files: {pattern!r}: cannot read folder "
                        f"{os.path.relpath(exc.filename or '.', base)} ({exc.strerror or exc}): "
                        "its files could not be looked for")
        named = not set("*?[") & set(glob_of)      # a path: runs even if excluded
        left = [m for m, home in homes.items() if not named and excluded(m, home)]
        if not homes and not unreadable:
            p.add(item, f"files: {pattern!r} matches no .yaml file (relative to the batch "
                        "file)")
        elif homes and len(left) == len(homes):
            p.add(item, f"files: {pattern!r} matches only files farm.yaml's exclude: leaves "
                        f"out ({', '.join(sorted(m.name for m in left))}): name one to run "
                        "it")
        for m, home in homes.items():
            if m not in left:
                out.setdefault(m.resolve(), home)
    return out


def _glob_of(pattern: str, base: Path) -> str:
    """A folder is its YAML files, those below it too, as Midscene's matchYamlFiles takes it
    (`files: [scripts/]` was "matches no .yaml file"); any other pattern is itself."""
    return (pattern.rstrip("/\\") + "/**/*" if not set("*?[") & set(pattern)
            and os.path.isdir(base / pattern) else pattern)


def listed_lines(node: Node, path: Path, scope: Scope) -> dict[Path, int]:
    """The line of batch file ``path`` (read as ``node``) whose setup: or files: entry first
    lists each file (resolved). Each entry is searched once (it was once per listed file:
    a glob of a thousand files walked its folders a thousand times), and one reaching
    outside ``scope`` (refused by `read_batch`) not at all: ``files: ['/', a.yaml]`` walked
    the whole filesystem here after its refusal."""
    top = node.value if node.kind == "map" else {}
    items = [top["setup"]] if "setup" in top else []
    if "files" in top and top["files"].kind == "seq":
        items += top["files"].value
    lines: dict[Path, int] = {}
    for item in items:
        glob_of = (_glob_of(item.text, path.parent) if item.kind == "scalar" and item.text
                   else "")
        if glob_of and scope.searches_above(glob_of, path.parent) is None:
            for m in _matches(glob_of, path.parent):
                lines.setdefault(m.resolve(), item.line)
    return lines


# What the browser context is made with: one value for every file sharing it (the first file's).
CONTEXT_KEYS = {"user_agent": "userAgent", "device_scale_factor": "deviceScaleFactor",
                "accept_insecure_certs": "acceptInsecureCerts", "chrome_args": "chromeArgs",
                "mode": "mode", "same_tab": "forceSameTabNavigation",
                "permissions": "permissions", "geolocation": "geolocation",
                "locale": "locale", "timezone_id": "timezoneId",
                "color_scheme": "colorScheme"}


def check_shared(batch: Batch, cases: list[Case],
                 shown: Callable[[Path], str]) -> list[SuiteError]:
    """Order the batch's case ids as its files run; a shared-context batch's files share one
    context, made with the first file's userAgent, deviceScaleFactor, acceptInsecureCerts,
    chromeArgs, mode, permissions, geolocation, locale, timezoneId and colorScheme: a file
    asking for another value is refused (viewport, headers, cookies and url are set per
    file)."""
    place = {os.path.realpath(c.file): c.id for c in cases if c.id in batch.case_ids}
    batch.case_ids = [place[f] for f in batch.files if f in place]
    members = sorted((c for c in cases if c.shared and c.shared.unit_id == batch.unit_id),
                     key=lambda c: c.shared.order if c.shared else 0)
    errors = []
    for case in members[1:]:
        first, web = members[0].web, case.web
        for field, key in CONTEXT_KEYS.items():
            if getattr(web, field) != getattr(first, field):
                errors.append(SuiteError(
                    shown(case.file), f"{key} differs from {shown(members[0].file)}: the "
                    "files of a batch with shareBrowserContext: true share one browser context "
                    f"(set {key} once, in the batch file's web: section)",
                    *_place_of(case.file, key)))
    return errors


def _place_of(path: Path, key: str) -> tuple[int | None, int | None]:
    """(line, column) where ``key:`` is written in ``path`` (None when the file does not set
    it: the first file's value is what differs)."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith(f"{key}:"):
            return n, len(line) - len(line.lstrip()) + 1
    return None, None


def unlisted_warning(shown: list[str], batches: int) -> str:
    """The warning for the files (``shown``) of a folder holding ``batches`` batch files
    that none of them lists: they do not run."""
    one = len(shown) == 1
    names = ", ".join(shown[:UNLISTED_NAMED]) + (
        f" and {len(shown) - UNLISTED_NAMED} more (`farm run -v` lists them)"
        if len(shown) > UNLISTED_NAMED else "")
    where = "its files:" if batches == 1 else "the files: of any of its batch files"
    return (f"{names} {'is' if one else 'are'} in its folder but not in {where}, so "
            f"{'it does' if one else 'they do'} not run (a folder holding a batch file runs "
            f"that batch: add {'it' if one else 'them'} to files:, or name "
            f"{'it' if one else 'them'} to run {'it' if one else 'them'} alone)")


def nested_batch_warning(nested: str, batch: str) -> str:
    """The warning for the batch file ``nested``, below the folder ``batch`` runs: a folder
    holding a batch file runs that batch, so the nested one does not run (nor is it read)."""
    return (f"a batch file in a folder below {batch}'s, which runs only the files {batch} "
            f"lists: it does not run (`farm run {nested}` runs it)")


def with_batch(case: Case, batch: Batch) -> Case:
    """``case`` as its batch file runs it: the batch's shared target settings win over the
    file's own (as Midscene merges them), and its ``retry`` sets the retries."""
    update: dict = {"batch": batch.file}
    real = os.path.realpath(case.file)
    if batch.share_context and case.platform == "web" and real in batch.files:
        update["shared"] = Shared(batch=batch.file, unit_id=batch.unit_id,
                                  order=batch.files.index(real), setup=real == batch.setup,
                                  continue_on_error=batch.continue_on_error)
    if batch.concurrent == 1 and real in batch.files:
        update["in_order"] = InOrder(batch=batch.file, place=batch.files.index(real))
    if batch.retry is not None:
        update["retries"] = batch.retry
    target = getattr(case, case.platform)
    if target is not None and batch.overrides.get(case.platform):
        update[case.platform] = target.model_copy(update=batch.overrides[case.platform])
    return case.model_copy(update=update)
