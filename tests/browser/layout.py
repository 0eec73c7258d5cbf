"""Layout and colour measurements of a loaded page, taken in the browser (JavaScript snippets).

Used by ``test_site_layout.py``. Each function takes a Playwright page that has finished loading
(MathJax typeset, widgets drawn) and returns plain data; the tests decide what fails.

* :func:`image_sizes` -- every visible ``<img>``: its natural width, its rendered width and the
  width of the *page column* it could use. The page column is the main content area
  (``.bd-main``: the article plus the right-hand margin that sphinx-book-theme's ``full-width``
  figures may take), less its padding. A fair figure fills at least :data:`MIN_IMAGE_RATIO` of
  ``min(natural width, column width)``: a figure wider than the column may be scaled to fit it,
  but not shrunk into the narrow text column while the page has room for it.
* :func:`overflowing_elements` -- tables and ``.math`` elements whose content is wider than
  their box, or whose box sticks out of the page column, with no ancestor (or the element
  itself) that scrolls horizontally (``overflow-x: auto`` or ``scroll``): that content is
  clipped or runs off the page.
* :func:`sideways_tables` -- tables a reader must scroll sideways to read (none at 1280 px);
  :func:`scroll_boxes_without_cue` -- on a phone, a table box that scrolls sideways without
  the visible cue of ``_theme/course.js``; :func:`below_the_fold` -- elements not on the first
  screen (the answer of the intro and Findings must be).
* :func:`low_contrast_text` -- text in tables, notebook outputs and the explorer whose colour
  contrast against its effective background (the first ancestor with an opaque background) is
  below the WCAG AA minimum (4.5:1; 3:1 for large text).
"""

from __future__ import annotations

MIN_IMAGE_RATIO = 0.8
MIN_CONTRAST = 4.5
MIN_CONTRAST_LARGE = 3.0

_COLUMN_JS = """
function rnnlabColumn() {
  const main = document.querySelector('.bd-main') || document.querySelector('main')
               || document.body;
  const cs = getComputedStyle(main);
  const box = main.getBoundingClientRect();
  const left = box.left + parseFloat(cs.paddingLeft);
  const right = box.right - parseFloat(cs.paddingRight);
  return {left: left, right: right, width: right - left};
}
function rnnlabVisible(el) {
  const box = el.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return false;
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const cs = getComputedStyle(node);
    if (cs.display === 'none' || cs.visibility === 'hidden') return false;
    if (node.tagName === 'DETAILS' && !node.open && node !== el) {
      // content of a closed <details> (except its <summary>) is not shown
      if (!el.closest('summary')) return false;
    }
  }
  return true;
}
function rnnlabScrolls(el) {
  for (let node = el; node && node.nodeType === 1 && node !== document.body;
       node = node.parentElement) {
    const ox = getComputedStyle(node).overflowX;
    if (ox === 'auto' || ox === 'scroll') return true;
  }
  return false;
}
function rnnlabDescribe(el) {
  const id = el.id ? '#' + el.id : '';
  const cls = (el.className && typeof el.className === 'string')
              ? '.' + el.className.trim().split(/\\s+/).slice(0, 3).join('.') : '';
  const text = (el.innerText || el.getAttribute('alt') || '').replace(/\\s+/g, ' ').slice(0, 60);
  return el.tagName.toLowerCase() + id + cls + ' "' + text + '"';
}
"""


def image_sizes(page) -> list[dict]:
    """Visible images: ``src``, ``alt``, and ``natural``, ``rendered``, ``column`` widths (px)."""
    return page.evaluate(
        "() => {"
        + _COLUMN_JS
        + """
        const column = rnnlabColumn();
        return Array.from(document.images)
          .filter(img => img.naturalWidth > 0 && rnnlabVisible(img))
          .map(img => ({
            src: (img.currentSrc || img.src).slice(0, 120),
            alt: (img.getAttribute('alt') || '').slice(0, 80),
            natural: img.naturalWidth,
            rendered: img.getBoundingClientRect().width,
            column: column.width,
          }));
      }"""
    )


