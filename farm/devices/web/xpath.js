// Rendered elements matching an XPath, as [x, y, w, h] viewport rects; text and attribute
// hits map to their element. ``hidden``: why each match that is not shown is not
// ("display:none on its div.sub"), for a miss to say it matched something all the same. The page's document first, then each shown frame of its origin
// (the XPath evaluated in the frame's document, its rects moved to where the frame is: what
// the DOM walk, dom.js, reads there too); a frame of another origin is searched on its own,
// with this script evaluated in it (farm/devices/web/frames.py). Returns {error} instead of
// throwing so that a bad XPath becomes a StepFailed in farm/devices/web/dom_read.py, not a
// Playwright error.
// Evaluated with reach.js's helpers.
(xpath, {inside}) => {
  const out = [], hidden = [];   // (hidden: why each match not shown is not, "display:none")
  const named = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
    (typeof el.className === 'string' && el.className.trim()
      ? '.' + el.className.trim().split(/\s+/).join('.') : '');
  const why = (n, r) => {
    for (let el = n; el && el.nodeType === 1; el = el.parentElement) {
      const s = el.ownerDocument.defaultView.getComputedStyle(el);
      const on = el === n ? '' : ` on its ${named(el)}`;
      if (s.display === 'none') return 'display:none' + on;
      if (el === n && s.visibility === 'hidden') return 'visibility:hidden';
      if (parseFloat(s.opacity) === 0) return 'opacity:0' + on;
    }
    return r.width > 0 || r.height > 0 ? 'no width or height' : 'no size';
  };
  const search = (doc, dx, dy, k) => {     // (k: how much a zoomed frame scales its pixels)
    const view = doc.defaultView;
    const snap = doc.evaluate(xpath, doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
    const shown = (n, r) => {
      const s = view.getComputedStyle(n);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'
        && parseFloat(s.opacity) !== 0;
    };
    for (let i = 0; i < snap.snapshotLength; i++) {
      let n = snap.snapshotItem(i);
      if (n.nodeType === 2) n = n.ownerElement;
      else if (n.nodeType !== 1) n = n.parentElement;
      if (!n || !n.getBoundingClientRect) continue;
      const r = n.getBoundingClientRect();
      if (!shown(n, r)) { hidden.push(why(n, r)); continue; }
      out.push([Math.round(r.left * k + dx), Math.round(r.top * k + dy),
                Math.round(r.width * k), Math.round(r.height * k)]);
    }
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      const o = inside(frame);
      if (o.doc && shown(frame, frame.getBoundingClientRect())) {
        search(o.doc, dx + o.x * k, dy + o.y * k, k * o.k);
      }
    }
  };
  try {
    search(document, 0, 0, 1);
  } catch (e) { return {error: String(e && e.message || e)}; }
  return {rects: out, hidden};
}
