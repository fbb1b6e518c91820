"""Every script farm runs in a browser page, in one place (the longer ones are .js files beside
this module)."""

from __future__ import annotations

import functools
from pathlib import Path

MAX_NODES = 5000     # rendered elements one DOM read returns at most


def read_js(name: str) -> str:
    """A function expression shipped beside this module, minus its leading comment lines
    (Playwright decides whether a string is a function by how it starts)."""
    lines = Path(__file__).with_name(name).read_text(encoding="utf-8").splitlines()
    while lines and (not lines[0].strip() or lines[0].lstrip().startswith("//")):
        lines.pop(0)
    return "\n".join(lines)


# JSON.stringify as the standard writes it, for farm's answers: a toJSON the page put on a
# built-in prototype is set aside meanwhile (Prototype.js 1.6, still in legacy apps, gives
# Array one that writes an array as a string of JSON: every DOM read of such a page failed).
STRINGIFY_JS = """(value, replacer) => {
  const kept = [];
  for (const proto of [Array.prototype, Object.prototype, String.prototype, Number.prototype,
                       Boolean.prototype]) {
    const own = Object.getOwnPropertyDescriptor(proto, "toJSON");
    if (own && own.configurable) { kept.push([proto, own]); delete proto.toJSON; }
  }
  try { return JSON.stringify(value, replacer); }
  finally { for (const [proto, own] of kept) Object.defineProperty(proto, "toJSON", own); }
}"""
# The walker's result goes back as ONE JSON string: Playwright's structured serialisation of
# thousands of small objects costs seconds, a string costs milliseconds.
# Where a tap lands (reach.js): the walk's ``reached`` of each control, the check before a tap
REACH_JS = read_js("reach.js")
DOM_JS = ("(maxNodes) => (" + STRINGIFY_JS + ")((\n" + read_js("dom.js") + "\n)(maxNodes, "
          + REACH_JS + ", false))")
XPATH_JS = "(xpath) => (" + read_js("xpath.js") + ")(xpath, " + REACH_JS + ")"
RUN_JS = read_js("run_script.js")
PAGE_STATE_JS = read_js("page_state.js")
# The same walk, skipped when the page's change counter (page_state.js) still has the value of
# the last walk: a run of checks on an unchanged page walks the DOM once.
# The page's text a user can see (visible_text.js): what text checks compare, on every read.
VISIBLE_TEXT_JS = read_js("visible_text.js")
# A page whose CSS transitions or animations run changes without an event (an element that
# slides in moves with no mutation): its last read is not reused meanwhile.
MOVING_JS = ("  const moving = () => document.getAnimations().some(\n"
             "    (a) => a.playState === 'running');\n")
# A DOM read first lets the page's short animations and transitions end (a panel sliding in, a
# button fading in: each at most ENDING_MS from its end; a spinner's endless one is not waited
# for), so a tap goes where the target comes to rest, not where it was mid-way; at most
# ENDING_MS in all. A transition that moves or shows nothing (a colour, a shadow) is not waited
# for, nor one on what the mouse is over (a hover effect: a card lifting by 2 px).
ENDING_MS = 1000
ENDING_JS = ("  const moves = /^(transform|translate|scale|rotate|opacity|visibility|top|left|"
             "right|bottom|inset|width|height|max-|min-|margin)/;\n"
             "  const ending = document.getAnimations().filter((a) => {\n"
             "    if (a.playState !== 'running' || !a.effect) return false;\n"
             "    if (typeof CSSTransition !== 'undefined' && a instanceof CSSTransition) {\n"
             "      const el = a.effect.target;\n"
             "      if (!moves.test(a.transitionProperty)\n"
             "          || (el && el.matches && el.matches(':hover'))) return false;\n"
             "    }\n"
             "    const t = a.effect.getComputedTiming();\n"
             "    return t.endTime !== Infinity\n"
             f"      && t.endTime - (t.localTime || 0) <= {ENDING_MS};\n"
             "  });\n"
             "  if (ending.length) await Promise.race([\n"
             "    Promise.all(ending.map((a) => a.finished.catch(() => null))),\n"
             f"    new Promise((resolve) => setTimeout(resolve, {ENDING_MS}))]);\n")
