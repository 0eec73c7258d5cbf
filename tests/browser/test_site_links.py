"""The built website's HTML files, without a browser: internal links resolve, nothing off-site.

Run over every page of ``_build/html`` (including ``search.html`` and ``genindex.html``).
External links are not fetched: only their presence in a loading position is checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sitecheck import check_internal_links, offsite_resources, site_pages

pytestmark = pytest.mark.browser


def test_every_internal_link_and_anchor_resolves(any_site_dir: Path) -> None:
    problems = check_internal_links(any_site_dir)
    assert not problems, "broken internal links:\n  " + "\n  ".join(problems)


def test_no_page_loads_anything_off_site(any_site_dir: Path) -> None:
    """No ``<script src>``, stylesheet, image or frame of any page points to another host."""
    problems = []
    for page in site_pages(any_site_dir):
        html = (any_site_dir / page).read_text(encoding="utf-8", errors="replace")
        problems += [f"{page}: {p}" for p in offsite_resources(html)]
    assert not problems, "the site must work offline:\n  " + "\n  ".join(problems)


def test_vendored_assets_are_in_the_site(any_site_dir: Path) -> None:
    """MathJax 3 and the widget bundle the pages link to were copied into ``_static``."""
    static = any_site_dir / "_static"
    for rel in ("mathjax/tex-chtml.js", "jupyter-widgets/embed-amd.js", "requirejs/require.js"):
        assert (static / rel).is_file(), f"{static / rel} missing: run scripts/vendor_assets.py"
    mathjax = (static / "mathjax" / "tex-chtml.js").read_text(encoding="utf-8")
    assert re.search(r'VERSION="3\.\d+\.\d+"', mathjax), "the site must serve MathJax 3"


def test_no_markdown_table_is_left_unrendered(any_site_dir: Path) -> None:
    """A Markdown table printed by a notebook (e.g. the execution status) must become a
    ``<table>``; with a CommonMark-only renderer it would show as a paragraph of pipes."""
    raw = re.compile(r"<p>[^<]*\|\s*-{3,}\s*\|")
    problems = [
        page
        for page in site_pages(any_site_dir)
        if raw.search((any_site_dir / page).read_text(encoding="utf-8", errors="replace"))
    ]
    assert not problems, "raw Markdown tables in: " + ", ".join(problems)
