"""Every page of the built website, as a reader meets it: real Chromium, no network.

Each page is loaded once (see ``conftest.ReportCache``) with every request that leaves the local
server blocked; the tests below then check one aspect each of that load. What exactly counts is
documented in ``sitecheck.py`` and in README, "Browser tests".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SITES, site_config, site_is_built
from sitecheck import (
    colab_links,
    expected_colab_url,
    figures_without_caption,
    images_without_alt,
    math_problems,
    output_alts_not_from_data,
    parse_html,
    site_pages,
    unexpected_axe_violations,
    unexpected_console_errors,
    unexpected_layout_problems,
)

pytestmark = pytest.mark.browser


def _content_page(report) -> None:
    if report.redirect_to:
        pytest.skip(f"{report.path} only redirects to {report.redirect_to} (tested on its own)")


def _listing(items) -> str:
    return "\n  " + "\n  ".join(str(item) for item in items)


def test_page_loads_offline(page_report) -> None:
    """Status 200, no request left the machine, every local resource loaded, screenshot saved."""
    assert page_report.status == 200, f"{page_report.path}: HTTP status {page_report.status}"
    assert not page_report.blocked_requests, (
        f"{page_report.path} tried to fetch from other hosts (the site must work offline):"
        + _listing(page_report.blocked_requests)
    )
    assert not page_report.failed_requests, (
        f"{page_report.path}: local resources failed to load:"
        + _listing(page_report.failed_requests)
    )
    if page_report.redirect_to:
        assert page_report.final_url.endswith(page_report.redirect_to)
    else:
        assert page_report.screenshot is not None and page_report.screenshot.stat().st_size > 1000


def test_no_console_errors(page_report, allowlist) -> None:
    errors = unexpected_console_errors(
        page_report.console_errors, page_report.path, allowlist, set()
    )
    assert not errors, (
        f"{page_report.path}: console errors (allow-list: tests/browser/allowlist.yml):"
        + _listing(errors)
    )


def test_math_is_typeset(page_report) -> None:
    _content_page(page_report)
    if page_report.has_math:
        assert page_report.mathjax_ready, (
            f"{page_report.path} has formulas but MathJax did not start (is "
            "_static/mathjax/tex-chtml.js served? run scripts/vendor_assets.py)"
        )
    problems = math_problems(page_report.dom)
    assert not problems, f"{page_report.path}:" + _listing(problems)


def test_images_have_alt_text_and_load(page_report) -> None:
    _content_page(page_report)
    problems = images_without_alt(page_report.dom)
    page_file = SITES[page_report.site][0] / page_report.path
    problems += output_alts_not_from_data(page_report.dom, page_file)  # computed, not typed
    problems += [f"image failed to load: {src}" for src in page_report.broken_images]
    assert not problems, f"{page_report.path}:" + _listing(problems)


def test_figures_have_caption_or_label(page_report) -> None:
    _content_page(page_report)
    problems = figures_without_caption(page_report.dom)
    assert not problems, f"{page_report.path}:" + _listing(problems)


def test_widgets_render_offline(page_report) -> None:
    """Every saved ipywidgets view is drawn by the vendored widget manager, visible, non-empty."""
    _content_page(page_report)
    if not page_report.widget_views:
        return  # no widgets on this page: nothing can be left blank
    assert not page_report.widgets_timed_out, (
        f"{page_report.path}: {page_report.widget_views} widget view(s) but only "
        f"{len(page_report.widget_areas)} rendered (is the widget state saved in the notebook and "
        "_static/jupyter-widgets/embed-amd.js served?)"
    )
    empty = [a for a in page_report.widget_areas if not a["visible"] or a["elements"] < 2]
    assert not empty, f"{page_report.path}: blank widget areas:" + _listing(empty)


def test_colab_launch_link(page_report) -> None:
    """Notebook pages link to Colab at the notebook's path in the repository; others do not.

    The student site's buttons open the student copies: ``student/chapters/<name>.ipynb``."""
    _content_page(page_report)
    stem = page_report.path.removesuffix(".html")
    links = colab_links(page_report.dom)
    notebook = SITES[page_report.site][1] / f"{stem}.ipynb"
    if notebook.is_file():
        repo = site_config(page_report.site)["repository"]
        book_path = str(repo.get("path_to_book") or "").strip("/")
        rel = f"{book_path}/{stem}.ipynb" if book_path else f"{stem}.ipynb"
        expected = expected_colab_url(repo["url"], repo.get("branch", "main"), rel)
        assert expected in links, (
            f"{page_report.path}: no Colab launch link to {expected}; links found: {links}"
        )
        assert set(links) == {expected}, f"{page_report.path}: stray Colab links {links}"
        if page_report.site == "student":
            assert f"/student/{stem}.ipynb" in expected, expected
    else:
        assert not links, f"{page_report.path} is not a notebook but links to Colab: {links}"


def test_accessibility_axe(page_report, allowlist) -> None:
    """axe-core finds no serious or critical violation outside ``allowlist.yml``."""
    _content_page(page_report)
    left = unexpected_axe_violations(page_report.axe_violations, page_report.path, allowlist, set())
    assert not left, (
        f"{page_report.path}: axe-core violations (fix them, or allow-list one with its reason "
        "in tests/browser/allowlist.yml):"
        + _listing(f"[{v['impact']}] {v['rule']}: {v['help']} -- {v['html']}" for v in left)
    )


def test_chapter1_explorer_is_one_output(site_dir: Path, report_cache) -> None:
    """Chapter 1's explorer is one HTML block that computes in the browser (no widget state, no
    separate static table and figure); its behaviour is tested in ``test_site_explorer.py``."""
    pages = sorted(site_dir.glob("chapters/01_*.html"))
    if not pages:
        pytest.skip("Chapter 1 (chapters/01_*.html) is not in the built site yet")
    report = report_cache.get(pages[0].relative_to(site_dir).as_posix())
    root = parse_html(report.dom)
    explorers = [el for el in root.iter() if "rnnlab-live-explorer" in el.classes]
    assert len(explorers) == 1, f"{report.path}: {len(explorers)} explorers, expected one"
    assert report.widget_views == 0, f"{report.path}: ipywidgets views left next to the explorer"


def test_allowlist_entries_are_still_needed(
    allowlist, report_cache, site_dir, layout_findings
) -> None:
    """Runs last: when every page has been loaded, every allow-list entry must match something."""
    for site in SITES:
        if site_is_built(site) and set(report_cache.site_reports(site)) != set(
            site_pages(SITES[site][0])
        ):
            pytest.skip(f"not every page of the {site} site was loaded in this run")
    used: set = set()
    for (_site, path), report in report_cache.reports.items():
        unexpected_console_errors(report.console_errors, path, allowlist, used)
        unexpected_axe_violations(report.axe_violations, path, allowlist, used)
    for path, problems in layout_findings:
        unexpected_layout_problems(problems, path, allowlist, used)
    unused = [
        f"{section}: {allowlist[section][index]}"
        for section in ("console", "axe", "layout")
        for index in range(len(allowlist[section]))
        if (section, index) not in used
    ]
    assert not unused, "allow-list entries no page needs any more (remove them):" + _listing(unused)