TREE_JS = ("async ([maxNodes, last]) => {\n" + ENDING_JS + "  const s = window.__farm;\n"
           + MOVING_JS +
           "  const token = s ? performance.timeOrigin + ':' + s.gen : null;\n"
           "  if (token !== null && token === last && !moving()) return 'same';\n"
           "  const out = (\n" + read_js("dom.js") + "\n)(maxNodes, " + REACH_JS + ");\n"
           "  out.token = token; return (" + STRINGIFY_JS + ")(out); }")
# What a page (or frame) has under way: its requests in flight and its frames still loading
# (page_state.js); the frames are only counted when no request is (they cost a layout).
BUSY_JS = ("  const busy = (s) => ((s && s.inflight)\n"
           "    || (s && s.framesLoading ? s.framesLoading() : 0));\n")
# [token, quietMs, capMs]: resolves true once the page's change token is not ``token`` (the last
# read's); else, once it stayed so for ``quietMs`` with nothing under way (BUSY_JS: 0), or for
# ``capMs``, with what is under way (BrowserDevice.await_change); the page looks every 50 ms
# itself.
AWAIT_CHANGE_JS = ("([token, quietMs, capMs]) => new Promise((resolve) => {\n" + BUSY_JS + """\
  const s = window.__farm, began = performance.now();
  const now = () => (s ? performance.timeOrigin + ':' + s.gen : null);
  const look = () => {
    const waited = performance.now() - began;
    if (now() !== token) resolve(true);
    else if (waited >= capMs) resolve(busy(s));
    else if (waited >= quietMs && !busy(s)) resolve(0);
    else setTimeout(look, 50);
  };
  look();
})""")
# AWAIT_CHANGE_JS from the page as it is now (not as a read saw it), with no quiet end: true
# once it changes, else what it has under way after capMs (a covered target waits so for its
# cover to go: BrowserDevice.await_page_change)
AWAIT_NOW_JS = ("([capMs, quietMs]) => (" + AWAIT_CHANGE_JS + ")([window.__farm ? "
                "performance.timeOrigin + ':' + window.__farm.gen : null, quietMs, capMs])")
# AWAIT_NOW_JS from the page as it was when the last wheel's scroll ended (SCROLL_WATCH_JS), when
# it did: a list that adds its rows as it reaches its end (at its scrollend, or from a request
# answered before farm's next round trip) has changed since, not from "now" (the rows already
# came: the end was taken for the end, 60 rows of 90)
AWAIT_SCROLLED_JS = ("([capMs, quietMs]) => (" + AWAIT_CHANGE_JS + ")([window.__farmScrolledAt "
                     "|| (window.__farm ? performance.timeOrigin + ':' + window.__farm.gen "
                     ": null), quietMs, capMs])")
# A frame of another origin's change token and what it has under way (its own page_state.js:
# the page's counter does not move with it), while farm waits for a change (frames.watch)
FRAME_STATE_JS = ("() => {\n" + BUSY_JS + """  const s = window.__farm;
  return s ? [performance.timeOrigin + ':' + s.gen, busy(s)] : [null, 0]; }""")
# The page's visible text (what text checks compare), skipped in the same way. Not part of the
# walk: a step that locates then acts changes the page before any check reads its text (on a
# page of 2,800 elements the text is a second walk of ~30 ms). With it, whether the viewport
# shows a canvas that can hold text (visible_text.js), in the same round trip.
TEXT_JS = ("(last) => { const s = window.__farm;\n" + MOVING_JS +
           "  const token = s ? performance.timeOrigin + ':' + s.gen : null;\n"
           "  if (token !== null && token === last && !moving()) return 'same';\n"
           "  const {text, canvas} = (\n" + VISIBLE_TEXT_JS + "\n)(true);\n"
           "  return (" + STRINGIFY_JS + ")({token, text, canvas}); }")
