"""Readable at any width, and in dark mode: every page of both sites, in real Chromium.

* At 1280 px and at 390 px (a phone) wide: no image is shown below 80% of
  ``min(natural width, page column)``, and no table or formula overflows without a way to
  scroll it (``layout.small_images``, ``layout.overflowing_elements``).
* At 1280 px no table needs a sideways scroll; at 390 px a table may scroll inside its box, and
  that box shows the cue of ``_theme/course.js`` (``layout.sideways_tables``,
  ``layout.scroll_boxes_without_cue``).
* At 1280 px the answer ("What we found", its heading and its first paragraph) is on the first
  screen of the intro and of the Findings page (``layout.below_the_fold``).
* In dark mode (``prefers-color-scheme: dark``, which the theme follows by default): the text of
  tables, notebook outputs and the Chapter 1 explorer has WCAG AA contrast against its background.

What counts is documented in ``layout.py``. Known problems of pages this course's site
engineers do not own may be accepted in ``allowlist.yml`` (section ``layout``), with a reason;
an entry no page needs any more fails ``test_allowlist_entries_are_still_needed``.
"""

from __future__ import annotations

import pytest
from conftest import SITES, require_site
from layout import (
    CONTRAST_SELECTOR,
    below_the_fold,
    image_sizes,
    low_contrast_text,
    overflowing_elements,
    scroll_boxes_without_cue,
    sideways_tables,
    small_images,
)
from probe import PageReport, _wait_for_mathjax, _wait_for_widgets
from sitecheck import redirect_target, unexpected_layout_problems

pytestmark = pytest.mark.browser

WIDTHS = (1280, 390)


@pytest.fixture(scope="session")
def contexts(browser):
    made: dict[tuple[int, str], object] = {}

    def get(width: int, scheme: str = "light"):
        if (width, scheme) not in made:
            made[(width, scheme)] = browser.new_context(
                viewport={"width": width, "height": 900},
                color_scheme=scheme,
                service_workers="block",
            )
        return made[(width, scheme)]

    yield get
    for context in made.values():
        context.close()


def _open(contexts, servers, site: str, path: str, width: int, scheme: str = "light"):
    static = (SITES[site][0] / path).read_text(encoding="utf-8", errors="replace")
    if redirect_target(static):
        pytest.skip(f"{path} only redirects")
    page = contexts(width, scheme).new_page()
    page.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(servers.url(site)) or "://" not in route.request.url
            else route.abort("blockedbyclient")
        ),
    )
    page.goto(servers.url(site) + path, wait_until="load")
    report = PageReport(path=path)
    _wait_for_mathjax(page, report)
    _wait_for_widgets(page, report)
    page.evaluate(
        """async () => { await Promise.all(Array.from(document.images).map(i => i.complete ? null :
            new Promise(r => { i.onload = r; i.onerror = r; setTimeout(r, 5000); }))); }"""
    )
    return page


@pytest.mark.parametrize("width", WIDTHS, ids=[f"{w}px" for w in WIDTHS])
def test_images_tables_and_formulas_fit(
    page_path, width, contexts, servers, allowlist, layout_findings
) -> None:
    site, path = page_path
    require_site(site, path)
    page = _open(contexts, servers, site, path, width)
    try:
        problems = [f"[{width} px] {p}" for p in small_images(image_sizes(page))]
        problems += [
            f"[{width} px] overflows without scrolling: {p}" for p in overflowing_elements(page)
        ]
        if width >= 1280:  # a desktop: every table fits its column
            wide = sideways_tables(page)
            problems += [f"[{width} px] needs a sideways scroll: {p}" for p in wide]
        else:  # a phone: a table may scroll, with a visible cue
            problems += [f"[{width} px] {p}" for p in scroll_boxes_without_cue(page)]
    finally:
        page.close()
    layout_findings.append((path, problems))
    left = unexpected_layout_problems(problems, path, allowlist, set())
    assert not left, f"{site}:{path}:\n  " + "\n  ".join(left)


def test_dark_mode_text_is_legible(page_path, contexts, servers) -> None:
    site, path = page_path
    require_site(site, path)
    page = _open(contexts, servers, site, path, 1280, "dark")
    try:
        theme = page.evaluate("() => document.documentElement.dataset.theme")
        assert theme == "dark", f"{path}: the theme did not switch to dark mode ({theme!r})"
        found = low_contrast_text(page, CONTRAST_SELECTOR)
    finally:
        page.close()
    assert not found, f"{site}:{path}: text below WCAG AA contrast in dark mode:\n  " + "\n  ".join(
        f"{f['element']}: {f['color']} on {f['background']}, {f['ratio']}:1 < {f['required']}:1"
        for f in found[:15]
    )


#: The pages that open with the answer, and what of it must be on the first screen.
ANSWER_PAGES = ("intro.html", "chapters/05_findings.html")
ANSWER_SELECTOR = "#what-we-found > h2, #what-we-found > h2 + p"


@pytest.mark.parametrize("site", ["instructor", "student"])
@pytest.mark.parametrize("path", ANSWER_PAGES)
def test_the_answer_is_above_the_fold(site, path, contexts, servers) -> None:
    require_site(site, path if (SITES[site][0] / path).is_file() else None)
    page = _open(contexts, servers, site, path, 1280)
    try:
        late = below_the_fold(page, ANSWER_SELECTOR)
    finally:
        page.close()
    assert not late, f"{site}:{path}: the answer is not on the first screen at 1280 px: {late}"
