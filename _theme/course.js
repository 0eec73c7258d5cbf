// Marks every table scroll box whose content is wider than the box (a phone, mostly) with the
// class "rnnlab-scrolls", so that course.css shows a visible cue; rechecked when the window
// is resized. The boxes are the ones course.css lets scroll sideways.
(function () {
  const BOXES = [
    ".bd-article .pst-scrollable-table-container",
    ".bd-article div.cell_output .output.text_html",
    ".bd-article div.cell_output .output.text_markdown",
    ".bd-article .table-wrapper",
  ].join(", ");
  function mark() {
    document.querySelectorAll(BOXES).forEach(function (box) {
      if (!box.querySelector("table")) return;
      box.classList.toggle("rnnlab-scrolls", box.scrollWidth > box.clientWidth + 1);
    });
  }
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
})();
