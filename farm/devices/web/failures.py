"""Playwright's errors mapped onto farm's: the browser (or its driver) gone is DeviceLost, a page
the site would not serve (refused, unresolved, an untrusted certificate) is the case's
StepFailed, anything else a Playwright call raised is DeviceError; farm's own errors pass
through. A step that failed on a page whose server answered an HTTP error says so
(`http_status_note`)."""

from __future__ import annotations

import logging
import re
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from farm.errors import DeviceError, DeviceLost, FarmError, StepFailed
from farm.text import first_line

log = logging.getLogger("farm.devices.browser")

# Playwright error texts meaning the browser (or its driver) is gone, not that an action failed.
LOST = re.compile(r"has been closed|browser has disconnected|target closed|crash|"
                  r"connection closed|pipe closed|websocket|driver .*(exited|closed)", re.I)
# A page read that raced a navigation: the old document went away under it.
NAVIGATING = re.compile(r"Execution context was destroyed|"
                        r"Cannot find (default execution )?context|navigat|"
                        r"frame (was|has been) detached", re.I)


# Chromium's refusals of a site's certificate (net::ERR_CERT_AUTHORITY_INVALID, ..._DATE_INVALID).
UNTRUSTED = re.compile(r"net::(ERR_CERT_[A-Z_]+|ERR_SSL_[A-Z_]+|ERR_BAD_SSL_CLIENT_AUTH_CERT)")
# Chromium's other network errors for a page load (net::ERR_CONNECTION_REFUSED, ...): the site's
# side, except where the browser's own network is the problem (SELF_NETWORK). ERR_ABORTED (a
# navigation replaced or a download) is not one.
SITE_FAILED = re.compile(r"net::ERR_(CONNECTION_[A-Z_]+|NAME_NOT_RESOLVED|NAME_RESOLUTION_FAILED|"
                         r"ADDRESS_[A-Z_]+|UNSAFE_PORT|EMPTY_RESPONSE|INVALID_RESPONSE|"
                         r"TOO_MANY_REDIRECTS|INVALID_REDIRECT|UNSAFE_REDIRECT|TIMED_OUT|"
                         r"FILE_NOT_FOUND|INVALID_URL|DISALLOWED_URL_SCHEME|HTTP2_[A-Z_]+|"
                         r"CONTENT_[A-Z_]+|RESPONSE_HEADERS_[A-Z_]+|BLOCKED_[A-Z_]+|"
                         r"HTTP_RESPONSE_CODE_FAILURE)")
# Playwright's goto of a URL the server answers with a file to save (Content-Disposition:
# attachment, a type Chromium does not show): no page comes, the browser is fine
DOWNLOAD = re.compile(r"Download is starting")
SELF_NETWORK = re.compile(r"INTERNET_DISCONNECTED|NETWORK_CHANGED|ADDRESS_IN_USE|"
                          r"ADDRESS_INVALID")
_SAID = {"NAME_NOT_RESOLVED": "its host name does not resolve",
         "NAME_RESOLUTION_FAILED": "its host name does not resolve",
         "UNSAFE_PORT": "browsers refuse that port",
         "EMPTY_RESPONSE": "the server closed the connection without answering",
         "TOO_MANY_REDIRECTS": "it redirects in a loop",
         "FILE_NOT_FOUND": "no such file",
         "INVALID_URL": "not a valid URL",
         "TIMED_OUT": "the server did not answer in time",
         "CONNECTION_TIMED_OUT": "the server did not answer in time",
         "CONNECTION_REFUSED": "nothing answers there (is the app running?)",
         "CONNECTION_RESET": "the server reset the connection",
         "CONNECTION_CLOSED": "the server closed the connection",
         # an HTTP error with an empty body: Chromium shows its own error page (not the
         # headless shell, which shows the empty page)
         "HTTP_RESPONSE_CODE_FAILURE": "the server answered an HTTP error with an empty page"}
