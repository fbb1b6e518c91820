"""``${NAME}`` variables: where their values come from, substitution, and secret masking.

Template syntax (the same in every string of a suite file):

* ``${NAME}``            the variable's value; an error if it is not defined.
* ``${NAME:-default}``   the value, or ``default`` when the variable is unset *or empty*
                         (shell semantics; the default is literal text and may not contain
                         another ``${``).
* ``$${``                a literal ``${`` (so JavaScript template literals can be written).

``NAME`` is ``[A-Za-z_][A-Za-z0-9_]*``.  Anything else after ``${`` is *malformed*: `resolve`
leaves it as literal text, and the loader reports it (see `malformed`) so it never gets that far.

Everything here is pure except `Variables.from_sources`, which reads a secrets directory.
"""

from __future__ import annotations

import base64
import difflib
import functools
import itertools
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from farm.errors import ConfigError, UserError

NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# One pass over a template: an escape, a well-formed reference, or a malformed "${".
# Order matters: "$${" must win over "${" starting one character later.
_TOKEN = re.compile(
    r"(?P<escape>\$\$\{)"
    # A default runs to the first "}" and may not contain "${": no nesting, so
    # "${A:-${B}}" is malformed rather than silently half-expanded.
    r"|\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<dflt>:-(?P<default>(?:(?!\$\{)[^}])*))?\}"
    r"|(?P<bad>\$\{)"
)
PLACEHOLDER = _TOKEN      # (for positions: `farm.suite.yamlpos.Node.place`)

MASK = "***"
# A vars: value refers to others at most this deep, and expands to at most this many
# characters: a longer chain or value is no real suite's (a value doubling itself through a
# few others would fill the memory), and is reported where written (`chain_problems`).
MAX_CHAIN = 100
MAX_VALUE_CHARS = 1_000_000
# Every source of a value, as the loader and a run look them up (farm.suite.dotenv: `.env`).
UNDEFINED = ("undefined variable ${{{}}} (set it in the environment, a .env file in the "
             "working directory, vars:, or a secrets dir)")


# A cluster run (`farm run --broker`) is loaded with `cluster_load`: a ``${NAME}`` the run does
# not define may then be defined by the worker the case runs on (`from_workers`).
_CLUSTER_LOAD: ContextVar[bool] = ContextVar("farm_cluster_load", default=False)
FROM_WORKERS = ("; in a cluster run a secret (named in secrets:, or named as a credential: "
                "…_TOKEN, …_PASSWORD) may instead be in the workers' FARM_SECRETS_DIR")


_ON_A_WORKER: list[bool] = [False]


def on_a_worker() -> None:
    """This process is a `farm worker`'s device: a case's undefined variable is said with
    where a worker reads one (`FROM_WORKERS`), as at a cluster run's load."""
    _ON_A_WORKER[0] = True


@contextmanager
def cluster_load() -> Iterator[None]:
    """Load suites for a cluster run: see `from_workers`."""
    token = _CLUSTER_LOAD.set(True)
    try:
        yield
    finally:
        _CLUSTER_LOAD.reset(token)


def from_workers(name: str, secrets: Iterable[str]) -> bool:
    """Whether an undefined ``${name}`` of a case whose ``secrets:`` are ``secrets`` is left to
    the workers (their FARM_SECRETS_DIR, as README's cluster section says): only while a
    cluster run loads, and only a secret — named in ``secrets:`` or named as a credential
    (``SHOP_TOKEN``, `farm.config.credential_name`) — never a ``FARM_*`` name (a worker's own
    settings are not a case's). A worker that has none fails that case, naming it and its
    file:line (`farm.runner`), not the run."""
    from farm.config import credential_name
    if not _CLUSTER_LOAD.get() or name.upper().startswith("FARM_"):
        return False
    return name in set(secrets) or credential_name(name)


def undefined(name: str, defined: Iterable[str] = ()) -> str:
    """`UNDEFINED` for ``${name}``, with the defined name nearest it when one is close
    (``undefined variable ${QA_URLL}: did you mean ${QA_URL}? (set it …)``), as farm does for
    steps, keys and flags. Names only: a value (a secret's) is never shown. In a cluster
    run's load, how a worker could give it (`from_workers`)."""
    said = UNDEFINED.format(name)
    if (_CLUSTER_LOAD.get() or _ON_A_WORKER[0]) and not name.upper().startswith("FARM_"):
        said = said[:-1] + FROM_WORKERS + ")"
    near = nearest_name(name, defined)
    if near is None:
        return said
    head, where = said.split(" (", 1)
    return f"{head}: did you mean ${{{near}}}? ({where}"


def nearest_name(name: str, defined: Iterable[str]) -> str | None:
    """The name of ``defined`` most like ``name`` (case aside), None when none is close."""
    by_lower: dict[str, str] = {}
    for other in sorted(defined):
        if other != name:
            by_lower.setdefault(other.lower(), other)
    best = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.75)
    return by_lower[best[0]] if best else None


class UndefinedVariable(UserError):
    """A template references ``${NAME}``, NAME has no value and the reference no default;
    ``defined``: the names that have one (the nearest is suggested)."""

    def __init__(self, name: str, defined: Iterable[str] = ()) -> None:
        self.name = name
        super().__init__(undefined(name, defined))


def references(template: str) -> list[tuple[str, bool, int]]:
    """Every well-formed reference in ``template`` as ``(name, has_default, offset)``.

    ``offset`` is the index of the reference's ``$``.  Escapes (``$${``) are not references.
    """
    return [
        (m["name"], m["dflt"] is not None, m.start())
        for m in _TOKEN.finditer(template)
        if m["name"] is not None
    ]


def malformed(template: str) -> list[int]:
    """Offsets of every ``${`` that starts neither a valid reference nor an escape."""
    return [m.start() for m in _TOKEN.finditer(template) if m["bad"] is not None]


def is_valid_name(name: str) -> bool:
    """Whether ``name`` can be used as ``${name}``."""
    return bool(NAME_RE.match(name))


def invalid_name(name: str) -> str:
    """Why ``name`` is no variable name (`is_valid_name`), and the name to write where one
    is plain (``ＵＳＥＲ``: USER, ``café``: cafe, ``user-name``: user_name): ``'用户' is not a
    valid variable name (ASCII letters A-Z and a-z, …; 用户 is not ASCII: …)``."""
    said = (f"{name!r} is not a valid variable name (ASCII letters A-Z and a-z, digits "
            "and _, not starting with a digit")
    plain = "".join(ch for ch in unicodedata.normalize("NFKD", name)
                    if not unicodedata.combining(ch))
    plain = re.sub(r"[\s.-]+", "_", plain)
    if plain != name and is_valid_name(plain):
        return f"{said}): write {plain!r}"
    outside = "".join(dict.fromkeys(ch for ch in name if not ch.isascii()))
    if outside:
        return f"{said}; {outside} is not ASCII: name it in ASCII letters)"
    return f"{said})"


def substitute(template: str, value_of: Callable[[str], str | None],
               missing: Callable[[str], str] | None = None) -> str:
    """``template`` with each reference replaced (a default when the value is unset or empty,
    ``$${`` -> ``${``), the values from ``value_of``; a reference whose value is None and that
    has no default is ``missing(name)``, else stays as written (the loader reports it)."""
    if "$" not in template:
        return template

    def sub(m: re.Match[str]) -> str:
        if m["escape"] is not None:
            return "${"
        if m["bad"] is not None:
            return m[0]
        value = value_of(m["name"])
        if m["dflt"] is not None and not value:
            return m["default"]
        if value is None:
            return m[0] if missing is None else missing(m["name"])
        return value

    return _TOKEN.sub(sub, template)


