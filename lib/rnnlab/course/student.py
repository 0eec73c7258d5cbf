"""Student versions of the chapters: the instructor notebooks with every solution cut out.

One source notebook makes both versions. An exercise's solution sits between two marker lines
(the nbgrader convention) inside a code cell::

    def gru_param_count(input_size, hidden_size):
        ### BEGIN SOLUTION
        return 3 * (hidden_size * (input_size + hidden_size) + 2 * hidden_size)
        ### END SOLUTION

The student copy keeps everything outside the markers and replaces the region, markers included,
by one line at the indentation of the ``### BEGIN SOLUTION`` line::

    def gru_param_count(input_size, hidden_size):
        raise NotImplementedError("Exercise: write your solution here")

so the self-check in the next cell fails until the student writes an answer. A region that only
assigns values to names (a prediction, a multiple-choice answer)::

    ### BEGIN SOLUTION
    my_effect = -0.02
    ### END SOLUTION

becomes one line per name, ``my_effect = ...  # your answer here``, so the name exists and its
self-check says "not answered yet" (:data:`rnnlab.course.exercises.NOT_ANSWERED`) rather than
failing
with a ``NameError``. Besides that, a student copy

- drops every markdown cell tagged ``solution`` and every markdown cell holding a sphinx-exercise
  ``{solution}`` directive, and every cell from a ``{solution-start}`` cell to the matching
  ``{solution-end}`` cell (a gated solution);
- replaces a marked region in a markdown cell by ``*Write your answer here.*``;
- has no outputs and no execution counts;
- shows every stubbed code cell (the ``hide-input``, ``hide-cell`` and ``remove-input`` tags that
  fold a solution in the instructor edition are dropped: a student must see the cell to edit it);
- tags each stubbed code cell, and the code cell right after it (its self-check), with
  ``raises-exception``: both may raise until the student answers, and the tag tells myst-nb (the
  student website's build) and nbval that this is expected; and with ``remove-output``, so the
  student website shows the exercise, not the traceback of its unanswered stub (in Jupyter and
  Colab the tag changes nothing: the student sees the check's message when running it);
- never mentions the solution markers in its instructions: a markdown mention of
  ``### BEGIN SOLUTION`` (e.g. "write it in the cell marked ...") is reworded to point at the
  ``raise NotImplementedError(...)`` line the student copy has instead;
- carries ``"rnnlab": {"student": true}`` in its notebook metadata.

A code cell tagged ``solution`` must contain the markers: removing it would break the cells that
follow, keeping it would publish the answer, so the tool refuses (``ValueError``).

Command line (``make student`` runs the first form)::

    python -m rnnlab.course.student chapters student          # write student/<same path>.ipynb
    python -m rnnlab.course.student chapters student --check  # exit 1, listing stale copies

Malformed markers (nested, unmatched, or not alone on their line) raise ``ValueError`` naming the
notebook and the (0-based) cell index.
"""

from __future__ import annotations

import argparse
import ast
import copy
import re
import sys
import textwrap
from pathlib import Path

import nbformat

BEGIN_SOLUTION = "### BEGIN SOLUTION"
END_SOLUTION = "### END SOLUTION"
STUB = 'raise NotImplementedError("Exercise: write your solution here")'
#: The stub of a value exercise: ``NAME = ...``; the self-checks read ``...`` as "not answered".
VALUE_STUB = "{name} = ...  # your answer here"
MARKDOWN_STUB = "*Write your answer here.*"
SOLUTION_TAG = "solution"
RAISES_TAG = "raises-exception"
REMOVE_OUTPUT_TAG = "remove-output"
#: Tags that fold or remove a cell's source on the website: dropped from stubbed cells.
HIDING_TAGS = ("hide-input", "hide-cell", "remove-input", "remove-cell")
#: How a student copy's markdown refers to the place an answer goes (no marker there).
STUB_MENTION = "`raise NotImplementedError(...)`"
_MARKER_MENTION = re.compile(
    r"(?:the\s+cell\s+marked\s+)?`+\s*" + re.escape(BEGIN_SOLUTION) + r"\s*`+", re.IGNORECASE
)

_DIRECTIVE = r"^\s*(?:`{3,}|:{3,})\s*\{%s\}"
_SOLUTION_DIRECTIVE = re.compile(_DIRECTIVE % "solution", re.MULTILINE)
_GATED_START = re.compile(_DIRECTIVE % "solution-start", re.MULTILINE)
_GATED_END = re.compile(_DIRECTIVE % "solution-end", re.MULTILINE)


def has_solution(source: str) -> bool:
    """Whether ``source`` holds a ``### BEGIN SOLUTION`` marker line."""
    return any(line.strip() == BEGIN_SOLUTION for line in source.splitlines())


