"""What a web target's ``url:`` can be, checked when the suite loads.

A page farm opens is an ``http://`` / ``https://`` address with a host (and a port in
1-65535), a ``file://`` URL, ``about:`` / ``data:``, or a path relative to the case file (or to
its ``serve:`` folder). Anything else would only fail once the run has started, where a page
that will not open looks like a broken browser (retried, then the browser quarantined), so a
literal ``url:`` that cannot be a page is refused at load with file:line. A ``${NAME}`` in the
host or path leaves the load unable to tell from the text alone: the loader checks it again
with the values it knows then (the environment, ``.env``, ``vars:``: `substituted_problem`), so
``url: ${APP_URL}/index.html`` with ``APP_URL=127.0.0.1:3999`` is refused at load too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from farm.suite.checks import suggest
from farm.suite.vars import references, substitute

PAGE_SCHEMES = ("http", "https", "file")
INLINE_SCHEMES = ("about", "data")      # about:blank, data:text/html,...
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
_IPV4 = re.compile(r"\d{1,3}(\.\d{1,3}){3}\Z")
OPENS = "farm opens http://, https:// and file:// addresses, about: and data:"


def url_problem(url: str) -> str | None:
    """Why ``url`` (a web target's ``url:``) cannot be a page farm opens; None when it can
    (or when a ``${NAME}`` in it leaves that to the run)."""
    templated = "${" in url
    m = _SCHEME.match(url)
    if m is None or (templated and "${" in url[:m.end()]):
        return None if templated else _relative_problem(url)
    scheme, rest = m[1].lower(), url[m.end():]
    if re.fullmatch(r"\d+([/?#].*)?", rest, re.S):    # localhost:3999/index.html
        return _no_scheme(url)
    if scheme in INLINE_SCHEMES:
        return None
    if scheme not in PAGE_SCHEMES:
        return (f"unsupported scheme '{m[1]}:'{suggest(scheme, PAGE_SCHEMES)}; {OPENS}")
    if not rest.startswith("//"):
        return f"expected {scheme}:// and then the {'path' if scheme == 'file' else 'host'}"
    if scheme == "file" or templated:
        return None
    return _host_problem(url)


def substituted_problem(url: str, values: Mapping[str, tuple[str, str, bool]]) -> str | None:
    """Why ``url``, a ``url:`` with ``${NAME}`` in it, is no web address once its variables
    are substituted: one with no scheme (``APP_URL=127.0.0.1:3999``) would be opened as a file
    beside the case. ``values``: name -> (value, where it is set, whether it is secret) of the
    variables known when the suite loads; None when one it refers to is not among them (a
    secret, a served app's URL: the run checks those). A secret value is never shown."""
    names = list(dict.fromkeys(name for name, _, _ in references(url)))
    if not names or any(name not in values for name in names):
        return None
    done = substitute(url, lambda name: values[name][0])
    problem = None if "${" in done else url_problem(done)
    if problem is None or (problem != _no_scheme(done) and not _USERINFO_FIRST.match(done)):
        return None
    lead = next((n for n in names if re.match(r"\$\{" + n + r"\b", url)), None)
    if lead is None:          # the address is built from several: say what they make
        secret = any(values[n][2] for n in names)
        made = "" if secret else f" it is {_no_password(done)!r}, which"
        said = ", ".join("${" + n + "}" for n in names) + (" are" if len(names) > 1 else " is")
        return (f"once {said} substituted{made} has "
                f"no scheme, so it would be opened as a file path relative to the case file; "
                f"the address needs http:// (or https://) in front")
    value, source, secret = values[lead]
    shown = "" if secret else f" = {_no_password(value)!r}"
    fix = f"http://{_no_password(value)}" if not secret else "http://…"
    return (f"${{{lead}}}{shown} (from {source}) has no scheme, so the address would be opened "
            f"as a file path relative to the case file; set {lead}={fix} (or https://) for a "
            "web address")


def _host_problem(url: str) -> str | None:
    """An http(s) address's host and port."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:          # "Invalid IPv6 URL": a "[" in the host without its "]"
        return ("the host has a '[' without its ']' (or a ']' without its '['): an IPv6 "
                "address is written in brackets, http://[::1]:3999/index.html")
    host_port = netloc.rpartition("@")[2]
    if host_port.startswith("["):                       # [::1]:8080
        host, port = host_port.partition("]")[0] + "]", host_port.partition("]")[2][1:]
    else:
        host, _, port = host_port.partition(":")
    if not host:
        return "no host: expected an address like http://127.0.0.1:3999/index.html"
    if port and not port.isdigit():
        if "@" in url[url.index(netloc) + len(netloc):]:
            # user:password@ with a '#', '?' or '/' in it: the address ended there, and what
            # looks like a port is part of the password; it is not quoted
            return ("the address ends inside its user:password@ part: a '#', '?' or '/' in "
                    "it must be %-encoded (# as %23, ? as %3F, / as %2F)")
        return f"port {port!r} is not a number"
    if port and (len(port.lstrip("0")) > 5 or not 1 <= int(port) <= 65535):
        shown = int(port) if len(port.lstrip("0")) <= 5 else f"{port.lstrip('0')[:12]}…"
        return f"port {shown} is out of range (1-65535)"
    return None


def _relative_problem(url: str) -> str | None:
    """A path (no scheme) that is a web address without its ``http://``: farm would open it
    as a file beside the case."""
    first = re.split(r"[/?#]", url, maxsplit=1)[0]
    if ":" in first or first == "localhost" or _IPV4.match(first) or \
            first.lower().startswith("www."):
        return _no_scheme(url)
    return None


# user:password@host with no scheme in front: "user:" reads as a scheme, but it is an address
_USERINFO_FIRST = re.compile(r"[^:/?#@\s]+:([^/?#\s]*)@[^/?#@\s]")


def _no_password(address: str) -> str:
    """``address`` with the password of a leading ``user:password@`` as ``***``."""
    m = _USERINFO_FIRST.match(address)
    return address if m is None else address[:m.start(1)] + "***" + address[m.end(1):]


def _no_scheme(url: str) -> str:
    return (f"no scheme, so it would be opened as a file path relative to the case file; "
            f"write 'http://{url}' (or https://) for a web address")
