"""Every library name the book points readers to exists.

The pages and docstrings cite library objects by dotted name
(``rnnlab.evidence.stats.combine_cells``) so a reader can look the rule up. A refactor that
moves a module leaves such names stale without any other test failing; this test imports each.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NAME = re.compile(r"(?<![\w.])(rnnlab(?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# Keys of the ``rnnlab:`` section of _config.yml and of notebook metadata: settings, not code.
CONFIG_KEYS = {"rnnlab.pinned_ref", "rnnlab.trains"}


def resolves(name: str) -> bool:
    """Whether ``name`` is an importable module or an attribute path below one."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError:
            continue
        for part in parts[i:]:
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return False


def page_texts() -> dict[str, str]:
    """The book's pages (Markdown and every notebook cell) and the README."""
    texts = {}
    for path in [ROOT / "README.md", ROOT / "intro.md", *sorted((ROOT / "chapters").glob("*.md"))]:
        texts[str(path.relative_to(ROOT))] = path.read_text()
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        texts[str(path.relative_to(ROOT))] = "\n".join("".join(c["source"]) for c in cells)
    return texts


def docstrings() -> dict[str, str]:
    """Every module, class and function docstring of the library (not its data strings)."""
    texts = {}
    for path in sorted((ROOT / "lib" / "rnnlab").rglob("*.py")):
        tree = ast.parse(path.read_text())
        nodes = [tree] + [
            n
            for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        ]
        docs = [d for n in nodes if (d := ast.get_docstring(n))]
        texts[str(path.relative_to(ROOT))] = "\n".join(docs)
    return texts


def cited_names(texts: dict[str, str]) -> list[tuple[str, str]]:
    return sorted(
        {
            (where, m.group(1))
            for where, text in texts.items()
            for m in NAME.finditer(text)
            if m.group(1) not in CONFIG_KEYS
        }
    )


def test_the_finder_catches_a_stale_name() -> None:
    assert resolves("rnnlab.evidence.stats.combine_cells")
    assert not resolves("rnnlab.stats.combine_cells")
    assert not resolves("rnnlab.evidence.stats.no_such_rule")
    assert cited_names({"p": "see `rnnlab.stats.x` and rnnlab.pinned_ref"}) == [
        ("p", "rnnlab.stats.x")
    ]


@pytest.mark.parametrize("source", [page_texts, docstrings], ids=["pages", "docstrings"])
def test_every_cited_library_name_exists(source) -> None:
    names = cited_names(source())
    assert len(names) > 20, "the pages cite the library; finding almost none means the scan broke"
    stale = [f"{where}: {name}" for where, name in names if not resolves(name)]
    assert not stale, "names that no longer exist in the library:\n" + "\n".join(stale)
