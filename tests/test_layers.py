"""The package's layers: imports go down only (course -> evidence -> experiments -> core), and no
module imports another that (directly or not) imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

import rnnlab

LAYERS = ("core", "experiments", "evidence", "course")  # bottom to top
ROOT = Path(rnnlab.__file__).parent


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Every rnnlab module and the rnnlab modules it imports (at any depth in its code)."""
    mods = {_module(p): p for p in ROOT.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in mods.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if full in mods else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
        out[name] = {m for m in found if m in mods and m != name}
    return out


def _layer(module: str) -> int:
    parts = module.split(".")
    if len(parts) < 2:
        return -1  # the package itself (its version)
    if parts[1] == "__main__":
        return len(LAYERS)
    return LAYERS.index(parts[1])


def test_every_module_is_in_a_layer() -> None:
    for m in _imports():
        assert m in ("rnnlab", "rnnlab.__main__") or m.split(".")[1] in LAYERS, m


def test_imports_only_go_down() -> None:
    up = [(a, b) for a, bs in _imports().items() for b in bs if _layer(b) > _layer(a)]
    assert up == []


def test_no_import_cycle() -> None:
    graph = _imports()
    state: dict[str, int] = {}

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                raise AssertionError(" -> ".join([*path[path.index(n) :], n]))
            if n not in state:
                visit(n, [*path, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])


def test_no_private_name_is_imported_across_modules() -> None:
    bad = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("rnnlab"):
                bad += [f"{_module(path)}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert bad == []