# The same walk in a frame of another origin than its parent's (farm/devices/web/frames.py):
# always walked (its changes are not the page's), with its viewport's size and its own change
# token (what a wait for a change compares, FRAME_STATE_JS).
FRAME_TREE_JS = ("(maxNodes) => { const s = window.__farm, out = (\n" + read_js("dom.js")
                 + "\n)(maxNodes, " + REACH_JS + ");\n  out.view = [innerWidth, innerHeight];\n"
                 "  out.token = s ? performance.timeOrigin + ':' + s.gen : null;\n"
                 "  return (" + STRINGIFY_JS + ")(out); }")
# Which of such frames' elements (in one document) show, for a read or a text check to enter
# (frames.FrameElements.shown): rendered, not hidden (visibility, opacity 0: frame_box.js's
# rule), and at least 2x2 px (an analytics or ad pixel shows nothing); in the viewport or not
FRAME_SHOWN_JS = """(els) => els.map((el) => {
  if (!el.isConnected || !el.getClientRects().length) return false;
  const r = el.getBoundingClientRect();
  if (r.width < 2 || r.height < 2) return false;
  return !el.checkVisibility || el.checkVisibility({opacityProperty: true,
                                                    visibilityProperty: true}); })"""
# Where such a frame shows in the page that holds it (frame_box.js), on its element
FRAME_BOX_JS = "(el, args) => (" + read_js("frame_box.js") + ")(el, args, " + REACH_JS + ")"
# After an action, a form it submitted (page_state.js notes a submit event the page did not
# cancel, or a form.submit() call) starts its navigation from a task of its own: the read waits
# one task for it. Only then: a task queued after an action that changed the page waits for
# Chromium's next frame (~8 ms a step, measured), which a read right after every action paid.
SUBMITTED_JS = ("  const sent = window.__farm && window.__farm.submitted;\n"
                "  if (sent) window.__farm.submitted = null;\n"
                "  if (sent && (sent === true || !sent.defaultPrevented))\n"
                "    await new Promise((resolve) => setTimeout(resolve, 0));\n")
# [navigating?, readyState, change token]; ``settle``: after an action (a form it submitted is
# waited for, SUBMITTED_JS)
STATE_JS = """async (settle) => {
  if (settle) {
""" + SUBMITTED_JS + """  }
  const s = window.__farm;
  const token = s ? performance.timeOrigin + ':' + s.gen : null;
  return [s ? s.leaving : false, document.readyState, token];
}"""


@functools.lru_cache(maxsize=8)
def looked(action: str) -> str:
    """The action's page script ``action`` (a function expression of one argument, a fill),
    then the look `STATE_JS` would take after it, in the same round trip: [its answer,
    [unloading?, readyState, change token, a form submitted?]]. It waits for nothing (a form
    the action submitted is only said: its navigation starts in a task of its own, which
    would take this answer's document away), so the answer always comes; with no form
    submitted, the page settled and loaded, a report image needs no look of its own
    (`farm.devices.web.capture.PageCapture.evidence`). A microtask first: the page's
    mutation observer counts the action's changes before the token is read."""
    return ("async (arg) => { const how = await (" + action + ")(arg);\n"
            "  await null; const s = window.__farm, sent = s ? s.submitted : null;\n"
            "  return [how, [s ? s.leaving : false, document.readyState,\n"
            "    s ? performance.timeOrigin + ':' + s.gen : null,\n"
            "    !!sent && (sent === true || !sent.defaultPrevented)]]; }")


@functools.lru_cache(maxsize=16)
def settled_read_js(read: str) -> str:
    """``read`` (a function expression of one argument) behind a look at the page as `STATE_JS`
    takes it (a form an action submitted is waited for: SUBMITTED_JS): [unloading?,
    readyState, its value], the value null unless no navigation is under way and the
    document is parsed (else farm waits for the page and reads again)."""
    return ("async (arg) => {\n" + SUBMITTED_JS +
            "  const s = window.__farm;\n"
            "  const leaving = s ? s.leaving : false, ready = document.readyState;\n"
            "  if (leaving || ready === 'loading') return [leaving, ready, null];\n"
            "  return [leaving, ready, await (" + read + ")(arg)]; }")