# The main frame's document as its server answered it: [HTTP status, URL] from the page's
# navigation timing entry (Chromium 109+), which Chromium's own error page keeps too; null for
# a document no server sent (about:blank, data:). Read only when a step failed: nothing a
# passing step pays for.
DOCUMENT_STATUS_JS = """() => {
  const entry = performance.getEntriesByType('navigation')[0];
  const failed = (window.__farm && window.__farm.failed || []).map(
    ([method, url, status]) => {
      let shown = url;
      try {
        const u = new URL(url, location.href);
        shown = (u.origin === location.origin ? "" : u.host) + u.pathname;
      } catch (e) { /* as the page wrote it */ }
      return [method, shown, status];
    });
  return [entry && entry.responseStatus || null, entry && entry.name || null, failed];
}"""


def lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the browser or its driver went away."""
    return bool(LOST.search(first_line(exc)))


def raced_navigation(exc: BaseException) -> bool:
    """Whether ``exc`` is a page read that lost its document to a navigation (and no more)."""
    return bool(NAVIGATING.search(str(exc))) and not lost(exc)


@contextmanager
def mapped_errors(device: str, what: str, killed: Callable[[], bool],
                  page_gone: Callable[[str | None, str], str | None] = lambda error, what: None,
                  tab_closed: Callable[[], bool] = lambda: False) -> Iterator[None]:
    """Map failures of the Playwright calls inside: the case's page gone while its browser is
    fine (``page_gone(error, what)`` says why, ``error`` None before the calls: its renderer
    crashed, it stopped responding) or its tab closed by the page (``tab_closed``) ->
    StepFailed, the browser gone -> DeviceLost, anything else Playwright raised ->
    DeviceError naming ``what``."""
    from playwright.sync_api import Error as PlaywrightError

    gone = f"browser {device} crashed or was closed"
    why = page_gone(None, what)
    if why:
        raise StepFailed(why)
    if killed():
        raise DeviceLost(f"{gone}: killed")
    try:
        yield
    except Exception as exc:
        why = page_gone(first_line(exc), what)    # whatever the call made of it ("javascript
        if why and str(exc) != why:                # error: ..."): the page is gone
            raise StepFailed(why) from exc
        if isinstance(exc, FarmError):
            raise
        if not isinstance(exc, PlaywrightError):
            # After a kill the driver may fail in odd ways (greenlet, broken pipe): all lost.
            if killed():
                raise DeviceLost(f"{gone}: {first_line(exc)}") from exc
            raise
        msg = first_line(exc)
        if not killed() and tab_closed():
            raise StepFailed(f"the page closed its tab (window.close()) during {what}") from exc
        if killed() or LOST.search(msg):
            raise DeviceLost(f"{gone}: {msg}") from exc
        raise DeviceError(f"{what} failed on {device}: {msg}") from exc


@contextmanager
def unreachable_site(url: str) -> Iterator[None]:
    """Opening ``url`` failed on the site's side: its certificate was refused, nothing
    answered, the name did not resolve, the answer was broken, a file to download came instead
    of a page. That is the site's (or the case's) problem, not the device's: a test failure
    naming Chromium's reason, and the browser is not retried, blamed or quarantined for it. The browser's own network gone
    (SELF_NETWORK) stays the device's problem."""
    from playwright.sync_api import Error as PlaywrightError
    try:
        yield
    except PlaywrightError as exc:
        text = str(exc)
        if DOWNLOAD.search(text):
            raise StepFailed(f"cannot open {url}: the server sent a file to download there, "
                             "not a page (a case's url, or a Navigate, opens pages; an aiTap "
                             "on the page's download link downloads it)") from None
        untrusted = UNTRUSTED.search(text)
        if untrusted is not None:
            raise StepFailed(f"cannot open {url}: the browser does not trust the site's "
                             f"certificate ({untrusted.group(0)}); if you trust it (a "
                             "self-signed test server), set acceptInsecureCerts: true in the "
                             "case's web: section") from None
        found = SITE_FAILED.search(text)
        if found is None or SELF_NETWORK.search(found.group(0)):
            raise
        raise StepFailed(f"cannot open {url}: {_SAID.get(found.group(1), 'the site failed')} "
                         f"({found.group(0)})") from None


