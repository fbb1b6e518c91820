// Installed in every page of a farm browser context before the page's own scripts
// (BrowserContext.add_init_script). window.__farm.gen counts what can change a screenshot or a
// DOM read: mutations, scrolling, input, focus, hover, resizes, loads, ends of transitions and
// animations; window.__farm.leaving turns true when the document starts to unload (a navigation
// began); window.__farm.inflight counts the page's requests under way, framesLoading() its
// frames still loading. farm/devices/web/ reads
// them: an unchanged page is not captured or walked again, a DOM read waits for the navigation
// a step started, and a locate that missed waits for the page to change. Changes inside shadow roots
// (open or closed: attachShadow is wrapped, and a closed root is kept for the text read,
// visible_text.js) and inside same-origin frames (a frame's change counts as its parent's)
// count too; a frame of another origin keeps its own counts, which farm reads frame by frame
// (frames.py).
(() => {
  if (window.__farm) return;
  const state = { gen: 0, leaving: false };
  Object.defineProperty(window, "__farm", { value: state });
  let parent = null;
  try {
    if (window.parent !== window && window.parent.__farm) parent = window.parent.__farm;
  } catch (e) { /* a cross-origin parent: farm reads this frame on its own */ }
  const bump = () => { state.gen++; if (parent) parent.gen++; };
  // Frames of this document whose document has not loaded yet (a payment form the page's
  // script mounts after the page loaded, its server still sending it): each counts as a
  // request in flight while it shows (in the viewport, 2x2 px or more), and its load is a
  // change (an element's load event reaches the document, not the window).
  const loaded = new WeakSet();
  document.addEventListener("load", (event) => {
    if (event.target instanceof HTMLIFrameElement) { loaded.add(event.target); bump(); }
  }, true);
  const frames = document.getElementsByTagName("iframe");
  Object.defineProperty(state, "framesLoading", { value: () => {
    let n = 0;
    for (const frame of frames) {
      if (loaded.has(frame)) continue;
      const r = frame.getBoundingClientRect();
      if (r.width >= 2 && r.height >= 2 && r.bottom > 0 && r.right > 0
          && r.top < innerHeight && r.left < innerWidth) n++;
    }
    return n;
  } });
  const changed = (records) => {   // (a frame given another src loads again)
    for (const r of records) {
      if (r.attributeName === "src" && r.target instanceof HTMLIFrameElement) {
        loaded.delete(r.target);
      }
    }
    bump();
  };
  const watch = { subtree: true, childList: true, attributes: true, characterData: true };
  const observer = new MutationObserver(changed);
  observer.observe(document, watch);
  const closed = new WeakMap();
  Object.defineProperty(state, "closedRoot", { value: (host) => closed.get(host) || null });
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const root = attach.call(this, init);
    try {
      observer.observe(root, watch);
      if (init && init.mode === "closed") closed.set(this, root);
      bump();
    } catch (e) { /* never the page's problem */ }
    return root;
  };
  // (mouseover / mouseout: a :hover rule shows or hides a menu without a mutation)
  for (const type of ["scroll", "resize", "input", "change", "load", "focusin", "focusout",
                      "mouseover", "mouseout", "transitionend", "animationend"]) {
    addEventListener(type, bump, true);
  }
  // Requests the page's scripts have in flight (fetch, XMLHttpRequest): a locate that missed
  // waits for what they bring (BrowserDevice.await_change). The page gets a promise of the
  // same outcome from fetch (its rejection still unhandled where the page leaves it so).
  // Those the server answered with an error, or that failed, are kept (the last 5: method,
  // URL, status or 0) for the note of a step that then fails (failures.py).
  state.inflight = 0;
  state.failed = [];
  const ended = () => { state.inflight = Math.max(0, state.inflight - 1); };
  const failed = (method, url, status) => {
    try {
      state.failed.push([String(method || "GET").toUpperCase(), String(url), status]);
      if (state.failed.length > 5) state.failed.shift();
    } catch (e) { /* never the page's problem */ }
  };
  const fetch0 = window.fetch;
  if (typeof fetch0 === "function") {
    window.fetch = function (...args) {
      const reply = fetch0.apply(this, args);
      state.inflight++;
      const [input, init] = args;
      const method = (init && init.method) || (input && input.method) || "GET";
      const url = (input && input.url) || input;
      return reply.then((value) => {
        ended();
        if (value && value.status >= 400) failed(method, value.url || url, value.status);
        return value;
      }, (error) => {
        ended();
        if (!(error && error.name === "AbortError")) failed(method, url, 0);
        throw error;
      });
    };
  }
  // A body the page reads from such an answer (r.text(), r.json()...) comes after fetch's
  // promise resolved, maybe much later (a streamed or slow body): in flight too, until a task
  // after it came, when what the page does with it (its then) has run.
  const later = () => { setTimeout(ended, 0); };
  if (typeof Response === "function") {
    for (const name of ["text", "json", "arrayBuffer", "blob", "formData", "bytes"]) {
      const read0 = Response.prototype[name];
      if (typeof read0 !== "function") continue;
      Response.prototype[name] = function (...args) {
        const body = read0.apply(this, args);
        state.inflight++;
        body.then(later, later);
        return body;
      };
    }
  }
  const open0 = XMLHttpRequest.prototype.open;
  XMLHttpRequest.prototype.open = function (method, url, ...rest) {
    this.__farmCall = [method, url];
    return open0.call(this, method, url, ...rest);
  };
  const send0 = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    state.inflight++;
    const xhr = this;
    let aborted = false;
    xhr.addEventListener("abort", () => { aborted = true; }, { once: true });
    xhr.addEventListener("loadend", () => {
      ended();
      const [method, url] = xhr.__farmCall || ["GET", ""];
      if (!aborted && (xhr.status === 0 || xhr.status >= 400)) {
        failed(method, xhr.responseURL || url, xhr.status);
      }
    }, { once: true });
    try { return send0.apply(this, args); } catch (e) { ended(); throw e; }
  };
  // A form submitted (its submit event, which the page may still cancel, or form.submit(),
  // which fires none) navigates from a task of its own: a read right after the action waits
  // for that task (farm/devices/web/scripts.py SUBMITTED_JS).
  state.submitted = null;
  addEventListener("submit", (event) => { state.submitted = event; }, true);
  const submit0 = HTMLFormElement.prototype.submit;
  HTMLFormElement.prototype.submit = function (...args) {
    state.submitted = true;
    return submit0.apply(this, args);
  };
  addEventListener("beforeunload", () => { state.leaving = true; }, true);
  addEventListener("pagehide", () => { state.leaving = true; }, true);
  addEventListener("pageshow", () => { state.leaving = false; bump(); }, true);
})();
