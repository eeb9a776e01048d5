(function () {
  "use strict";
  var reasons = JSON.parse(document.getElementById("reasons").textContent);
  var cells = Array.prototype.slice.call(document.querySelectorAll("td.cell"));
  var rows = Array.prototype.slice.call(document.querySelectorAll("#matrix tbody tr"));
  var search = document.getElementById("search");
  var detail = document.getElementById("detail");
  var svg = document.querySelector("svg.graph");

  function checked(kind) {
    var on = {};
    document.querySelectorAll("input[data-filter=" + kind + "]").forEach(function (i) { on[i.value] = i.checked; });
    return on;
  }
  function reasonsOf(td) {
    var r = td.getAttribute("data-r");
    if (!r) { return []; }
    return r.split(",").map(function (i) { return reasons[+i]; });
  }
  function text(td) {
    return [td.dataset.cuda, td.dataset.product, td.dataset.platform, td.dataset.status, td.textContent].concat(reasonsOf(td)).join(" ").toLowerCase();
  }
  function apply() {
    var plats = checked("platform"), prods = checked("product");
    var q = search.value.trim().toLowerCase();
    var shown = 0;
    document.querySelectorAll("[data-col-platform]").forEach(function (el) {
      var p = el.getAttribute("data-col-platform"), d = el.getAttribute("data-col-product");
      el.classList.toggle("off", (p && !plats[p]) || (d && !prods[d]) || false);
    });
    document.querySelectorAll("[data-product-head]").forEach(function (el) {
      var d = el.getAttribute("data-product-head"), n = 0;
      Object.keys(plats).forEach(function (p) { if (plats[p]) { n++; } });
      el.classList.toggle("off", !prods[d] || n === 0);
      el.colSpan = Math.max(n, 1);
    });
    rows.forEach(function (tr) {
      var any = false;
      tr.querySelectorAll("td.cell").forEach(function (td) {
        var vis = plats[td.dataset.platform] && prods[td.dataset.product];
        var hit = !q || text(td).indexOf(q) >= 0;
        td.classList.toggle("off", !vis);
        td.classList.toggle("dim", vis && !hit);
        if (vis && hit) { any = true; shown++; }
      });
      tr.classList.toggle("off", !any);
    });
    document.getElementById("shown").textContent = shown + " of " + cells.length + " cells shown";
    document.querySelectorAll("[data-targets]").forEach(function (el) {
      el.classList.toggle("off", !el.getAttribute("data-targets").split(" ").some(function (p) { return plats[p]; }));
    });
    if (svg) {
      svg.querySelectorAll(".node").forEach(function (n) {
        n.classList.toggle("off", !prods[n.dataset.product]);
        n.classList.toggle("hit", !!q && n.dataset.name.toLowerCase().indexOf(q) >= 0);
      });
      var prodOf = {};
      svg.querySelectorAll(".node").forEach(function (n) { prodOf[n.dataset.name] = n.dataset.product; });
      svg.querySelectorAll(".edge").forEach(function (e) {
        e.classList.toggle("off", !prods[prodOf[e.dataset.from]] || !prods[prodOf[e.dataset.to]]);
      });
    }
  }
  function show(td) {
    cells.forEach(function (c) { c.classList.remove("sel"); });
    td.classList.add("sel");
    var rs = reasonsOf(td);
    detail.querySelector("h3").textContent = "CUDA " + td.dataset.cuda + " · " + td.dataset.product + " · " + td.dataset.platform;
    detail.querySelector(".what").textContent = td.getAttribute("data-summary");
    var ul = detail.querySelector("ul");
    ul.textContent = "";
    rs.forEach(function (r) { var li = document.createElement("li"); li.textContent = r; ul.appendChild(li); });
    detail.classList.remove("off");
  }
  cells.forEach(function (td) {
    td.addEventListener("mouseenter", function () {
      if (!td.title) { td.title = [td.getAttribute("data-summary")].concat(reasonsOf(td)).join("\n"); }
    });
    td.addEventListener("click", function () { show(td); });
    td.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { show(td); } });
  });
  detail.querySelector("button").addEventListener("click", function () {
    detail.classList.add("off");
    cells.forEach(function (c) { c.classList.remove("sel"); });
  });
  document.querySelectorAll("input[data-filter]").forEach(function (i) { i.addEventListener("change", apply); });
  search.addEventListener("input", apply);
  if (svg) {
    svg.querySelectorAll(".node").forEach(function (n) {
      n.addEventListener("click", function () {
        var on = !n.classList.contains("focus");
        svg.querySelectorAll(".focus,.near").forEach(function (x) { x.classList.remove("focus", "near"); });
        svg.classList.toggle("dimmed", on);
        if (!on) { return; }
        n.classList.add("focus");
        var name = n.dataset.name;
        svg.querySelectorAll(".edge").forEach(function (e) {
          if (e.dataset.from === name || e.dataset.to === name) {
            e.classList.add("focus");
            var other = e.dataset.from === name ? e.dataset.to : e.dataset.from;
            svg.querySelectorAll(".node").forEach(function (m) { if (m.dataset.name === other) { m.classList.add("near"); } });
          }
        });
      });
    });
  }
  apply();
})();