# Replace the focused field's content: selected, then the value inserted as an input method
# would ("done"; "insert" when the browser refused, so Python inserts it); inputs that take no
# typed text get their value set ("set"); "not:<what>": the focus is on nothing or on a control
# that takes no text (a button, a link, a checkbox, a disabled field); {cut, took, max}: the
# field's maxlength left part of the value out (`took` characters in); {options}: a select has
# no option the value names (its options, as shown); null: another element
# has it (a custom widget: keys may be what it reads).
_FILL_JS = """(value, {focused}) => {
  const el = focused();     // the focus, inside shadow roots and same-origin frames
  const doc = el ? el.ownerDocument : document, win = doc.defaultView;  // (a frame's own)
  const insert = (text = value) => doc.execCommand(text ? "insertText" : "delete", false, text)
    ? "done" : "insert";
  const what = (e) => e.tagName.toLowerCase()
    + (e.type && e.type !== "textarea" ? `[type=${e.type}]` : "");
  // a frame of another origin (focused() enters the others): farm fills it there
  if (el && (el.tagName === "IFRAME" || el.tagName === "FRAME")) return "frame";
  if (!el || el === doc.body || el === doc.documentElement) return "not:nothing";
  if (el.disabled || el.readOnly) return "not:" + (el.disabled ? "disabled " : "read-only ")
    + what(el);
  if (el instanceof win.HTMLButtonElement || el instanceof win.HTMLAnchorElement) {
    return "not:" + what(el);
  }
  if (el instanceof win.HTMLSelectElement) {
    // the option the value names (its text as shown, its value, or its text in any case),
    // chosen as a user's pick is: input and change events
    const norm = (s) => (s || "").replace(/\\s+/g, " ").trim();
    const want = norm(value), options = [...el.options].filter((o) => !o.disabled);
    const shown = (o) => norm(o.label || o.text);
    const pick = options.find((o) => shown(o) === want) || options.find((o) => o.value === value)
      || options.find((o) => shown(o).toLowerCase() === want.toLowerCase());
    if (!pick) return {options: options.map(shown)};
    if (el.multiple) for (const o of el.options) o.selected = false;
    pick.selected = true;
    el.dispatchEvent(new Event("input", {bubbles: true}));
    el.dispatchEvent(new Event("change", {bubbles: true}));
    return "set";
  }
  if (el.isContentEditable) {
    const range = doc.createRange();
    range.selectNodeContents(el);
    const sel = win.getSelection(); sel.removeAllRanges(); sel.addRange(range);
    return insert();
  }
  // a field full at its maxlength with the rest of the value left out, as typing leaves it:
  // farm notes it (the form sends another value than the step gave)
  const cut = (at, left, how) => how === "done" && at.maxLength >= 0
    && at.value.length >= at.maxLength && left.length > at.value.length
    && left.startsWith(at.value)
    ? {cut: what(at), took: value.length - left.length + at.value.length, max: at.maxLength}
    : how;
  if (el instanceof win.HTMLTextAreaElement) { el.select(); return cut(el, value, insert()); }
  if (!(el instanceof win.HTMLInputElement)) return null;
  if (["", "text", "search", "email", "url", "tel", "password"].includes(el.type)) {
    el.select();
    let how = insert(), at = el, left = value;
    // a field that kept the first characters (its maxlength) and moved the focus on to the
    // next field (a code of one digit a box): the rest goes there, and on, as typing goes
    for (let n = 0; how === "done" && n < 64; n++) {
      const kept = at.value, now = focused();
      if (!kept || left.length <= kept.length || !left.startsWith(kept) || !now || now === at
          || now.tagName !== "INPUT" || now.ownerDocument !== doc || now.readOnly
          || now.disabled) break;
      left = left.slice(kept.length); at = now; at.select(); how = insert(left);
    }
    return cut(at, left, how);
  }
  if (el.type === "number") {     // (a number field refuses text: its value stays empty)
    el.select();
    const how = insert();
    return value && (el.validity.badInput || el.value === "")
      ? {refused: what(el), holds: el.value} : how;
  }
  if (["checkbox", "radio", "file", "button", "submit", "reset", "image"].includes(el.type)) {
    return "not:" + what(el);
  }
  // a date, time, colour or range input: its value set, as the browser keeps it (a form it
  // cannot read is dropped, a range's value brought within its min and max: said, not passed)
  const given = el.type === "time" && /^\\d:\\d\\d/.test(value) ? "0" + value : value;
  el.value = given;
  el.dispatchEvent(new Event("input", {bubbles: true}));
  el.dispatchEvent(new Event("change", {bubbles: true}));
  const black = ["#000000", "#000", "black"].includes(given.trim().toLowerCase());
  const taken = el.type === "color" ? el.value !== "#000000" || black   // ("red": #ff0000)
    : el.type === "range" ? Number(el.value) === Number(given)
    : el.value.toLowerCase() === given.toLowerCase();
  if (!taken) {
    return {refused: what(el), holds: el.value};
  }
  return "set";
}"""
FOCUSED_FILL_JS = "(value) => (" + _FILL_JS + ")(value, " + REACH_JS + ")"
# A tap's focus without the mouse, as Playwright's fill and press give it: node i of the last
# DOM read (a text field that read found a tap at (x, y) reaching, no action since) focused,
# then THEN's answer (called with the value and reach.js's helpers); "tap" when it is not so
# now (the field went, something covers it, the focus went elsewhere): nothing done, farm
# taps it as before.
_FOCUS_AT_JS = """([i, x, y, value]) => {
  const reach = """ + REACH_JS + """;
  const el = (window.__farmNodes || [])[i];
  if (!el || !el.isConnected || !reach.reaches(el, reach.at(x, y))) return "tap";
  el.focus({preventScroll: true});
  if (reach.focused() !== el) return "tap";
  return (THEN)(value, reach);
}"""
# aiKeyboardPress on a field: focused, then the key pressed ("focused")
FOCUS_AT_JS = _FOCUS_AT_JS.replace("THEN", '() => "focused"')
# aiInput: focused and filled as FOCUSED_FILL_JS fills, in one round trip
FILL_AT_JS = _FOCUS_AT_JS.replace("THEN", _FILL_JS)
# The focused field, which a secret was just typed into (``on``), draws its text as a password
# field does (discs): the report's images and the screenshots a model is sent show no secret.
# So does every other field whose value the typing changed since VEIL_WATCH_JS looked (one-digit
# code boxes, each taking a digit and moving the focus on; a page spreading a pasted code over
# them): focus has left those. Their values, their events and what the page reads are as they
# were. Text that is no secret typed into a field veiled so (not ``on``) is drawn again.
# Whether a field was veiled or drawn again; "frame" (each script) when the focus is in a frame
# of another origin, which the page's script cannot reach: farm runs it there
# (farm/devices/web/frames.py).
_IN_FRAME_JS = ("  if (el && (el.tagName === 'IFRAME' || el.tagName === 'FRAME'))"
                " return 'frame';\n")
