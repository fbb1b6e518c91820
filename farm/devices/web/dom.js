// Walks the rendered DOM in ONE page.evaluate and returns {truncated, nodes: [...]}.
// Evaluated by farm/devices/web/dom_read.py (and the simulators) as a function expression called with maxNodes
// and reach.js's helpers; for the browser (``checks`` not false) each visible control (up to
// MAX_REACH, on a page of at most 1500 elements) says whether a tap at its middle reaches it
// (``reached``: false when something covers it there), so a tap needs no round trip of its own
// to check that (hit.js checks when it is not true). Frames of the page's origin are walked as
// part of the page (their elements' rects in the page's viewport, hidden where the frame clips
// them); another origin's frame is one element here: farm reads its elements on their own and
// adds them (frames.py), as it reads its text (dom_read.py).
// Shadow roots are walked too, a closed one as well (page_state.js keeps those for farm).
// Field meanings (and defaults, for the fields a node leaves out) match
// farm.devices.base.UINode.
(maxNodes, reach, checks) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const norm = (s) => (s || "").replace(/\s+/g, " ").trim();
  const MAX_TEXT = 1000;  // a text wall is never a useful locator; keeps the payload small
  const SKIP = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "META", "LINK", "TITLE"]);
  const CLICK_ROLES = new Set(["button", "link", "checkbox", "radio", "tab", "menuitem",
    "menuitemcheckbox", "menuitemradio", "option", "switch"]);
  const TEXT_INPUTS = new Set(["text", "search", "email", "url", "tel", "password", "number"]);
  const active = reach.focused();   // the keyboard focus, inside shadow roots and frames
  const nodes = [];
  const elements = [];  // elements[i] is nodes[i]: what scroll_into_view(node) scrolls
  let truncated = false;
  let focus = null;     // the id of the node that has the focus, if any

  const hasOwnText = (el) => {
    for (const c of el.childNodes) {
      if (c.nodeType === 3 && c.nodeValue.trim()) return true;
    }
    return false;
  };

  // A closed <select> shows its chosen option; innerText lists every option: an element
  // holding one (a <label>) reads as shown, so a tap for an option's text is not its label's.
  const closedSelects = [...document.querySelectorAll("select")]
    .filter((s) => !s.multiple && s.size <= 1);
  const shownText = (el) => {
    let text = el.innerText;
    for (const s of closedSelects) {
      if (el !== s && el.contains(s)) {
        const chosen = s.selectedOptions[0];
        text = text.replace(s.innerText, chosen ? chosen.text : "");
      }
    }
    return text;
  };

  const byId = (el, id) => {
    const root = el.getRootNode();
    return (root.getElementById ? root.getElementById(id) : null) || document.getElementById(id);
  };

  const accessibleName = (el, tag, attrs) => {
    if (!attrs) return "";       // (an <input> without attributes is a text field)
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return norm(aria);
    const lb = el.getAttribute("aria-labelledby");
    if (lb) {
      const t = lb.split(/\s+/).map((id) => byId(el, id)).filter(Boolean)
        .map((e) => norm(e.innerText || e.textContent)).join(" ").trim();
      if (t) return t;
    }
    const alt = el.getAttribute("alt");
    if (alt && alt.trim()) return norm(alt);
    const title = el.getAttribute("title");
    if (title && title.trim()) return norm(title);
    if (tag === "INPUT") {
      const type = (el.type || "").toLowerCase();
      if (type === "submit" || type === "button" || type === "reset") {
        return norm(el.value) || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : "");
      }
    }
    return "";
  };

  // Label text without the text of the controls inside it (an enclosing <label> around a
  // <select> would otherwise drag in every option).
  // Each control's <label>s (its HTMLElement.labels), found in one pass: asking each control
  // for its own searches the whole document every time (22 of 80 ms on a page of 700
  // buttons). A control in a shadow root, whose labels that pass does not see, asks.
  const labelsOf = new Map();
  for (const lab of document.querySelectorAll("label")) {
    const c = lab.control;
    if (!c) continue;
    if (!labelsOf.has(c)) labelsOf.set(c, []);
    labelsOf.get(c).push(lab);
  }
  const labelText = (el) => {
    const labels = el.getRootNode() === document ? labelsOf.get(el) : el.labels;
    if (!labels || !labels.length) return "";
    const parts = [];
    for (const lab of labels) {
      const clone = lab.cloneNode(true);
      clone.querySelectorAll("input,select,textarea,button").forEach((c) => c.remove());
      const t = norm(clone.textContent);
      if (t) parts.push(t);
    }
    return parts.join(" ");
  };

  // f: the document ``el`` is in: its window, where its viewport is in the page's (dx, dy),
  // how much its CSS pixels are scaled there (k: a zoomed or transformed frame), and the part
  // of the page's viewport it shows (clip: [left, top, right, bottom])
  const visit = (el, parentIdx, f) => {
    if (nodes.length >= maxNodes) { truncated = true; return; }
    if (SKIP.has(el.tagName)) return;
    const style = f.view.getComputedStyle(el);
    if (style.display === "none") return;           // nothing below is rendered either
    if (parseFloat(style.opacity) === 0) return;     // opacity compounds down the subtree
    const r = el.getBoundingClientRect();
    const tag = el.tagName;
    let idx = parentIdx;
    // visibility:hidden children may set visibility:visible, and zero-size boxes (display:
    // contents, floats in collapsed parents) may have visible children: keep descending.
    const rendered = r.width > 0 && r.height > 0 && style.visibility !== "hidden"
      && style.visibility !== "collapse";
    if (rendered && tag !== "HTML" && tag !== "BODY") {
      // most elements of a long page have no attributes at all: none is looked up then
      const attrs = el.hasAttributes();
      const roleAttr = attrs ? norm(el.getAttribute("role")).split(" ")[0] : "";
      const lower = tag.toLowerCase();
      const type = tag === "INPUT" ? (el.getAttribute("type") || "text").toLowerCase() : "";
      const role = roleAttr || (tag === "INPUT" ? "input:" + type : lower);
      let text = "";
      if (hasOwnText(el)) {
        text = norm(shownText(el));
        // (cut with "…": the secret masking then hides a secret's start there)
        if (text.length > MAX_TEXT) text = text.slice(0, MAX_TEXT) + "\u2026";
      }
      const clickable = (tag === "A" && el.hasAttribute("href")) || tag === "BUTTON"
        || (tag === "INPUT" && type !== "hidden") || tag === "SELECT" || tag === "TEXTAREA"
        || tag === "SUMMARY" || tag === "LABEL" || (attrs && el.hasAttribute("onclick"))
        || CLICK_ROLES.has(roleAttr) || style.cursor === "pointer";
      const editable = ((tag === "INPUT" && TEXT_INPUTS.has(type)) || tag === "TEXTAREA"
        || el.isContentEditable) && !el.disabled && !el.readOnly;
      const x = Math.round(r.left * f.k + f.dx), y = Math.round(r.top * f.k + f.dy);
      const w = Math.round(r.width * f.k), h = Math.round(r.height * f.k);
      idx = nodes.length;
      elements.push(el);
      // Fields at their default (farm.devices.base.UINode's) are left out: a page of thousands
      // of elements is read every step, and its JSON crosses two processes on the way.
      const n = { id: idx, role, rect: { x, y, width: w, height: h } };
      if (parentIdx !== null) n.parent = parentIdx;
      if (text) n.text = text;
      const name = accessibleName(el, tag, attrs);
      if (name) n.name = name;
      // (a rich-text editor shows its placeholder from an attribute of its own: Quill's
      // data-placeholder, Tiptap's on its empty paragraph, aria-placeholder)
      const placeholder = attrs ? norm(el.getAttribute("placeholder") || (editable
        ? el.getAttribute("aria-placeholder") || el.getAttribute("data-placeholder") : "")) : "";
      if (placeholder) n.placeholder = placeholder;
      const resourceId = attrs ? el.id || el.getAttribute("data-testid") || "" : "";
      if (resourceId) n.resource_id = resourceId;
      const label = "labels" in el ? labelText(el) : "";   // (a labelable element)
      if (label) n.label = label;
      // (any select, a frame's or a shadow root's too: closedSelects holds the page's own)
      if (tag === "SELECT" && !el.multiple && el.size <= 1 && el.options.length) {
        n.options = [...el.options].slice(0, 200).map((o) => norm(o.label || o.text));
      }
      if (clickable) n.clickable = true;
      if (editable) n.editable = true;
      // what a field holds now: native trees show it (an EditText's text, a WDA value)
      const value = editable && (tag === "INPUT" || tag === "TEXTAREA") ? (el.value || "") : "";
      if (value) n.value = value;
      if (el === active) {      // a native tree's focused="true" (simulators)
        n.focused = true; focus = idx;
      }
      // (:disabled matches form controls, which have a disabled property, and form-associated
      // custom elements, whose names have a "-")
      const control = "disabled" in el || tag.includes("-");
      if ((control && el.matches(":disabled"))
          || (attrs && el.getAttribute("aria-disabled") === "true")) {
        n.enabled = false;
      }
      const [cl, ct, cr, cb] = f.clip;
      if (!(r.right * f.k + f.dx > cl && r.bottom * f.k + f.dy > ct
            && r.left * f.k + f.dx < cr && r.top * f.k + f.dy < cb)) n.visible = false;
      nodes.push(n);
    }
    const shadow = reach.rootOf(el);               // open or closed
    if (shadow) {
      for (const c of shadow.children) visit(c, idx, f);
    }
    if (rendered && (tag === "IFRAME" || tag === "FRAME")) {
      const o = reach.inside(el), doc = o.doc;
      if (doc && doc.body) {
        const dx = f.dx + o.x * f.k, dy = f.dy + o.y * f.k, k = f.k * o.k, v = doc.defaultView;
        const clip = [Math.max(f.clip[0], dx), Math.max(f.clip[1], dy),
                      Math.min(f.clip[2], dx + v.innerWidth * k),
                      Math.min(f.clip[3], dy + v.innerHeight * k)];
        visit(doc.body, idx, { view: v, dx, dy, k, clip });
      }
    }
    for (const c of el.children) visit(c, idx, f);
  };

  if (document.body) visit(document.body, null, { view: window, dx: 0, dy: 0, k: 1,
                                                    clip: [0, 0, vw, vh] });
  window.__farmNodes = elements;
  // (a page of thousands of elements: its first hit test costs tens of ms; the tap checks)
  if (checks !== false && nodes.length <= 1500) {
    const MAX_REACH = 100;     // hit tests a walk makes at most
    let checks = 0;
    for (const n of nodes) {
      if (n.visible === false || !(n.clickable || n.editable) || checks >= MAX_REACH) continue;
      // the point farm taps: farm.devices.base.Rect.center
      const cx = n.rect.x + Math.floor(n.rect.width / 2);
      const cy = n.rect.y + Math.floor(n.rect.height / 2);
      if (cx < 0 || cy < 0 || cx >= vw || cy >= vh) continue;
      checks++;
      n.reached = reach.reaches(elements[n.id], reach.at(cx, cy));
    }
  }
  return { truncated, nodes, focus };
}