def _undefined(name: str, defined: Iterable[str] = ()) -> str:
    raise UndefinedVariable(name, defined)


def sole_reference(text: str) -> tuple[str, str | None] | None:
    """``(name, default or None)`` when ``text`` is exactly one reference (``${NAME}`` or
    ``${NAME:-default}``), else None."""
    m = _TOKEN.fullmatch(text)
    if m is None or m["name"] is None:
        return None
    return m["name"], m["default"] if m["dflt"] is not None else None


def model_text(template: str, shown: Callable[[str, str], str | None]) -> str:
    """``template`` as a model may read it: each reference replaced by ``shown(name,
    reference)``, or kept as written where that is None (a secret's placeholder); escapes and
    malformed ``${`` stay as written.

    The result still resolves as ``template`` does (the device resolves what a model was
    shown): a ``${`` inside a value is written ``$${``, and a value ending in ``$`` right
    before ``{`` or ``$`` is not substituted (the two would join into a new token). A
    template with a malformed ``${`` (which the loader refuses) is returned as written.
    """
    if "$" not in template or malformed(template):
        return template

    def sub(m: re.Match[str]) -> str:
        if m["name"] is None:
            return m[0]
        value = shown(m["name"], m[0])
        after = template[m.end():m.end() + 1]
        if value is None or (value.endswith("$") and after and after in "{$"):
            return m[0]
        return value.replace("${", "$${")

    return _TOKEN.sub(sub, template)