VEIL_WATCH_JS = ("() => { const seen = new Map();\n"
                 "  for (const f of document.querySelectorAll('input, textarea'))"
                 " seen.set(f, f.value);\n"
                 "  window.__farmVeilBefore = seen; const el = (" + REACH_JS + ").focused();\n"
                 + _IN_FRAME_JS + "  return true; }")
VEIL_JS = ("(on) => { const el = (" + REACH_JS + ").focused();\n"
           "  const before = window.__farmVeilBefore; window.__farmVeilBefore = null;\n"
           + _IN_FRAME_JS +
           "  const veiled = window.__farmVeiled || (window.__farmVeiled = new WeakSet());\n"
           "  const fields = (!el || el === document.body || el === document.documentElement)\n"
           "    ? [] : [el];\n"
           "  if (on && before) for (const f of document.querySelectorAll('input, textarea'))\n"
           "    if (f !== el && f.value && before.get(f) !== f.value) fields.push(f);\n"
           "  for (const f of fields) {\n"
           "    if (on) {\n"
           "      f.style.setProperty('-webkit-text-security', 'disc', 'important');\n"
           "      veiled.add(f);\n"
           "    } else if (veiled.has(f)) {\n"
           "      f.style.removeProperty('-webkit-text-security'); veiled.delete(f);\n"
           "    }\n"
           "  }\n"
           "  return fields.length > 0; }")


