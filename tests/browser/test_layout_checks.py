"""The layout and contrast checks of ``layout.py`` can fail: each one is shown a small synthetic
page in Chromium with one problem (a shrunken figure, a clipped table, a clipped formula box,
dark text on a dark row) next to its fixed twin, and must report exactly the problem."""

from __future__ import annotations

import pytest
from layout import image_sizes, low_contrast_text, overflowing_elements, small_images

pytestmark = pytest.mark.browser

# An 800 x 100 px image (its natural width is 800).
IMG = (
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='800' height='100'%3E"
    "%3Crect width='800' height='100' fill='%23888'/%3E%3C/svg%3E"
)
PAGE = f"""<!doctype html><html><head><style>
body {{ margin: 0; background: rgb(18,18,18); color: rgb(206,214,221); }}
.bd-main {{ width: 1000px; padding: 0; }}
.text {{ width: 600px; }}
</style></head><body><main class="bd-main"><div class="text">
<img id="shrunk" alt="shrunk figure" src="{IMG}" style="width: 300px">
<div id="clipping" style="overflow: hidden; width: 600px">
  <table id="wide-clipped"><tr><td style="min-width: 1500px">wide clipped</td></tr></table>
</div>
<div style="overflow-x: auto; width: 600px">
  <table id="wide-scrolls"><tr><td style="min-width: 1500px">wide scrolls</td></tr></table>
</div>
<div class="math" id="math-clipped" style="display: block; overflow: hidden; width: 200px">
  <span style="display: inline-block; width: 900px">P_L = a long formula</span></div>
<table><tr><td id="dark-on-dark" style="color: rgb(34,40,50)">hard to read</td>
<td id="light-on-dark">easy to read</td></tr></table>
</div>
<img id="fair" alt="fair figure" src="{IMG}" style="max-width: 100%">
</main></body></html>"""


@pytest.fixture
def synthetic(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_content(PAGE, wait_until="load")
    yield page
    context.close()


def test_small_images_flags_the_shrunken_figure_only(synthetic) -> None:
    sizes = {img["alt"]: img for img in image_sizes(synthetic)}
    assert sizes["shrunk figure"]["natural"] == 800
    problems = small_images(list(sizes.values()))
    assert len(problems) == 1 and "shrunk figure" in problems[0], problems
    assert "38%" in problems[0]  # 300 px of min(natural 800, column 1000)
    # the same image in the 600 px text column is shown at 75%: squeezed, reported too
    synthetic.evaluate("() => { document.getElementById('shrunk').style.width = '600px'; }")
    problems = small_images(image_sizes(synthetic))
    assert len(problems) == 1 and "75%" in problems[0], problems


def test_small_images_ratio_is_of_the_smaller_of_natural_and_column() -> None:
    column = 700.0
    assert small_images([{"natural": 800, "rendered": 560, "column": column, "alt": "a"}]) == []
    assert small_images([{"natural": 800, "rendered": 559, "column": column, "alt": "b"}])
    assert small_images([{"natural": 300, "rendered": 300, "column": column, "alt": "c"}]) == []


def test_overflow_flags_clipped_table_and_formula_not_scrolling_ones(synthetic) -> None:
    found = overflowing_elements(synthetic)
    assert any("wide clipped" in f for f in found), found
    assert any("#math-clipped" in f for f in found), found
    assert not any("wide scrolls" in f for f in found), found


def test_contrast_flags_dark_text_on_dark_background(synthetic) -> None:
    found = low_contrast_text(synthetic, "table td")
    assert [f["element"] for f in found] == ['td "hard to read"'], found


TABLES = """<!doctype html><html><head><style>
body { margin: 0; } .bd-main { width: 1000px; } .box { overflow-x: auto; width: 400px; }
</style></head><body><main class="bd-main"><article class="bd-article">
<div class="box" id="wide"><table><tr><td style="min-width: 900px">wide in a box</td></tr>
</table></div>
<div class="box rnnlab-scrolls" id="cued"><table><tr><td style="min-width: 900px">wide, cued</td>
</tr></table></div>
<div class="box"><table><tr><td>fits its box</td></tr></table></div>
<h2 id="answer">What we found</h2>
<div style="height: 2000px"></div><p id="late">far below</p>
</article></main></body></html>"""


@pytest.fixture
def tables_page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_content(TABLES, wait_until="load")
    yield page
    context.close()


def test_sideways_tables_flags_tables_that_scroll_not_ones_that_fit(tables_page) -> None:
    from layout import sideways_tables

    found = sideways_tables(tables_page)
    assert len(found) == 2 and all("wide" in f for f in found), found


def test_scroll_boxes_without_cue_flags_the_uncued_box_only(tables_page) -> None:
    from layout import scroll_boxes_without_cue

    found = scroll_boxes_without_cue(tables_page)
    assert len(found) == 1 and "wide in a box" in found[0], found


def test_below_the_fold_flags_what_is_off_the_first_screen(tables_page) -> None:
    from layout import below_the_fold

    assert below_the_fold(tables_page, "#answer") == []
    assert below_the_fold(tables_page, "#late")
    assert below_the_fold(tables_page, "#missing") == ["nothing matches #missing"]
