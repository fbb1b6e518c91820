"""Playwright's errors mapped onto farm's: the browser (or its driver) gone is DeviceLost,
anything else a Playwright call raised is DeviceError; farm's own errors pass through."""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Callable, Iterator

from farm.errors import DeviceError, DeviceLost, FarmError, StepFailed
from farm.text import first_line

# Playwright error texts meaning the browser (or its driver) is gone, not that an action failed.
LOST = re.compile(r"has been closed|browser has disconnected|target closed|crash|"
                  r"connection closed|pipe closed|websocket|driver .*(exited|closed)", re.I)
# A page read that raced a navigation: the old document went away under it.
NAVIGATING = re.compile(r"Execution context was destroyed|"
                        r"Cannot find (default execution )?context|navigat|frame was detached",
                        re.I)


# Chromium's refusals of a site's certificate (net::ERR_CERT_AUTHORITY_INVALID, ..._DATE_INVALID).
UNTRUSTED = re.compile(r"net::(ERR_CERT_[A-Z_]+|ERR_SSL_[A-Z_]+|ERR_BAD_SSL_CLIENT_AUTH_CERT)")


def lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the browser or its driver went away."""
    return bool(LOST.search(first_line(exc)))


def raced_navigation(exc: BaseException) -> bool:
    """Whether ``exc`` is a page read that lost its document to a navigation (and no more)."""
    return bool(NAVIGATING.search(str(exc))) and not lost(exc)


@contextmanager
def mapped_errors(device: str, what: str, killed: Callable[[], bool],
                  crashed: Callable[[], bool]) -> Iterator[None]:
    """Map failures of the Playwright calls inside: browser gone -> DeviceLost, anything else
    Playwright raised -> DeviceError naming ``what``."""
    from playwright.sync_api import Error as PlaywrightError

    gone = f"browser {device} crashed or was closed"
    if killed():
        raise DeviceLost(f"{gone}: killed")
    try:
        yield
    except FarmError:
        raise
    except PlaywrightError as exc:
        msg = first_line(exc)
        if killed() or crashed() or LOST.search(msg):
            raise DeviceLost(f"{gone}: {msg}") from exc
        raise DeviceError(f"{what} failed on {device}: {msg}") from exc
    except Exception as exc:
        # After a kill the driver may fail in odd ways (greenlet, broken pipe): all lost.
        if killed():
            raise DeviceLost(f"{gone}: {first_line(exc)}") from exc
        raise


@contextmanager
def refused_certificate(url: str) -> Iterator[None]:
    """Opening ``url`` failed on its certificate: that is the site's (or the case's) problem,
    not the device's: a test failure that says which option lets the page open."""
    from playwright.sync_api import Error as PlaywrightError
    try:
        yield
    except PlaywrightError as exc:
        found = UNTRUSTED.search(str(exc))
        if found is None:
            raise
        raise StepFailed(f"cannot open {url}: the browser does not trust the site's "
                         f"certificate ({found.group(0)}); if you trust it (a self-signed test "
                         "server), set acceptInsecureCerts: true in the case's web: "
                         "section") from None