def http_status_note(status: Any, url: Any,
                     signed_in: tuple[str, str] | None = None) -> str | None:
    """What a failed step adds about its page when the server answered its document with an
    HTTP error (``status`` >= 400): "the page answered 404 Not Found: URL", the URL's
    credentials masked (`farm.config.mask_url`); None for any other answer. ``signed_in``:
    (origin, user) the browser sends basic auth's credentials to (the target URL's
    ``user:password@``): a URL of that origin is named with them, masked, as it was given."""
    if not isinstance(status, int) or isinstance(status, bool) or status < 400:
        return None
    from http import HTTPStatus

    from farm.config import mask_url
    try:
        said = f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        said = str(status)
    if not url:
        return f"the page answered {said}"
    shown = mask_url(str(url))
    if signed_in is not None and shown.lower().startswith(signed_in[0] + "/"):
        scheme, _, rest = shown.partition("://")
        shown = f"{scheme}://{signed_in[1]}:***@{rest}"
    return f"the page answered {said}: {shown}"


def page_status_note(page: Any, script: Callable[[Any, str, Any], Any],
                     signed_in: tuple[str, str] | None = None) -> str | None:
    """`http_status_note` of ``page``'s current document, read with ``script`` (page, js,
    arg) -> value; None when it cannot be read (the page went away, or navigates): a note is
    best effort, never a failure of its own."""
    answer = _document_status(page, script)
    if answer is None:
        return None
    notes = [http_status_note(answer[0], answer[1], signed_in), requests_note(answer[2])]
    return "; ".join(n for n in notes if n) or None


def document_error(page: Any, script: Callable[[Any, str, Any], Any],
                   signed_in: tuple[str, str] | None = None) -> str | None:
    """`http_status_note` of ``page``'s document alone (not its fetch / XHR calls): "the page
    answered 404 Not Found: URL", or None (any other answer, or none readable)."""
    answer = _document_status(page, script)
    return http_status_note(answer[0], answer[1], signed_in) if answer else None


def _document_status(page: Any, script: Callable[[Any, str, Any], Any]) -> list[Any] | None:
    """[status, url, failed requests] of ``page``'s document, or None when it cannot be read
    (the page went away, or navigates)."""
    try:
        answer = script(page, DOCUMENT_STATUS_JS, None)
    except Exception as exc:   # (a closed page, a navigation under way: no note)
        log.debug("no page status: %s", first_line(exc))
        return None
    return answer if isinstance(answer, list) and len(answer) == 3 else None


def requests_note(failed: Any) -> str | None:
    """The last of the page's fetch / XMLHttpRequest calls that the server answered with an
    error or that failed (page_state.js keeps the last 5): "the page's request POST /api/pay
    answered 500 Internal Server Error" (its path only: no query), and how many more."""
    if not isinstance(failed, list) or not failed:
        return None
    from http import HTTPStatus
    said = []
    for entry in failed:
        if not (isinstance(entry, list) and len(entry) == 3):
            continue
        method, url, status = entry
        try:
            answer = f"answered {status} {HTTPStatus(status).phrase}" if status else "failed"
        except ValueError:
            answer = f"answered {status}"
        said.append(f"the page's request {method} {url} {answer}")
    return last_of(said)


def last_of(notes: list[str]) -> str | None:
    """The last of a case's notes of one kind (dialogs, page errors, failed requests) and how
    many came before it; None for none."""
    if not notes:
        return None
    return notes[-1] + (f"; {len(notes) - 1} more before" if len(notes) > 1 else "")


# the first frame of a script error's stack that names a place: "at f (http://h/app.js:42:13)"
_STACK_AT = re.compile(r"(?:https?|file)://[^\s)]*?/([^/\s)?#]+)(?:\?[^\s):]*)?:(\d+):\d+")


def thrown_note(error: Any) -> str:
    """What a step's failure says about an uncaught error in the page (Playwright's
    "pageerror": a script threw, a promise was rejected and nothing caught it): "the page threw
    an uncaught TypeError: x is undefined (app.js:42)", its script file's name and line only."""
    name = str(getattr(error, "name", "") or "Error")
    message = first_line(str(getattr(error, "message", "") or error))[:160]
    if message.startswith(f"{name}: "):
        message = message[len(name) + 2:]
    at = _STACK_AT.search(str(getattr(error, "stack", "") or ""))
    where = f" ({at.group(1)}:{at.group(2)})" if at else ""
    return f"the page threw an uncaught {name}: {message}{where}"
