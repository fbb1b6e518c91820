"""A case's browser context: a fresh one per case (no cookies or storage shared between cases),
made from the case's Midscene web options (farm.suite.targets) — or, for the files of a batch
with ``shareBrowserContext: true`` (farm.shared_context), one context and page they share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from farm.devices.web.scripts import PAGE_STATE_JS, SAME_TAB_JS

if TYPE_CHECKING:  # pragma: no cover
    from farm.suite.model import WebTarget


def new_context(browser: Any, target: "WebTarget") -> Any:
    """A new Playwright context for ``target``, with farm's page-state script in every page,
    the target's cookies, and forceSameTabNavigation when asked for."""
    context = browser.new_context(**context_options(target))
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


def context_options(target: "WebTarget") -> dict[str, Any]:
    options: dict[str, Any] = {
        "viewport": {"width": target.viewport_width, "height": target.viewport_height},
        "device_scale_factor": target.device_scale_factor or 1,
        "ignore_https_errors": target.accept_insecure_certs,
    }
    if target.user_agent:
        options["user_agent"] = target.user_agent
    if target.extra_http_headers:
        options["extra_http_headers"] = dict(target.extra_http_headers)
    return options


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
    return out
