"""A Sphinx extension for the course website (listed in ``_config.yml``; both editions use it).

Bibliography markup: docutils 0.21 writes a citation list as ``<div role="list">`` whose entries
carry ``role="doc-biblioentry"``. That role is deprecated (DPUB-ARIA 1.1) and is not a
``listitem``, so a screen reader is told "list" with no items (axe-core: ``aria-required-children``,
critical). :func:`fix_citation_roles` gives each entry ``role="listitem"``, as DPUB-ARIA advises.

Exercise numbers: sphinx-exercise numbers exercises with Sphinx's ``numfig``, which counts
across the whole book when the table of contents is not numbered (the exercises of Lab B were
11-15). :func:`number_exercises_per_page` restarts the count on every page, in the order Sphinx
numbered them, so each chapter's exercises are "Exercise 1", "Exercise 2", ...

Alt texts of notebook figures: a figure shown through :func:`rnnlab.course.figure_text.described`
is a PNG whose ``Description`` text chunk holds an alt text computed from the figure's data.
myst-nb 1.x takes an output image's alt text only from typed cell metadata, so
:func:`alt_from_png` gives every image that has no ``alt`` the one stored in its file.

Pure work on strings, dicts and files; importing this module needs no Sphinx.
"""

from __future__ import annotations

from typing import Any

DEPRECATED_ROLE = 'role="doc-biblioentry"'
LIST_ITEM_ROLE = 'role="listitem"'


def fix_citation_roles(body: str) -> str:
    """``body`` with every ``role="doc-biblioentry"`` replaced by ``role="listitem"``."""
    return body.replace(DEPRECATED_ROLE, LIST_ITEM_ROLE)


def _on_page_context(app: Any, pagename: str, templatename: str, context: dict, doctree) -> None:
    if isinstance(context.get("body"), str):
        context["body"] = fix_citation_roles(context["body"])


EXERCISE_FIGTYPE = "exercise"  # sphinx-exercise's enumerable node type


def number_exercises_per_page(toc_fignumbers: dict[str, dict[str, dict[str, tuple]]]) -> None:
    """Renumber the exercises of every page 1, 2, ... in place, keeping their order.

    ``toc_fignumbers`` is Sphinx's ``env.toc_fignumbers``: ``{docname: {figtype: {id: number}}}``
    with ``number`` a tuple such as ``(11,)`` (or ``(3, 2)`` under a numbered table of contents).
    """
    for fignumbers in toc_fignumbers.values():
        numbers = fignumbers.get(EXERCISE_FIGTYPE)
        if numbers:
            in_order = sorted(numbers, key=numbers.__getitem__)
            fignumbers[EXERCISE_FIGTYPE] = {ex: (k,) for k, ex in enumerate(in_order, start=1)}


def _on_env_get_updated(app: Any, env: Any) -> list[str]:
    number_exercises_per_page(env.toc_fignumbers)
    return []


def alt_from_png(doctree: Any, srcdir: str) -> int:
    """Give every image node of ``doctree`` without an ``alt`` the alt text stored in its PNG
    (:func:`rnnlab.course.figure_text.png_alt_text`). myst-nb writes output images to a folder
    beside the build; an image's ``uri`` is its path relative to ``srcdir``. Returns how many
    it set."""
    from pathlib import Path

    from docutils import nodes

    from rnnlab.course.figure_text import png_alt_text

    done = 0
    for image in doctree.findall(nodes.image):
        uri = str(image.get("uri", ""))
        if image.get("alt") or not uri.endswith(".png"):
            continue
        # myst-nb writes "/<relative path>"; Sphinx's image collector makes it "<relative path>"
        path = Path(srcdir) / uri.lstrip("/")
        alt = png_alt_text(path) if path.is_file() else None
        if alt:
            image["alt"] = alt
            done += 1
    return done


def _on_doctree_read(app: Any, doctree: Any) -> None:
    alt_from_png(doctree, str(app.srcdir))


def setup(app: Any) -> dict:
    app.connect("html-page-context", _on_page_context)
    app.connect("doctree-read", _on_doctree_read)
    # After Sphinx's toctree collector (priority 500) has assigned the book-wide numbers.
    app.connect("env-get-updated", _on_env_get_updated, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
