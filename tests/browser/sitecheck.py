"""Checks of the built website that need no browser: pure functions over HTML text.

The browser suite (``test_site_pages.py``) feeds them the DOM *after* Chromium has run the page's
JavaScript (MathJax typesetting, widget rendering); ``test_site_links.py`` feeds them the files in
``_build/html``; ``test_sitecheck.py`` feeds them small synthetic pages to show that each check
can fail. Every check returns a list of human-readable problems: empty means the page passes.

What counts, precisely (also in README, "Browser tests"):

* **Typeset formula** -- every element with class ``math`` (Sphinx/MyST writes inline maths as
  ``<span class="math">\\(...\\)</span>``, display maths as ``<div class="math">``) contains an
  ``<mjx-container>``; no ``<mjx-merror>`` (a TeX error MathJax drew in red) exists; and no raw
  TeX is left in the reader-visible text (outside ``pre``, ``code``, ``kbd``, ``samp``,
  ``script``, ``style``, ``textarea`` and MathJax's own output): no ``$$``, ``\\(``, ``\\)``,
  ``\\[``, ``\\]``, ``\\begin{`` and no ``$...$`` whose content looks like TeX (a backslash,
  ``^``, ``_`` or braces) or like a formula (:data:`PLAIN_DOLLAR_MATH`: ``$L + T - 1$``).
* **Alt text** -- every ``<img>`` has an ``alt`` that is not blank and is not just the image's
  file name or path (docutils falls back to the URI when a notebook output has no alt text, so
  ``alt="../_images/3f2a.png"`` counts as missing). An output figure's alt must be the one
  computed from its data and stored in its PNG by ``rnnlab.course.figure_text.described``
  (:func:`output_alts_not_from_data`): a typed alt, or none stored, fails.
* **Figure caption or label** -- a figure is every ``<figure>`` element, and every image that a
  notebook cell output shows outside a ``<figure>`` (an ``<img>`` inside ``div.cell_output``
  (myst-nb) or inside a widget output area ``.jp-OutputArea-output``). A ``<figure>`` needs a
  ``<figcaption>`` with text besides the automatic "Fig. N" number. A bare output image is
  labelled by its alt text, which must then be descriptive: at least
  :data:`MIN_LABEL_WORDS` words (computed, see above; add the cell metadata
  ``{"mystnb": {"figure": {"caption": "..."}}}`` for a caption).
* **Off-site resource** -- a ``script[src]``, ``img[src|srcset]``, ``iframe``, ``source``,
  ``video``/``audio``, ``embed``, ``object[data]`` or a loading ``link`` (stylesheet, icon,
  preload, modulepreload, prefetch, manifest) whose URL has a host other than the local one.
  Plain ``<a href>`` links to other sites are fine (they are not fetched).
* **Visible code lines** -- the lines of every notebook cell input (``div.cell_input``) that a
  reader sees without opening anything: cells hidden with ``hide-input`` sit in a closed
  ``<details>`` and do not count, ``remove-input`` cells are not in the page at all.
  :func:`visible_code_lines_before` counts them up to the first heading that holds a word.
* **Internal link** -- every ``href``/``src`` without a scheme or host resolves to a file of the
  site (a folder means its ``index.html``), and its ``#fragment``, if any, names an element
  ``id`` (or ``<a name>``) in the target page.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

MIN_LABEL_WORDS = 3

VOID_TAGS = frozenset(
    "area base br col embed hr img input link meta param source track wbr".split()
)
# Reader-visible text excludes these subtrees (code may legitimately contain TeX strings).
NON_PROSE_TAGS = frozenset(
    "pre code kbd samp script style textarea template noscript mjx-container".split()
)
RAW_TEX = re.compile(r"\$\$|\\\(|\\\)|\\\[|\\\]|\\begin\{")
TEX_LIKE_DOLLARS = re.compile(r"\$[^$\n]*[\\^_{}][^$\n]*\$")
# A formula left in dollars even without TeX characters ("$L + T - 1$", "$4dm + (9L-4),dp$"):
# a dollar, then up to 80 characters on one line with a letter in them, not starting or ending
# with a space, then a dollar ("It costs $5 and $6" does not match: the span ends with a space).
PLAIN_DOLLAR_MATH = re.compile(r"\$(?=[^\s$])(?=[^$\n]{0,79}[A-Za-z])[^$\n]{1,80}?(?<=[^\s$])\$")
IMAGE_FILE = re.compile(r"^[\w./%-]+\.(png|jpe?g|gif|svg|webp|bmp)$", re.IGNORECASE)
LOADING_LINK_RELS = frozenset(
    "stylesheet icon preload modulepreload prefetch manifest apple-touch-icon".split()
)
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})


@dataclass
class Element:
    """A node of a parsed HTML document: ``tag``, ``attrs`` and ``children`` (elements or text)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def iter(self) -> Iterator[Element]:
        """This element and all its descendant elements, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str) -> list[Element]:
        return [el for el in self.iter() if el.tag == tag]

    def ancestors(self) -> Iterator[Element]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def text(self, skip: frozenset[str] = frozenset(), skip_classes: frozenset[str] = frozenset()):
        """Concatenated text of the subtree, leaving out ``skip`` tags and ``skip_classes``."""
        parts: list[str] = []

        def walk(node: Element) -> None:
            for child in node.children:
                if isinstance(child, str):
                    parts.append(child)
                elif child.tag not in skip and not (child.classes & skip_classes):
                    walk(child)

        walk(self)
        return "".join(parts)

    def snippet(self, limit: int = 120) -> str:
        attrs = " ".join(f'{k}="{v}"' for k, v in self.attrs.items())
        text = " ".join(self.text().split())
        return f"<{self.tag} {attrs}>{text}"[:limit]


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: (v or "") for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(element)
        if tag not in VOID_TAGS:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: (v or "") for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(element)

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return  # a stray end tag with no open element is ignored

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(html: str) -> Element:
    """Parse ``html`` into an :class:`Element` tree rooted at a ``#document`` node."""
    builder = _TreeBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def _as_tree(html: str | Element) -> Element:
    return html if isinstance(html, Element) else parse_html(html)


