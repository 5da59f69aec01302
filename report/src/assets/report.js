// Filters and expandable evidence for report.html. Without JavaScript every row and
// every evidence block is simply shown.
(function () {
  "use strict";
  var doc = document;
  doc.documentElement.classList.add("js");
  var rows = Array.prototype.slice.call(doc.querySelectorAll("tr.r"));
  var sections = Array.prototype.slice.call(doc.querySelectorAll("section.area"));
  var chips = Array.prototype.slice.call(doc.querySelectorAll(".chip[data-status]"));
  var area = doc.getElementById("f-area");
  var text = doc.getElementById("f-text");
  var shown = doc.getElementById("shown");
  // The text each row is searched by: its cells and its evidence, once.
  rows.forEach(function (r) {
    var ev = r.nextElementSibling;
    var t = r.textContent + (ev && ev.classList.contains("ev") ? " " + ev.textContent : "");
    r.dataset.text = t.toLowerCase();
  });
  function evOf(r) {
    var ev = r.nextElementSibling;
    return ev && ev.classList.contains("ev") ? ev : null;
  }
  function apply() {
    var on = {};
    chips.forEach(function (c) { on[c.dataset.status] = c.getAttribute("aria-pressed") === "true"; });
    var a = area ? area.value : "";
    var q = text ? text.value.trim().toLowerCase() : "";
    var n = 0;
    rows.forEach(function (r) {
      var show = on[r.dataset.status] !== false && (!a || r.dataset.area === a) &&
        (!q || r.dataset.text.indexOf(q) >= 0);
      r.hidden = !show;
      var ev = evOf(r);
      if (ev) { ev.hidden = !show; }
      if (show) { n++; }
    });
    sections.forEach(function (s) {
      var visible = s.querySelectorAll("tr.r:not([hidden])").length;
      var total = s.querySelectorAll("tr.r").length;
      // A text search hides areas without a match; the status filter alone keeps every
      // area on screen, so an area whose results are all hidden passes still shows up.
      s.hidden = (!!a && s.dataset.area !== a) || (!!q && visible === 0);
      var none = s.querySelector(".none");
      if (none) {
        none.hidden = visible > 0;
        none.textContent = "No result matches the filters (" + total + " hidden).";
      }
      var tbl = s.querySelector("table.results");
      if (tbl) { tbl.hidden = visible === 0; }
    });
    if (shown) { shown.textContent = n + " of " + rows.length + " results shown"; }
  }
  function toggle(r, open) {
    var ev = evOf(r);
    if (!ev) { return; }
    if (open === undefined) { open = !r.classList.contains("open"); }
    r.classList.toggle("open", open);
    ev.classList.toggle("open", open);
    r.setAttribute("aria-expanded", open ? "true" : "false");
  }
  chips.forEach(function (c) {
    c.addEventListener("click", function () {
      c.setAttribute("aria-pressed", c.getAttribute("aria-pressed") === "true" ? "false" : "true");
      apply();
    });
  });
  rows.forEach(function (r) {
    if (!r.classList.contains("x")) { return; }
    r.addEventListener("click", function (e) {
      if (window.getSelection && String(window.getSelection()).length > 0) { return; }
      toggle(r);
    });
    r.addEventListener("keydown", function (e) {
      if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(r); }
    });
  });
  // The C reproducer's Copy button: its <pre> to the clipboard.
  Array.prototype.forEach.call(doc.querySelectorAll("button.copy"), function (b) {
    b.addEventListener("click", function (e) {
      e.stopPropagation();
      var pre = b.nextElementSibling;
      if (pre && navigator.clipboard) {
        navigator.clipboard.writeText(pre.textContent).then(function () { b.textContent = "Copied"; });
      }
    });
  });
  if (area) { area.addEventListener("change", apply); }
  if (text) { text.addEventListener("input", apply); }
  var all = doc.getElementById("expand");
  if (all) { all.addEventListener("click", function () { rows.forEach(function (r) { if (!r.hidden) { toggle(r, true); } }); }); }
  var none = doc.getElementById("collapse");
  if (none) { none.addEventListener("click", function () { rows.forEach(function (r) { toggle(r, false); }); }); }
  // Open the findings of a small report at once: few enough to read without clicking.
  var findings = rows.filter(function (r) { return r.classList.contains("finding"); });
  if (findings.length > 0 && findings.length <= 5) { findings.forEach(function (r) { toggle(r, true); }); }
  apply();
})();