@functools.lru_cache(maxsize=4)
def veiled(fill: str) -> str:
    """The fill script ``fill`` (FILL_AT_JS, FOCUSED_FILL_JS), then `VEIL_JS` given ``on`` on
    the field it filled (and, ``on``, the fields the fill changed: `VEIL_WATCH_JS` looks
    first), in the same round trip: called with [fill's argument, on]. Whatever the fill
    answers, unless it typed nothing here: a field that kept part of the value (its
    maxlength: ``{cut, ...}``), or that holds what it took of it (``{refused, holds}``),
    shows that part of a secret too. Not when the focus is on no field ("not:..."), a frame
    of another origin has it ("frame": farm fills and veils there), or the field is no more
    where the page had it ("tap": farm taps and fills again)."""
    return ("async ([arg, on]) => { if (on) (" + VEIL_WATCH_JS + ")();\n"
            "  const how = await (" + fill + ")(arg);\n"
            "  if (how !== 'tap' && how !== 'frame'\n"
            "      && !(typeof how === 'string' && how.startsWith('not:'))) (" + VEIL_JS
            + ")(on);\n"
            "  return how; }\n")


# A pointer action at [x, y] outside the [w, h] viewport (an XPath's element below the fold: its
# rect is where the page has it): the page scrolled, each axis the point is off, to bring it to
# the middle; how far it moved ([dx, dy]: less at the page's end, 0 where it cannot scroll).
INTO_VIEW_JS = """([x, y, w, h]) => { const sx = scrollX, sy = scrollY;
  const off = (v, size) => (v < 0 || v >= size ? v - size / 2 : 0);
  scrollBy({left: off(x, w), top: off(y, h), behavior: "instant"});
  return [scrollX - sx, scrollY - sy]; }"""
# Where a wheel aimed at a target reaches what holds it (wheel.js), called with [i, x, y, rect, clip]
WHEEL_JS = "(args) => (" + read_js("wheel.js") + ")(args, " + REACH_JS + ")"
SCROLL_JS = """(i) => { const el = (window.__farmNodes || [])[i];
  if (!el || !el.isConnected) return false;
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  if (window.__farm) window.__farm.gen++;  // the scroll event comes a frame later
  return true; }"""
# A wheel scroll's end (BrowserDevice.scroll): SCROLL_WATCH_JS, before the wheel, starts a
# promise that SCROLL_END_JS awaits after it. It resolves true at the scroll's scrollend event
# (in the page or in any element that scrolls; headless Chromium scrolls a wheel at once: a
# frame or two) or ``quietMs`` after the last scroll event (a Chromium without scrollend), and
# once ``quietMs`` passed with no scroll event at all: false when nothing on the page changed
# either (page_state.js's counter: a page that moves its content itself on a wheel, with no
# native scroll, changes it), the wheel moved nothing: that way is at its end. That quiet time
# counts from SCROLL_END_JS, sent once the wheel was dispatched, not from the watch: on a
# loaded machine sending the wheel took longer than ``quietMs``, and a scroll that came after
# was taken for the end of the page. "end" instead of true: what scrolled last is at its end
# the way of the wheel's [dx, dy] now (a scroll to an end stops there: another wheel would
# scroll what holds it, the page under a carousel at its end; called with [quietMs, dx, dy],
# or quietMs alone: no way, never "end"). Watched in each document the wheel may scroll: a
# frame's scroll events stay in its document.
SCROLL_WATCH_JS = """(arg) => { const [quietMs, dx, dy] = Array.isArray(arg) ? arg : [arg, 0, 0];
  window.__farmScrolledAt = null;
  window.__farmScrollEnd = new Promise((resolve) => {
  const state = window.__farm, gen = state ? state.gen : null;
  let quiet = null, moved = false, last = null;
  const atEnd = (t) => {
    const el = t && t.nodeType === 9 ? (t.scrollingElement || t.documentElement) : t;
    if (!el || el.nodeType !== 1) return false;
    if (dy > 0) return el.scrollTop + el.clientHeight >= el.scrollHeight - 1;
    if (dy < 0) return el.scrollTop <= 0;
    if (dx > 0) return Math.abs(el.scrollLeft) + el.clientWidth >= el.scrollWidth - 1;
    return dx < 0 && Math.abs(el.scrollLeft) <= 0;
  };
  const done = () => {
    window.__farmScrolledAt = state ? performance.timeOrigin + ':' + state.gen : null;
    clearTimeout(quiet);
    removeEventListener("scroll", scrolled, true);
    removeEventListener("scrollend", ended, true);
    resolve(moved && atEnd(last) ? "end" : moved || !state || state.gen !== gen);
  };
  const scrolled = (e) => { moved = true; last = e.target; clearTimeout(quiet);
                            quiet = setTimeout(done, quietMs); };
  const ended = (e) => { moved = true; last = e.target; done(); };
  addEventListener("scroll", scrolled, true);
  addEventListener("scrollend", ended, true);
  window.__farmScrollArm = () => { if (quiet === null) quiet = setTimeout(done, quietMs); };
}); return true; }"""
SCROLL_END_JS = """() => { if (window.__farmScrollArm) window.__farmScrollArm();
  return window.__farmScrollEnd || null; }"""