# --------------------------------------------------------------------------------------- maths
def math_problems(html: str | Element) -> list[str]:
    """Formulas MathJax has not typeset, MathJax errors, and raw TeX left in the prose."""
    root = _as_tree(html)
    problems = []
    for el in root.iter():
        if "math" in el.classes and el.tag in ("span", "div"):
            if not any(d.tag == "mjx-container" for d in el.iter()):
                problems.append(f"formula not typeset by MathJax: {el.snippet()}")
        if el.tag == "mjx-merror":
            message = el.attrs.get("data-mjx-error") or " ".join(el.text().split())
            problems.append(f"MathJax error in a formula: {message}")
    prose = root.text(skip=NON_PROSE_TAGS)
    for pattern in (RAW_TEX, TEX_LIKE_DOLLARS, PLAIN_DOLLAR_MATH):
        for match in pattern.finditer(prose):
            start = max(0, match.start() - 40)
            context = " ".join(prose[start : match.end() + 40].split())
            problems.append(f"raw TeX {match.group(0)[:30]!r} left in the text: ...{context}...")
    return problems


# ------------------------------------------------------------------------------ images, figures
def _alt_is_missing(img: Element) -> bool:
    alt = img.attrs.get("alt")
    if alt is None or not alt.strip():
        return True
    alt = alt.strip()
    src = img.attrs.get("src", "")
    src_name = posixpath.basename(urlsplit(src).path) if not src.startswith("data:") else ""
    return (
        alt == src
        or (src_name and posixpath.basename(alt) == src_name)
        or bool(IMAGE_FILE.match(alt))
    )


def images_without_alt(html: str | Element) -> list[str]:
    """Every ``<img>`` whose alt text is absent, blank, or just its own file name/path."""
    root = _as_tree(html)
    return [
        f"image without alt text: {img.snippet()}"
        for img in root.find_all("img")
        if _alt_is_missing(img)
    ]


def is_output_image(img: Element) -> bool:
    """True for an image shown by a notebook cell output (myst-nb or a widget output area)."""
    for node in img.ancestors():
        if node.classes & {"cell_output", "jp-OutputArea-output"}:
            return True
    return False


def output_alts_not_from_data(html: str | Element, page_file: str | Path) -> list[str]:
    """Notebook output images (local PNGs) whose alt text is not the one computed from the
    figure's data: the alt must equal the text ``rnnlab.course.figure_text.described`` stored in
    the PNG (so a typed alt, or a figure shown without its computed alt, is reported).
    ``page_file`` is the page's HTML file, against which ``src`` is resolved."""
    from rnnlab.course.figure_text import png_alt_text

    root = _as_tree(html)
    problems = []
    for img in root.find_all("img"):
        src = img.attrs.get("src", "")
        if not is_output_image(img) or src.startswith("data:") or not src.endswith(".png"):
            continue
        path = Path(posixpath.normpath(f"{Path(page_file).parent}/{unquote(urlsplit(src).path)}"))
        stored = png_alt_text(path) if path.is_file() else None
        if stored is None:
            problems.append(f"output figure without an alt text computed from its data: {src}")
        elif " ".join((img.attrs.get("alt") or "").split()) != stored:
            problems.append(f"output figure whose alt text is not the computed one: {src}")
    return problems