def assigned_names(region: str) -> list[str] | None:
    """The names a solution region assigns, if it does nothing else; else ``None``.

    ``"my_effect = -0.02  # why"`` gives ``["my_effect"]``; a ``def``, a call, or an assignment to
    an attribute or a tuple gives ``None`` (such a region is stubbed with :data:`STUB`).
    """
    try:
        tree = ast.parse(textwrap.dedent(region))
    except SyntaxError:
        return None
    names = []
    for statement in tree.body:
        if not isinstance(statement, ast.Assign | ast.AnnAssign):
            return None
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if not all(isinstance(t, ast.Name) for t in targets):
            return None
        names += [t.id for t in targets if t.id not in names]
    return names or None


def stub_solutions(source: str, *, where: str, placeholder: str = STUB, strict: bool = True) -> str:
    """Replace every marked solution region of ``source`` by ``placeholder``.

    Args:
        source: a cell's source text.
        where: names the cell in error messages, e.g. ``"chapters/01.ipynb cell 7"``.
        placeholder: the line written, at the ``BEGIN`` marker's indentation, instead of a region
            (for code, ``strict``: instead of a region that only assigns names, one
            :data:`VALUE_STUB` line per name).
        strict: refuse a line that mentions a marker without being one (used for code cells;
            markdown may talk *about* the markers).

    Returns:
        The source with each region (markers included) replaced by one placeholder line.

    Raises:
        ValueError: a ``BEGIN`` inside a region (nested), an ``END`` outside one, a region left
            open at the end of the cell, or (``strict``) a marker sharing its line with other text.
    """
    out: list[str] = []
    open_line: int | None = None
    region: list[str] = []
    for number, line in enumerate(source.splitlines(keepends=True), start=1):
        stripped = line.strip()
        for marker in (BEGIN_SOLUTION, END_SOLUTION):
            if strict and marker.removeprefix("### ") in line and stripped != marker:
                raise ValueError(
                    f"{where}: line {number} must hold the marker {marker!r} alone "
                    f"(only indentation allowed), got {line.rstrip()!r}"
                )
        if stripped == BEGIN_SOLUTION:
            if open_line is not None:
                raise ValueError(
                    f"{where}: nested {BEGIN_SOLUTION!r} at line {number}; the region opened "
                    f"at line {open_line} has no {END_SOLUTION!r} before it"
                )
            open_line = number
            indent = line[: len(line) - len(line.lstrip())]
            newline = "\n" if line.endswith("\n") else ""
            out.append(f"{indent}{placeholder}{newline}")
            region = []
        elif stripped == END_SOLUTION:
            if open_line is None:
                raise ValueError(
                    f"{where}: {END_SOLUTION!r} at line {number} without a {BEGIN_SOLUTION!r} "
                    "before it"
                )
            open_line = None
            names = assigned_names("".join(region)) if strict else None
            if names:  # a value exercise: keep the names, without their values
                newline = "\n" if out[-1].endswith("\n") else ""
                out[-1] = "\n".join(indent + VALUE_STUB.format(name=n) for n in names) + newline
            if not line.endswith("\n"):  # the region ends the cell: so does the placeholder
                out[-1] = out[-1].rstrip("\n")
        elif open_line is None:
            out.append(line)
        else:
            region.append(line)
    if open_line is not None:
        raise ValueError(
            f"{where}: {BEGIN_SOLUTION!r} at line {open_line} is never closed by {END_SOLUTION!r}"
        )
    return "".join(out)


def _tags(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []))


def reword_marker_mentions(source: str) -> str:
    """Markdown for the student copy: "the cell marked `### BEGIN SOLUTION`" becomes "the cell
    holding `raise NotImplementedError(...)`" (the marker is not in the student's notebook)."""

    def replace(match: re.Match) -> str:
        lead = "the cell holding " if match.group(0).lower().startswith("the") else ""
        return lead + STUB_MENTION

    return _MARKER_MENTION.sub(replace, source)


def _drop_tags(cell: dict, drop: tuple[str, ...]) -> None:
    tags = [t for t in _tags(cell) if t not in drop]
    if tags:
        cell["metadata"]["tags"] = tags
    else:
        cell.get("metadata", {}).pop("tags", None)


def _add_tag(cell: dict, tag: str) -> None:
    tags = _tags(cell)
    if tag not in tags:
        cell.setdefault("metadata", {})["tags"] = [*tags, tag]


