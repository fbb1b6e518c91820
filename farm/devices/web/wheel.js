// Where a wheel aimed at a target scrolls what holds it (BrowserDevice.wheel_point). A wheel
// scrolls what is under the pointer: a target taller or wider than its scroll box (a list's
// content, a carousel's strip) has its middle outside the box, often outside the viewport,
// where the wheel scrolled the page or nothing. The point is inside the part of the target
// that shows (its box clipped by each ancestor that clips it, the frames it is in, the
// viewport and ``clip``) where the wheel reaches it (nothing else over it): [x, y] itself when
// that holds there, else the middle of that part, else the first point of a grid over it that
// is reached. A string: what covers all of it; "" when none of it shows; null: no telling (the
// target is not there any more, or no element of that box is under any point of it).
// Called with [i, x, y, rect, clip] (i: node of the last DOM read, or -1 for a box alone,
// found by its rect) and reach.js's helpers.
([i, x, y, rect, clip], {at, chain, box}) => {
  const near = (b) => Math.abs(b.left - rect[0]) <= 2 && Math.abs(b.top - rect[1]) <= 2
    && Math.abs(b.width - rect[2]) <= 2 && Math.abs(b.height - rect[3]) <= 2;
  const cut = (a, b) => ({ left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
                           right: Math.min(a.right, b.right),
                           bottom: Math.min(a.bottom, b.bottom) });
  const view = { left: Math.max(0, clip[0]), top: Math.max(0, clip[1]),
                 right: Math.min(innerWidth, clip[2]), bottom: Math.min(innerHeight, clip[3]) };
  const grid = (r, n) => {     // points of r, its middle first, then outward
    const out = [];
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) {
      out.push([r.left + (r.right - r.left) * (a + 0.5) / n,
                r.top + (r.bottom - r.top) * (b + 0.5) / n]);
    }
    const mx = (r.left + r.right) / 2, my = (r.top + r.bottom) / 2;
    return out.sort((p, q) => Math.hypot(p[0] - mx, p[1] - my) - Math.hypot(q[0] - mx, q[1] - my));
  };
  let el = i >= 0 ? (window.__farmNodes || [])[i] : null;
  if (i >= 0 && (!el || !el.isConnected)) return null;
  if (!el) {                   // a box alone (an XPath's, a model's): its element, by its rect
    const r = cut({ left: rect[0], top: rect[1], right: rect[0] + rect[2],
                    bottom: rect[1] + rect[3] }, view);
    if (r.right <= r.left || r.bottom <= r.top) return null;
    for (const [px, py] of grid(r, 7)) {
      el = chain(at(px, py) || document.documentElement).find((n) => near(box(n))) || null;
      if (el) break;
    }
    if (!el) return null;
  }
  let shows = box(el);         // clipped by what clips it, frame by frame
  for (let n = el; n;) {
    const s = n.ownerDocument.defaultView.getComputedStyle(n);
    let p = s.position === "fixed" ? null : (n.parentElement
      || (n.parentNode && n.parentNode.host) || null);
    if (p && p !== n.ownerDocument.documentElement) {
      const ps = p.ownerDocument.defaultView.getComputedStyle(p);
      if (ps.overflowX !== "visible" || ps.overflowY !== "visible") shows = cut(shows, box(p));
    } else if (!p) {           // the top of its document: the frame it is in clips it
      p = n.ownerDocument.defaultView.frameElement;
      if (p) shows = cut(shows, box(p));
    }
    n = p;
  }
  shows = cut(shows, view);
  if (shows.right - shows.left < 1 || shows.bottom - shows.top < 1) return "";
  const reached = ([px, py]) => { const hit = at(px, py); return !!hit && chain(hit).includes(el); };
  const inside_ = x >= shows.left && x < shows.right && y >= shows.top && y < shows.bottom;
  const tries = [...(inside_ ? [[x, y]] : []), ...grid(shows, 1), ...grid(shows, 5)];
  for (const p of tries) {
    const q = [Math.min(Math.floor(p[0]), Math.ceil(shows.right) - 1),
               Math.min(Math.floor(p[1]), Math.ceil(shows.bottom) - 1)];
    if (reached(q)) return q;
  }
  const hit = at((shows.left + shows.right) / 2, (shows.top + shows.bottom) / 2);
  if (!hit) return "the edge of the page";
  const cls = typeof hit.className === "string" ? hit.className.trim().split(/\s+/)[0] : "";
  const said = (hit.innerText || "").replace(/\s+/g, " ").trim();
  // (cut with "…": the secret masking then hides a secret's start there)
  const text = said.length > 30 ? said.slice(0, 30) + "\u2026" : said;
  return `<${hit.tagName.toLowerCase()}${hit.id ? ` id="${hit.id}"` : cls ? ` class="${cls}"` : ""}>`
    + (text ? ` "${text}"` : "");
}
