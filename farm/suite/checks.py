"""Typed reads of `Node` values that record a positioned `SuiteError` instead of raising.

Every helper returns the converted value, or None after recording what was expected and what
was found, so one pass over a file reports *all* its problems.

A number or true/false field, or one of a fixed set of words (``direction:``, ``mode:``),
written as exactly one ``${NAME}`` (or ``${NAME:-default}``) is read when the file loads, as
Midscene substitutes variables before it parses a script: the value (from
`farm.suite.vars.LoadValues`) is typed as YAML would type it written there, then checked like
any other; a message about it names the variable and its value.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from farm.errors import SuiteError
from farm.suite.vars import (LoadValues, chain_problems, invalid_name, is_valid_name,
                             references, sole_reference, substitute)
from farm.suite.yamlpos import Node, exponent_number

LOAD_TIME = ("{field} takes its value when the suite loads, from the environment, .env or "
             "vars:")
NUMBER_FIELD = "a number or true/false field"
KEYWORD_FIELD = "a field with a fixed set of values"
# Names (of the case, a task, a step) title the report, results, JUnit and data keys.
NAME_TIME = ("a name takes its variables' values when the suite loads, from the environment, "
             ".env or vars:, never a secret's: it is shown in the report and results")


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or ``""`` when nothing is close."""
    lowered = {c.lower(): c for c in choices}
    best = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    return f" (did you mean '{lowered[best[0]]}'?)" if best else ""


@dataclass(slots=True, eq=False)
class Substituted(Node):
    """A scalar whose ``${NAME}`` was replaced by the variable's value; ``via`` says which
    variable, from where and what value, for messages."""

    via: str = ""

    def describe(self) -> str:
        return self.via