def figures_without_caption(html: str | Element) -> list[str]:
    """Figures (see the module docstring) with neither a caption nor a descriptive label."""
    root = _as_tree(html)
    problems = []
    for figure in root.find_all("figure"):
        captions = figure.find_all("figcaption")
        text = " ".join(
            c.text(skip_classes=frozenset({"caption-number", "headerlink"})) for c in captions
        )
        if not text.strip():
            problems.append(f"figure without a caption: {figure.snippet()}")
    for img in root.find_all("img"):
        if not is_output_image(img) or any(a.tag == "figure" for a in img.ancestors()):
            continue
        alt = (img.attrs.get("alt") or "").strip()
        if _alt_is_missing(img) or len(alt.split()) < MIN_LABEL_WORDS:
            problems.append(
                "notebook output figure with neither a caption nor a descriptive alt text "
                f"(>= {MIN_LABEL_WORDS} words): {img.snippet()}"
            )
    return problems


# ---------------------------------------------------------------------------------- Colab link
def visible_code_lines_before(html: str | Element, word: str) -> tuple[int | None, int]:
    """``(lines before the first h1-h3 whose text holds word, lines in the whole article)``;
    the first is ``None`` when no such heading exists (see "Visible code lines" above)."""
    root = _as_tree(html)
    article = next((el for el in root.iter() if el.tag == "article"), root)
    before: int | None = None
    total = 0
    for el in article.iter():
        if before is None and el.tag in ("h1", "h2", "h3") and word.lower() in el.text().lower():
            before = total
        if "cell_input" in el.classes and not any(a.tag == "details" for a in el.ancestors()):
            total += sum(len(pre.text().rstrip("\n").split("\n")) for pre in el.find_all("pre"))
    return before, total


def colab_links(html: str | Element) -> list[str]:
    """The ``href`` of every link to Google Colab on the page."""
    root = _as_tree(html)
    return [
        a.attrs["href"]
        for a in root.find_all("a")
        if a.attrs.get("href", "").startswith("https://colab.research.google.com/")
    ]


def expected_colab_url(repository_url: str, branch: str, notebook_path: str) -> str:
    """``https://colab.research.google.com/github/<owner>/<repo>/blob/<branch>/<path>.ipynb``."""
    parts = urlsplit(repository_url)
    if parts.netloc != "github.com":
        raise ValueError(f"repository_url must be a https://github.com/ URL, got {repository_url}")
    owner_repo = parts.path.strip("/").removesuffix(".git")
    if owner_repo.count("/") != 1:
        raise ValueError(f"repository_url must name <owner>/<repo>, got {repository_url}")
    return f"https://colab.research.google.com/github/{owner_repo}/blob/{branch}/{notebook_path}"


# ------------------------------------------------------------------------ resources and links
def _resource_urls(root: Element) -> Iterator[tuple[Element, str]]:
    """URLs the browser fetches by itself while loading the page."""
    for el in root.iter():
        tag, attrs = el.tag, el.attrs
        if tag in ("script", "img", "iframe", "source", "video", "audio", "embed", "track"):
            if attrs.get("src"):
                yield el, attrs["src"]
        if tag in ("img", "source") and attrs.get("srcset"):
            for candidate in attrs["srcset"].split(","):
                if candidate.strip():
                    yield el, candidate.split()[0]
        if tag == "object" and attrs.get("data"):
            yield el, attrs["data"]
        if tag == "link" and attrs.get("href"):
            if set(attrs.get("rel", "").lower().split()) & LOADING_LINK_RELS:
                yield el, attrs["href"]


def is_offsite(url: str) -> bool:
    """True when ``url`` names a host other than this machine (``data:``/relative are local)."""
    parts = urlsplit(url.strip())
    if parts.scheme in ("", "data", "blob", "about") and not url.strip().startswith("//"):
        return False
    return (parts.hostname or "") not in LOCAL_HOSTS


def offsite_resources(html: str | Element) -> list[str]:
    """Resources (scripts, styles, images, frames...) that the page would fetch from off-site."""
    root = _as_tree(html)
    return [
        f"<{el.tag}> loads an off-site URL: {url}"
        for el, url in _resource_urls(root)
        if is_offsite(url)
    ]


def _ids(root: Element) -> set[str]:
    ids = {el.attrs["id"] for el in root.iter() if el.attrs.get("id")}
    ids |= {el.attrs["name"] for el in root.iter() if el.tag == "a" and el.attrs.get("name")}
    return ids


