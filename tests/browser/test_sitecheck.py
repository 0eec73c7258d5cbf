"""Tests of the tests: each website check fails on a page that breaks its rule.

The first part feeds ``sitecheck`` small synthetic pages (no browser, no build). The last test
copies the real built site, breaks a formula, removes an alt text and removes a link target in
one page, and shows that the link checker and the browser checks now report exactly that.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from probe import SiteServer, probe_page
from sitecheck import (
    check_internal_links,
    expected_colab_url,
    figures_without_caption,
    images_without_alt,
    math_problems,
    offsite_resources,
    output_alts_not_from_data,
    parse_html,
    redirect_target,
    site_pages,
    unexpected_axe_violations,
    unexpected_console_errors,
    visible_code_lines_before,
)

TYPESET = '<p>Inline <span class="math notranslate"><mjx-container>x</mjx-container></span>.</p>'


# ------------------------------------------------------------------------------------- maths
def test_typeset_formula_passes() -> None:
    assert math_problems(TYPESET) == []


def test_untypeset_formula_fails() -> None:
    problems = math_problems(r'<p>Inline <span class="math notranslate">\(x^2\)</span>.</p>')
    assert any("not typeset" in p for p in problems)
    assert any("raw TeX" in p for p in problems)


@pytest.mark.parametrize(
    "prose",
    [
        r"$$P = 4d^2$$",
        r"where \(d\) is",
        r"\[ x \]",
        r"\begin{align} x \end{align}",
        "$d_1$",
        "holds $4dm + (9L-4),dp + 8Ld$ parameters",  # the design summary, before the fix
        "needs only $L + T - 1$ steps",
        "by $L$ layers",
    ],
)
def test_raw_tex_in_prose_fails(prose: str) -> None:
    assert math_problems(f"<p>{prose}</p>"), prose


@pytest.mark.parametrize(
    "html",
    [
        r"<pre>plt.title(r'$\alpha$')</pre>",
        r"<p>Call <code>f(r'\(x\)')</code> here.</p>",
        "<p>It costs $5 and $6.</p>",
        "<p>From $5-$6, or $7 with the tax.</p>",
        "<script>var a = '$$';</script>",
    ],
)
def test_tex_in_code_or_plain_dollars_passes(html: str) -> None:
    assert math_problems(html) == []


def test_mathjax_error_fails() -> None:
    html = (
        '<span class="math"><mjx-container><mjx-merror data-mjx-error="Missing argument for '
        '\\frac">x</mjx-merror></mjx-container></span>'
    )
    assert math_problems(html) == ["MathJax error in a formula: Missing argument for \\frac"]


# ------------------------------------------------------------------------------------ images
@pytest.mark.parametrize(
    "img",
    [
        '<img src="a.png">',
        '<img src="a.png" alt="">',
        '<img src="a.png" alt="   ">',
        '<img src="../_images/a.png" alt="../_images/a.png">',
        '<img src="../_images/a.png" alt="a.png">',
        '<img src="data:image/png;base64,AAAA" alt="plot.png">',
    ],
)
def test_image_without_real_alt_fails(img: str) -> None:
    assert len(images_without_alt(f"<p>{img}</p>")) == 1


def test_image_with_alt_passes() -> None:
    assert images_without_alt('<img src="a.png" alt="Loss falls with depth">') == []


# ----------------------------------------------------------------------------------- figures
def test_figure_with_caption_passes() -> None:
    html = (
        '<figure id="f"><img src="a.png" alt="x"><figcaption><p><span class="caption-number">'
        'Fig. 1 </span><span class="caption-text">Parameters</span></p></figcaption></figure>'
    )
    assert figures_without_caption(html) == []


@pytest.mark.parametrize(
    "html",
    [
        '<figure><img src="a.png" alt="x"></figure>',
        '<figure><img src="a.png" alt="x"><figcaption><span class="caption-number">Fig. 1'
        '</span><a class="headerlink" href="#f">#</a></figcaption></figure>',
        '<div class="cell_output"><img src="a.png" alt="plot"></div>',
        '<div class="cell_output"><img src="../_images/a.png" alt="../_images/a.png"></div>',
        '<div class="jp-OutputArea-output"><img src="data:image/png;base64,AA"></div>',
    ],
)
def test_figure_without_caption_or_label_fails(html: str) -> None:
    assert len(figures_without_caption(html)) == 1, html


def test_output_image_with_descriptive_alt_passes() -> None:
    html = '<div class="cell_output"><img src="a.png" alt="Parameters grow with width"></div>'
    assert figures_without_caption(html) == []
    # an image outside notebook outputs (a logo, an icon) is not a figure
    assert figures_without_caption('<a><img src="logo.png" alt="Colab logo"></a>') == []


def test_output_figure_alt_must_be_the_one_computed_from_its_data(tmp_path) -> None:
    """A typed alt, or an output figure whose PNG stores no computed alt, is reported."""
    from matplotlib.figure import Figure

    from rnnlab.course.figure_text import described

    images = tmp_path / "_images"
    images.mkdir()
    shown = described(Figure(figsize=(1, 1)), "Loss falls from 2.1 to 1.9 with depth")
    (images / "computed.png").write_bytes(shown.png())
    buf = tmp_path / "plain.png"
    Figure(figsize=(1, 1)).savefig(buf)
    (images / "plain.png").write_bytes(buf.read_bytes())
    page = tmp_path / "chapters" / "page.html"

    def check(src: str, alt: str) -> list[str]:
        html = f'<div class="cell_output"><img src="{src}" alt="{alt}"></div>'
        return output_alts_not_from_data(html, page)

    assert check("../_images/computed.png", shown.alt) == []
    assert "not the computed one" in check("../_images/computed.png", "A typed description")[0]
    assert "without an alt text computed" in check("../_images/plain.png", "A typed one")[0]
    logo = '<a><img src="../_images/plain.png" alt="Colab logo"></a>'
    assert output_alts_not_from_data(logo, page) == []  # not a notebook output


# ------------------------------------------------------------------------ offline resources
@pytest.mark.parametrize(
    "html",
    [
        '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js"></script>',
        '<script src="//cdnjs.cloudflare.com/require.js"></script>',
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css">',
        '<img src="https://example.org/a.png" alt="remote">',
        '<img srcset="a.png 1x, https://example.org/b.png 2x" alt="remote">',
    ],
)
def test_offsite_resource_fails(html: str) -> None:
    assert len(offsite_resources(html)) == 1, html


def test_local_resources_and_external_links_pass() -> None:
    html = (
        '<script src="../_static/mathjax/tex-chtml.js"></script>'
        '<script src="http://127.0.0.1:8000/x.js"></script>'
        '<link rel="canonical" href="https://example.org/">'
        '<a href="https://github.com/stacked-rnns/depth-vs-width">repository</a>'
        '<img src="data:image/png;base64,AA" alt="inline">'
    )
    assert offsite_resources(html) == []


# ------------------------------------------------------------------------------------ links
def _site(tmp_path: Path, pages: dict[str, str]) -> Path:
    for rel, body in pages.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f"<html><body>{body}</body></html>")
    return tmp_path


def test_link_checker_passes_a_consistent_site(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "intro.html": '<a href="chapters/one.html#sec">1</a><a href="#top-id">t</a>'
            '<p id="top-id"></p><a href="https://example.org/missing">x</a>'
            '<a href="mailto:a@b.c">m</a><a href="#">top</a><a href="chapters/">dir</a>',
            "chapters/one.html": '<section id="sec"></section><a href="../intro.html">back</a>',
            "chapters/index.html": "<p>index</p>",
        },
    )
    assert check_internal_links(site) == []
    assert site_pages(site) == ["chapters/index.html", "chapters/one.html", "intro.html"]


def test_link_checker_finds_missing_anchor_and_file(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "intro.html": '<a href="chapters/one.html#gone">1</a>'
            '<img src="_images/no.png" alt="x">',
            "chapters/one.html": '<section id="sec"></section><a href="two.html">2</a>',
        },
    )
    problems = check_internal_links(site)
    assert len(problems) == 3, problems
    assert any("'gone'" in p for p in problems)
    assert any("chapters/two.html" in p for p in problems)
    assert any("_images/no.png" in p for p in problems)


# ---------------------------------------------------------------------------- Colab, redirect
def _cell(lines: int, hidden: bool = False) -> str:
    code = "\n".join(f"x{i} = {i}" for i in range(lines))
    cell = f'<div class="cell_input docutils container"><pre>{code}\n</pre></div>'
    return f"<details><summary>Show code</summary>{cell}</details>" if hidden else cell


def test_visible_code_lines_count_shown_cells_up_to_the_heading() -> None:
    page = (
        "<article><h1>Lab</h1>"
        + _cell(30, hidden=True)
        + _cell(4)
        + "<h2>The claim, stated first</h2>"
        + _cell(7)
        + "</article>"
    )
    assert visible_code_lines_before(page, "claim") == (4, 11)
    assert visible_code_lines_before(page, "nowhere") == (None, 11)
    no_hiding = page.replace("<details>", "<div>").replace("</details>", "</div>")
    assert visible_code_lines_before(no_hiding, "claim") == (34, 41)


def test_expected_colab_url() -> None:
    url = expected_colab_url(
        "https://github.com/stacked-rnns/depth-vs-width", "main", "chapters/01_x.ipynb"
    )
    assert url == (
        "https://colab.research.google.com/github/stacked-rnns/depth-vs-width/blob/main/"
        "chapters/01_x.ipynb"
    )
    with pytest.raises(ValueError, match="repository_url"):
        expected_colab_url("https://gitlab.com/a/b", "main", "x.ipynb")


def test_redirect_target() -> None:
    assert redirect_target('<meta http-equiv="Refresh" content="0; url=intro.html" />') == (
        "intro.html"
    )
    assert redirect_target("<p>no redirect</p>") is None


def test_parser_tolerates_unclosed_and_stray_tags() -> None:
    root = parse_html("<div><p>one<p>two</span></div><img src=a.png><br>")
    assert [el.tag for el in root.iter()][1:] == ["div", "p", "p", "img", "br"]


def test_allowlist_matching_is_scoped_by_rule_element_and_page() -> None:
    allow = {
        "console": [{"pattern": "^uncaught: .*THEBE", "pages": "*", "reason": "r"}],
        "axe": [{"rule": "aria-input-field-name", "html": "noUi-handle", "pages": "chapters/*"}],
    }
    used: set = set()
    errors = ["uncaught: SyntaxError: Identifier 'THEBE_JS_URL'", "TypeError: x is undefined"]
    assert unexpected_console_errors(errors, "intro.html", allow, used) == [errors[1]]
    slider = {"rule": "aria-input-field-name", "html": '<div class="noUi-handle">'}
    other = {"rule": "aria-input-field-name", "html": '<div role="slider">'}
    assert unexpected_axe_violations([slider, other], "chapters/01.html", allow, used) == [other]
    assert unexpected_axe_violations([slider], "intro.html", allow, used) == [slider]
    assert used == {("console", 0), ("axe", 0)}


# ------------------------------------------------- mutations of a real page, in the browser
def _mutate(html: str) -> tuple[str, str]:
    """Break a formula, drop an alt text and remove a link target. Returns (html, removed id)."""
    broken_formula = r'<p><span class="math notranslate nohighlight">\(\frac{a}\)</span></p>'
    raw_formula = r'<p><span class="mathjax_ignore">Raw \(x^2\) here.</span></p>'
    html = html.replace("</article>", broken_formula + raw_formula + "</article>", 1)
    match = re.search(r'<img([^>]*?)\salt="[^"]*"', html)
    if match:  # strip an existing alt text (the image may sit in a collapsed, hidden dropdown)
        html = html[: match.start()] + "<img" + match.group(1) + html[match.end() :]
    # and add a visible image without alt text, which axe-core must report
    visible = '<p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="40" height="40"></p>'
    html = html.replace("</article>", visible + "</article>", 1)
    ids = set(re.findall(r'\sid="([^"]+)"', html))
    fragment = next(f for f in re.findall(r'href="#([^"]+)"', html) if f in ids)
    html = html.replace(f' id="{fragment}"', "", 1)
    return html, fragment


def test_checks_catch_a_mutated_real_page(site_dir: Path, browser, tmp_path: Path) -> None:
    pages = [p for p in site_pages(site_dir) if "</article>" in (site_dir / p).read_text()]
    assert pages, "no content page in the built site"
    page = next((p for p in pages if p.startswith("chapters/")), pages[0])
    copy = tmp_path / "html"
    shutil.copytree(site_dir, copy)
    original = (copy / page).read_text(encoding="utf-8")
    mutated, removed_id = _mutate(original)
    (copy / page).write_text(mutated, encoding="utf-8")

    link_problems = [p for p in check_internal_links(copy) if f"'{removed_id}'" in p]
    assert link_problems, f"removing id {removed_id!r} from {page} went unnoticed"

    context = browser.new_context()
    try:
        with SiteServer(copy) as server:
            report = probe_page(context, server.base_url, page, screenshot=None)
    finally:
        context.close()
    math = math_problems(report.dom)
    assert any("MathJax error" in p for p in math), math
    assert any("raw TeX" in p and "x^2" in p for p in math), math
    assert images_without_alt(report.dom), "an image without alt text went unnoticed"
    assert any(v["rule"] == "image-alt" for v in report.axe_violations), report.axe_violations
    # the unmutated page is clean for these checks (so the failures above are the mutations')
    assert not [p for p in check_internal_links(site_dir) if f"'{removed_id}'" in p]
