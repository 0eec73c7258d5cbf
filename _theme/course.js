// Marks the box that scrolls each table sideways (its nearest ancestor with overflow-x auto or
// scroll: the theme's table container, a notebook output, the course's .rnnlab-table) with the
// class "rnnlab-scrolls" when the table is wider than the box (a phone, mostly), so that
// course.css shows a visible cue; rechecked when the window is resized.
(function () {
  function scrollBox(table) {
    for (let node = table.parentElement; node && node !== document.body; node = node.parentElement) {
      const ox = getComputedStyle(node).overflowX;
      if (ox === "auto" || ox === "scroll") return node;
    }
    return null;
  }
  function mark() {
    document.querySelectorAll(".bd-article table").forEach(function (table) {
      const box = scrollBox(table);
      if (box) box.classList.toggle("rnnlab-scrolls", box.scrollWidth > box.clientWidth + 1);
    });
  }
  window.addEventListener("load", mark);
  window.addEventListener("resize", mark);
})();
