// After the mouse reached (x, y) to tap node i of the last DOM read, before the button goes
// down: whether the tap still reaches it there. A page may move or cover its target when the
// pointer arrives (a hover that shifts the button, reveals a panel over it): the click then
// went elsewhere and the step passed. Returns null when the tap reaches it at (x, y) (or no
// telling: the node is gone from the read or the page); [nx, ny] when it moved and is reached
// at its new middle; else a description of what the tap would hit now. Evaluated by
// farm/devices/web/dom_read.py as a function expression called with [i, x, y] and reach.js's
// helpers, as hit.js is.
([i, x, y], {at, chain, reaches, box}) => {
  const el = (window.__farmNodes || [])[i];
  // gone (a hover that re-rendered it): no telling, the tap goes as before
  if (!el || !el.isConnected) return null;
  const hit = at(x, y);
  if (reaches(el, hit)) return null;
  const r = box(el);
  const nx = Math.round(r.left + r.width / 2), ny = Math.round(r.top + r.height / 2);
  if (r.width > 0 && r.height > 0 && nx >= 0 && ny >= 0 && nx < innerWidth && ny < innerHeight
      && reaches(el, at(nx, ny))) return [nx, ny];
  if (!hit) return "the edge of the page";
  const mine = new Set(chain(el));
  let cover = hit;                          // the outermost element there not holding it
  for (const n of chain(hit)) { if (mine.has(n)) break; cover = n; }
  const tag = cover.tagName.toLowerCase();
  let text = (cover.innerText || "").replace(/\s+/g, " ").trim();
  if (text.length > 30) text = text.slice(0, 31).replace(/\s+\S*$/, "") + "…";
  return `<${tag}>` + (text ? ` "${text}"` : "");
}
