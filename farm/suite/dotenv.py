"""Midscene's ``.env``: the variables of the ``.env`` file in the working directory.

Midscene's CLI loads ``.env`` from the directory it is run in (not from beside the YAML files)
into its environment, without overriding a variable the environment already has. farm reads
the same file for ``${NAME}``: the loader adds a ``.env`` value to the cases that refer to the
name, as a default the real environment (and a secrets dir) still overrides. A ``.env`` value
is a secret when ``secrets:`` names it or its name marks a credential, like any other
variable; a credential-named one is masked even where no case refers to it
(farm.session passes those to the run's variables).

Syntax: farm.dotenv_lines (the parser farm.midscene_env reads Midscene's model variables
with too).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Mapping

from farm.dotenv_lines import dotenv_names, dotenv_text, dotenv_unread, dotenv_values
from farm.errors import SuiteError, SuiteErrors
from farm.suite.model import Case
from farm.suite.vars import UNDEFINED, references
from farm.text import not_utf8

DOTENV = Path(".env")      # relative: the working directory's, as Midscene's CLI reads it
# how many folders above a suite's root a .env that sets an undefined variable is looked for
# in (`explain_undefined`): a project's .env beside the folder run from, not the disk's
ABOVE_ROOT = 3

def read_dotenv(path: Path, strict: bool = True) -> dict[str, str]:
    """The variables ``path`` sets; {} when it does not exist or cannot be read (Midscene's
    CLI runs without a ``.env`` just the same). A UTF-8 byte order mark (Windows Notepad's
    "UTF-8 with BOM") is not part of the first name. A file that is not UTF-8 (GBK, UTF-16) is
    a `SuiteErrors` naming it, where Midscene would read its values garbled; ``strict=False``:
    {} for it too."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    text = dotenv_text(data)
    if text is None:
        if not strict:
            return {}
        said, line = not_utf8(data)
        raise SuiteErrors([SuiteError(str(path), f"{said}; save it as UTF-8 (Midscene's CLI "
                                                 "reads .env as UTF-8 too)", line)])
    return dotenv_values(text)


LEFT_OUT = "{}: a variable name is ASCII letters, digits and _; left out"
# (the line itself is not said: it may hold a secret written with no "=")
NO_ENTRY = "this line sets no variable (expected NAME=value); skipped"


def left_out(path: Path | None, shown: Callable[[Path], str]) -> list[SuiteError]:
    """A warning naming each line of ``path`` that sets a name no ``${NAME}`` can have
    (``.env:3: 用户: a variable name is ASCII letters, digits and _; left out``), or that sets
    nothing (``bad line here``: `NO_ENTRY`), which `read_dotenv` leaves out without a word,
    as Midscene's dotenv does."""
    try:
        text = dotenv_text(path.read_bytes()) if path is not None else None
    except OSError:
        return []
    if path is None or text is None:
        return []
    said = [(line, LEFT_OUT.format(name)) for name, line in dotenv_names(text)
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name)]
    said += [(line, NO_ENTRY) for line in dotenv_unread(text)]
    return [SuiteError(shown(path), message, line) for line, message in sorted(said)]


def with_dotenv(case: Case, dotenv: Mapping[str, str]) -> Case:
    """``case`` with the ``.env`` values of the variables it refers to, over its ``vars:`` (as
    Midscene's environment would have them); the environment and a secrets dir still win at
    run time (`farm.suite.vars.Variables.from_sources`)."""
    if not dotenv:
        return case
    used = {name for name, _, _ in references(case.model_dump_json())} & set(dotenv)
    if not used:
        return case
    # a vars: value is a template (farm.suite.vars.expand_defaults); a .env value is not
    added = {n: dotenv[n].replace("${", "$${") for n in sorted(used)}
    return case.model_copy(update={"vars": {**case.vars, **added}})


# an undefined variable's message, with or without the name it may have meant (vars.undefined)
UNDEFINED_NAME = re.compile(re.escape(UNDEFINED.split("$")[0]) + r"\$\{(\w+)\}(?: \(|: did )")


def explain_undefined(errors: list[SuiteError], path: Path, root: Path,
                      shown: Callable[[Path], str],
                      seen: dict[Path, dict[str, str]]) -> list[SuiteError]:
    """``errors`` of the case file ``path``, where an undefined variable is set by a ``.env``
    beside the case, above it in its suite (``root``) or in one of the `ABOVE_ROOT` folders
    above the suite (``cd myapp/bad; farm run x.yaml`` beside ``myapp/.env``), saying so: farm
    reads only the working directory's, as Midscene's CLI does. Names only, never a value.
    ``seen`` caches the files read."""
    if not any(e.message.startswith(UNDEFINED.split("$")[0]) for e in errors):
        return errors
    where: dict[str, Path] = {}         # variable -> the nearest .env setting it
    above = set(list(root.parents)[:ABOVE_ROOT])
    for folder in reversed([path.parent, *path.parent.parents]):
        if folder == path.parent or folder.is_relative_to(root) or folder in above:
            if folder not in seen:
                seen[folder] = read_dotenv(folder / DOTENV.name, strict=False)
            where.update(dict.fromkeys(seen[folder], folder / DOTENV.name))
    def said(place: Path) -> str:       # ../.env, not /home/me/myapp/.env, from myapp/bad
        folder = place if place.name != DOTENV.name else place.parent
        if Path.cwd().is_relative_to(folder) and folder != Path.cwd():
            up = os.path.relpath(folder)
            return up if place is folder else os.path.join(up, DOTENV.name)
        return shown(place)

    out = []
    for e in errors:
        named = UNDEFINED_NAME.match(e.message)
        name = named[1] if named and named[1] in where else None
        out.append(e if name is None else SuiteError(     # (set there: no "did you mean")
            e.file, f"{UNDEFINED.format(name)}; {said(where[name])} sets it, but farm reads "
                    ".env from the working directory only, as Midscene's CLI does (run farm in "
                    f"{said(where[name].parent)}, or set {name} in the environment)",
            e.line, e.column))
    return out


def dotenv_settings(path: Path = DOTENV, environ: Mapping[str, str] | None = None) -> list[str]:
    """The setting variables (FARM_MODEL, FARM_RETRIES, …) ``path`` sets and the environment
    does not: farm reads ``.env`` for a suite's ``${NAME}`` only, so a model configured there
    (as Midscene's is) was ignored without a word."""
    import os

    from farm.config import ENV_PREFIX, Settings, _env_names
    if not path.is_file():
        return []
    env = os.environ if environ is None else environ
    names = {n.upper() for name, field in Settings.model_fields.items()
             for n in _env_names(name, field) if n.upper().startswith(ENV_PREFIX)}
    return sorted(n for n in read_dotenv(path, strict=False)
                  if n.upper() in names and not env.get(n, "").strip())
