// The page's text as text checks compare it (assertText, assertNoText, waitForText): the body's
// innerText minus text a user cannot see although the page renders it, as phones leave it out
// of their trees: under opacity 0 (its own or an ancestor's), in a zero-size box that clips
// its content (height:0; overflow:hidden), clipped away by an overflow:hidden / clip ancestor,
// or entirely outside the page's scrollable area (left:-5000px). visibility:hidden and
// display:none text innerText leaves out already. Text below the fold counts: scrolling reaches it.
// Text in shadow roots (open, and closed ones page_state.js kept) and in same-origin frames
// (a visible <iframe>'s document) is added after it: innerText does not enter them; so is what
// form fields show (a text field's value, a button input's label: a phone's tree has them). A
// closed <select> shows its chosen option alone, where innerText lists every option.
// Evaluated by farm/devices/web/scripts.py (TEXT_JS, TREE_JS) as a function of no arguments.
() => {
  const body = document.body;
  if (!body) return "";
  const root = document.documentElement;
  const pageW = Math.max(root.scrollWidth, body.scrollWidth);
  const pageH = Math.max(root.scrollHeight, body.scrollHeight);
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
  // [element, what is seen of it]: elements whose whole text is out of sight ("") or shows
  // otherwise (a closed <select>: its chosen option alone), in document order
  const hidden = [];
  const extra = [];    // the text of shadow roots and same-origin frames shown
  const closedRoot = (window.__farm && window.__farm.closedRoot) || (() => null);
  const rootOf = (el) => el.shadowRoot || closedRoot(el);
  // a shadow root's text: each shown child's rendered text, and nested roots' in turn
  const rootText = (root, depth) => {
    if (depth > 20) return;
    for (const c of root.children) {
      if (SKIP.has(c.tagName) || getComputedStyle(c).display === "none") continue;
      const t = (c.innerText || "").trim();
      if (t) extra.push(t);
    }
    for (const el of root.querySelectorAll("*")) {
      const inner = rootOf(el);
      if (inner) rootText(inner, depth + 1);
    }
  };
  const frameText = (el) => {
    try {
      const doc = el.contentDocument;      // null: another origin (read by farm on its own)
      if (doc && doc.body) extra.push(doc.body.innerText);
    } catch (e) { /* another origin */ }
  };

  // what a form field shows that innerText leaves out: a text field's or textarea's value, a
  // button input's label (a password's dots are no text; nor are checkboxes, files, ranges)
  const FIELDS = new Set(["text", "search", "email", "tel", "url", "number", "date", "time",
                          "datetime-local", "month", "week"]);
  const fieldText = (el) => {
    if (el.tagName === "TEXTAREA") return el.value;
    const type = el.type;
    if (FIELDS.has(type)) return el.value;
    if (type === "submit" || type === "reset") {
      return el.value || (type === "submit" ? "Submit" : "Reset");
    }
    return type === "button" ? el.value : "";
  };

  const outside = (r, fixed, clip) => {
    const x = r.left + (fixed ? 0 : scrollX), y = r.top + (fixed ? 0 : scrollY);
    const w = fixed ? innerWidth : pageW, h = fixed ? innerHeight : pageH;
    if (x + r.width <= 0 || y + r.height <= 0 || x >= w || y >= h) return true;
    return clip !== null && (r.right <= clip.left || r.left >= clip.right
      || r.bottom <= clip.top || r.top >= clip.bottom);
  };

  // clip: the viewport rect an overflow:hidden ancestor shows its content in (null: none)
  const visit = (el, clip, fixed) => {
    if (SKIP.has(el.tagName)) return;
    const st = getComputedStyle(el);
    if (st.display === "none") return;
    if (parseFloat(st.opacity) === 0) { hidden.push([el, ""]); return; }
    const r = el.getBoundingClientRect();
    const isFixed = fixed || st.position === "fixed";
    // a box that clips what overflows it (an inline or display:contents element has none)
    const clips = st.display !== "contents" && st.display !== "inline" && (
      ["hidden", "clip"].includes(st.overflowX) || ["hidden", "clip"].includes(st.overflowY)
      || (st.clip !== "auto" && st.clip !== "" && ["absolute", "fixed"].includes(st.position)));
    if (clips && (r.width === 0 || r.height === 0)) { hidden.push([el, ""]); return; }
    if (r.width > 0 && r.height > 0 && outside(r, isFixed, clip)) { hidden.push([el, ""]); return; }
    if (el.tagName === "SELECT" && !el.multiple && el.size <= 1) {    // a closed dropdown
      const chosen = el.selectedOptions[0];
      hidden.push([el, chosen ? chosen.text.trim() : ""]);
      return;
    }
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
      const shown = (fieldText(el) || "").trim();
      if (shown) extra.push(shown);
    }
    const root = rootOf(el);
    if (root) rootText(root, 0);
    if (el.tagName === "IFRAME" && r.width > 0 && r.height > 0) frameText(el);
    let inner = clip;
    if (clips) {
      inner = clip === null ? r : {
        left: Math.max(clip.left, r.left), top: Math.max(clip.top, r.top),
        right: Math.min(clip.right, r.right), bottom: Math.min(clip.bottom, r.bottom) };
    }
    for (const c of el.children) visit(c, inner, isFixed);
  };
  for (const c of body.children) visit(c, null, false);

  let text = body.innerText, from = 0;
  for (const [el, seen] of hidden) {
    const gone = (el.innerText ?? el.textContent ?? "").trim();
    if (!gone) continue;
    const at = text.indexOf(gone, from);
    if (at < 0) continue;
    text = text.slice(0, at) + "\n" + seen + "\n" + text.slice(at + gone.length);
    from = at;
  }
  return extra.length ? text + "\n" + extra.join("\n") : text;
}