def expand_defaults(values: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """``values`` with the value of each of ``names`` (a ``vars:`` value no other source
    overrides) read as a template: its ``${NAME}`` replaced by ``NAME``'s value, itself
    expanded when it is one of ``names`` too. A value with no expansion (a cycle: ``A: ${B}``,
    ``B: ${A}``; a chain or a value too long: `chain_problems`) stays as written; the loader
    reports it, and an undefined reference."""
    names = set(names)
    templates = {name: values[name] for name in names}
    expanded = _expand_all(templates, values.get)
    return {**values, **{name: value for name, value in expanded.items() if value is not None}}


class _Refs(dict):
    """Each template's references to the others (one entry per occurrence), read from a
    template when first asked for."""

    def __init__(self, templates: Mapping[str, str]) -> None:
        super().__init__()
        self.templates = templates

    def __missing__(self, name: str) -> list[str]:
        return self.read(name)

    def read(self, name: str) -> list[str]:
        """``name``'s references, read now (in the order of these calls: `_cycles` keeps it)."""
        found = [ref for ref, _, _ in references(self.templates[name]) if ref in self.templates]
        self[name] = found
        return found


@dataclass
class _Shape:
    """What expanding ``vars:`` templates that refer to each other would take, found without
    expanding them (nor recursing: a chain may be as long as the file allows)."""

    order: list[str]                   # each name after the names its value refers to
    looped: set[str]                   # names in, or referring to, a cycle
    depth: dict[str, int]              # the longest chain of references below a name
    size: dict[str, int]               # at most this many characters once expanded

    @classmethod
    def of(cls, templates: Mapping[str, str], refs: Mapping[str, list[str]],
           roots: Iterable[str] | None = None) -> _Shape:
        """The shape of ``roots`` (default: every template) and the values they refer to."""
        order, looped, state = [], set(), {}
        for root in templates if roots is None else roots:
            if root in state:
                continue
            state[root] = "open"
            stack = [(root, iter(refs[root]))]
            while stack:
                name, todo = stack[-1]
                for ref in todo:
                    if state.get(ref) == "open" or ref in looped:
                        looped.add(name)
                    elif ref not in state:
                        state[ref] = "open"
                        stack.append((ref, iter(refs[ref])))
                        break
                else:
                    stack.pop()
                    state[name] = "done"
                    order.append(name)
                    if stack and name in looped:
                        looped.add(stack[-1][0])
        depth: dict[str, int] = {}
        size: dict[str, int] = {}
        for name in order:
            if name not in looped:
                depth[name] = max((depth[ref] + 1 for ref in refs[name]), default=0)
                size[name] = min(len(templates[name]) + sum(size[ref] for ref in refs[name]),
                                 MAX_VALUE_CHARS + 1)
        return cls(order, looped, depth, size)

    def usable(self, name: str) -> bool:
        """Whether ``name``'s value can be expanded (no cycle, chain or size past the limits)."""
        return (name not in self.looped and self.depth[name] <= MAX_CHAIN
                and self.size[name] <= MAX_VALUE_CHARS)


def _expand_all(templates: Mapping[str, str], outside: Callable[[str], str | None],
                roots: Iterable[str] | None = None) -> dict[str, str | None]:
    """Each of ``templates`` (of ``roots`` and the values they refer to, when given)
    expanded: a reference to another of them is its expansion, any other reference
    ``outside(name)``'s value. None for a value `_Shape.usable` refuses, and for one that
    refers to such a value."""
    refs = _Refs(templates)
    shape = _Shape.of(templates, refs, roots)
    out: dict[str, str | None] = {}
    for name in shape.order:
        if not shape.usable(name) or any(out[ref] is None for ref in refs[name]):
            out[name] = None
            continue
        out[name] = substitute(templates[name],
                               lambda ref: out[ref] if ref in templates else outside(ref))
    return out


def chain_problems(values: Mapping[str, str], inherited: Mapping[str, str] | None = None
                   ) -> dict[str, str]:
    """Why each of ``values`` (a ``vars:`` mapping; ``inherited`` the suite's, which it may
    refer to) has no expansion, by name: it refers to itself, or it is the top of a chain of
    references deeper than `MAX_CHAIN` or of a value longer than `MAX_VALUE_CHARS` (only the
    top is named: the values below are fine where they are used alone)."""
    templates = {**(inherited or {}), **values}
    refs = _Refs(templates)
    for name in templates:          # all of them, in the order written
        refs.read(name)
    shape = _Shape.of(templates, refs)
    referred = {ref for name in values if name not in shape.looped for ref in refs[name]}
    cycles = _cycles(refs)
    out = {}
    for name in values:
        if name in cycles:
            if why := _cycle_problem(refs, cycles[name], name):
                out[name] = why
        elif name in shape.looped or name in referred:
            continue
        elif shape.depth[name] > MAX_CHAIN:
            out[name] = (f"refers to a chain of more than {MAX_CHAIN} variables "
                         f"({_chain_start(refs, shape, name)}): "
                         "write the value with fewer references")
        elif shape.size[name] > MAX_VALUE_CHARS:
            out[name] = (f"expands to more than {MAX_VALUE_CHARS:,} characters: write a "
                         "shorter value, or one that repeats other variables less")
    return out


def _cycle_problem(refs: Mapping[str, list[str]], members: list[str], name: str) -> str | None:
    """What to say of ``name``, one of ``members`` (variables that all refer to each other):
    each is named with its cycle, but a ring of more than `MAX_CHAIN` only at its first."""
    if len(members) > MAX_CHAIN and name != members[0]:
        return None
    inside = set(members)
    chain = _cycle({n: [r for r in refs[n] if r in inside] for n in members}, name)
    if chain is None:
        return None
    shown = [f"${{{n}}}" for n in chain]
    if len(shown) > 12:
        shown = [*shown[:4], f"… {len(shown) - 6} more", *shown[-2:]]
    return f"refers to itself ({' -> '.join(shown)}): a value cannot be made of itself"


def _cycles(refs: Mapping[str, list[str]]) -> dict[str, list[str]]:
    """Each name that refers to itself, directly or through others, and the names of its
    cycle (all that refer to each other, in the order written): Tarjan's strongly connected
    components, without recursion."""
    written = {name: i for i, name in enumerate(refs)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    at: dict[str, int] = {}            # where on `stack` a name of an open component is
    out: dict[str, list[str]] = {}

    def push(name: str) -> None:
        index[name] = low[name] = len(index)
        at[name] = len(stack)
        stack.append(name)
        work.append((name, iter(refs[name])))

    for root in refs:
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = []
        push(root)
        while work:
            name, todo = work[-1]
            for ref in todo:
                if ref not in index:
                    push(ref)
                    break
                if ref in at:
                    low[name] = min(low[name], index[ref])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[name])
                if low[name] == index[name]:
                    members = stack[at[name]:]
                    del stack[at[name]:]
                    for member in members:
                        del at[member]
                    if len(members) > 1 or name in refs[name]:
                        out.update(dict.fromkeys(members, sorted(members, key=written.get)))
    return out


def _chain_start(refs: Mapping[str, list[str]], shape: _Shape, name: str) -> str:
    """The first few links of ``name``'s deepest chain, as ``${A} -> ${B} -> ... -> …``."""
    chain = [name]
    while refs[chain[-1]] and len(chain) < 4:
        chain.append(max(refs[chain[-1]], key=lambda ref: shape.depth[ref]))
    return " -> ".join([*(f"${{{n}}}" for n in chain), "…"])


def _cycle(refs: Mapping[str, list[str]], start: str) -> list[str] | None:
    """``[start, ..., start]`` when ``start``'s value refers back to ``start`` through the
    values of others (the first such chain depth-first, in the order written), else None."""
    seen = {start}
    stack = [(start, iter(refs[start]))]
    while stack:
        for ref in stack[-1][1]:
            if ref == start:
                return [*(name for name, _ in stack), ref]
            if ref not in seen:
                seen.add(ref)
                stack.append((ref, iter(refs[ref])))
                break
        else:
            stack.pop()
    return None


@dataclass(frozen=True)
class LoadValues:
    """Where a number, true/false or fixed-word field's ``${NAME}`` is read when the suite
    loads (such a field is typed there, as in Midscene, which substitutes before parsing): the
    environment over ``.env`` over ``vars:``, as at run time. Never a secret: a variable
    declared in ``secrets:``, or read from the secrets dir, is refused; so is a served app's
    URL, which is known only when the run starts."""

    env: Mapping[str, str]
    vars: Mapping[str, str] = field(default_factory=dict)
    secrets: frozenset[str] = frozenset()
    secret_files: frozenset[str] = frozenset()     # names in the secrets dir
    at_run: frozenset[str] = frozenset()           # served app URL variables
    dotenv: Mapping[str, str] = field(default_factory=dict)   # farm.suite.dotenv: over vars:

    def within(self, vars: Mapping[str, str], secrets: Iterable[str],
               at_run: Iterable[str] = ()) -> LoadValues:
        """These values as a suite or case file sees them (its ``vars:``, ``secrets:`` and
        served app URL variables added)."""
        return LoadValues(self.env, {**self.vars, **vars}, self.secrets | frozenset(secrets),
                          self.secret_files, self.at_run | frozenset(at_run), self.dotenv)

    def read(self, name: str) -> tuple[str | None, str]:
        """``(value, where it comes from)``; ``(None, why it may not be used)`` for a secret or
        a run-time value; ``(None, "")`` when ``name`` is not defined. A ``vars:`` value is
        expanded (`expand_defaults`), its references read here too; one with no expansion (a
        cycle, a chain too deep: `chain_problems` reports it) reads as undefined."""
        if name in self.secrets:
            return None, "is a secret (secrets:)"
        if name in self.at_run:
            return None, "is a served app's URL, known only when the run starts"
        if name in self.env:
            return self.env[name], "the environment"
        if name in self.secret_files:
            return None, "comes from the secrets dir (FARM_SECRETS_DIR)"
        if name in self.dotenv:
            return self.dotenv[name], ".env"
        if name in self.vars:
            if (late := self._run_time_reference(name)) is not None:
                return None, f"is built from ${{{late}}}, {self.read(late)[1].removeprefix('is ')}"
            value = self._expanded(name)
            return value, "vars:" if value is not None else ""
        return None, ""

    def _run_time_reference(self, name: str) -> str | None:
        """The secret or served app's URL a ``vars:`` value refers to, through the values it
        refers to (``AUTH: ${TOKEN:-}`` with TOKEN a secret: known only when the run starts,
        its default is not its value), else None."""
        seen, todo = {name}, [name]
        while todo:
            for ref, _, _ in references(self._templates.get(todo.pop(), "")):
                if ref in self.secrets or ref in self.at_run or ref in self.secret_files:
                    return ref
                if ref in self._templates and ref not in seen:
                    seen.add(ref)
                    todo.append(ref)
        return None

    def _expanded(self, name: str) -> str | None:
        """``vars:`` value ``name`` expanded, with the values it refers to, once (a field
        reads a value many times; a value built from others would be built again each time,
        and a case reads only a few of a suite's values)."""
        if name not in self._expansions:
            self._expansions.update(_expand_all(self._templates,
                                                lambda ref: self.read(ref)[0], [name]))
        return self._expansions[name]

    @functools.cached_property
    def _expansions(self) -> dict[str, str | None]:
        return {}

    @functools.cached_property
    def _templates(self) -> dict[str, str]:
        """The ``vars:`` values no other source overrides."""
        over = self.secrets | self.at_run | self.env.keys() | self.secret_files \
            | self.dotenv.keys()
        return {name: value for name, value in self.vars.items() if name not in over}

    def credential_in(self, value: str) -> str | None:
        """The name of a credential-named variable (``API_TOKEN``: `is_credential`) whose value
        ``value`` holds, else None: a ``vars:`` value built from one (``AUTH: "Bearer
        ${API_TOKEN}"``) is as secret as the credential itself."""
        from farm.config import credential_name, is_credential
        for name in sorted({*self.env, *self.dotenv, *self.vars}):
            if name in self.secrets or name in self.at_run or not credential_name(name):
                continue
            held = self.read(name)[0]
            if held is not None and is_credential(name, held) and held.strip() in value:
                return name
        return None


# A credential-named variable's value shorter than MIN_SECRET_CHARS is masked only where a
# text is that value, whole (a field it is typed into is veiled so): from this length on, and
# not a flag's word
MIN_WHOLE_CHARS = 4
_FLAG_WORDS = frozenset({"true", "false", "none", "null", "unset", "empty", "dummy"})


def short_credentials(values: Mapping[str, str], secrets: Iterable[str] = ()
                      ) -> dict[str, str]:
    """``{name: value}`` of the variables of ``values`` whose names mark a credential
    (``DB_PASSWORD``) with a value too short to be masked everywhere (`is_credential`: fewer
    than MIN_SECRET_CHARS characters), from MIN_WHOLE_CHARS on and no flag's word, and not
    among ``secrets`` (masked at any length): each is masked where it is a whole text."""
    from farm.config import MIN_SECRET_CHARS, credential_name, secret_chars
    secrets = frozenset(secrets)
    return {name: value.strip() for name, value in values.items()
            if name not in secrets and credential_name(name)
            and MIN_WHOLE_CHARS <= len(value.strip())
            and secret_chars(value) < MIN_SECRET_CHARS
            and value.strip().lower() not in _FLAG_WORDS}


class Variables:
    """Variable values (already merged by precedence) plus which of them are secrets."""

    def __init__(self, values: Mapping[str, str], secrets: Iterable[str] = ()) -> None:
        from farm.config import is_credential
        self._values = dict(values)
        # a credential by its name (MY_PASSWORD, API_TOKEN) is a secret without `secrets:`
        # (read once: a map() or generator of names is empty the second time)
        self._declared = frozenset(secrets)     # secret by secrets: / the secrets dir
        self._secrets = self._declared | {n for n, v in self._values.items()
                                              if is_credential(n, v)}
        self._mask_re = _mask_pattern(self.secret_values + _key_bodies(self.secret_values))
        self._runs = _run_pattern(self.secret_values)
        self._long_cuts = _long_cut_spellings(self.secret_values)
        self._whole = frozenset(unicodedata.normalize("NFKC", value) for value in
                                short_credentials(self._values, self._secrets).values())

    @classmethod
    def from_sources(
        cls,
        defaults: Mapping[str, str],
        env: Mapping[str, str] | None = None,
        secrets_dir: Path | None = None,
        provided: Mapping[str, str] | None = None,
        secrets: Iterable[str] = (),
    ) -> Variables:
        """Merge the sources; later ones win: defaults < secrets_dir < env < provided.

        ``defaults`` are the suite's and case's ``vars:``, templates (`expand_defaults`);
        ``env`` defaults to ``os.environ``;
        ``secrets_dir`` holds one file per variable (file name = variable name, trailing
        newlines stripped, as written by ``docker secret``/Kubernetes); ``provided`` are values
        farm itself supplies at run time (e.g. served app URLs).  A variable whose value comes
        from ``secrets_dir`` is a secret, as one named in ``secrets:`` is.
        """
        from_dir = read_secrets_dir(secrets_dir) if secrets_dir is not None else {}
        over = {**(os.environ if env is None else env), **(provided or {})}
        values = {**defaults, **from_dir, **over}
        values = expand_defaults(values, [n for n in defaults if n not in from_dir | over.keys()])
        return cls(values, {*secrets, *(name for name in from_dir if name not in over)})

    @classmethod
    def joined(cls, parts: Iterable[Variables]) -> Variables:
        """Variables that hide every secret value of ``parts`` (for `mask` only: its names
        are made up). A run's mask is the cases' joined: two suites may give one secret name
        values of their own, and each value is a secret of the run."""
        return cls.hiding(sorted({value for part in parts for value in part.secret_values}))

    @classmethod
    def hiding(cls, values: Iterable[str]) -> Variables:
        """Variables whose secrets are ``values`` (for `mask` only: their names are made up)."""
        values = list(values)
        names = [f"SECRET_{i}" for i in range(len(values))]
        return cls(dict(zip(names, values)), secrets=names)

    # -- lookup -------------------------------------------------------------------------------

    @property
    def secret_names(self) -> frozenset[str]:
        """The names of the secret variables (``secrets:``, the secrets dir, credential-named
        ones of MIN_SECRET_CHARS or more)."""
        return self._secrets & self._values.keys()

    @property
    def names(self) -> frozenset[str]:
        """Every defined variable name."""
        return frozenset(self._values)

    def __contains__(self, name: object) -> bool:
        return name in self._values

    def get(self, name: str, default: str | None = None) -> str | None:
        """The value of ``name`` or ``default``."""
        return self._values.get(name, default)

    def with_values(self, extra: Mapping[str, str]) -> Variables:
        """A copy where ``extra`` overrides (run-time values such as served app URLs)."""
        out = Variables({**self._values, **extra}, self._secrets)
        out._declared = self._declared
        return out

    @property
    def hides(self) -> bool:
        """Whether `mask` can change a text at all (some secret has a value)."""
        return self._mask_re is not None or bool(self._whole)

    @property
    def secret_values(self) -> tuple[str, ...]:
        """Non-empty values of the secret variables, longest first; each also without its
        surrounding whitespace (a CI secret often ends in a newline, which an input field drops
        and a page's text collapses: the value comes back trimmed) and with each run of
        whitespace inside it as one space (a two-line secret, a PEM key, shown by a page:
        innerText, the UI tree and the closest-text hint read its line break as a space)."""
        vals = {v for n in self._secrets if self._values.get(n)
                for v in (self._values[n], self._values[n].strip(),
                          " ".join(self._values[n].split())) if v}
        return tuple(sorted(vals, key=lambda v: (-len(v), v)))

    # -- templates ----------------------------------------------------------------------------

    references = staticmethod(references)
    malformed = staticmethod(malformed)

    def resolve(self, template: str) -> str:
        """Substitute every reference; raise `UndefinedVariable` for an undefined one."""
        return substitute(template, self._values.get,
                          lambda name: _undefined(name, self._values))

    def resolve_declared(self, template: str, declared: Iterable[str],
                         undeclared: list[str] | None = None) -> str:
        """`resolve` for text a model wrote: only ``declared`` names expand (the suite's
        ``vars:``, ``secrets:``, served app URLs); any other reference stays as written and its
        name is appended to ``undeclared``, so a reply cannot reach the process environment."""
        allowed = frozenset(declared)

        def guard(m: re.Match[str]) -> str:
            if m["name"] is None or m["name"] in allowed:
                return m[0]
            if undeclared is not None and m["name"] not in undeclared:
                undeclared.append(m["name"])
            return "$" + m[0]        # "$${" is the literal "${": the reference is typed as is

        return self.resolve(_TOKEN.sub(guard, template)) if "$" in template else template

    def mask(self, text: str) -> str:
        """``text`` with every secret value replaced by ``***`` (longest values first), also
        where it appears encoded: %-encoded, HTML entities, JSON / JavaScript escapes (and any
        mix of these, character by character) or base64 (see `_secret_forms`); as a page's
        CSS may case it (FARM-DEMO-PASS, Farm-Demo-Pass: `_cased_forms`, for a value of
        MIN_SECRET_CHARS or more); and its start where a text was cut inside it with "…"
        (`_cut_forms`; of a value longer than `_CUT_IN_PATTERN`, `_mask_long_cuts`); in any
        width NFKC takes as the same, as farm matches texts (``１２３：``, ``123:``:
        `_width_forms`); its start a page kept as a whole value (a field's maxlength:
        `_kept_forms`). A text that is, whole, the short value of a credential-named variable
        (`short_credentials`: what is typed into a field, a script reading the field back; in
        any width) is ``***`` too; so are a key's body after a known prefix (`_key_bodies`) and
        a tail of RUN_CHARS or more of a one-word secret (`_mask_runs`: a key quoted in part).

        Repeats until no secret value is left, because a replacement can join its neighbours
        into a new occurrence (secret ``a*``: ``aa*`` -> ``a***``).  Each pass turns at least one
        non-``*`` character into ``*``, so this terminates.  Secrets made only of ``*`` (and
        whitespace) cannot be hidden by ``***`` and are ignored.
        """
        if self._whole and unicodedata.normalize("NFKC", text.strip()) in self._whole:
            return MASK
        if self._mask_re is None:
            return text
        while True:
            masked = _mask_long_cuts(self._mask_re.sub(_masked, text), self._long_cuts)
            if masked == text:
                return _mask_runs(masked, self._runs, self.secret_values)
            text = masked


# A key's known prefix ("sk-proj-"): the body after it is the secret part an endpoint may
# echo alone ("invalid key proj-…"), masked as the whole key is when it is long enough
_KEY_PREFIXES = ("sk-ant-api03-", "sk-ant-", "sk-proj-", "sk-svcacct-", "sk-or-v1-", "sk-",
                 "github_pat_", "ghp_", "gho_", "ghs_", "xoxb-", "xoxp-", "hf_", "gsk_")
# A tail of this many characters of a secret or more is hidden too (an error quoting part of a
# key: "your key is *** and good-key-123456"), in one-word secrets up to RUN_SECRET_MAX long
RUN_CHARS = 12
RUN_SECRET_MAX = 256


def _key_bodies(values: tuple[str, ...]) -> tuple[str, ...]:
    """The bodies of ``values`` after a known key prefix (`_KEY_PREFIXES`), of
    MIN_SECRET_CHARS or more characters."""
    from farm.config import MIN_SECRET_CHARS
    bodies = []
    for value in values:
        prefix = next((p for p in _KEY_PREFIXES if value.startswith(p)), "")
        if prefix and len(value) - len(prefix) >= MIN_SECRET_CHARS:
            bodies.append(value[len(prefix):])
    return tuple(b for b in dict.fromkeys(bodies) if b not in values)


@functools.lru_cache(maxsize=64)
def _run_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    """Every run of RUN_CHARS characters of the secrets longer than that: where a tail of one
    may begin (`_mask_runs`)."""
    runs = {value[i:i + RUN_CHARS] for value in _key_like(values)
            for i in range(len(value) - RUN_CHARS + 1)}
    runs = {run for run in runs if run.replace("*", "").strip()}
    if not runs:
        return None
    trie: dict = {}         # (as a trie: a flat alternation of them made a page's mask slow)
    for run in runs:
        node = trie
        for ch in run:
            node = node.setdefault(ch, {})
    return re.compile(_trie_pattern(trie))


def _trie_pattern(node: dict) -> str:
    """The regular expression of the strings of ``node``, a trie (all of one length)."""
    alts = [re.escape(ch) + _trie_pattern(sub) for ch, sub in sorted(node.items())]
    return "" if not alts else alts[0] if len(alts) == 1 else f"(?:{'|'.join(alts)})"


def _mask_runs(text: str, pattern: re.Pattern[str] | None, values: tuple[str, ...]) -> str:
    """``text`` with each tail of RUN_CHARS or more characters of a secret (as written) as
    ``***``: what is left of a key an endpoint quoted in part ("and good-key-123456"), past
    what `mask` hid. Only a tail: a secret's start or middle may be the page's own text (a
    webhook's host, a passphrase's words), and a cut start is `mask`'s own."""
    if pattern is None:
        return text
    out, pos, at = [], 0, 0
    while (m := pattern.search(text, at)) is not None:
        ends = [_tail_end(text, m.start(), m[0], value) for value in _key_like(values)
                if m[0] in value]
        end = max((e for e in ends if e is not None), default=None)
        if end is None:
            at = m.start() + 1
            continue
        out += [text[pos:m.start()], MASK]
        pos = at = end
    return "".join(out) + text[pos:] if out else text


def _key_like(values: tuple[str, ...]) -> tuple[str, ...]:
    """The secrets whose tails `_mask_runs` hides: longer than RUN_CHARS, at most
    RUN_SECRET_MAX, and shaped as a key or token: a known key prefix (`_KEY_PREFIXES`), or one
    word of letters and digits together with no ``@``, ``.``, ``/`` or ``:`` in it. An email
    address, a URL or a database address (their domain, a path, ``application_prod``) and a
    passphrase (``CorrectHorseBatteryStaple``) end in the page's own text: tails of those
    are not hidden (the whole value still is)."""
    return tuple(v for v in values if RUN_CHARS < len(v) <= RUN_SECRET_MAX and
                 not any(ch.isspace() for ch in v) and (
                     v.startswith(_KEY_PREFIXES) or (
                         not any(ch in v for ch in "@./:") and any(ch.isdigit() for ch in v)
                         and any(ch.isalpha() for ch in v))))


def _tail_end(text: str, start: int, run: str, value: str) -> int | None:
    """Where the run of ``value`` that begins with ``run`` at ``start`` of ``text`` ends, when
    it runs to ``value``'s end (a tail of it); None when none does."""
    at = value.find(run)
    while at >= 0:
        k = len(run)
        while start + k < len(text) and at + k < len(value) and text[start + k] == value[at + k]:
            k += 1
        if at + k == len(value):
            return start + k
        at = value.find(run, at + 1)
    return None


def _masked(m: re.Match[str]) -> str:
    """``***`` for a secret's match, but a match of a gapped form (`_gapped_forms`: the
    secret broken up by whitespace) with more than GAPS_AT_MOST breaks of its own, of a
    secret all digits or all letters, is the page's text, not a wrapped secret: `Pages: 1 2 3
    4 5 6 7 8` for PIN ``12345678`` (``S 3 C R 3 T - 5``, spelt out, is still masked)."""
    gapped = [name for name, seen in m.groupdict().items() if seen is not None]
    if gapped:      # (its name says the secret's own breaks and whether it is one kind)
        _, own, plain, _ = gapped[0].split("_")
        if plain == "1" and len(_GAP_RUN.findall(m[0])) - int(own) > GAPS_AT_MOST:
            return m[0]
    return MASK


@functools.lru_cache(maxsize=64)      # a run builds the same secrets' pattern per case
def _mask_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    # (a value of "*" and whitespace alone hides nothing: its spaces would match every space)
    forms = [form for v in values if v.replace("*", "").strip() for form in _secret_forms(v)]
    if not forms:
        return None
    # Alternation tries left to right, so longest-first makes the longest form win.  The
    # lookahead on the characters a form can start with skips most positions at once (the
    # alternation alone is ten times slower).
    forms.sort(key=lambda form: -form[0])
    starts = "".join(sorted({ch for _, _, first in forms for ch in first}))
    return re.compile(f"(?=[{re.escape(starts)}])(?:"
                      + "|".join(pattern for _, pattern, _ in forms) + ")")


# How a secret comes back from a page, a browser or a writer: every character may be itself,
# %-encoded (quote, quote_plus, a browser's own URL encoding), an HTML entity, or a JSON /
# JavaScript escape; and the whole value may be base64-encoded (btoa, Basic auth, tokens).
_JSON_ESCAPES = {'"': '"', "'": "'", "/": "/", "\b": "b", "\f": "f", "\n": "n", "\r": "r",
                 "\t": "t"}
_HTML_NAMES = {"&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos"}
_BACKSLASHES = r"\\+"     # escaped once, twice, ... (JSON inside JSON)


def _any_case(pattern: str) -> str:
    return f"(?i:{pattern})"


def _secret_forms(secret: str) -> list[tuple[int, str, str]]:
    """``(typical length, pattern, characters a match can start with)`` for ``secret``
    written out (as is, and as CSS may case it: `_cased_forms`) and base64-encoded."""
    return [_text_form([[ch] for ch in secret]), *_cut_forms(secret), *_kept_forms(secret),
            *_cased_forms(secret), *_width_forms(secret), *_base64_forms(secret),
            *_gapped_forms(secret)]


# What may come between two characters of a secret a model or a page broke up: a line break
# (\r\n, or its JSON escape), a space or a tab, a few of them (a wrapped, indented line)
_GAP = r"(?:[ \t\r\n\f\v\u00a0\u2007\u2009\u202f\u3000]|\\+[nrt]|&nbsp;)"
GAP_CHARS = 6           # at most this many between two of its characters (after the first)
GAPS_AT_MOST = 3        # breaks a gapped match may add to the secret's own (a wrapped line)
_GAP_RUN = re.compile(f"{_GAP}+")
_GAP_FORMS = itertools.count()  # (each gapped form's group name its own)


def _gapped_forms(secret: str) -> list[tuple[int, str, str]]:
    """``secret`` with up to `GAP_CHARS` whitespace characters between any two of its own
    (``S3CR3T- \\n 5-apikey``: a model echoing a key, a terminal or a page wrapping a token);
    a run of whitespace of its own, any run. Each character as itself, NFKC-normalised or its
    other width (as `_width_forms` has them: ``密码: 芝麻开门 123`` for ``密码：芝麻开门123``), not
    encoded (an encoded one is `_text_form`'s). Only a value of MIN_SECRET_CHARS or more
    non-space characters: a shorter one spaced out ("a b c") is too often the page's own
    text, and the pattern stays small (a few spellings a character)."""
    from farm.config import MIN_SECRET_CHARS
    words = secret.split()
    if sum(map(len, words)) < MIN_SECRET_CHARS:
        return []
    gap = f"{_GAP}{{0,{GAP_CHARS}}}"
    forms = []
    plain = unicodedata.normalize("NFKC", secret)
    spellings = [secret] + ([plain] if any(len(unicodedata.normalize("NFKC", ch)) != 1
                                           for ch in secret) else [])
    for spelt in spellings:
        chars = [[_widths(ch) for ch in word] for word in spelt.split()]
        if not chars:
            continue
        pattern = f"{_GAP}+".join(gap.join(_one_of(options) for options in word)
                                 for word in chars)
        # an empty group marks a gapped form's match, named with the secret's own breaks and
        # whether it is one kind of character (all digits or all letters, as a page's own
        # spaced-out text often is): gap_<breaks>_<1|0>_<n>
        bare = "".join(spelt.split())
        name = f"gap_{len(chars) - 1}_{int(bare.isdigit() or bare.isalpha())}_{next(_GAP_FORMS)}"
        forms.append((len(secret), f"(?P<{name}>){pattern}", "".join(chars[0][0])))
    return forms


def _widths(ch: str) -> list[str]:
    """``ch``, NFKC-normalised, and its other widths (`_WIDTH_TWINS`)."""
    plain = unicodedata.normalize("NFKC", ch)
    return list(dict.fromkeys([ch, *([plain] if len(plain) == 1 else []),
                               *_WIDTH_TWINS.get(plain, ())]))


def _one_of(options: list[str]) -> str:
    if len(options) == 1:
        return re.escape(options[0])
    return "[" + "".join(map(re.escape, options)) + "]"


def _width_twins() -> dict[str, tuple[str, ...]]:
    """``{character: its other widths}`` after NFKC: "1": ("１",), ":": ("：",), "ア": ("ｱ",);
    from the Halfwidth and Fullwidth Forms block, each of whose characters NFKC makes one."""
    twins: dict[str, list[str]] = {}
    for code in range(0xFF01, 0xFFEF):
        ch = chr(code)
        plain = unicodedata.normalize("NFKC", ch)
        if len(plain) == 1 and plain != ch:
            twins.setdefault(plain, []).append(ch)
    return {plain: tuple(others) for plain, others in twins.items()}


_WIDTH_TWINS = _width_twins()


def _width_forms(secret: str) -> list[tuple[int, str, str]]:
    """``secret`` as a page may show it in other widths: each character NFKC-normalised
    (as farm matches texts: "：" is ":", "１" is "1") or its full-width / half-width twin, in
    any mix (``密码：芝麻开门１２３``, ``密码:芝麻开门123``); also cut short with "…"."""
    plain = unicodedata.normalize("NFKC", secret)
    chars = [[ch, *_WIDTH_TWINS.get(ch, ())] for ch in plain]
    if plain == secret and all(len(options) == 1 for options in chars):
        return []
    return [_text_form(chars, plain_letters=True), *_cut_forms(plain, chars)]


def _text_form(chars: list[list[str]], plain_letters: bool = False) -> tuple[int, str, str]:
    """The form of a text given as its characters, each one of a few spellings (``[["a",
    "A"], ["b"]]``: "ab" or "Ab"), every character possibly encoded (`_char_pattern`); with
    ``plain_letters``, letters and digits only as themselves (JSON and HTML leave them so; a
    page's cased text is not %-encoded letter by letter), which keeps the pattern fast. A run
    of whitespace in it is any run of whitespace (`_SPACE_RUN`)."""
    def spelt(text: str) -> str:
        return "".join(re.escape(c) if plain_letters and c.isalnum() else _char_pattern(c)
                       for c in text)

    def one(options: list[str]) -> str:
        if len(options) == 1:
            return spelt(options[0])
        return "(?:" + "|".join(map(spelt, options)) + ")"
    spaced = [all(o.isspace() for o in options) for options in chars]
    parts = []
    for i, (options, space) in enumerate(zip(chars, spaced)):
        if not space:
            parts.append(one(options))
        elif not (i and spaced[i - 1]):
            run = itertools.takewhile(lambda c: c[1], zip(chars[i:], spaced[i:]))
            parts.append(_space_run("".join(sorted({o for c, _ in run for o in c[0]}))))
    first = "".join(o[0] for o in chars[0]) + "&%\\" + ("+" if " " in chars[0] else "")
    if spaced[0]:
        first += _SPACES + "+"
    return len(chars), "".join(parts), first


# A space in a secret (a passphrase) as a page may show it: a no-break space (&nbsp;), a line
# break (<pre>, a wrapped cell), a tab, two spaces; so any run of whitespace, in any spelling
_SPACES = " \t\n\r\f\v\u00a0\u2007\u202f\u2009\u200a\u3000"


@functools.lru_cache(maxsize=64)
def _space_run(written: str) -> str:
    """Any run of whitespace, each character in any spelling (`_char_pattern`; ``written``:
    the secret's own, which may be others, \\x1f)."""
    spaces = dict.fromkeys(_SPACES + written)
    spellings = [r"\s", "&nbsp;", *(_char_pattern(ch) for ch in spaces)]
    return "(?:" + "|".join(spellings) + ")+"


def _cased_forms(secret: str) -> list[tuple[int, str, str]]:
    """``secret`` upper-cased, lower-cased (as CSS does: "ß" upper-cased is "SS") and with
    the first letter of its words capitalised, wherever a browser may see a word start
    (Chromium: after "-", ".", " ", not after "_" or "'": either case is taken at any letter
    that follows a non-letter); each also cut short with "…" (`_cut_forms`).

    A page shows a secret so cased by CSS (text-transform: uppercase | lowercase |
    capitalize): its visible text (innerText, the UI tree) holds the cased value. Only a value
    of MIN_SECRET_CHARS or more gets these forms: a shorter one cased ("ON", "Admin") is too
    often the page's own word."""
    from farm.config import MIN_SECRET_CHARS
    if len(secret.strip()) < MIN_SECRET_CHARS:
        return []
    capital = [[ch, ch.title()] if ch.title() != ch and (i == 0 or not secret[i - 1].isalpha())
               else [ch] for i, ch in enumerate(secret)]
    forms = []
    for chars in ([_upper(ch) for ch in secret], [_lower(ch) for ch in secret], capital):
        if any(options != [ch] for options, ch in zip(chars, secret)):
            forms += [_text_form(chars, plain_letters=True), *_cut_forms(secret, chars)]
    return forms


# What CSS casing does by the element's language (lang="tr": i -> İ, I -> ı; lang="el":
# upper-cased Greek loses its accents; a word's last Σ lower-cased is ς).
_UPPER_TAILORED = {"i": "İ"}
_LOWER_TAILORED = {"I": "ı", "Σ": "ς"}


def _upper(ch: str) -> list[str]:
    """How ``ch`` upper-cased may read ("ß": "SS"; "i": "I" or, in Turkish, "İ")."""
    out = [ch.upper(), *_UPPER_TAILORED.get(ch, "")]
    if "\u0370" <= ch <= "\u03ff" or "\u1f00" <= ch <= "\u1fff":
        out.append("".join(c for c in unicodedata.normalize("NFD", ch.upper())
                           if not unicodedata.combining(c)))
    return list(dict.fromkeys(out))


def _lower(ch: str) -> list[str]:
    """How ``ch`` lower-cased may read."""
    return list(dict.fromkeys([ch.lower(), *_LOWER_TAILORED.get(ch, "")]))


_CUT = "\u2026"            # "…": where farm and its devices cut a long text
_MIN_CUT_PREFIX = 3      # a shorter start of a secret before "…" tells little, and is common
# A cut form is one optional group inside the next per character: Python's regex parser
# recurses on each, and a longer secret (a PEM key, a service account's JSON) ended every
# command in a RecursionError. Longer secrets' cuts are found without a pattern.
_CUT_IN_PATTERN = 200


def _cut_forms(secret: str, chars: list[list[str]] | None = None
               ) -> list[tuple[int, str, str]]:
    """The start of ``secret`` where a text was cut inside it (``Login as tokSE…``): a quoted
    screen text or message is shortened before it is masked. The "…" stays. ``chars``: each
    character's spellings, as `_text_form` takes them (default: ``secret``'s own)."""
    chars = chars or [[ch] for ch in secret]
    if not _MIN_CUT_PREFIX < len(chars) <= _CUT_IN_PATTERN:
        return []
    pieces = ["(?:" + "|".join(map(re.escape, options)) + ")" for options in chars]
    rest = ""
    for piece in reversed(pieces[_MIN_CUT_PREFIX:-1]):
        rest = f"(?:{piece}{rest})?"
    return [(_MIN_CUT_PREFIX, "".join(pieces[:_MIN_CUT_PREFIX]) + rest + f"(?={_CUT})",
             "".join(o[0] for o in chars[0]))]


# What stands around a start of a secret a page kept as a whole value: a text's start or end,
# a space, quotes, brackets (``Preview: Hunter2- / …``, ``{"pin": "Hunter2-"}``, ``(Hunter2-)``)
_KEPT_BEFORE = r"""(?<![^\s"'`(\[{<>])"""
_KEPT_AFTER = r"""(?![^\s"'`)\]}<>])"""


def _kept_forms(secret: str) -> list[tuple[int, str, str]]:
    """The start of ``secret`` a page kept as a whole value (a field's maxlength took its
    first 8 characters and the page shows them, a script reads the field): of
    MIN_SECRET_CHARS characters or more, standing alone (`_KEPT_BEFORE`, `_KEPT_AFTER`),
    within the secret's first word and not all of it (a first word is often a header any
    such value has: "-----BEGIN", "Bearer"), nor ending in "/" (``https://host/``). A start
    of letters alone is a word a page may show itself ("Password" of ``Password-91x!``): it
    is masked only with the character after them."""
    from farm.config import MIN_SECRET_CHARS
    word = next((i for i, ch in enumerate(secret) if ch.isspace()), len(secret))
    letters = next((i for i, ch in enumerate(secret) if not ch.isalpha()), len(secret))
    shortest = max(MIN_SECRET_CHARS, letters + 1 if letters >= MIN_SECRET_CHARS else 0)
    longest = min(word, len(secret)) - 1        # (a shorter start than the word, or secret)
    if not shortest <= longest or len(secret) > _CUT_IN_PATTERN:
        return []
    pieces = [re.escape(ch) for ch in secret]
    rest = ""
    for piece in reversed(pieces[shortest:longest]):
        rest = f"(?:{piece}{rest})?"
    return [(shortest, _KEPT_BEFORE + "".join(pieces[:shortest]) + rest + "(?<!/)"
             + _KEPT_AFTER, secret[0])]


def _long_cut_spellings(values: Iterable[str]) -> tuple[str, ...]:
    """The values longer than `_CUT_IN_PATTERN`, each as written and as CSS may case it
    (upper, lower, each word capitalised: `_cased_forms` without the tailored letters)."""
    out: dict[str, None] = {}
    for value in values:
        if len(value) > _CUT_IN_PATTERN and value.strip("*"):
            capital = "".join(ch.title() if i == 0 or not value[i - 1].isalpha() else ch
                              for i, ch in enumerate(value))
            out.update(dict.fromkeys((value, value.upper(), value.lower(), capital)))
    return tuple(out)


def _mask_long_cuts(text: str, spellings: tuple[str, ...]) -> str:
    """``text`` with the start of each of ``spellings`` that stands right before a "…" (a
    text cut inside it) replaced by ``***``, the longest start at each "…"."""
    if not spellings or _CUT not in text:
        return text
    spans = []
    end = text.find(_CUT)
    while end != -1:
        starts = [start for spelling in spellings
                  if (start := _cut_start(text, end, spelling)) is not None]
        if starts:
            spans.append((min(starts), end))
        end = text.find(_CUT, end + 1)
    for start, end in reversed(spans):
        text = text[:start] + MASK + text[end:]
    return text


def _cut_start(text: str, end: int, spelling: str) -> int | None:
    """Where the longest start (of `_MIN_CUT_PREFIX` characters or more) of ``spelling``
    that ends at ``end`` of ``text`` begins, if one does."""
    head = spelling[:_MIN_CUT_PREFIX]
    start = text.find(head, max(0, end - len(spelling)), end)
    while start != -1 and end - start >= _MIN_CUT_PREFIX:
        if spelling.startswith(text[start:end]):
            return start
        start = text.find(head, start + 1, end)
    return None


@functools.lru_cache(maxsize=1024)
def _char_pattern(ch: str) -> str:
    """Every common way to write one character of a secret, as a regex group."""
    forms = _plain_forms(ch)
    units = ch.encode("utf-16-be", "surrogatepass")
    escapes = ["".join(_BACKSLASHES + _any_case(f"u{units[i]:02x}{units[i + 1]:02x}")
                       for i in range(0, len(units), 2))]
    if ord(ch) <= 0xFF:
        escapes.append(_BACKSLASHES + _any_case(f"x{ord(ch):02x}"))
    if ch == "\\":  # before the single backslash of `forms`: take every one of an escape
        forms.insert(0, _BACKSLASHES)
    elif ch in _JSON_ESCAPES:  # \" \n ..., the escaped letter possibly HTML-escaped after
        escapes.append(_BACKSLASHES + "(?:" + "|".join(_plain_forms(_JSON_ESCAPES[ch])) + ")")
    return "(?:" + "|".join(forms + escapes) + ")"


def _plain_forms(ch: str) -> list[str]:
    """``ch`` as itself, as an HTML entity, or %-encoded (UTF-8, once or twice; Latin-1 as
    escape() does)."""
    code = ord(ch)
    utf8 = ch.encode("utf-8", "surrogatepass")
    # %-encoded once, or twice (%2521: a URL carried in another's query, a next= redirect)
    forms = [re.escape(ch), f"&#0*{code};", _any_case(f"&#x0*{code:x};"),
             _any_case("".join(f"%(?:25)?{b:02x}" for b in utf8))]
    if ch in _HTML_NAMES:
        forms.append(f"&{_HTML_NAMES[ch]};")
    if 0x80 <= code <= 0xFF:
        forms.append(_any_case(f"%{code:02x}"))
    elif code > 0xFF:
        forms.append(_any_case(f"%u{code:04x}"))
    if ch == " ":
        forms.append(r"\+")
    return forms


_B64_CHARS = {"+": r"(?:\+|-|(?i:%2b))", "/": r"(?:/|_|\\+/|(?i:%2f))"}   # standard|URL-safe
_B64_STARTS = {"+": "+-%", "/": "/_%\\"}
_B64_PADDING = r"(?:=|(?i:%3d)){0,2}"
_B64_MIN_FRAGMENT = 8     # shorter pieces of a blob would hide unrelated text


def _base64_forms(secret: str) -> list[tuple[int, str, str]]:
    """The secret's own base64 (UTF-8, and Latin-1 as btoa() encodes it), padded or not,
    standard or URL-safe; and the part of a larger blob that encodes only the secret, for each
    of the three offsets it can sit at (a blob's bytes are encoded three at a time)."""
    encodings = {secret.encode("utf-8", "surrogatepass")}
    try:
        encodings.add(secret.encode("latin-1"))
    except UnicodeEncodeError:
        pass
    forms = []
    for data in encodings:
        whole = base64.b64encode(data).decode("ascii").rstrip("=")
        forms.append((len(whole), _b64_pattern(whole) + _B64_PADDING, _b64_start(whole)))
        for offset in range(3):
            encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
            # Character i carries bits [6i, 6i + 6); keep those that are all the secret's.
            first, end = -(-8 * offset // 6), 8 * (offset + len(data)) // 6
            piece = encoded[first:end]
            if len(piece) >= _B64_MIN_FRAGMENT and piece != whole:
                forms.append((len(piece), _b64_pattern(piece), _b64_start(piece)))
    return forms


def _b64_pattern(encoded: str) -> str:
    return "".join(_B64_CHARS.get(ch, ch) for ch in encoded)


def _b64_start(encoded: str) -> str:
    return _B64_STARTS.get(encoded[0], encoded[0]) if encoded else ""


# A secret value shorter than this is ordinary text ("1", "step"): masking it mangles every
# output, which the warning says in so many words
_ORDINARY_CHARS = 4


def secret_warnings(variables: Variables, written: Mapping[str, str]) -> list[str]:
    """What to tell the user of a suite's secrets before it runs, so that masking is never a
    surprise: ``written`` is what its steps say, by place (``"s4/b/other.yaml:9": "Enter
    your username"``: targets, values, asserted texts, as written, ``${NAME}`` unresolved).

    * A credential-named variable its steps refer to whose value is too short to be masked
      everywhere (`short_credentials`): it shows in the run's output as it is.
    * A secret (``secrets:``, the secrets dir) whose value is short, and one the steps'
      own text holds (both said of one that is both): every such text is masked too
      (``Released in *** edition``).
    Names only, never a value."""
    from farm.config import MIN_SECRET_CHARS, secret_chars
    referred = {name for text in written.values() for name, _, _ in references(text)}
    short = short_credentials({n: variables.get(n) or "" for n in variables.names},
                              variables.secret_names)
    wide = " (a Chinese, Japanese or Korean character counts as 2)"
    said = [f"${{{name}}} is not masked: its name marks a credential, but its value has "
            f"{len(value)} characters (a value of fewer than {MIN_SECRET_CHARS}"
            f"{wide if len(value) != secret_chars(value) else ''} is masked only "
            "where a text is that value alone; a field it is typed into is drawn as discs): "
            f"name it under secrets: to mask it everywhere"
            for name, value in sorted(short.items()) if name in referred]
    for name in sorted(variables.secret_names):
        value = (variables.get(name) or "").strip()
        if not value.strip("*"):
            continue
        alone = Variables({name: value}, [name])
        places = [place for place, text in written.items() if alone.mask(text) != text]
        if places:
            shown = ", ".join(places[:3]) + (f" and {len(places) - 3} more"
                                             if len(places) > 3 else "")
            said.append(f"secret ${{{name}}}'s value also stands in {len(places)} step "
                        f"text{'s' if len(places) > 1 else ''} of this suite ({shown}): "
                        f"those are masked too (***); {_not_secret(variables, name)}")
        if secret_chars(value) < MIN_SECRET_CHARS:
            said.append(_short_secret(name, value, wide))
    return said


def _short_secret(name: str, value: str, wide: str) -> str:
    """The warning for secret ``name`` whose value is short: what else its masking hides."""
    from farm.config import secret_chars
    counted = (f" ({secret_chars(value)} as masking counts them: {wide.strip(' ()')})"
               if len(value) != secret_chars(value) else "")
    plural = "s" if len(value) != 1 else ""
    said = (f"secret ${{{name}}}'s value has {len(value)} character{plural}{counted}: wherever a "
            "page, a message or a result holds the same characters (a year, a word), they "
            "are masked as *** too")
    if secret_chars(value) < _ORDINARY_CHARS:
        said += ("; a value this short will mask ordinary text everywhere (farm.log, the "
                 "outputs, the report)")
    return said


def _not_secret(variables: Variables, name: str) -> str:
    """What to do when secret ``name`` is no secret: take it out of ``secrets:`` (or the
    secrets dir) when it is there, else rename it: only its credential name makes it one."""
    from farm.config import _SECRET_VARIABLE
    marked = _SECRET_VARIABLE.search(name)
    if name in variables._declared or marked is None:
        return "if it is no secret, take it out of secrets: (or the secrets dir)"
    return (f"it is a secret because its name ends in {marked[0].lstrip('_')!r}, which marks a "
            "credential (it is in no secrets: nor the secrets dir): if it is no secret, "
            "rename the variable to a name without it")


def read_secrets_dir(secrets_dir: Path) -> dict[str, str]:
    """``{file name: content}`` for every file in ``secrets_dir`` named like a variable."""
    secrets_dir = Path(secrets_dir)
    if not secrets_dir.is_dir():
        raise ConfigError(f"secrets dir {secrets_dir} does not exist or is not a directory")
    out: dict[str, str] = {}
    for entry in sorted(secrets_dir.iterdir()):
        # Kubernetes mounts add "..data" links and dot-dirs; only variable-named files count.
        if not is_valid_name(entry.name) or not entry.is_file():
            continue
        try:
            out[entry.name] = entry.read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"cannot read secret file {entry}: {exc}") from exc
    return out
