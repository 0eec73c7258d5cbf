"""rnnlab.sphinxext: bibliography entries become list items (axe: aria-required-children)."""

from rnnlab.sphinxext import fix_citation_roles


def test_citation_entries_become_list_items() -> None:
    body = (
        '<div role="list" class="citation-list">\n'
        '<div class="citation" id="id1" role="doc-biblioentry">A</div>\n'
        '<div class="citation" id="id2" role="doc-biblioentry">B</div>\n</div>'
    )
    out = fix_citation_roles(body)
    assert "doc-biblioentry" not in out
    assert out.count('role="listitem"') == 2
    assert out.replace('role="listitem"', 'role="doc-biblioentry"') == body


def test_other_markup_is_untouched() -> None:
    body = '<div role="list"><p role="note">a list item: <code>role="listitem"</code></p></div>'
    assert fix_citation_roles(body) == body
