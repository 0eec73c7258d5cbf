// The parameter explorer in the browser (rnnlab.course.widgets.explorer_page_html): __ID__,
// __MAX_LAYERS__ and __MATH__ are filled in by Python.
(function () {
  "use strict";
  var root = document.getElementById("__ID__");
  if (!root || root.dataset.ready) { return; }
  root.dataset.ready = "1";
  var MAX_LAYERS = __MAX_LAYERS__;
  function el(name) { return root.querySelector("[data-k='" + name + "']"); }
  function fmt(n) { return Math.round(n).toLocaleString("en-US"); }
  function pct(x) {
    var s = (100 * Math.abs(x)).toFixed(3);
    return (x < 0 && Number(s) !== 0 ? "\u2212" : "+") + s + "%";
  }
__MATH__
  function update() {
    var m = Number(el("m").value), d = Number(el("d").value), L = Number(el("L").value);
    var tied = el("tie").checked;
    var budgetBox = el("budget");
    if (tied) { budgetBox.value = String(lstm(m, d, 1)); }
    budgetBox.disabled = tied;
    var B = Math.max(1, Math.floor(Number(budgetBox.value) || 1));
    el("m-out").textContent = m; el("d-out").textContent = d; el("L-out").textContent = L;
    el("layers-word").textContent = L > 1 ? "layers" : "layer";
    el("m-head").textContent = m; el("d-head").textContent = d; el("L-head").textContent = L;
    el("textbook").textContent = fmt(textbook(m, d, L));
    el("torch").textContent = fmt(lstm(m, d, L));
    el("bias").textContent = fmt(lstm(m, d, L) - textbook(m, d, L));
    el("B").textContent = fmt(B);
    el("source").textContent = tied ? "one PyTorch layer of width d = " + d : "chosen budget";
    el("rule-head").hidden = !tied;
    for (var n = 1; n <= MAX_LAYERS; n++) {
      var row = root.querySelector("tr[data-layers='" + n + "']");
      var mt = matched(B, m, n);
      var cells = row.querySelectorAll("td");
      var rule = cells[cells.length - 1];
      rule.hidden = !tied;
      rule.textContent = (d / Math.sqrt(2 * n - 1)).toFixed(1);
      if (mt === null) {
        cells[1].textContent = "\u2013"; cells[2].textContent = "\u2013";
        cells[3].textContent = "below the minimum " + fmt(lstm(m, 1, n)) + " (width 1)";
      } else {
        cells[1].textContent = String(mt.width); cells[2].textContent = fmt(mt.count);
        cells[3].textContent = pct(mt.error);
      }
      row.dataset.width = mt === null ? "" : String(mt.width);
    }
    root.dataset.torchCount = String(lstm(m, d, L));
  }
  root.addEventListener("input", update);
  root.addEventListener("change", update);
  update();
})();