def small_images(sizes: list[dict], ratio: float = MIN_IMAGE_RATIO) -> list[str]:
    """The entries of :func:`image_sizes` shown below ``ratio * min(natural, column)``."""
    problems = []
    for img in sizes:
        fair = min(img["natural"], img["column"])
        if img["rendered"] + 0.5 < ratio * fair:
            problems.append(
                f"image shown at {img['rendered']:.0f} px, {img['rendered'] / fair:.0%} of "
                f"min(natural {img['natural']} px, column {img['column']:.0f} px): "
                f"{img['alt'] or img['src']}"
            )
    return problems


def overflowing_elements(page) -> list[str]:
    """Tables and ``.math`` elements that overflow with nothing to scroll them."""
    return page.evaluate(
        "() => {"
        + _COLUMN_JS
        + """
        const column = rnnlabColumn();
        const found = [];
        for (const el of document.querySelectorAll('table, .math, mjx-container[display="true"]')) {
          if (!rnnlabVisible(el)) continue;
          const box = el.getBoundingClientRect();
          // inline formulas are inline boxes (their glyphs may overhang by a pixel or two):
          // only whether they leave the column counts; blocks must also fit their own box
          const inline = getComputedStyle(el).display.startsWith('inline');
          const wider = !inline && el.scrollWidth > el.clientWidth + 1;
          const outside = box.right > column.right + 1 || box.left < column.left - 1;
          if ((wider || outside) && !rnnlabScrolls(el)) {
            found.push(rnnlabDescribe(el) + ' (scrollWidth ' + el.scrollWidth + ', clientWidth '
                       + el.clientWidth + ', right edge ' + Math.round(box.right)
                       + ' of column ' + Math.round(column.right) + ')');
          }
        }
        return found;
      }"""
    )


def low_contrast_text(page, selector: str) -> list[dict]:
    """Elements matching ``selector`` with own text whose contrast is below the WCAG AA minimum.

    Each entry: ``element``, ``color``, ``background``, ``ratio``, ``required``.
    """
    return page.evaluate(
        """([selector, normal, large]) => {
        function rgba(text) {
          const m = text.match(/rgba?\\(([^)]+)\\)/);
          if (!m) return [0, 0, 0, 0];
          const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
          return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
        }
        function lum(c) {
          const f = v => {
            v /= 255;
            return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
          };
          return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
        }
        function over(top, bottom) {  // alpha-composite top over an opaque bottom
          const a = top[3];
          return [0, 1, 2].map(i => top[i] * a + bottom[i] * (1 - a)).concat([1]);
        }
        function background(el) {
          const layers = [];
          for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
            const bg = rgba(getComputedStyle(node).backgroundColor);
            if (bg[3] > 0) { layers.push(bg); if (bg[3] >= 1) break; }
          }
          let colour = [255, 255, 255, 1];
          const root = rgba(getComputedStyle(document.documentElement).backgroundColor);
          if (root[3] > 0) colour = over(root, colour);
          const body = rgba(getComputedStyle(document.body).backgroundColor);
          if (body[3] > 0) colour = over(body, colour);
          for (let i = layers.length - 1; i >= 0; i--) colour = over(layers[i], colour);
          return colour;
        }
        const found = [];
        for (const el of document.querySelectorAll(selector)) {
          const own = Array.from(el.childNodes).some(n => n.nodeType === 3 && n.textContent.trim());
          if (!own) continue;
          const box = el.getBoundingClientRect();
          if (box.width === 0 || box.height === 0) continue;
          const cs = getComputedStyle(el);
          const bg = background(el);
          const fg = over(rgba(cs.color), bg);
          const l1 = lum(fg), l2 = lum(bg);
          const ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
          const size = parseFloat(cs.fontSize), bold = Number(cs.fontWeight) >= 700;
          const required = (size >= 24 || (bold && size >= 18.66)) ? large : normal;
          if (ratio < required) {
            const name = el.tagName.toLowerCase() + ' "' + el.textContent.trim().slice(0, 50) + '"';
            const shade = 'rgb(' + bg.slice(0, 3).map(Math.round).join(',') + ')';
            found.push({element: name, color: cs.color, background: shade,
                        ratio: Math.round(ratio * 100) / 100, required: required});
          }
        }
        return found;
      }""",
        [selector, MIN_CONTRAST, MIN_CONTRAST_LARGE],
    )


