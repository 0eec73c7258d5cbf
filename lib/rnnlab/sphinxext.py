"""A Sphinx extension for the course website (listed in ``_config.yml``; both editions use it).

Bibliography markup: docutils 0.21 writes a citation list as ``<div role="list">`` whose entries
carry ``role="doc-biblioentry"``. That role is deprecated (DPUB-ARIA 1.1) and is not a
``listitem``, so a screen reader is told "list" with no items (axe-core: ``aria-required-children``,
critical). :func:`fix_citation_roles` gives each entry ``role="listitem"``, as DPUB-ARIA advises.

Pure string work on the rendered page body; importing this module needs no Sphinx.
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


def setup(app: Any) -> dict:
    app.connect("html-page-context", _on_page_context)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
