// Where a tap lands, shared by the DOM walk (dom.js: whether each control's middle is its own)
// and the check before a tap (hit.js). An expression: an object of helpers.
//   at(x, y): the innermost element a tap at (x, y) hits, inside shadow roots and frames of
//     the page's origin too;
//   chain(n): n and its ancestors (across shadow roots);
//   reaches(el, hit): whether a tap that hits ``hit`` goes to ``el``: the target, the button,
//     link or label it is part of, or the control a label stands for (what Playwright's
//     hit-target check accepts);
//   inside(frame): where a frame element's document starts in the viewport ({x, y}), how
//     much its CSS pixels are scaled there (k: a CSS zoom or transform on the frame or around
//     it draws its content larger or smaller), and its document when the page may read it (a
//     frame of its origin), else null;
//   box(el): el's rect in the viewport's coordinates (one of a frame: moved by where it is);
//   rootOf(el): el's shadow root, open or closed (page_state.js keeps the closed ones);
//   focused(): the element with the keyboard focus, inside shadow roots and same-origin frames.
(() => {
  const rootOf = (el) => {
    if (el.shadowRoot) return el.shadowRoot;
    const state = el.ownerDocument.defaultView && el.ownerDocument.defaultView.__farm;
    return state && state.closedRoot ? state.closedRoot(el) : null;
  };
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const chain = (n) => { const out = []; for (; n; n = up(n)) out.push(n); return out; };
  const inside = (frame) => {
    let doc = null;
    try { doc = frame.contentDocument; } catch (e) { doc = null; }
    const view = frame.ownerDocument.defaultView;
    const r = frame.getBoundingClientRect(), s = view.getComputedStyle(frame);
    // (offsetWidth: its width as laid out, before any zoom or transform draws it)
    const k = frame.offsetWidth > 0 && r.width > 0 ? r.width / frame.offsetWidth : 1;
    return { doc: doc && doc.defaultView ? doc : null, k,
             x: r.left + (frame.clientLeft + parseFloat(s.paddingLeft)) * k,
             y: r.top + (frame.clientTop + parseFloat(s.paddingTop)) * k };
  };
  const box = (el) => {
    const r = el.getBoundingClientRect();
    let k = 1, dx = 0, dy = 0;   // (x, y) in its viewport: (x k + dx, y k + dy) in the page's
    for (let view = el.ownerDocument.defaultView; view && view.frameElement; view = view.parent) {
      const o = inside(view.frameElement);
      dx = dx * o.k + o.x; dy = dy * o.k + o.y; k *= o.k;
    }
    return { left: r.left * k + dx, top: r.top * k + dy, right: r.right * k + dx,
             bottom: r.bottom * k + dy, width: r.width * k, height: r.height * k };
  };
  const at = (px, py) => {
    let root = document, lx = px, ly = py;     // the point in root's viewport
    for (;;) {
      let hit = root.elementFromPoint(lx, ly);
      while (hit && rootOf(hit)) {
        const inner = rootOf(hit).elementFromPoint(lx, ly);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      if (!hit || (hit.tagName !== "IFRAME" && hit.tagName !== "FRAME")) return hit;
      const o = inside(hit);
      if (!o.doc) return hit;                  // another origin's: the frame is what it hits
      root = o.doc; lx = (lx - o.x) / o.k; ly = (ly - o.y) / o.k;
    }
  };
  const reaches = (el, hit) => {
    if (!hit) return false;
    if (hit === el) return true;
    const owner = el.closest("button, [role=button], a, [role=link], label") || el;
    const takers = new Set([el, owner]);
    if (owner.control) takers.add(owner.control);
    return chain(hit).some((n) => takers.has(n) || (n.tagName === "LABEL" && n.control === el));
  };
  const focused = () => {
    let active = document.activeElement;
    for (;;) {
      let inner = null;
      const shadow = active ? rootOf(active) : null;
      if (shadow) inner = shadow.activeElement;
      else if (active && (active.tagName === "IFRAME" || active.tagName === "FRAME")) {
        const doc = inside(active).doc;
        inner = doc ? doc.activeElement : null;
      }
      if (!inner || inner === active) return active;
      active = inner;
    }
  };
  return {at, chain, reaches, inside, box, rootOf, focused};
})()
