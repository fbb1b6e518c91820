// Installed in every page of a farm browser context before the page's own scripts
// (BrowserContext.add_init_script). window.__farm.gen counts what can change a screenshot or a
// DOM read: mutations, scrolling, input, focus, hover, resizes, loads, ends of transitions and
// animations; window.__farm.leaving turns true when the document starts to unload (a navigation
// began). farm/devices/web/ reads both: an unchanged page is not captured or walked
// again, and a DOM read waits for the navigation a step started.
(() => {
  if (window.__farm) return;
  const state = { gen: 0, leaving: false };
  Object.defineProperty(window, "__farm", { value: state });
  const bump = () => { state.gen++; };
  new MutationObserver(bump).observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true });
  // (mouseover / mouseout: a :hover rule shows or hides a menu without a mutation)
  for (const type of ["scroll", "resize", "input", "change", "load", "focusin", "focusout",
                      "mouseover", "mouseout", "transitionend", "animationend"]) {
    addEventListener(type, bump, true);
  }
  addEventListener("beforeunload", () => { state.leaving = true; }, true);
  addEventListener("pagehide", () => { state.leaving = true; }, true);
  addEventListener("pageshow", () => { state.leaving = false; bump(); }, true);
})();
