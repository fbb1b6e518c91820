// Where a tap lands, shared by the DOM walk (dom.js: whether each control's middle is its own)
// and the check before a tap (hit.js). An expression: an object of helpers.
//   at(x, y): the innermost element a tap at (x, y) hits, inside shadow roots too;
//   chain(n): n and its ancestors (across shadow roots);
//   reaches(el, hit): whether a tap that hits ``hit`` goes to ``el``: the target, the button,
//     link or label it is part of, or the control a label stands for (what Playwright's
//     hit-target check accepts).
(() => {
  const up = (n) => n.parentElement || (n.parentNode && n.parentNode.host) || null;
  const chain = (n) => { const out = []; for (; n; n = up(n)) out.push(n); return out; };
  const at = (px, py) => {
    let hit = document.elementFromPoint(px, py);
    while (hit && hit.shadowRoot) {
      const inner = hit.shadowRoot.elementFromPoint(px, py);
      if (!inner || inner === hit) break;
      hit = inner;
    }
    return hit;
  };
  const reaches = (el, hit) => {
    if (!hit) return false;
    if (hit === el) return true;
    const owner = el.closest("button, [role=button], a, [role=link], label") || el;
    const takers = new Set([el, owner]);
    if (owner.control) takers.add(owner.control);
    return chain(hit).some((n) => takers.has(n) || (n.tagName === "LABEL" && n.control === el));
  };
  return {at, chain, reaches};
})()
