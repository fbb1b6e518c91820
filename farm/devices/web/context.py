"""A case's browser context: a fresh one per case (no cookies or storage shared between cases),
made from the case's Midscene web options (farm.suite.targets) — or, for the files of a batch
with ``shareBrowserContext: true`` (farm.shared_context), one context and page they share."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Sequence

from farm.devices.web.scripts import PAGE_STATE_JS, SAME_TAB_JS

if TYPE_CHECKING:  # pragma: no cover
    from farm.suite.model import WebTarget

# Chromium flags (chromeArgs, farm's browser_args) that set a media feature pages read: the
# context option and value that give it (--force-dark-mode, which the headless shell ignores,
# given as Playwright's option too; blink-settings left to the browser)
MEDIA_FLAGS = [
    (re.compile(r"^--force-dark-mode$"), "color_scheme", "dark"),
    (re.compile(r"^--blink-settings=.*preferredColorScheme"), "color_scheme", "null"),
    (re.compile(r"^--force-prefers-reduced-motion$"), "reduced_motion", "reduce"),
    (re.compile(r"^--force-prefers-no-reduced-motion$"), "reduced_motion", "no-preference"),
]


def new_context(browser: Any, target: "WebTarget", flags: Sequence[str] = ()) -> Any:
    """A new Playwright context for ``target`` in a Chromium run with ``flags``, with farm's
    page-state script in every page, the target's cookies, and forceSameTabNavigation when
    asked for."""
    context = browser.new_context(**context_options(target, flags))
    # one script (one round trip): forceSameTabNavigation keeps links and window.open here;
    # each part on its own, as separate scripts would be, should the other throw
    parts = [PAGE_STATE_JS, SAME_TAB_JS] if target.same_tab else [PAGE_STATE_JS]
    context.add_init_script(script="\n".join(f"try {{\n{part}\n}} catch (e) {{}}"
                                              for part in parts))
    if target.cookies:
        context.add_cookies([cookie(c) for c in target.cookies])
    return context


def reuse_context(context: Any, page: Any, target: "WebTarget") -> None:
    """The next shared-context file's page settings on the page the previous file used, as
    Midscene sets them on its shared page: viewport, extra headers, cookies. (User agent, scale,
    certificates and same-tab navigation belong to the context: the loader checks that every
    file of the batch agrees on them.)"""
    page.set_viewport_size({"width": target.viewport_width, "height": target.viewport_height})
    if target.extra_http_headers:
        page.set_extra_http_headers(dict(target.extra_http_headers))
    if target.cookies:
        context.add_cookies([cookie(c) for c in target.cookies])


def context_options(target: "WebTarget", flags: Sequence[str] = ()) -> dict[str, Any]:
    options: dict[str, Any] = {
        "viewport": {"width": target.viewport_width, "height": target.viewport_height},
        "device_scale_factor": target.device_scale_factor or 1,
        "ignore_https_errors": target.accept_insecure_certs,
    }
    # Playwright emulates a light, motion-allowing screen in every context unless told not
    # to: a Chromium flag asking for dark mode or reduced motion was overridden in silence
    for flag, option, value in MEDIA_FLAGS:
        if any(flag.search(f) for f in flags):
            options[option] = value
    options.update(emulation_options(target))
    if target.user_agent:
        options["user_agent"] = target.user_agent
    if target.extra_http_headers:
        options["extra_http_headers"] = dict(target.extra_http_headers)
    credentials = without_credentials(target.url)[1]
    if credentials is not None:
        options["http_credentials"] = credentials
    return options


def emulation_options(target: "WebTarget") -> dict[str, Any]:
    """Playwright's options for what the page is told of its user (farm.suite.web_emulation):
    the permissions granted (for every origin), a fixed geolocation — which grants its
    permission too: a position given is one the page may read —, locale, time zone and
    colour scheme (over a Chromium flag's)."""
    options: dict[str, Any] = {}
    granted = list(target.permissions)
    if target.geolocation is not None:
        options["geolocation"] = dict(target.geolocation)
        granted += [] if "geolocation" in granted else ["geolocation"]
    if granted:
        options["permissions"] = granted
    for option, value in (("locale", target.locale), ("timezone_id", target.timezone_id),
                          ("color_scheme", target.color_scheme)):
        if value is not None:
            options[option] = value
    return options


def without_credentials(url: str) -> tuple[str, dict[str, str] | None]:
    """``url`` without its ``user:password@``, and, when it had one, Playwright's
    http_credentials for its origin alone (the context answers that site's 401 with them).
    Chromium lets a document opened at a URL holding credentials fetch no relative URL
    ("Request cannot be constructed from a URL that includes credentials"): a single-page
    app opened so had its every API call fail."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    default = ":80" if parts.scheme == "http" else ":443"
    origin = f"{parts.scheme}://{host.lower().removesuffix(default)}"
    return urlunsplit(parts._replace(netloc=host)), {
        "username": unquote(user), "password": unquote(password), "origin": origin}


def cookie(c: dict[str, Any]) -> dict[str, Any]:
    """A cookie as Chrome extensions export it -> Playwright's form."""
    out: dict[str, Any] = {"name": str(c["name"]), "value": str(c["value"])}
    if c.get("url"):
        out["url"] = c["url"]
    else:
        out["domain"] = c.get("domain") or "localhost"
        out["path"] = c.get("path") or "/"
    expires = c.get("expires", c.get("expirationDate"))
    if isinstance(expires, (int, float)) and expires > 0:
        out["expires"] = float(expires)
    for key in ("httpOnly", "secure"):
        if key in c:
            out[key] = bool(c[key])
    same = str(c.get("sameSite", "")).lower()
    if same in ("strict", "lax", "none", "no_restriction"):
        out["sameSite"] = {"no_restriction": "None"}.get(same, same.capitalize())
    if out.get("sameSite") == "None" and not out.get("secure"):
        out["sameSite"] = "Lax"     # (Chromium drops SameSite=None without Secure: `cookie_notes`)
    return out


def cookie_notes(cookies: Sequence[dict[str, Any]] | None) -> list[str]:
    """What `cookie` set otherwise than the cookie file says, one note per cookie: a
    ``sameSite`` of ``no_restriction`` / ``none`` without ``secure: true`` (as EditThisCookie
    exports a cookie an http page set) is one Chromium refuses without a word (SameSite=None
    requires Secure), so the case's login went missing; it is set as Lax, as Chromium keeps a
    cookie without a SameSite of its own, and said so."""
    notes = []
    for c in cookies or ():
        same = str(c.get("sameSite", "")).lower()
        if same in ("none", "no_restriction") and not c.get("secure"):
            where = c.get("url") or c.get("domain") or "localhost"
            notes.append(
                f"cookie {str(c.get('name'))!r} ({where}) set with SameSite=Lax, not its "
                f"sameSite {c.get('sameSite')!r}: Chromium refuses SameSite=None on a cookie "
                "without secure: true, so it was not set (as Lax it is not sent with "
                "requests other sites' pages make)")
    return notes