# forceSameTabNavigation (Midscene's page agents): a link with a target and window.open load
# in the current tab instead of a new one. Only a target that would open a tab: _blank, or a
# name no frame has; one naming a frame (a <frameset>'s main frame), _parent or _top loads
# there as before (it loaded in the frame the link was in: a legacy frames page never showed
# the page its menu opened).
SAME_TAB_JS = """
(() => {
  const framed = (name, win) => {      // a frame of ``win`` (or below) named ``name``
    try {
      for (let i = 0; i < win.frames.length; i++) {
        try { if (win.frames[i].name === name) return true; } catch (e) { /* cross-origin */ }
        if (framed(name, win.frames[i])) return true;
      }
    } catch (e) { /* cross-origin */ }
    return false;
  };
  const opensTab = (name) => {
    const kind = String(name || '').toLowerCase();
    if (!kind || ['_self', '_parent', '_top'].includes(kind)) return false;
    return kind === '_blank' || !framed(name, window.top);
  };
  document.addEventListener('click', (e) => {
    const a = e.target && e.target.closest ? e.target.closest('a[target]') : null;
    if (a && opensTab(a.target)) a.target = '_self';
  }, true);
  const open = window.open;
  window.open = function (url, name, ...rest) {
    if (!opensTab(name || '_blank')) return open.call(this, url, name, ...rest);
    if (url) window.location.href = url;
    return window;
  };
})();
"""


# Keys a browser acts on itself (reload, back, forward), which a key event sent to the page
# does not do (the page gets the event alone): `BrowserDevice.press` then does it, unless the
# page prevented the key's default (an app of its own using F5). KEY_WATCH_JS keeps the key's
# event (not its modifiers') as the window first sees it; BROWSER_KEY_JS, after the press, does
# the browser's part unless the event was prevented (true), as farm's Reload and GoBack do. An
# event the window never saw (the focus in a frame of another origin) counts as not
# prevented: the browser's shortcut works there too.
BROWSER_KEYS = {"F5": "reload", "Shift+F5": "reload", "Control+F5": "reload",
                "Control+r": "reload", "Meta+r": "reload", "Control+Shift+R": "reload",
                "Meta+Shift+R": "reload", "Alt+ArrowLeft": "back", "Alt+ArrowRight": "forward",
                "BrowserBack": "back", "BrowserForward": "forward", "BrowserRefresh": "reload"}
KEY_WATCH_JS = """() => { const seen = window.__farmKey = {event: null};
  const modifiers = ["Shift", "Control", "Alt", "Meta"];
  seen.watch = (e) => { if (!modifiers.includes(e.key)) seen.event = e; };
  addEventListener("keydown", seen.watch, true); }"""
BROWSER_KEY_JS = """(act) => {
  const seen = window.__farmKey || {}; window.__farmKey = null;
  if (seen.watch) removeEventListener("keydown", seen.watch, true);
  if (seen.event && seen.event.defaultPrevented) return false;
  if (act === "reload") location.reload(); else history.go(act === "back" ? -1 : 1);
  return true;
}"""