class Problems:
    """Collects the errors of one file. ``values``: where a number or true/false field's
    ``${NAME}`` is read (None: such a field must be written as a literal)."""

    def __init__(self, file: str, base: Path | None = None,
                 values: LoadValues | None = None) -> None:
        self.file = file
        self.base = base        # the file's folder: what paths in it are relative to
        self.values = values
        self.errors: list[SuiteError] = []
        self.warnings: list[SuiteError] = []     # accepted, but the user should change it

    def add(self, at: Node | None, message: str) -> None:
        """Record ``message`` at ``at``'s position (file level when ``at`` is None)."""
        line, col = (at.line, at.column) if at is not None else (None, None)
        self.errors.append(SuiteError(self.file, message, line, col))

    def add_at(self, line: int, column: int, message: str) -> None:
        """Record ``message`` at ``line:column`` (a place inside a value: `Node.place`)."""
        self.errors.append(SuiteError(self.file, message, line, column))

    def warn(self, at: Node | None, message: str) -> None:
        """Record a warning (printed, never fatal) at ``at``'s position."""
        line, col = (at.line, at.column) if at is not None else (None, None)
        self.warnings.append(SuiteError(self.file, message, line, col))

    def build(self, model: type, values: dict[str, Any], node: Node) -> Any:
        """``model(**values)`` from already-checked values; a slip is recorded, not raised."""
        try:
            return model(**values)
        except ValidationError as exc:
            for err in exc.errors():
                where = ".".join(str(x) for x in err["loc"])
                self.add(node, f"{where}: {err['msg']}")
            return None

    # -- structure ----------------------------------------------------------------------------

    def mapping(self, node: Node, where: str, expected: str) -> dict[str, Node] | None:
        """``node`` as a mapping, else record ``where: expected <expected>, got ...``."""
        if node.kind == "map":
            return node.value
        self.add(node, f"{where}: expected {expected}, got {node.describe()}")
        return None

    def sequence(self, node: Node, where: str, expected: str) -> list[Node] | None:
        """``node`` as a list, else record the error."""
        if node.kind == "seq":
            return node.value
        self.add(node, f"{where}: expected {expected}, got {node.describe()}")
        return None

    def keys(self, node: Node, allowed: Iterable[str], where: str,
             ignored: Iterable[str] = ()) -> set[str]:
        """Record every key of mapping ``node`` outside ``allowed`` ∪ ``ignored``.

        Returns the allowed keys suggested for misspellings, so the caller can skip a
        "missing key" error the misspelling already explains.
        """
        allowed = set(allowed)
        known = allowed | set(ignored)
        suggested = set()
        for name, key in node.keys.items():
            if name not in known:
                hint = suggest(name, allowed)
                if hint:
                    suggested.add(hint.split("'")[1])
                if name.startswith("-") and len(name) > 1 and name[1:] not in allowed:
                    hint = (f" (a list item is '- ' with a space: `- {name[1:]}`"
                            f"{', ' + hint.strip(' ()') if hint else ''})")
                self.add(key, f"unknown key '{name}' in {where}{hint}; "
                              f"expected one of: {', '.join(sorted(allowed))}")
        return suggested

    # -- scalars ------------------------------------------------------------------------------

    def expand(self, node: Node | None, where: str, field: str = NUMBER_FIELD) -> Node | None:
        """``node``, or when it is exactly one ``${NAME}`` / ``${NAME:-default}`` (and
        `values` is set) a `Substituted` node in its place holding the value, typed as YAML
        types a plain scalar. None after recording why the variable gives no value here (a
        secret, a served app's URL); None, recording nothing, for an undefined one (the
        file's template check reports it)."""
        if (self.values is None or node is None or isinstance(node, Substituted)
                or node.kind != "scalar" or not isinstance(node.value, str)):
            return node
        ref = sole_reference(node.value)
        if ref is None:
            return node
        name, default = ref
        value, source = self.values.read(name)
        if value is None and source:
            self.add(node, f"{where}: ${{{name}}} {source}; "
                           f"{LOAD_TIME.format(field=field)}, never from a "
                           "secret (write the value here, or use a variable that is not secret)")
            return None
        if not value and default is not None:
            value, source = default, "its default"
        if value is None:
            return None
        from farm.config import environment_secrets
        secret = environment_secrets({name: value}) or self.values.credential_in(value)
        shown = "***" if secret else repr(value)
        return Substituted("scalar", node.line, node.column, _typed(value), raw=value,
                           plain=True, via=f"${{{name}}} = {shown} (from {source})")

    def blank_at_load(self, node: Node | None) -> str | None:
        """When ``node`` is a text of ``${NAME}`` references (and spaces) that comes out
        empty with the values known at load, what says so (``${EMPTY} is empty (from
        vars:)``); None when it is not, or a value is known only at run time (a secret, a
        served app's URL: the run checks those)."""
        if (self.values is None or node is None or node.kind != "scalar"
                or not isinstance(node.value, str) or "${" not in node.value):
            return None
        said: list[str] = []
        known = True

        def value_of(name: str) -> str | None:
            nonlocal known
            value, source = self.values.read(name)
            if value is None and (source or name in self.values.vars):
                known = False           # (run time only, or built from such: never read here)
            said.append(f"${{{name}}} is "
                        + (("not set, its default empty" if f"${{{name}:-" in node.value
                            else "not set") if value is None else f"empty (from {source})"
                           if not value.strip() else f"{value!r}"))
            return value

        text = substitute(node.value, value_of)
        if not known or text.strip() or "${" in text:
            return None
        return "; ".join(dict.fromkeys(s for s in said if "'" not in s))

    def text(self, node: Node | None, where: str, *, required: bool = False,
             empty_ok: bool = True, expected: str = "a string") -> str | None:
        """A scalar as text (numbers/booleans as written). Null/missing -> None."""
        if node is None or node.is_null:
            if required:
                self.add(node, f"{where}: expected {expected}, got nothing")
            return None
        if node.kind != "scalar":
            self.add(node, f"{where}: expected {expected}, got {node.describe()}")
            return None
        value = node.text or ""
        if not empty_ok and not value.strip():
            self.add(node, f"{where}: expected {expected}, got an empty string")
            return None
        return value

    def name(self, node: Node | None, where: str, *, required: bool = False,
             empty_ok: bool = True, expected: str = "a string") -> str | None:
        """A name (of the case, a task, a step; a report title) as `text`, its ``${NAME}``
        replaced by the values `values` reads (as Midscene substitutes the whole file). A
        secret, a credential-named variable or a served app's URL is refused: a name is shown
        in reports and results, and the app's URL is known only when the run starts."""
        text = self.text(node, where, required=required, empty_ok=empty_ok, expected=expected)
        if text is None or node is None or self.values is None or "${" not in text:
            return text
        refused = [why for ref, _, _ in references(text) if (why := self._unnamable(ref))]
        for why in dict.fromkeys(refused):
            self.add(node, f"{where}: {why}; {NAME_TIME}")
        if refused:
            return None
        named = substitute(text, lambda ref: self.values.read(ref)[0] if self.values else None)
        if not empty_ok and not named.strip():
            self.add(node, f"{where}: expected {expected}, got {text!r}, which is empty once "
                           "its variables are substituted")
            return None
        return named

    def _unnamable(self, name: str) -> str | None:
        """Why ``${name}`` may not be part of a name (None: it may)."""
        from farm.config import is_credential
        value, source = self.values.read(name) if self.values else (None, "")
        if value is None and source:
            return f"${{{name}}} {source}"
        if value is not None and is_credential(name, value):
            return f"${{{name}}} is a secret (its name marks a credential)"
        if value is not None and (held := self.values.credential_in(value)):
            return (f"${{{name}}} holds the value of ${{{held}}}, a secret (its name marks a "
                    "credential)")
        return None

    def integer(self, node: Node | None, where: str, *, minimum: int = 0,
                maximum: int | None = None, expected: str | None = None) -> int | None:
        """An integer >= ``minimum`` (and <= ``maximum``); null/missing -> None."""
        node = self.expand(node, where)
        if node is None or node.is_null:
            return None
        v = whole_number(node)
        is_int = v is not None
        if is_int and v >= minimum and (maximum is None or v <= maximum):
            return v
        what = expected or ("a positive integer" if minimum == 1 else
                            "a non-negative integer" if minimum == 0 else
                            f"an integer >= {minimum}")
        if maximum is not None and is_int and v > maximum:
            what += f" no larger than {maximum}"
        self.add(node, f"{where}: expected {what}, got {node.describe()}{quoted_number(node)}")
        return None

    def number(self, node: Node | None, where: str, *, expected: str,
               maximum: float | None = None) -> float | None:
        """A number > 0 (and <= ``maximum``); null/missing -> None."""
        node = self.expand(node, where)
        if node is None or node.is_null:
            return None
        v = node.value
        is_number = node.kind == "scalar" and isinstance(v, (int, float)) \
            and not isinstance(v, bool) and v > 0 and v == v and v != float("inf")
        if is_number and (maximum is None or v <= maximum):
            return float(v)
        if maximum is not None and is_number:
            expected += f" no larger than {maximum:g}"
        self.add(node, f"{where}: expected {expected}, got {node.describe()}{quoted_number(node)}")
        return None

    def boolean(self, node: Node | None, where: str) -> bool | None:
        """true/false; null/missing -> None."""
        node = self.expand(node, where)
        if node is None or node.is_null:
            return None
        if node.kind == "scalar" and isinstance(node.value, bool):
            return node.value
        self.add(node, f"{where}: expected true or false, got {node.describe()}")
        return None

    def choice(self, node: Node | None, where: str, choices: Iterable[str],
               aliases: dict[str, str] | None = None) -> str | None:
        """One of ``choices`` (or an alias of one); null/missing -> None. Written as exactly
        one ``${NAME}``, it is read when the suite loads (`expand`), as a number field is."""
        choices = list(choices)
        aliases = aliases or {}
        node = self.expand(node, where, KEYWORD_FIELD)
        value = self.text(node, where, expected=f"one of {', '.join(choices)}")
        if value is None:
            return None
        if value in choices:
            return value
        if value in aliases:
            return aliases[value]
        self.add(node, f"{where}: expected one of {', '.join(choices)}, got {got(node, value)}"
                       f"{suggest(value, choices)}")
        return None

    def string_list(self, node: Node | None, where: str, *, names: bool = False) -> list[str]:
        """A list of strings (variable names when ``names``); bad items are reported, dropped."""
        if node is None or node.is_null:
            return []
        expected = "a list of variable names" if names else "a list of strings"
        if node.kind == "scalar" and isinstance(node.value, str) and node.value.strip():
            # `tags: smoke`: the list it meant, in the form to write
            listed = ", ".join(w.strip() for w in node.value.split(",") if w.strip())
            self.add(node, f"{where}: expected {expected}, got {node.describe()}: write "
                           f"{where}: [{listed}]")
            return []
        items = self.sequence(node, where, expected)
        out: list[str] = []
        for item in items or []:
            value = self.text(item, f"{where} item", required=True, empty_ok=False,
                              expected="a variable name" if names else "a string")
            if value is None:
                continue
            if names and not is_valid_name(value):
                self.add(item, f"{where}: {invalid_name(value)}")
                continue
            if value not in out:
                out.append(value)
        return out

    def variables(self, node: Node | None, where: str,
                  inherited: dict[str, str] | None = None) -> dict[str, str]:
        """A ``vars:`` mapping of variable name -> scalar (kept as text); its values may refer
        to ``inherited`` (the suite's, for a case's)."""
        if node is None or node.is_null:
            return {}
        if node.kind == "scalar":      # `API_TOKEN= sk-...` or `API_TOKEN sk-...`: its value
            got = ("a string" if isinstance(node.value, str) else "true or false"
                   if isinstance(node.value, bool) else "a number")
            self.add(node, f"{where}: expected a mapping of variable name to value "   # unsaid
                           f"(`NAME: value`, one a line), got {got}")
            return {}
        items = self.mapping(node, where, "a mapping of variable name to value")
        out: dict[str, str] = {}
        for name, value in (items or {}).items():
            if not is_valid_name(name):
                self.add(node.keys[name], f"{where}: {invalid_name(name)}")
                continue
            if value.is_null:
                out[name] = ""
                continue
            text = self.text(value, f"{where}.{name}", expected="a string or number")
            if text is not None:
                out[name] = text
        for name, why in chain_problems(out, inherited).items():
            self.add(items[name], f"{where}.{name}: {why}")
        return out


