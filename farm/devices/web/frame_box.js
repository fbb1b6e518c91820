// Where a frame of another origin than its parent's shows in the page its parent's script
// reads (farm/devices/web/frames.py): evaluated on the frame's element, in the document that
// holds it (same-origin frames between it and that page are gone up through), with
// [rects, check, vw, vh]: the frame's elements as its own read found them ([x, y, w, h] in
// its viewport), the indexes of those whose middle that read found a tap reaching, and the
// frame's viewport size. Returns null when the element is gone or not shown (display: none,
// visibility: hidden, opacity: 0, its own or an ancestor's: nothing of it is drawn), else
// {parent, at, rects, hits}: the element's index in the page's last read (-1: not in it),
// at = [dx, dy, k] (a point (x, y) of the frame's viewport is (x k + dx, y k + dy) in the
// page's), the rects there ([x, y, w, h, shown]: shown false where the frame, or the page,
// clips it away) and, for each of ``check``, whether a tap at the middle of its rect there
// goes into the frame: true, or what of the page it hits instead (covering the frame there).
(el, [rects, check, vw, vh], {at, inside}) => {
  if (!el.isConnected || !el.getClientRects().length) return null;
  if (el.checkVisibility && !el.checkVisibility({opacityProperty: true,
                                                 visibilityProperty: true})) return null;
  const o = inside(el);
  let k = o.k, dx = o.x, dy = o.y;           // the frame's viewport in its document's
  let ok = 1, odx = 0, ody = 0;              // that document's viewport in the page's
  const cut = (c, v) => [Math.max(c[0], 0), Math.max(c[1], 0), Math.min(c[2], v.innerWidth),
                         Math.min(c[3], v.innerHeight)];
  let view = el.ownerDocument.defaultView;
  let clip = cut([dx, dy, dx + vw * k, dy + vh * k], view);
  for (; view.frameElement; view = view.parent) {     // (null past a frame of another origin)
    const p = inside(view.frameElement);
    dx = dx * p.k + p.x; dy = dy * p.k + p.y; k *= p.k;
    odx = odx * p.k + p.x; ody = ody * p.k + p.y; ok *= p.k;
    clip = cut(clip.map((v, i) => v * p.k + (i % 2 ? p.y : p.x)), view.parent);
  }
  const out = rects.map(([x, y, w, h]) => {
    const l = x * k + dx, t = y * k + dy, r = (x + w) * k + dx, b = (y + h) * k + dy;
    return [Math.round(l), Math.round(t), Math.round(w * k), Math.round(h * k),
            r > clip[0] && b > clip[1] && l < clip[2] && t < clip[3]];
  });
  const describe = (hit) => {
    let text = (hit.innerText || "").replace(/\s+/g, " ").trim();
    if (text.length > 30) text = text.slice(0, 31).replace(/\s+\S*$/, "") + "…";
    return `<${hit.tagName.toLowerCase()}>` + (text ? ` "${text}"` : "");
  };
  const hits = check.map((i) => {
    const [x, y, w, h, shown] = out[i];
    const cx = x + Math.floor(w / 2), cy = y + Math.floor(h / 2);  // farm's Rect.center
    if (!shown || cx < clip[0] || cy < clip[1] || cx >= clip[2] || cy >= clip[3]) {
      return "the edge of the page";
    }
    const hit = at((cx - odx) / ok, (cy - ody) / ok);
    return hit === el || (hit ? describe(hit) : "the edge of the page");
  });
  const parent = (view.__farmNodes || []).indexOf(el);
  return { parent, at: [dx, dy, k], rects: out, hits };
}