def student_notebook(nb: nbformat.NotebookNode, *, name: str) -> nbformat.NotebookNode:
    """The student version of notebook ``nb`` (a new object; ``nb`` is not changed).

    ``name`` (the notebook's path) is used in error messages only.
    """
    out = copy.deepcopy(nb)
    cells = []
    gated_from: int | None = None
    raise_next = False
    for index, cell in enumerate(out.cells):
        where = f"{name} cell {index}"
        source = cell.source
        if gated_from is not None:
            if cell.cell_type == "markdown" and _GATED_END.search(source):
                gated_from = None
            continue
        if cell.cell_type == "markdown" and _GATED_START.search(source):
            gated_from = index
            if _GATED_END.search(source):
                gated_from = None
            continue
        if cell.cell_type == "markdown":
            if SOLUTION_TAG in _tags(cell) or _SOLUTION_DIRECTIVE.search(source):
                continue
            cell.source = reword_marker_mentions(
                stub_solutions(source, where=where, placeholder=MARKDOWN_STUB, strict=False)
            )
        elif cell.cell_type == "code":
            if SOLUTION_TAG in _tags(cell) and not has_solution(source):
                raise ValueError(
                    f"{where}: a code cell tagged {SOLUTION_TAG!r} must mark its solution with "
                    f"{BEGIN_SOLUTION!r} / {END_SOLUTION!r} lines"
                )
            stubbed = has_solution(source)
            cell.source = stub_solutions(source, where=where)
            if stubbed:  # the student edits this cell: it is shown, never folded
                _drop_tags(cell, HIDING_TAGS)
            if stubbed or raise_next:  # a stub, or the self-check of the exercise just stubbed
                _add_tag(cell, RAISES_TAG)
                _add_tag(cell, REMOVE_OUTPUT_TAG)
                raise_next = stubbed
            cell.outputs = []
            cell.execution_count = None
            cell.metadata.pop("execution", None)
        cells.append(cell)
    if gated_from is not None:
        raise ValueError(f"{name} cell {gated_from}: {{solution-start}} without {{solution-end}}")
    out.cells = cells
    rnnlab_meta = dict(out.metadata.get("rnnlab", {}))
    rnnlab_meta["student"] = True
    out.metadata["rnnlab"] = rnnlab_meta
    nbformat.validate(out)
    return out


def student_text(path: Path, *, name: str | None = None) -> str:
    """The student copy of the notebook at ``path``, serialised exactly as it is written."""
    nb = nbformat.read(path, as_version=4)
    return nbformat.writes(student_notebook(nb, name=name or str(path))) + "\n"


def _sources(src: Path) -> list[Path]:
    if not src.is_dir():
        raise ValueError(f"src must be an existing folder of notebooks, got {str(src)!r}")
    return sorted(
        p.relative_to(src) for p in src.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
    )


def _is_student_copy(path: Path) -> bool:
    try:
        return bool(nbformat.read(path, as_version=4).metadata.get("rnnlab", {}).get("student"))
    except Exception:  # not a readable notebook: not ours
        return False


def write_student_copies(src: Path, dst: Path) -> list[Path]:
    """Write ``dst/<rel>.ipynb`` for every ``src/<rel>.ipynb``; return the paths written.

    Student copies in ``dst`` whose source no longer exists are deleted (only files carrying the
    ``rnnlab.course.student`` flag, so nothing else in ``dst`` is touched).
    """
    rels = _sources(src)
    texts = {rel: student_text(src / rel, name=str(src / rel)) for rel in rels}  # all or nothing
    written = []
    for rel, text in texts.items():
        target = dst / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        written.append(target)
    if dst.is_dir():
        for orphan in sorted(dst.rglob("*.ipynb")):
            if orphan.relative_to(dst) not in texts and _is_student_copy(orphan):
                orphan.unlink()
    return written


def stale_student_copies(src: Path, dst: Path) -> list[str]:
    """One line per student copy that is missing, out of date, or has no source any more."""
    rels = _sources(src)
    problems = []
    for rel in rels:
        target = dst / rel
        if not target.is_file():
            problems.append(f"{target}: missing")
        elif target.read_text() != student_text(src / rel, name=str(src / rel)):
            problems.append(f"{target}: differs from {src / rel}")
    if dst.is_dir():
        for copy_path in sorted(dst.rglob("*.ipynb")):
            if copy_path.relative_to(dst) not in rels and _is_student_copy(copy_path):
                gone = src / copy_path.relative_to(dst)
                problems.append(f"{copy_path}: its source {gone} is gone")
    return problems


def main(argv: list[str] | None = None) -> int:
    """``python -m rnnlab.course.student SRC DST [--check]``."""
    parser = argparse.ArgumentParser(
        prog="python -m rnnlab.course.student",
        description="Write (or check) student copies of the notebooks in SRC under DST.",
    )
    parser.add_argument("src", type=Path, help="folder of instructor notebooks, e.g. chapters")
    parser.add_argument("dst", type=Path, help="folder for the student copies, e.g. student")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any copy is stale"
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            problems = stale_student_copies(args.src, args.dst)
            for line in problems:
                print(line)
            if problems:
                print(f"{len(problems)} stale student copies: run `make student`", file=sys.stderr)
                return 1
            return 0
        for path in write_student_copies(args.src, args.dst):
            print(f"wrote {path}")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
