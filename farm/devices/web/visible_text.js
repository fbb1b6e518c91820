// The page's text as text checks compare it (assertText, assertNoText, waitForText): the body's
// innerText minus text a user cannot see although the page renders it, as phones leave it out
// of their trees: under opacity 0 (its own or an ancestor's), in a box of 1 px or less that
// clips its content (height:0; overflow:hidden, or a screen-reader-only 1 px box), clipped away
// by an overflow:hidden / clip ancestor or a clip-path of inset(50%) or more, scaled to nothing,
// or entirely outside the page's scrollable area (left:-5000px). visibility:hidden and
// display:none text innerText leaves out already. Text below the fold counts: scrolling reaches it.
// Text in shadow roots (open, and closed ones page_state.js kept) and in same-origin frames
// (a visible <iframe>'s or <frame>'s document) is added after it: innerText does not enter
// them; so is what form fields show (a text field's value, a button input's label: a phone's
// tree has them). A closed <select> shows its chosen option alone, where innerText lists every
// option. The same rules hold inside shadow roots and frames (each frame by its own window), so
// a hidden text or an unchosen option there is no more "on screen" than in the page itself.
// ``withCanvas``: {text, canvas} instead of the text, canvas true when the viewport shows a
// canvas big enough to hold a line of text (40x16 CSS px or more; rendered, not hidden, not
// under opacity 0 nor clipped away, in the viewport and, in a frame, its frame too): text it
// draws (a chart's labels, a Flutter web app) is in no DOM text, only OCR can read it.
// Evaluated by farm/devices/web/scripts.py (TEXT_JS) with true, farm/devices/web/frames.py.
(withCanvas) => {
  let canvas = false;
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"]);
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
  // ``text`` with the text of ``hidden`` ([element, what is seen of it], in document order)
  // replaced by what is seen of it
  const subtract = (text, hidden) => {
    let from = 0;
    for (const [el, seen] of hidden) {
      const gone = (el.innerText ?? el.textContent ?? "").trim();
      if (!gone) continue;
      const at = text.indexOf(gone, from);
      if (at < 0) continue;
      text = text.slice(0, at) + "\n" + seen + "\n" + text.slice(at + gone.length);
      from = at;
    }
    return text;
  };

  // the visible text of the document of ``win`` (the page's window, or a same-origin frame's)
  const readWindow = (win, depth, inView) => {
    const body = win.document.body;
    if (!body || depth > 20) return "";
    const root = win.document.documentElement;
    const pageW = Math.max(root.scrollWidth, body.scrollWidth);
    const pageH = Math.max(root.scrollHeight, body.scrollHeight);
    const style = (el) => win.getComputedStyle(el);
    const closedRoot = (win.__farm && win.__farm.closedRoot) || (() => null);
    const rootOf = (el) => el.shadowRoot || closedRoot(el);

    // a 2D transform that squashes its element to nothing: scale(0), scaleY(0)
    const flat = (transform) => {
      const m = /^matrix\(([^)]*)\)$/.exec(transform);
      if (!m) return false;
      const [a, b, c, d] = m[1].split(",").map(Number);
      return a * d - b * c === 0;
    };
    // (read once: each look at the window's scroll or size costs as much as a rect)
    const scrollX = win.scrollX, scrollY = win.scrollY;
    const viewW = win.innerWidth, viewH = win.innerHeight;
    const outside = (r, fixed, clip) => {
      const x = r.left + (fixed ? 0 : scrollX), y = r.top + (fixed ? 0 : scrollY);
      const w = fixed ? viewW : pageW, h = fixed ? viewH : pageH;
      if (x + r.width <= 0 || y + r.height <= 0 || x >= w || y >= h) return true;
      return clip !== null && (r.right <= clip.left || r.left >= clip.right
        || r.bottom <= clip.top || r.top >= clip.bottom);
    };
    // whether a box shows in the viewport (and its clip)
    const inViewport = (r, clip) => r.right > 0 && r.bottom > 0 && r.left < viewW
      && r.top < viewH && (clip === null || (r.right > clip.left && r.left < clip.right
        && r.bottom > clip.top && r.top < clip.bottom));

    // ``base`` (the rendered text of ``els``) minus what cannot be seen of them, plus the
    // text of the shadow roots, frames and form fields in them
    const read = (base, els, clip, fixed) => {
      const acc = { hidden: [], extra: [] };
      for (const c of els) visit(acc, c, clip, fixed);
      const text = subtract(base, acc.hidden);
      return acc.extra.length ? text + "\n" + acc.extra.join("\n") : text;
    };
    // a shadow root's text: each shown child's, read by the same rules
    const rootText = (acc, shadow, clip, fixed) => {
      for (const c of shadow.children) {
        if (SKIP.has(c.tagName) || style(c).display === "none") continue;
        const t = read((c.innerText || "").trim(), [c], clip, fixed);
        if (t.trim()) acc.extra.push(t);
      }
    };
    const frameText = (acc, el, shows) => {
      try {
        const fw = el.contentWindow;       // another origin: read by farm on its own
        if (fw && fw.document && fw.document.body) {
          acc.extra.push(readWindow(fw, depth + 1, shows));
        }
      } catch (e) { /* another origin */ }
    };

    // clip: the viewport rect an overflow:hidden ancestor shows its content in (null: none)
    const visit = (acc, el, clip, fixed) => {
      if (SKIP.has(el.tagName)) return;
      const st = style(el);
      if (st.display === "none") return;
      if (parseFloat(st.opacity) === 0) { acc.hidden.push([el, ""]); return; }
      const r = el.getBoundingClientRect();
      const isFixed = fixed || st.position === "fixed";
      // a box that clips what overflows it (an inline or display:contents element has none)
      const clips = st.display !== "contents" && st.display !== "inline" && (
        ["hidden", "clip"].includes(st.overflowX) || ["hidden", "clip"].includes(st.overflowY)
        || (st.clip !== "auto" && st.clip !== "" && ["absolute", "fixed"].includes(st.position)));
      // a box too small to show a letter (the 1 px box of Bootstrap's visually-hidden,
      // Tailwind's sr-only: text for screen readers), clipped away whole by a clip-path, or
      // transformed to nothing (scale(0))
      const gone = (clips && (r.width <= 1 || r.height <= 1))
        || /^inset\((50|[5-9]\d|\d{3,})(\.\d+)?%\)$/.test(st.clipPath)
        || flat(st.transform);
      if (gone) { acc.hidden.push([el, ""]); return; }
      if (r.width > 0 && r.height > 0 && outside(r, isFixed, clip)) {
        acc.hidden.push([el, ""]);
        return;
      }
      if (el.tagName === "CANVAS" && inView && !canvas && r.width >= 40 && r.height >= 16
          && st.visibility === "visible" && inViewport(r, clip)) canvas = true;
      if (el.tagName === "SELECT" && !el.multiple && el.size <= 1) {    // a closed dropdown
        const chosen = el.selectedOptions[0];
        acc.hidden.push([el, chosen ? chosen.text.trim() : ""]);
        return;
      }
      if (el.tagName === "INPUT" || el.tagName === "TEXTAREA") {
        const shown = (fieldText(el) || "").trim();
        if (shown) acc.extra.push(shown);
      }
      let inner = clip;
      if (clips) {
        inner = clip === null ? r : {
          left: Math.max(clip.left, r.left), top: Math.max(clip.top, r.top),
          right: Math.min(clip.right, r.right), bottom: Math.min(clip.bottom, r.bottom) };
      }
      const shadow = rootOf(el);
      if (shadow) rootText(acc, shadow, inner, isFixed);
      if ((el.tagName === "IFRAME" || el.tagName === "FRAME") && r.width > 0 && r.height > 0) {
        // (a FRAME: in a legacy page's <frameset>)
        frameText(acc, el, inView && inViewport(r, clip));
      }
      for (const c of el.children) visit(acc, c, inner, isFixed);
    };
    return read(body.innerText, body.children, null, false);
  };
  const text = readWindow(window, 0, true);
  return withCanvas ? {text, canvas} : text;
}