def _link_urls(root: Element) -> Iterator[tuple[Element, str]]:
    for el in root.iter():
        if el.tag in ("a", "area") and "href" in el.attrs:
            yield el, el.attrs["href"]
    yield from _resource_urls(root)


def check_internal_links(site_dir: str | Path) -> list[str]:
    """Every internal ``href``/``src`` of every page of ``site_dir`` that does not resolve.

    External URLs (with a scheme or a host), ``mailto:``/``javascript:``/``data:`` URLs and a
    bare ``#`` are not checked; nothing is fetched.
    """
    site = Path(site_dir).resolve()
    pages = [site / rel for rel in site_pages(site)]  # not theme templates left in _static/
    trees: dict[Path, Element] = {}

    def tree(path: Path) -> Element:
        if path not in trees:
            trees[path] = parse_html(path.read_text(encoding="utf-8", errors="replace"))
        return trees[path]

    id_cache: dict[Path, set[str]] = {}
    problems = []
    for page in pages:
        rel_page = page.relative_to(site).as_posix()
        for el, raw in _link_urls(tree(page)):
            url = raw.strip()
            if not url or url == "#":
                continue
            parts = urlsplit(url)
            if parts.scheme or url.startswith("//"):
                continue  # external (or mailto:, javascript:, data:): not fetched
            resolved = urlsplit(urljoin(f"http://site/{rel_page}", url))
            target_rel = unquote(resolved.path).lstrip("/")
            target = site / target_rel
            if target_rel == "" or target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{rel_page}: <{el.tag}> {raw!r} -> missing file {target_rel}")
                continue
            fragment = unquote(resolved.fragment)
            if fragment and target.suffix == ".html":
                if target not in id_cache:
                    id_cache[target] = _ids(tree(target))
                if fragment not in id_cache[target]:
                    problems.append(
                        f"{rel_page}: <{el.tag}> {raw!r} -> no element with id {fragment!r} "
                        f"in {target.relative_to(site).as_posix()}"
                    )
    return problems


def site_pages(site_dir: str | Path) -> list[str]:
    """The HTML pages of the site (relative POSIX paths), without Sphinx's asset folders."""
    site = Path(site_dir)
    skip = ("_static/", "_sources/", "_images/", "_downloads/", "jupyter_execute/")
    pages = []
    for path in sorted(site.rglob("*.html")):
        rel = path.relative_to(site).as_posix()
        if not rel.startswith(skip):
            pages.append(rel)
    return pages


def redirect_target(html: str | Element) -> str | None:
    """The URL of a ``<meta http-equiv="refresh">`` redirect stub, or ``None``."""
    for meta in _as_tree(html).find_all("meta"):
        if meta.attrs.get("http-equiv", "").lower() == "refresh":
            match = re.search(r"url\s*=\s*['\"]?([^'\"]+)", meta.attrs.get("content", ""), re.I)
            if match:
                return match.group(1).strip()
    return None


# -------------------------------------------------------------------------------- allow-list
def _matches(entry: dict, page: str) -> bool:
    return fnmatch.fnmatch(page, entry.get("pages", "*"))


def _unmatched(items: list, kind: str, page: str, allowlist: dict, used: set, hit) -> list:
    """Items no ``allowlist[kind]`` entry for ``page`` accepts; records the entries used."""
    left = []
    for item in items:
        for index, entry in enumerate(allowlist[kind]):
            if _matches(entry, page) and hit(entry, item):
                used.add((kind, index))
                break
        else:
            left.append(item)
    return left


def unexpected_console_errors(
    errors: list[str], page: str, allowlist: dict, used: set
) -> list[str]:
    """``errors`` not matched by an allow-list entry (a regex ``pattern`` and a ``pages`` glob)."""
    return _unmatched(
        errors, "console", page, allowlist, used, lambda e, err: re.search(e["pattern"], err)
    )


def unexpected_axe_violations(
    violations: list[dict], page: str, allowlist: dict, used: set
) -> list[dict]:
    """Violations not matched by an entry (``rule``, ``html`` substring, ``pages`` glob)."""
    return _unmatched(
        violations,
        "axe",
        page,
        allowlist,
        used,
        lambda e, v: e["rule"] == v["rule"] and e.get("html", "") in v["html"],
    )


def unexpected_layout_problems(
    problems: list[str], page: str, allowlist: dict, used: set
) -> list[str]:
    """Layout ``problems`` (see ``layout.py``) not matched by an entry (a regex ``pattern``, a
    ``pages`` glob) of the allow-list's ``layout`` section."""
    return _unmatched(
        problems, "layout", page, allowlist, used, lambda e, p: re.search(e["pattern"], p)
    )
