"""A case's target section -> WebTarget / AndroidTarget / IosTarget, as Midscene's docs define it.

Midscene names the web target ``page:`` (page agent), ``browser:`` (browser agent), ``web:``
(``mode: page|browser``) or, deprecated, ``target:``. Every key accepted here does what
Midscene's docs say; a documented key farm cannot honour is refused with the reason
(`REFUSED`), never accepted and ignored.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

from farm.suite.checks import Problems
from farm.suite.model import AndroidTarget, IosTarget, WebTarget
from farm.suite.urls import substituted_problem, url_problem
from farm.suite.vars import references, substitute
from farm.suite.web_emulation import KEY_FIELDS as EMULATION_FIELDS
from farm.suite.web_emulation import KEYS as EMULATION_KEYS
from farm.suite.web_emulation import read_emulation
from farm.suite.yamlpos import MAX_BYTES, Node, not_regular

WEB_SECTIONS = ("page", "browser", "web", "target")
MOBILE_SECTIONS = ("android", "ios")
# Platforms Midscene drives that farm has no devices for.
UNSUPPORTED = {"harmony": "HarmonyOS devices (hdc)", "computer": "desktop computers",
               "interface": "custom interface agents"}

# The step log's file for `unstableLogContent: true`, in the working directory.
DEFAULT_LOG = "unstableLogContent.json"
# Keys every target may carry (the case's results and logs).
COMMON_KEYS = {"output", "unstableLogContent"}
# Chromium refuses a larger viewport ("Screen width and height values must be positive, not
# greater than 10000000"): each case with one was an infrastructure error, retried, exit 3
MAX_VIEWPORT = 10_000_000
# The largest screen (viewport x deviceScaleFactor, in device pixels) farm takes screenshots
# of: Chromium draws at most 16384 pixels a side with a GPU (its largest texture: a larger
# screen's screenshots come back blank or cut, crbug 41347676), and a screen past 8K UHD
# (7680 x 4320) takes Chromium seconds a screenshot, past farm's wait for a report image, and
# past 89 million pixels Pillow warns of a decompression bomb. A viewport past it is a typo.
MAX_SCREEN_SIDE = 16384
MAX_SCREEN_PIXELS = 7680 * 4320
WEB_KEYS = {"url", "serve", "mode", "userAgent", "viewportWidth", "viewportHeight",
            "deviceScaleFactor", "cookie", "extraHTTPHeaders", "acceptInsecureCerts",
            "waitForNetworkIdle", "chromeArgs", "forceSameTabNavigation", "autoFollowNewPage",
            "bridgeMode", "dialogs", "viewportScale"} | EMULATION_KEYS | COMMON_KEYS
ANDROID_KEYS = {"deviceId", "launch", "imeStrategy", "autoDismissKeyboard",
                "keyboardDismissStrategy", "displayId", "alwaysRefreshScreenInfo",
                "androidAdbPath"} | COMMON_KEYS
IOS_KEYS = {"launch", "autoDismissKeyboard", "wdaPort", "wdaHost"} | COMMON_KEYS
IME_STRATEGIES = ["always-yadb", "yadb-for-non-ascii"]
DISMISS_STRATEGIES = ["esc-first", "back-first"]

NOT_DISPLAY_0 = "farm drives the default display only"
NO_ADB_BINARY = ("android.androidAdbPath is not used: farm runs no adb binary; it talks to the "
                 "adb server at ANDROID_ADB_SERVER_HOST:ANDROID_ADB_SERVER_PORT (default "
                 "localhost:5037) and never starts one (start it with that adb: `adb "
                 "start-server`); leave the key out")
_ONE_SERVER = ("farm attaches {what} for the whole run; set {env} for `farm run` / `farm "
               "worker` instead")
_SCREENCAP = "farm takes every screenshot with screencap"
_WDA_SHOT = "farm takes screenshots through WebDriverAgent's /screenshot; it reads no MJPEG stream"
# Documented keys farm cannot honour, and why (the message names the file:line).
REFUSED = {
    "web": {
        "cdpEndpoint": "farm launches and owns its browsers; it does not attach to one over CDP",
        "closeNewTabsAfterDisconnect": "it only applies to bridge mode, which farm has not",
        "downloadPath": "farm does not keep browser downloads",
    },
    "android": {
        "remoteAdbHost": _ONE_SERVER.format(what="Android devices from one adb server",
                                            env="ANDROID_ADB_SERVER_HOST"),
        "remoteAdbPort": _ONE_SERVER.format(what="Android devices from one adb server",
                                            env="ANDROID_ADB_SERVER_PORT"),
        # the rest of AndroidDevice's options, which Midscene's YAML docs say a script may set
        "screenshotStrategy": _SCREENCAP + "; it has no yadb capture (a FLAG_SECURE page's "
                              "black frame makes farm read the UI tree instead)",
        "scrcpyConfig": _SCREENCAP + "; it has no scrcpy stream",
        "keyboardTypeDelay": "farm types a text a word or more at a time (input text, yadb "
                             "or ADBKeyBoard), with no delay between keys",
        "minScreenshotBufferSize": _SCREENCAP + " and checks that it is a PNG, not its size",
        "exposeRunAdbShellAction": "the planner can always run adb shell commands on Android "
                                   "(RunAdbShell); farm cannot hide it",
        "screenshotResizeScale": "Midscene removed it (it has no effect there either); leave "
                                 "the key out",
    },
    "ios": {
        "keyboardTypeDelay": "farm sends a text to WebDriverAgent in one request, with no "
                             "delay between keys",
        "sessionId": "farm opens a WebDriverAgent session of its own for each case",
        "wdaMjpegPort": _WDA_SHOT,
        "wdaMjpegFrameSource": _WDA_SHOT,
        "iOSDeviceClassOverride": "farm drives iOS through its own WebDriverAgent client; no "
                                  "npm module can replace it",
    },
}


def section_of(top: dict[str, Node]) -> list[str]:
    return [k for k in (*WEB_SECTIONS, *MOBILE_SECTIONS) if k in top]


def _refuse(node: Node, platform: str, where: str, p: Problems) -> None:
    for name, key in node.keys.items():
        why = REFUSED[platform].get(name)
        if why:
            p.add(key, f"{where}.{name} is not supported by farm: {why}")


def read_web(section: str, key: Node, node: Node, base: Path, p: Problems) -> WebTarget | None:
    """``page:`` / ``browser:`` / ``web:`` / ``target:`` -> WebTarget."""
    where = f"{section}:"
    if node.is_null:
        p.add(key, f"{where} expected a mapping with url: (the page to open), got nothing")
        return None
    items = p.mapping(node, section, "a mapping with url: (the page to open)")
    if items is None:
        return None
    bridge = _bridge(section, items, p)
    _refuse(node, "web", section, p)        # (said with bridgeMode too: every problem at once)
    misspelt = p.keys(node, WEB_KEYS, where, REFUSED["web"])
    if bridge:
        return None
    if "url" not in items and "url" not in misspelt:
        p.add(key, f"{section}.url is missing: expected `url: <address of the page to open>`")
    url = p.text(items.get("url"), f"{section}.url", required="url" in items, empty_ok=False,
                 expected="the address of the page to open")
    why = url_problem(url) if url is not None else None
    if url is not None and why is None and "${" in url:
        why = substituted_problem(url, _load_values(url, p))
    if why:
        p.add(items["url"], f"{section}.url: {url!r}: {why}")
    mode = _mode(section, items, p)
    values = {
        "url": url, "mode": mode,
        "viewport_width": p.integer(items.get("viewportWidth"), f"{section}.viewportWidth",
                                    minimum=1, maximum=MAX_VIEWPORT,
                                    expected="pixels as a positive integer"),
        "viewport_height": p.integer(items.get("viewportHeight"), f"{section}.viewportHeight",
                                     minimum=1, maximum=MAX_VIEWPORT,
                                     expected="pixels as a positive integer"),
        "user_agent": _user_agent(items.get("userAgent"), section, p),
        "device_scale_factor": _scale_factor(section, items, p),
        "serve": _folder(items.get("serve"), f"{section}.serve", base, p),
        "cookies": _cookies(items.get("cookie"), f"{section}.cookie", base, p),
        "extra_http_headers": _headers(items.get("extraHTTPHeaders"), section, p),
        "accept_insecure_certs": p.boolean(items.get("acceptInsecureCerts"),
                                           f"{section}.acceptInsecureCerts"),
        "chrome_args": p.string_list(items.get("chromeArgs"), f"{section}.chromeArgs"),
        "dialogs": p.choice(items.get("dialogs"), f"{section}.dialogs", ["dismiss", "accept"]),
        **_network_idle(items.get("waitForNetworkIdle"), section, p),
        **_tabs(section, mode, items, p),
        **read_emulation(section, items, p),
    }
    _screen_size(section, items, values, p)
    if url is None:
        return None
    return p.build(WebTarget, {k: v for k, v in values.items() if v is not None}, node)


def _load_values(text: str, p: Problems) -> dict[str, tuple[str, str, bool]]:
    """name -> (value, where it is set, whether it is secret) of the variables ``text`` refers
    to whose values the load knows (never a ``secrets:`` one nor a served app's URL)."""
    if p.values is None:
        return {}
    from farm.config import environment_secrets
    known = {}
    for name, _, _ in references(text):
        value, source = p.values.read(name)
        if value is not None:
            secret = bool(environment_secrets({name: value}) or p.values.credential_in(value))
            known[name] = (value, source, secret)
    return known


def _screen_size(section: str, items: dict[str, Node], values: dict, p: Problems) -> None:
    """A viewport (times its deviceScaleFactor) larger than `MAX_SCREEN_SIDE` a side or
    `MAX_SCREEN_PIXELS` in all is refused where it is written: ``viewportWidth: 12800`` (for
    1280) made 100-million-pixel screenshots (a Pillow warning, report images given up on),
    ``viewportWidth: 99999`` ones that were not read at all."""
    given = [items[k] for k in ("viewportWidth", "viewportHeight", "deviceScaleFactor",
                                "viewportScale") if k in items]
    if not given:
        return
    w = values["viewport_width"] or WebTarget.model_fields["viewport_width"].default
    h = values["viewport_height"] or WebTarget.model_fields["viewport_height"].default
    scale = values["device_scale_factor"] or 1
    dw, dh = round(w * scale), round(h * scale)
    if max(dw, dh) <= MAX_SCREEN_SIDE and dw * dh <= MAX_SCREEN_PIXELS:
        return
    screen = f"{w} x {h} viewport" + (f" at deviceScaleFactor {scale:g} ({dw} x {dh} device "
                                      "pixels)" if scale != 1 else "")
    why = (f"more than {MAX_SCREEN_SIDE} pixels a side, the most Chromium draws with a GPU"
           if max(dw, dh) > MAX_SCREEN_SIDE else
           f"{dw * dh / 1e6:.0f} million pixels, more than 8K UHD's 7680 x 4320 (33 million)")
    p.add(given[0], f"{section}: a {screen} is {why}: farm takes no screenshot that "
                    "large (a typo? the usual desktop is 1280 x 800)")


def _scale_factor(section: str, items: dict[str, Node], p: Problems) -> float | None:
    """deviceScaleFactor, or viewportScale: Midscene's older name for it."""
    if "viewportScale" in items and "deviceScaleFactor" in items:
        p.add(items["viewportScale"], f"{section}.viewportScale is the older name of "
                                      f"deviceScaleFactor (line {items['deviceScaleFactor'].line}"
                                      "): give it once")
    name = "deviceScaleFactor" if "deviceScaleFactor" in items else "viewportScale"
    return p.number(items.get(name), f"{section}.{name}", expected="a number > 0")


def _bridge(section: str, items: dict[str, Node], p: Problems) -> bool:
    """Bridge mode drives the user's desktop Chrome through Midscene's extension: refused;
    the section's url and tab options, which mean something else there, are then not checked
    (its refused and unknown keys are)."""
    bridge = items.get("bridgeMode")
    if bridge is None or bridge.is_null or bridge.value is False:
        return False
    p.add(bridge, f"{section}.bridgeMode: {bridge.describe()} is not supported by farm: bridge "
                  "mode drives your desktop Chrome through Midscene's Chrome extension; farm "
                  "runs its own headless Chromium (only `bridgeMode: false` is accepted)")
    return True


def _mode(section: str, items: dict[str, Node], p: Problems) -> str:
    given = p.choice(items.get("mode"), f"{section}.mode", ["page", "browser"])
    if given is not None and section != "web":
        p.add(items["mode"], f"{section}.mode: only `web:` takes a mode (`{section}:` is "
                             f"already a {'browser' if section == 'browser' else 'page'} agent)")
    return "browser" if section == "browser" else given or "page"


def _tabs(section: str, mode: str, items: dict[str, Node], p: Problems) -> dict:
    """forceSameTabNavigation (page agents) and autoFollowNewPage (browser agents)."""
    same = p.boolean(items.get("forceSameTabNavigation"), f"{section}.forceSameTabNavigation")
    follow = p.boolean(items.get("autoFollowNewPage"), f"{section}.autoFollowNewPage")
    if same is not None and mode == "browser":
        p.add(items["forceSameTabNavigation"], f"{section}.forceSameTabNavigation is for page "
              "agents only (Midscene: do not use it with browser: or web.mode: browser)")
    if follow is not None and mode == "page":
        p.add(items["autoFollowNewPage"], f"{section}.autoFollowNewPage is for browser agents "
              "only: use `browser:` or `web: {mode: browser}`")
    if mode == "browser":
        return {"same_tab": False, "follow_new_pages": bool(follow)}
    return {"same_tab": same is not False, "follow_new_pages": False}


def _not_too_wide(path: Path, text: str, node: Node | None, where: str,
                  p: Problems) -> Path | None:
    """``path``, unless it is the filesystem root or the home directory (or holds it): served,
    every file in it would answer whatever reaches the port (`farm.appserver.too_wide`)."""
    from farm.appserver import too_wide     # (http.server: only when a folder is served)
    wide = too_wide(path)
    if wide is None:
        return path
    p.add(node, f"{where}: {text!r} is {wide}: farm would serve every file in it; serve the "
                "app's own folder")
    return None


def _folder(node: Node | None, where: str, base: Path, p: Problems) -> Path | None:
    text = p.text(node, where, empty_ok=False, expected="a folder to serve")
    if text is None:
        return None
    # Relative to the case file; Midscene's own scripts also write it relative to the
    # working directory (`serve: ./tests/server_root`), which is tried second.
    tried = ((base / text).resolve(), Path(text).resolve())
    for path in tried:
        if os.path.isdir(path):     # (not Path.is_dir: a name over 255 bytes raised)
            return _not_too_wide(path, text, node, where, p)
    what = (f"{text!r} is a file, not a folder" if any(map(os.path.exists, tried))
            else f"folder {text!r} does not exist")
    p.add(node, f"{where}: {what} (relative to the case file or the "
                "working directory)")
    return None


def _cookies(node: Node | None, where: str, base: Path, p: Problems) -> list[dict] | None:
    """Midscene's cookie file: a JSON list of cookies (as Chrome extensions export them)."""
    text = p.text(node, where, empty_ok=False, expected="a JSON cookie file")
    if text is None:
        return None
    path = base / text
    try:
        info = os.stat(path)
        if (what := not_regular(info)) and not stat.S_ISDIR(info.st_mode):
            p.add(node, f"{where}: {text!r} is {what}, not a JSON cookie file (relative to the "
                        "case file)")     # (a FIFO's open would wait, /dev/zero never end)
            return None
        with open(path, "rb") as file:
            raw = file.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            p.add(node, f"{where}: {text!r} is over {MAX_BYTES} bytes: not a cookie file")
            return None
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        p.add(node, f"{where}: {text!r} is not UTF-8 text (at byte {exc.start}): save the "
                    "cookie file as UTF-8")
        return None
    except OSError as exc:
        p.add(node, f"{where}: cannot read {text!r} ({exc.strerror or exc}; relative to the "
                    "case file)")
        return None
    except ValueError as exc:
        p.add(node, f"{where}: {text!r} is not JSON: {exc}")
        return None
    if not isinstance(data, list) or not all(isinstance(c, dict) and "name" in c and
                                             "value" in c for c in data):
        p.add(node, f"{where}: {text!r}: expected a JSON list of cookies with name and value")
        return None
    return data


def _user_agent(node: Node | None, section: str, p: Problems) -> str | None:
    text = p.text(node, f"{section}.userAgent")
    if text is not None and node is not None and (why := _one_line_problem(text)):
        p.add(node, f"{section}.userAgent: {why}")
    return text


def _headers(node: Node | None, section: str, p: Problems) -> dict[str, str] | None:
    if node is None or node.is_null:
        return None
    items = p.mapping(node, f"{section}.extraHTTPHeaders", "a mapping of header to value")
    out = {}
    for name, value in (items or {}).items():
        if value.kind != "scalar" or not isinstance(value.value, str):
            p.add(value, f"{section}.extraHTTPHeaders.{name}: expected a string, got "
                         f"{value.describe()} (quote it, e.g. \"true\")")
            continue
        if not _HEADER_NAME.fullmatch(name) and "${" not in name:
            p.add(node.keys.get(name, value), f"{section}.extraHTTPHeaders: {name!r} is no HTTP "
                  "header name (letters, digits and !#$%&'*+-.^_`|~: no space or colon)")
        elif why := _one_line_problem(value.value):
            p.add(value, f"{section}.extraHTTPHeaders.{name}: {why}")
        out[name] = value.value
    return out


# An HTTP header's name (RFC 9110's token), as Chromium checks it ("Invalid header name")
_HEADER_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


def _one_line_problem(value: str) -> str | None:
    """Why Chromium refuses ``value`` as a header's value or the user agent ("Invalid header
    value", "Invalid characters found in userAgent"), said at the suite's line instead of as
    the browser's error in every case run (retried as the device's fault); None: it takes it.
    A YAML ``>`` or ``|`` block ends with a line break unless written ``>-`` / ``|-``."""
    if "\0" in value:
        why = "holds a NUL character"
    elif value.rstrip("\r\n") != value and not any(c in value.rstrip("\r\n") for c in "\r\n"):
        why = "ends with a line break (a YAML > or | block keeps its last one: write >- or |-)"
    elif "\r" in value or "\n" in value:
        why = "holds a line break"
    else:
        return None
    return f"{why}; Chromium refuses it (an HTTP header is one line of text)"


def _network_idle(node: Node | None, section: str, p: Problems) -> dict:
    """waitForNetworkIdle: {timeout: ms (2000), continueOnNetworkIdleError: bool (true)}."""
    if node is None or node.is_null:
        return {}
    where = f"{section}.waitForNetworkIdle"
    items = p.mapping(node, where, "a mapping with timeout: and continueOnNetworkIdleError:")
    if items is None:
        return {}
    p.keys(node, {"timeout", "continueOnNetworkIdleError"}, where)
    timeout = p.integer(items.get("timeout"), f"{where}.timeout", minimum=1,
                        expected="milliseconds as a positive integer")
    cont = p.boolean(items.get("continueOnNetworkIdleError"),
                     f"{where}.continueOnNetworkIdleError")
    return {"network_idle_ms": timeout or 2000, "network_idle_continue": cont is not False}


def read_mobile(platform: str, node: Node, p: Problems) -> AndroidTarget | IosTarget | None:
    if node.is_null:  # `android:` alone: any connected device, no app launch
        return AndroidTarget() if platform == "android" else IosTarget()
    allowed = ANDROID_KEYS if platform == "android" else IOS_KEYS
    items = p.mapping(node, platform, f"a mapping with {', '.join(sorted(allowed))}")
    if items is None:
        return None
    _refuse(node, platform, platform, p)
    p.keys(node, allowed, f"{platform}:", REFUSED[platform])
    launch = p.text(items.get("launch"), f"{platform}.launch", empty_ok=False,
                    expected="an app id or URL to launch")
    dismiss = p.boolean(items.get("autoDismissKeyboard"), f"{platform}.autoDismissKeyboard")
    if platform == "ios":
        port = p.integer(items.get("wdaPort"), "ios.wdaPort", minimum=1, maximum=65535)
        host = _pin_text(items.get("wdaHost"), "ios.wdaHost", "a host", p)
        return IosTarget(launch=launch, auto_dismiss_keyboard=dismiss is not False,
                         wda_port=port, wda_host=host)
    _harmless_android(items, p)
    device = _pin_text(items.get("deviceId"), "android.deviceId", "an adb device serial", p)
    ime = p.choice(items.get("imeStrategy"), "android.imeStrategy", IME_STRATEGIES)
    first = p.choice(items.get("keyboardDismissStrategy"), "android.keyboardDismissStrategy",
                     DISMISS_STRATEGIES)
    return AndroidTarget(device_id=device, launch=launch, ime_strategy=ime,
                         auto_dismiss_keyboard=dismiss is not False,
                         keyboard_dismiss_strategy=first or "esc-first")


PIN_TIME = ("the device a case is pinned to is chosen when the run takes its devices, before any "
            "case starts: {where} takes its variables' values when the suite loads, from the "
            "environment, .env or vars:, never a secret's")


def _pin_text(node: Node | None, where: str, expected: str, p: Problems) -> str | None:
    """``deviceId:`` / ``wdaHost:`` with its ``${NAME}`` replaced by the values known at load
    (`launch:` and `url:` are substituted too, but on the device: a pin picks the device, so it
    is needed before): ``deviceId: ${PHONE}`` with PHONE=emulator-5554 pins emulator-5554. A
    secret, a credential-named variable or a served app's URL is refused; an undefined one
    without a default is left to the file's template check."""
    text = p.text(node, where, empty_ok=False, expected=expected)
    if text is None or node is None or p.values is None or "${" not in text:
        return text
    known = _load_values(text, p)
    refused = [why for name, _, _ in references(text) if (why := p._unnamable(name))]
    for why in dict.fromkeys(refused):
        p.add(node, f"{where}: {why}; {PIN_TIME.format(where=where)}")
    if refused:
        return None
    if any(name not in known and not default for name, default, _ in references(text)):
        return None         # (an undefined variable: the template check names it)
    pinned = substitute(text, lambda name: known.get(name, (None,))[0])
    if not pinned.strip():
        p.add(node, f"{where}: expected {expected}, got {text!r}, which is empty once its "
                    "variables are substituted")
        return None
    return pinned


def _harmless_android(items: dict[str, Node], p: Problems) -> None:
    """Midscene AndroidDevice options that change nothing in farm: displayId 0 (the default
    display, the only one farm drives), alwaysRefreshScreenInfo (farm reads the rotation from
    every screenshot and UI dump) and androidAdbPath (a warning: farm runs no adb binary)."""
    display = p.integer(items.get("displayId"), "android.displayId", minimum=0)
    if display:
        p.add(items["displayId"], f"android.displayId is not supported by farm: {NOT_DISPLAY_0}")
    p.boolean(items.get("alwaysRefreshScreenInfo"), "android.alwaysRefreshScreenInfo")
    if p.text(items.get("androidAdbPath"), "android.androidAdbPath") is not None:
        p.warn(items["androidAdbPath"], NO_ADB_BINARY)


def read_outputs(node: Node, section: str, p: Problems) -> dict:
    """``output:`` (JSON of the named results) and ``unstableLogContent:`` (the step log),
    written after the case: paths relative to the working directory, as Midscene's."""
    if node.kind != "map":
        return {}
    items = node.value
    out: dict = {}
    output = p.text(items.get("output"), f"{section}.output", empty_ok=False,
                    expected="a path for the JSON of named results")
    if output:
        out["output"] = output
        yaml_output(output, items["output"], f"{section}.output", p)
    log = items.get("unstableLogContent")
    if log is not None and not log.is_null:
        if log.kind == "scalar" and isinstance(log.value, bool):
            if log.value:
                out["log_content"] = DEFAULT_LOG
        else:
            out["log_content"] = p.text(log, f"{section}.unstableLogContent", empty_ok=False,
                                        expected="true, false or a path")
            yaml_output(out["log_content"], log, f"{section}.unstableLogContent", p)
    # where each is written, for two cases naming one file (`farm.suite.loader`)
    out["outputs_at"] = {f"{section}.{key}": (items[key].line, items[key].column)
                         for key, field in (("output", "output"),
                                            ("unstableLogContent", "log_content"))
                         if out.get(field)}
    return out


def yaml_output(path: str | None, node: Node, where: str, p: Problems) -> None:
    """A JSON output (``output:``, ``unstableLogContent:``, a batch's ``summary:``) named
    ``*.yaml``: the run wrote its JSON over what was there (``output: login.yaml``: the case
    was lost), and the next run of the folder read the JSON as a broken case."""
    if path and Path(path).suffix.lower() in (".yaml", ".yml"):
        p.add(node, f"{where}: {path!r} names a YAML file: farm writes JSON there, over what "
                    "it holds (a case?), and a later run would read it as a case: name a "
                    ".json file")


# Which WebTarget / mobile target fields each key sets (for a batch file's shared settings).
KEY_FIELDS = {
    "url": ("url",), "serve": ("serve",), "mode": ("mode", "same_tab", "follow_new_pages"),
    "userAgent": ("user_agent",), "viewportWidth": ("viewport_width",),
    "viewportHeight": ("viewport_height",), "deviceScaleFactor": ("device_scale_factor",),
    "viewportScale": ("device_scale_factor",),
    "cookie": ("cookies",), "extraHTTPHeaders": ("extra_http_headers",),
    "acceptInsecureCerts": ("accept_insecure_certs",), "chromeArgs": ("chrome_args",),
    "waitForNetworkIdle": ("network_idle_ms", "network_idle_continue"),
    "forceSameTabNavigation": ("same_tab",), "autoFollowNewPage": ("follow_new_pages",),
    "deviceId": ("device_id",), "launch": ("launch",), "imeStrategy": ("ime_strategy",),
    "autoDismissKeyboard": ("auto_dismiss_keyboard",), "wdaPort": ("wda_port",),
    "keyboardDismissStrategy": ("keyboard_dismiss_strategy",),
    "wdaHost": ("wda_host",), "dialogs": ("dialogs",), **EMULATION_FIELDS,
}
# Keys of a case's target a batch file's shared section has nothing to give each file for
# (they were dropped without a word): why, said at the key's line.
BATCH_REFUSED = {
    key: (f"a batch's shared {key}: would have every listed file write its own JSON to that "
          "one file (Midscene merges it into each file's section, so the last file to end "
          f"overwrites the others' and the rest are lost): set {key}: in each file's own "
          "target section (each its own file name); the batch's summary: keeps each file's "
          "outcome")
    for key in ("output", "unstableLogContent")}
# Keys accepted in a target that change nothing in farm (only their no-op values pass):
# a batch file's section may carry them too.
BATCH_NO_OP = {"bridgeMode", "displayId", "alwaysRefreshScreenInfo", "androidAdbPath"}


def read_overrides(section: str, node: Node, base: Path, p: Problems) -> dict:
    """A batch file's shared ``page:``/``browser:``/``web:``/``android:``/``ios:`` settings:
    the target fields its keys set (they override each listed file's own, as Midscene's
    batch runner merges them)."""
    if node.is_null:
        return {}
    if node.kind != "map":
        p.add(node, f"{section}: expected a mapping of shared settings, got {node.describe()}")
        return {}
    if section in MOBILE_SECTIONS:
        target = read_mobile(section, node, p)
    else:
        given = dict(node.value)
        patched = Node("map", node.line, node.column, given, keys=dict(node.keys))
        if "url" not in given:      # shared settings need no url of their own
            patched.value["url"] = Node("scalar", node.line, node.column, "about:blank",
                                        raw="about:blank", plain=True)
            patched.keys["url"] = patched.value["url"]
        target = read_web(section, node, patched, base, p)
    for key, why in BATCH_REFUSED.items():
        if key in node.keys:
            p.add(node.keys[key], f"{section}.{key} is not supported in a batch file: {why}")
    dropped = set(node.value) - set(KEY_FIELDS) - set(BATCH_REFUSED) - BATCH_NO_OP
    for key in sorted(dropped & (WEB_KEYS | ANDROID_KEYS | IOS_KEYS), key=list(node.keys).index):
        p.add(node.keys[key], f"{section}.{key} is not supported in a batch file's shared "
                              "settings: set it in each file's own target section")
    if target is None:
        return {}
    fields = [f for key in node.value for f in KEY_FIELDS.get(key, ())]
    return {f: getattr(target, f) for f in fields}