#: The text the dark-mode check reads: tables, notebook outputs and the explorer.
CONTRAST_SELECTOR = (
    "table th, table td, table caption, table code, .cell_output *, "
    ".rnnlab-live-explorer *, .jp-OutputArea-output *"
)


def sideways_tables(page) -> list[str]:
    """Visible tables a reader has to scroll sideways to read: the table, or the box that
    scrolls it, is wider inside than it is shown. At a desktop width every table should fit
    its column (``_theme/course.css`` wraps cells); on a phone a scroll box is fine, with a cue
    (:func:`scroll_boxes_without_cue`)."""
    return page.evaluate(
        "() => {"
        + _COLUMN_JS
        + """
        const found = [];
        for (const table of document.querySelectorAll('.bd-article table')) {
          if (!rnnlabVisible(table)) continue;
          let box = table;
          for (let node = table; node && node.nodeType === 1 && node !== document.body;
               node = node.parentElement) {
            const ox = getComputedStyle(node).overflowX;
            if (ox === 'auto' || ox === 'scroll') { box = node; break; }
          }
          if (box.scrollWidth > box.clientWidth + 1 || table.scrollWidth > table.clientWidth + 1) {
            found.push(rnnlabDescribe(table) + ' (content ' + Math.max(box.scrollWidth,
                       table.scrollWidth) + ' px in a box of ' + box.clientWidth + ' px)');
          }
        }
        return found;
      }"""
    )


def scroll_boxes_without_cue(page, cue_class: str = "rnnlab-scrolls") -> list[str]:
    """Visible tables that overflow a box that scrolls sideways, where that box does not carry
    ``cue_class`` (``_theme/course.js`` adds it; ``course.css`` then shows a line saying the
    table scrolls, and a shadow on its right edge)."""
    return page.evaluate(
        "(cue) => {"
        + _COLUMN_JS
        + """
        const found = [];
        for (const table of document.querySelectorAll('.bd-article table')) {
          if (!rnnlabVisible(table)) continue;
          for (let node = table.parentElement; node && node.nodeType === 1 &&
               node !== document.body; node = node.parentElement) {
            const ox = getComputedStyle(node).overflowX;
            if (ox !== 'auto' && ox !== 'scroll') continue;
            if (node.scrollWidth > node.clientWidth + 1 && !node.classList.contains(cue)) {
              found.push(rnnlabDescribe(table) + ' scrolls sideways with no cue');
            }
            break;
          }
        }
        return found;
      }""",
        cue_class,
    )


def below_the_fold(page, selector: str) -> list[str]:
    """The elements matching ``selector`` whose bottom edge is below the first screen (the
    viewport's height, the page scrolled to its top), or a note that none matched."""
    return page.evaluate(
        """(selector) => {
        window.scrollTo(0, 0);
        const els = Array.from(document.querySelectorAll(selector));
        if (!els.length) return ['nothing matches ' + selector];
        return els.filter(el => el.getBoundingClientRect().bottom > window.innerHeight)
          .map(el => el.tagName.toLowerCase() + ' "' + (el.innerText || '').slice(0, 60)
               + '" ends at ' + Math.round(el.getBoundingClientRect().bottom) + ' px of '
               + window.innerHeight);
      }""",
        selector,
    )
