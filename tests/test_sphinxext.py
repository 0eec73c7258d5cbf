"""rnnlab.course.sphinxext: bibliography entries become list items (axe: aria-required-children)."""

from rnnlab.course.sphinxext import fix_citation_roles


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


def test_exercise_numbers_restart_on_every_page() -> None:
    from rnnlab.course.sphinxext import number_exercises_per_page

    numbers = {
        "a": {"exercise": {"ex-2": (2,), "ex-1": (1,)}, "figure": {"f": (1,)}},
        "b": {"exercise": {"ex-5": (5,), "ex-3": (3,), "ex-4": (4,)}},
        "c": {},
    }
    number_exercises_per_page(numbers)
    assert numbers["a"]["exercise"] == {"ex-1": (1,), "ex-2": (2,)}
    assert numbers["b"]["exercise"] == {"ex-3": (1,), "ex-4": (2,), "ex-5": (3,)}
    assert numbers["a"]["figure"] == {"f": (1,)}  # other kinds are left alone
    assert numbers["c"] == {}


def test_a_real_build_numbers_exercises_per_page(tmp_path) -> None:
    """Two pages of two exercises each, built by Sphinx with sphinx-exercise: 1, 2 and 1, 2."""
    import re

    from sphinx.application import Sphinx

    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['sphinx_exercise', 'rnnlab.course.sphinxext']\n"
        "exclude_patterns = ['_build']\n"
    )
    (src / "index.rst").write_text("Book\n====\n\n.. toctree::\n\n   one\n   two\n")
    for page in ("one", "two"):
        body = "".join(
            f".. exercise:: Task {k}\n   :label: {page}-{k}\n\n   Do {k}.\n\n" for k in (1, 2)
        )
        (src / f"{page}.rst").write_text(f"{page.title()}\n===\n\n{body}")
    app = Sphinx(str(src), str(src), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                 status=None, warning=None, freshenv=True)  # fmt: skip
    app.build()
    for page in ("one", "two"):
        html = (tmp_path / "html" / f"{page}.html").read_text()
        assert re.findall(r"Exercise (\d+)", html)[:2] == ["1", "2"], page


def test_an_output_image_gets_the_alt_text_stored_in_its_png(tmp_path) -> None:
    """myst-nb names output images relative to the source folder; the alt comes from the PNG."""
    from docutils import nodes
    from matplotlib.figure import Figure

    from rnnlab.course.figure_text import described
    from rnnlab.course.sphinxext import alt_from_png

    (tmp_path / "src").mkdir()
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "a.png").write_bytes(described(Figure(), "Loss falls with depth").png())
    (tmp_path / "build" / "plain.png").write_bytes(b"not a png")
    tree = nodes.section()
    computed = nodes.image(uri="/../build/a.png")
    typed = nodes.image(uri="/../build/a.png", alt="typed")
    unknown = nodes.image(uri="/../build/plain.png")
    tree += [computed, typed, unknown]
    assert alt_from_png(tree, str(tmp_path / "src")) == 1
    assert computed["alt"] == "Loss falls with depth"
    assert typed["alt"] == "typed" and "alt" not in unknown  # the site check fails on no alt


def test_a_real_myst_nb_build_writes_the_computed_alt(tmp_path) -> None:
    """A notebook whose output is a described figure, built by Sphinx with myst-nb (not
    executed): the page's <img> carries the alt text computed for the figure."""
    import html as html_lib
    import re

    import nbformat
    from matplotlib.figure import Figure
    from sphinx.application import Sphinx

    from rnnlab.course.figure_text import described

    fig = Figure(figsize=(2, 1))
    fig.subplots().plot([0, 1], [1, 0])
    shown = described(fig, "Loss falls from 1 to 0 over 1 step")
    data, metadata = shown._repr_mimebundle_()
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("shown")
    cell.outputs = [nbformat.v4.new_output("display_data", data=data, metadata=metadata)]
    nb.cells = [nbformat.v4.new_markdown_cell("# Page"), cell]
    src = tmp_path / "src"
    src.mkdir()
    nbformat.write(nb, src / "page.ipynb")
    (src / "conf.py").write_text(
        "extensions = ['myst_nb', 'rnnlab.course.sphinxext']\nexclude_patterns = ['_build']\n"
        "nb_execution_mode = 'off'\n"
    )
    (src / "index.md").write_text("# Book\n\n```{toctree}\npage\n```\n")
    app = Sphinx(str(src), str(src), str(tmp_path / "_build" / "html"),
                 str(tmp_path / "_build" / "doctrees"), "html", status=None, warning=None,
                 freshenv=True)  # fmt: skip
    app.build()
    page = (tmp_path / "_build" / "html" / "page.html").read_text()
    alts = [html_lib.unescape(a) for a in re.findall(r'<img[^>]*\salt="([^"]*)"', page)]
    assert shown.alt in alts