def got(node: Node, value: str) -> str:
    """What a keyword field holds, for "expected ..., got X": ``'sideways'`` as written, or
    ``${DIR} = 'sideways' (from the environment)`` when a variable gave it."""
    return node.describe() if isinstance(node, Substituted) else repr(value)


def whole_number(node: Node) -> int | None:
    """A scalar's integer value; a whole float too (``1e3``, ``1000.0``: one JavaScript
    number, as Midscene reads it); else None."""
    v = node.value
    if node.kind != "scalar" or isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float):
        return int(v) if v.is_integer() else None
    return v


def quoted_number(node: Node) -> str:
    """For a number written in quotes (``timeout: "500"``), what to write instead; else ""."""
    text = node.text.strip() if node.kind == "scalar" and not node.plain and node.text else ""
    typed = _typed(text) if text else None
    if isinstance(typed, (int, float)) and not isinstance(typed, bool):
        return f" (in quotes a number is a string: write {text} without quotes)"
    return ""


def _typed(text: str) -> Any:
    """``text`` as YAML types a plain scalar (``900`` → 900, ``true`` → True, ``1.5`` → 1.5,
    ``1e3`` → 1000.0 as in YAML 1.2); anything that is not a number or a boolean stays text."""
    try:
        value = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError):    # ValueError: an integer of 4,300+ digits
        return text
    if isinstance(value, str):
        value = exponent_number(value.strip())
    return value if isinstance(value, (int, float, bool)) else text
