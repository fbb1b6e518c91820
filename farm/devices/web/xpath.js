// Rendered elements matching an XPath, as [x, y, w, h] viewport rects; text and attribute
// hits map to their element.  Returns {error} instead of throwing so that a bad XPath becomes
// a StepFailed in farm/devices/web/dom_read.py, not a Playwright error.
(xpath) => {
  let snap;
  try {
    snap = document.evaluate(xpath, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
  } catch (e) { return {error: String(e && e.message || e)}; }
  const out = [];
  for (let i = 0; i < snap.snapshotLength; i++) {
    let n = snap.snapshotItem(i);
    if (n.nodeType === 2) n = n.ownerElement;
    else if (n.nodeType !== 1) n = n.parentElement;
    if (!n || !n.getBoundingClientRect) continue;
    const r = n.getBoundingClientRect();
    const s = getComputedStyle(n);
    if (r.width <= 0 || r.height <= 0 || s.visibility === 'hidden' || s.display === 'none'
        || parseFloat(s.opacity) === 0) continue;
    out.push([Math.round(r.left), Math.round(r.top), Math.round(r.width), Math.round(r.height)]);
  }
  return {rects: out};
}
