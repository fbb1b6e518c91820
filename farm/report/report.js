// farm report: status filter, text search, expand/collapse, screenshot lightbox. No dependencies.
document.addEventListener("DOMContentLoaded", function () {
  "use strict";
  var cases = Array.prototype.slice.call(document.querySelectorAll("details.case"));
  var filters = Array.prototype.slice.call(document.querySelectorAll("button[data-filter]"));
  var search = document.getElementById("search");
  var shown = document.getElementById("shown");
  var empty = document.getElementById("empty");
  var status = "all";

  function visible(c) {
    var words = search ? search.value.trim().toLowerCase().split(/\s+/) : [];
    if (status !== "all" && c.getAttribute("data-status") !== status) return false;
    var text = c.getAttribute("data-q") || "";
    // every word somewhere, in any order: "cart wrong" finds "wrong cart total"
    return words.every(function (w) { return text.indexOf(w) !== -1; });
  }

  function apply() {
    var n = 0;
    cases.forEach(function (c) {
      var ok = visible(c);
      c.hidden = !ok;
      if (ok) n += 1;
    });
    if (shown) shown.textContent = n + " of " + cases.length + " cases";
    if (empty) empty.hidden = n !== 0;
  }

  filters.forEach(function (button) {
    button.addEventListener("click", function () {
      status = button.getAttribute("data-filter") || "all";
      filters.forEach(function (b) {
        var on = b === button;
        b.classList.toggle("active", on);
        b.setAttribute("aria-pressed", on ? "true" : "false");
      });
      apply();
    });
  });
  if (search) search.addEventListener("input", apply);

  Array.prototype.forEach.call(document.querySelectorAll("button[data-expand]"), function (b) {
    b.addEventListener("click", function () {
      var open = b.getAttribute("data-expand") === "open";
      cases.forEach(function (c) { if (!c.hidden) c.open = open; });
    });
  });

  var box = document.getElementById("lightbox");
  var boxImg = box ? box.querySelector("img") : null;
  var boxText = box ? box.querySelector("figcaption span") : null;
  var boxLink = box ? box.querySelector("figcaption a") : null;

  function openBox(img) {
    if (!box || !boxImg) return;
    var url = img.getAttribute("src");
    var row = img.closest("tr");
    var caption = img.alt;
    if (row && row.cells.length > 1) {
      var label = row.cells[1].firstChild;  // the step label text, before line/error notes
      caption = "step " + row.cells[0].textContent + " " + img.alt + ": " +
        (label ? label.textContent.trim() : "");
    }
    boxImg.src = url;
    boxImg.alt = caption;
    if (boxText) boxText.textContent = caption;
    if (boxLink) boxLink.href = url;
    box.hidden = false;
  }

  function closeBox() {
    if (box) box.hidden = true;
  }

  document.addEventListener("click", function (event) {
    var t = event.target;
    if (t && t.tagName === "IMG" && (t.classList.contains("shot") || t.closest(".steps"))) {
      event.preventDefault();
      openBox(t);
    } else if (box && !box.hidden && t !== boxLink) {
      closeBox();
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape") {
      closeBox();
    } else if (event.key === "/" && search && document.activeElement !== search) {
      event.preventDefault();
      search.focus();
    }
  });

  apply();
});
