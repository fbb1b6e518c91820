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

import os
import re
from collections.abc import Iterable, Mapping
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

MASK = "***"


class UndefinedVariable(UserError):
    """A template references ``${NAME}``, NAME has no value and the reference no default."""

    def __init__(self, name: str) -> None:
        self.name = name
        super().__init__(
            f"undefined variable ${{{name}}} (set it in the environment, vars:, or a secrets dir)"
        )


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


class Variables:
    """Variable values (already merged by precedence) plus which of them are secrets."""

    def __init__(self, values: Mapping[str, str], secrets: Iterable[str] = ()) -> None:
        self._values = dict(values)
        self._secrets = frozenset(secrets)
        self._mask_re = _mask_pattern(self.secret_values)

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

        ``defaults`` are the suite's and case's ``vars:``; ``env`` defaults to ``os.environ``;
        ``secrets_dir`` holds one file per variable (file name = variable name, trailing
        newlines stripped, as written by ``docker secret``/Kubernetes); ``provided`` are values
        farm itself supplies at run time (e.g. served app URLs).
        """
        values: dict[str, str] = dict(defaults)
        if secrets_dir is not None:
            values.update(read_secrets_dir(secrets_dir))
        values.update(os.environ if env is None else env)
        values.update(provided or {})
        return cls(values, secrets)

    # -- lookup -------------------------------------------------------------------------------

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
        return Variables({**self._values, **extra}, self._secrets)

    @property
    def secret_values(self) -> tuple[str, ...]:
        """Non-empty values of the secret variables, longest first."""
        vals = {self._values[n] for n in self._secrets if self._values.get(n)}
        return tuple(sorted(vals, key=lambda v: (-len(v), v)))

    # -- templates ----------------------------------------------------------------------------

    references = staticmethod(references)
    malformed = staticmethod(malformed)

    def resolve(self, template: str) -> str:
        """Substitute every reference; raise `UndefinedVariable` for an undefined one."""
        if "$" not in template:  # fast path: most strings have no placeholders
            return template

        def sub(m: re.Match[str]) -> str:
            if m["escape"] is not None:
                return "${"
            if m["bad"] is not None:
                return m[0]
            value = self._values.get(m["name"])
            if m["dflt"] is not None and not value:
                return m["default"]
            if value is None:
                raise UndefinedVariable(m["name"])
            return value

        return _TOKEN.sub(sub, template)

    def mask(self, text: str) -> str:
        """``text`` with every secret value replaced by ``***`` (longest values first).

        Repeats until no secret value is left, because a replacement can join its neighbours
        into a new occurrence (secret ``a*``: ``aa*`` -> ``a***``).  Each pass turns at least one
        non-``*`` character into ``*``, so this terminates.  Secrets made only of ``*`` cannot be
        hidden by ``***`` and are ignored.
        """
        if self._mask_re is None:
            return text
        while True:
            masked = self._mask_re.sub(MASK, text)
            if masked == text:
                return masked
            text = masked


def _mask_pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    values = tuple(v for v in values if v.strip("*"))
    if not values:
        return None
    # Alternation tries left to right, so longest-first makes the longest secret win.
    return re.compile("|".join(re.escape(v) for v in values))


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
