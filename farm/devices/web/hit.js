// What a tap at (x, y) on node i of the last DOM read (dom.js keeps elements[i] as
// window.__farmNodes[i]) would hit. Returns [x, y, cover]: cover "" when the tap reaches the
// target (the point may have moved: a covered target is scrolled to the viewport's middle once,
// as scrollIntoViewIfNeeded does, and checked again), else a description of what covers it.
// Evaluated by farm/devices/web/dom_read.py as a function expression called with [i, x, y]
// and reach.js's helpers.
([i, x, y], {at, chain, reaches, box}) => {
  const el = (window.__farmNodes || [])[i];
  if (!el || !el.isConnected) return [x, y, ""];   // no telling: the tap goes as before
  const was = box(el);                        // not where it was read: not the one meant
  if (x < was.left - 1 || x > was.right + 1 || y < was.top - 1 || y > was.bottom + 1) {
    return [x, y, ""];
  }
  const describe = (hit) => {
    const mine = new Set(chain(el));
    let cover = hit;                        // the outermost element over it not holding it
    for (const n of chain(hit)) { if (mine.has(n)) break; cover = n; }
    const tag = cover.tagName.toLowerCase();
    const cls = typeof cover.className === "string" ? cover.className.trim() : "";
    const attr = cover.id ? ` id="${cover.id}"`
      : cls ? ` class="${cls.split(/\s+/).slice(0, 2).join(" ")}"` : "";
    let text = (cover.innerText || "").replace(/\s+/g, " ").trim();
    if (text.length > 30) text = text.slice(0, 31).replace(/\s+\S*$/, "") + "…";
    return `<${tag}${attr}>` + (text ? ` "${text}"` : "");
  };
  const hit = at(x, y);
  if (reaches(el, hit)) return [x, y, ""];
  el.scrollIntoView({block: "center", inline: "center", behavior: "instant"});
  if (window.__farm) window.__farm.gen++;  // the scroll event comes a frame later
  const r = box(el);
  const nx = Math.round(r.left + r.width / 2), ny = Math.round(r.top + r.height / 2);
  const again = at(nx, ny);
  if (reaches(el, again)) return [nx, ny, ""];
  return [nx, ny, again ? describe(again) : "the edge of the page"];
}
