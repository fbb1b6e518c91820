// farm report: filters (status, platform, device, tag, verdict against earlier runs), text
// search, a link to each case,
// expand/collapse, screenshot lightbox. No dependencies.
//
// The page's state is its URL's fragment, so a link pasted in a chat opens what its sender saw
// and Back / Forward step through it: "#case=<case id>" opens and shows one case;
// "#status=failed&device=pixel-2&q=declined" is a filtered list; "#since=new-failure" the
// new failures (the header's "1 new failure" links there).
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var filters = Array.prototype.slice.call(document.querySelectorAll("button[data-filter]"));
  var picks = Array.prototype.slice.call(document.querySelectorAll("select[data-pick]"));
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var empty = document.getElementById("empty");
  var ALL = {status: "all", platform: "", device: "", tag: "", since: "", q: ""};
  var state = Object.assign({}, ALL);
  var FACETS = ["platform", "device", "tag", "since"];
  var typing = false;   // the current history entry is the search being typed
  var tagsOf = new Map(cases.map(function (c) {
    try { return [c, JSON.parse(c.getAttribute("data-tags") || "[]")]; }
    catch (e) { return [c, []]; }
  }));
  // what a case is searched by: its summary's words (status, name, file, verdict), its
  // platform and device (not the chips' numbers: "1" matched every case's "attempt 1"), its
  // tags and its data-q (id, what its device is, why it failed); the page does
  // not write the summary's words twice; full-width forms read as half-width (NFKC)
  var textOf = new Map(cases.map(function (c) {
    var shown = c.querySelectorAll(":scope > summary > span:not(.chips), :scope > summary .since");
    var words = Array.prototype.map.call(shown, function (n) { return n.textContent; });
    return [c, words.concat(c.getAttribute("data-platform") || "",
                            c.getAttribute("data-device") || "",
                            tagsOf.get(c), c.getAttribute("data-q") || "")
      .join(" ").normalize("NFKC").toLowerCase()];
  }));

  // -- a case or step shown from its link lands below the sticky toolbar ----------------------
  // (scroll-margin-top in report.css reads --toolbar): the bar is one row on a laptop and
  // three on a phone, where a fixed margin left the case's title under it
  var bar = document.querySelector(".toolbar");
  function measureBar() {
    // (a phone's toolbar is not sticky, report.css: nothing to land below)
    var sticky = bar && getComputedStyle(bar).position === "sticky";
    if (bar) document.documentElement.style.setProperty("--toolbar",
                                                        (sticky ? bar.offsetHeight : 0) + "px");
  }
  measureBar();
  if (bar && "ResizeObserver" in window) new ResizeObserver(measureBar).observe(bar);
  else window.addEventListener("resize", measureBar);

  // -- screenshots: a tab stop each (Enter opens the lightbox), their alt saying the step ----
  // ("after step 3: aiTap "Sign in""; the page writes "after": 12,000 images' words)
  function thumbs(root) {
    Array.prototype.forEach.call(root.querySelectorAll(".steps img, img.shot"), function (img) {
      img.tabIndex = 0;
      var row = img.closest(".steps tr");
      if (!row || row.cells.length < 2 || img.getAttribute("data-said")) return;
      var label = row.cells[1].firstChild;  // the step label text, before line/error notes
      var text = label ? label.textContent.trim() : "";
      var when = img.alt === "where it acted" ? "where it acted at" : img.alt;
      img.alt = when + " step " + row.cells[0].textContent.trim() +
        (text ? ": " + (text.length > 120 ? text.slice(0, 119) + "…" : text) : "");
      img.setAttribute("data-said", "1");
    });
  }
  thumbs(document);

  // -- a closed case's body is raw text (a <noscript>) until it is opened ------------------
  function unfold(c) {
    var later = c.querySelector(":scope > .body > noscript");
    if (!later) return;
    var t = document.createElement("template");
    t.innerHTML = later.textContent;
    thumbs(t.content);
    later.replaceWith(t.content);
  }
  // "expand all" of 2,000 cases unfolds each as it comes near the screen, not all at once
  var near = "IntersectionObserver" in window ? new IntersectionObserver(function (seen) {
    seen.forEach(function (e) {
      if (e.isIntersecting) { near.unobserve(e.target); unfold(e.target); }
    });
  }, {rootMargin: "1500px 0px"}) : null;
  document.addEventListener("toggle", function (event) {
    var c = event.target;
    if (!c.classList || !c.classList.contains("case") || !c.open) return;
    if (c.farmLazy && near) { c.farmLazy = false; near.observe(c); } else { unfold(c); }
  }, true);

  // -- filter and search ---------------------------------------------------------------------
  function visible(c) {
    // (NFKC: a full-width "：" or "Ａ" typed finds the half-width one, and back, as -k does)
    var words = state.q.normalize("NFKC").trim().toLowerCase().split(/\s+/);
    if (state.status !== "all" && c.getAttribute("data-status") !== state.status) return false;
    if (state.platform && c.getAttribute("data-platform") !== state.platform) return false;
    if (state.device && (c.getAttribute("data-device") || "") !== state.device) return false;
    if (state.tag && tagsOf.get(c).indexOf(state.tag) === -1) return false;
    if (state.since && (c.getAttribute("data-since") || "") !== state.since) return false;
    var text = textOf.get(c);
    // every word somewhere, in any order: "cart wrong" finds "wrong cart total"
    return words.every(function (w) { return text.indexOf(w) !== -1; });
  }

  function apply() {
    var n = 0;
    cases.forEach(function (c) {
      var ok = visible(c);
      if (c.hidden === ok) c.hidden = !ok;
      if (ok) n += 1;
    });
    filters.forEach(function (b) {
      var on = (b.getAttribute("data-filter") || "all") === state.status;
      b.classList.toggle("active", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
    picks.forEach(function (s) { s.value = state[s.getAttribute("data-pick")]; });
    if (search && search.value !== state.q) search.value = state.q;
    if (shown) shown.textContent = n + " of " + cases.length + " cases";
    if (empty) empty.hidden = n !== 0;
  }

  function fragment() {
    var parts = [];
    if (state.status !== "all") parts.push(["status", state.status]);
    FACETS.forEach(function (k) { if (state[k]) parts.push([k, state[k]]); });
    if (state.q.trim()) parts.push(["q", state.q.trim()]);
    return parts.map(function (p) { return p[0] + "=" + encodeURIComponent(p[1]); }).join("&");
  }

  // a filter is a step Back undoes; so is a search: its first keystroke is a new step, the
  // next ones (the same search being typed) replace it, so Back goes to before the search,
  // not to each letter, nor past the filter picked before it
  function remember(push) {
    var hash = fragment();
    var url = location.href.split("#")[0] + (hash ? "#" + hash : "");
    if (url === location.href) return;
    try {
      history[push ? "pushState" : "replaceState"](null, "", url);
    } catch (e) {      // (a browser refusing history on file://: the fragment alone)
      if (push) location.hash = hash; else location.replace("#" + hash);
    }
  }

  function hashText() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (e) { return ""; }
  }

  function show(c) {
    if (!visible(c)) {
      state = Object.assign({}, ALL);
      apply();
    }
    c.open = true;
    unfold(c);
    c.scrollIntoView({block: "start"});
  }

  function fromUrl() {
    var text = hashText();
    if (text.indexOf("case=") === 0) {
      var c = document.getElementById(text);
      if (c && c.classList.contains("case")) show(c);
      return;
    }
    if (text && text.indexOf("=") === -1) return;    // a step's anchor (#at-…): the browser's
    var params = new URLSearchParams(location.hash.slice(1));
    state = {status: params.get("status") || "all", platform: params.get("platform") || "",
             device: params.get("device") || "", tag: params.get("tag") || "",
             since: params.get("since") || "", q: params.get("q") || ""};
    typing = false;
    apply();
  }

  filters.forEach(function (button) {
    button.addEventListener("click", function () {
      state.status = button.getAttribute("data-filter") || "all";
      typing = false;
      apply();
      remember(true);
    });
  });
  picks.forEach(function (s) {
    s.addEventListener("change", function () {
      state[s.getAttribute("data-pick")] = s.value;
      typing = false;
      apply();
      remember(true);
    });
  });
  if (search) search.addEventListener("input", function () {
    state.q = search.value;
    apply();
    remember(!typing);
    typing = true;
  });
  if (search) search.addEventListener("change", function () { typing = false; });
  window.addEventListener("popstate", fromUrl);
  window.addEventListener("hashchange", fromUrl);

  Array.prototype.forEach.call(document.querySelectorAll("button[data-expand]"), function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-expand") === "open";
      cases.forEach(function (c) {
        if (c.hidden || c.open === open) return;
        c.farmLazy = open;
        c.open = open;
      });
    });
  });

  // -- lightbox ------------------------------------------------------------------------------
  var box = document.getElementById("lightbox");
  var boxImg = box ? box.querySelector("img") : null;
  var boxText = box ? box.querySelector("figcaption span") : null;
  var boxLink = box ? box.querySelector("figcaption a") : null;

  var opener = null;     // the thumbnail the lightbox opened from: focus goes back to it

  function openBox(img) {
    if (!box || !boxImg) return;
    var url = img.getAttribute("src");
    var caption = img.alt;     // "after step 3: aiTap "Sign in"" (`thumbs`)
    opener = img;
    boxImg.src = url;
    // a marked copy shows over its JPEG (its background), as in the table
    boxImg.style.backgroundImage = img.style.backgroundImage;
    boxImg.alt = caption;
    if (boxText) boxText.textContent = caption;
    if (boxLink) boxLink.href = url;
    box.hidden = false;
    if (boxLink) boxLink.focus();
  }

  function closeBox() {
    if (!box || box.hidden) return;
    box.hidden = true;
    if (opener) opener.focus();
    opener = null;
  }

  function isThumb(t) {
    return t && t.tagName === "IMG" && (t.classList.contains("shot") || !!t.closest(".steps"));
  }

  document.addEventListener("click", function (event) {
    var t = event.target;
    if (isThumb(t)) {
      event.preventDefault();
      openBox(t);
    } else if (box && !box.hidden && t !== boxLink) {
      closeBox();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      closeBox();
    } else if ((event.key === "Enter" || event.key === " ") && isThumb(event.target)) {
      event.preventDefault();     // a focused thumbnail opens as a click does
      openBox(event.target);
    } else if (event.key === "/" && search && document.activeElement !== search) {
      event.preventDefault();
      search.focus();
    }
  });

  fromUrl();
});
