"""Tests for rnnlab.course.student: solutions are cut out, nothing leaks, and every exercise's
self-check
fails on the stub and passes on the solution (executed with nbclient in the smoke profile)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from rnnlab.course import student
from rnnlab.course.student import BEGIN_SOLUTION, END_SOLUTION, STUB

ROOT = Path(__file__).resolve().parents[1]
SECRET = "SECRET_SOLUTION_TEXT"


def _exercise_notebook() -> nbformat.NotebookNode:
    """An instructor notebook with every kind of solution the tool must remove."""
    nb = new_notebook()
    nb.metadata["rnnlab"] = {"trains": True}
    solution_md = new_markdown_cell(f"The answer is {SECRET} because ...")
    solution_md.metadata["tags"] = ["solution"]
    exercise = new_code_cell(
        "import math\n"
        "def double(x):\n"
        '    """Return 2x."""\n'
        f"    {BEGIN_SOLUTION}\n"
        f"    y = 2 * x  # {SECRET}\n"
        "    return y\n"
        f"    {END_SOLUTION}\n"
        "\n"
        "print('defined')"
    )
    exercise.outputs = [new_output("stream", name="stdout", text=f"{SECRET}\n")]
    exercise.execution_count = 3
    top_level = new_code_cell(f"{BEGIN_SOLUTION}\nanswer = 42  # {SECRET}\n{END_SOLUTION}")
    nb.cells = [
        new_markdown_cell("# Exercises"),
        exercise,
        new_code_cell("assert double(2) == 4"),
        solution_md,
        top_level,
        new_markdown_cell(f"```{{solution}} ex-1\n{SECRET}\n```"),
        new_markdown_cell("```{solution-start} ex-2\n```"),
        new_code_cell(f"print('{SECRET}')"),
        new_markdown_cell("```{solution-end}\n```"),
        new_markdown_cell(f"Explain.\n\n{BEGIN_SOLUTION}\n{SECRET}\n{END_SOLUTION}\n"),
        new_markdown_cell("Write it where the `### BEGIN SOLUTION` line is."),
        new_markdown_cell("## The end"),
    ]
    return nb


def test_student_copy_replaces_regions_and_keeps_indentation() -> None:
    out = student.student_notebook(_exercise_notebook(), name="ex.ipynb")
    code = [c for c in out.cells if c.cell_type == "code"]
    assert code[0].source == (
        f'import math\ndef double(x):\n    """Return 2x."""\n    {STUB}\n\nprint(\'defined\')'
    )
    assert code[1].source == "assert double(2) == 4"
    assert code[2].source == "answer = ...  # your answer here"  # a value exercise keeps its name
    assert len(code) == 3  # the gated solution's code cell is gone
    md = [c.source for c in out.cells if c.cell_type == "markdown"]
    assert md == [
        "# Exercises",
        f"Explain.\n\n{student.MARKDOWN_STUB}\n",
        # the student copy has no marker: a mention is reworded to point at the stub line
        "Write it where the `raise NotImplementedError(...)` line is.",
        "## The end",
    ]


def test_student_copy_clears_outputs_and_sets_flag() -> None:
    out = student.student_notebook(_exercise_notebook(), name="ex.ipynb")
    for cell in out.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert out.metadata["rnnlab"] == {"trains": True, "student": True}


def test_no_solution_text_survives_anywhere(tmp_path: Path) -> None:
    src, dst = tmp_path / "chapters", tmp_path / "student"
    (src / "labs").mkdir(parents=True)
    nbformat.write(_exercise_notebook(), src / "labs" / "ex.ipynb")
    assert student.main([str(src), str(dst)]) == 0
    text = (dst / "labs" / "ex.ipynb").read_text()
    assert SECRET in (src / "labs" / "ex.ipynb").read_text()  # the probe is really there
    assert SECRET not in text
    for cell in nbformat.reads(text, as_version=4).cells:
        assert {BEGIN_SOLUTION, END_SOLUTION}.isdisjoint(s.strip() for s in cell.source.split("\n"))
    nbformat.validate(nbformat.reads(text, as_version=4))


_LINE = st.from_regex(r"[a-z]_[a-z]{1,6} = [1-9][0-9]{0,2}", fullmatch=True)  # no keywords


@settings(max_examples=40, deadline=None)
@given(
    indent=st.sampled_from(["", "  ", "    ", "\t", "        "]),
    before=st.lists(_LINE, max_size=3),
    body=st.lists(st.from_regex(r"[a-z]{1,8}\([0-9]{1,3}\)", fullmatch=True), min_size=1),
    after=st.lists(_LINE, max_size=3),
)
def test_stub_property(indent: str, before: list[str], body: list[str], after: list[str]) -> None:
    lines = [*before, indent + BEGIN_SOLUTION, *(indent + b for b in body), indent + END_SOLUTION]
    source = "\n".join([*lines, *after])
    out = student.stub_solutions(source, where="nb cell 0").split("\n")
    assert out == [*before, indent + STUB, *after]


@settings(max_examples=40, deadline=None)
@given(
    indent=st.sampled_from(["", "    "]),
    body=st.lists(_LINE, min_size=1, max_size=4),
    after=st.lists(_LINE, max_size=2),
)
def test_value_region_keeps_each_name_once(indent: str, body: list[str], after: list[str]) -> None:
    """A region that only assigns names becomes ``name = ...`` per name, in order, once each."""
    lines = [indent + BEGIN_SOLUTION, *(indent + b for b in body), indent + END_SOLUTION]
    out = student.stub_solutions("\n".join([*lines, *after]), where="nb cell 0").split("\n")
    names = list(dict.fromkeys(b.split(" = ")[0] for b in body))
    assert out == [indent + student.VALUE_STUB.format(name=n) for n in names] + after


@pytest.mark.parametrize(
    ("region", "names"),
    [
        ("my_effect = -0.02  # a reason", ["my_effect"]),
        ('concept_answer = "B"\n', ["concept_answer"]),
        ("x: float = 1.0\ny = 2", ["x", "y"]),
        ("return 2 * v", None),
        ("obj.attr = 1", None),
        ("a, b = 1, 2", None),
        ("def f():\n    return 1", None),
    ],
)
def test_assigned_names(region: str, names: list[str] | None) -> None:
    assert student.assigned_names(region) == names


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (f"{BEGIN_SOLUTION}\n{BEGIN_SOLUTION}\nx\n{END_SOLUTION}\n{END_SOLUTION}", "nested"),
        (f"x = 1\n{END_SOLUTION}", "without"),
        (f"{BEGIN_SOLUTION}\nx = 1", "never closed"),
        (f"x = 1  {BEGIN_SOLUTION}\ny\n{END_SOLUTION}", "alone"),
        (f"{BEGIN_SOLUTION}\nx\n## END SOLUTION", "alone"),
    ],
)
def test_bad_markers_name_notebook_and_cell(source: str, message: str) -> None:
    nb = new_notebook(
        cells=[new_markdown_cell("intro"), new_code_cell("ok = 1"), new_code_cell(source)]
    )
    with pytest.raises(ValueError, match=rf"chapters/bad\.ipynb cell 2: .*{message}"):
        student.student_notebook(nb, name="chapters/bad.ipynb")


def test_solution_tagged_code_cell_without_markers_is_refused() -> None:
    cell = new_code_cell("answer = 42")
    cell.metadata["tags"] = ["solution", "hide-input"]
    nb = new_notebook(cells=[new_code_cell("1"), cell])
    with pytest.raises(ValueError, match=r"x\.ipynb cell 1: .*tagged 'solution'"):
        student.student_notebook(nb, name="x.ipynb")


def test_check_detects_drift_missing_and_orphans(tmp_path: Path, capsys) -> None:
    src, dst = tmp_path / "chapters", tmp_path / "student"
    src.mkdir()
    nbformat.write(_exercise_notebook(), src / "a.ipynb")
    nbformat.write(new_notebook(cells=[new_code_cell("1")]), src / "b.ipynb")
    assert student.main([str(src), str(dst), "--check"]) == 1  # nothing written yet
    assert "a.ipynb: missing" in capsys.readouterr().out
    assert student.main([str(src), str(dst)]) == 0
    assert student.main([str(src), str(dst), "--check"]) == 0
    capsys.readouterr()

    nb = nbformat.read(src / "a.ipynb", as_version=4)
    nb.cells[2].source = "assert double(3) == 6"  # edit a self-check: the copy is now stale
    nbformat.write(nb, src / "a.ipynb")
    assert student.main([str(src), str(dst), "--check"]) == 1
    out = capsys.readouterr().out
    assert "a.ipynb: differs" in out and "b.ipynb" not in out

    (src / "b.ipynb").unlink()
    assert student.main([str(src), str(dst), "--check"]) == 1
    assert "b.ipynb: its source" in capsys.readouterr().out
    (dst / "notes.ipynb").write_text(json.dumps(nbformat.v4.new_notebook()))  # not ours
    assert student.main([str(src), str(dst)]) == 0
    assert not (dst / "b.ipynb").exists() and (dst / "notes.ipynb").exists()
    assert student.main([str(src), str(dst), "--check"]) == 0


def test_bad_src_is_a_clear_error(tmp_path: Path, capsys) -> None:
    assert student.main([str(tmp_path / "nope"), str(tmp_path / "out")]) == 2
    assert "src must be an existing folder" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Execution: each self-check fails on the stub and passes on the solution.


def _solution_lines(source: str) -> str:
    inside, lines = False, []
    for line in source.splitlines():
        if line.strip() in (BEGIN_SOLUTION, END_SOLUTION):
            inside = line.strip() == BEGIN_SOLUTION
        elif inside:
            lines.append(line)
    return "\n".join(lines)


def run_exercises(instructor: nbformat.NotebookNode, cwd: Path, name: str) -> int:
    """Execute ``instructor`` in one kernel; at each exercise run the student stub, then its
    self-check (must fail), then the solution and the self-check again (must pass).

    Stops after the last exercise's self-check. Returns the number of exercises checked.
    """
    stub_nb = student.student_notebook(instructor, name=name)
    stubs = {c.id: c for c in stub_nb.cells if c.cell_type == "code"}
    code = [(i, c) for i, c in enumerate(instructor.cells) if c.cell_type == "code"]
    exercises = [k for k, (_, c) in enumerate(code) if student.has_solution(c.source)]
    if not exercises:
        return 0
    client = NotebookClient(
        nbformat.from_dict(dict(instructor)),  # execute_cell stores each result at its index
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(cwd)}},
    )

    def run(cell: nbformat.NotebookNode, index: int) -> CellExecutionError | None:
        cell = nbformat.from_dict(dict(cell))
        # Student stubs and their self-checks are tagged raises-exception (so the student book
        # builds); nbclient then swallows the error. Here every error must surface.
        tags = cell.setdefault("metadata", {}).get("tags", [])  # from_dict made a deep copy
        cell.metadata["tags"] = [t for t in tags if t != student.RAISES_TAG]
        try:
            client.execute_cell(cell, index)
        except CellExecutionError as exc:
            return exc
        return None

    with client.setup_kernel():
        k = 0
        while k <= exercises[-1]:
            index, cell = code[k]
            where = f"{name} cell {index}"
            if k not in exercises:
                err = run(cell, index)
                assert err is None, f"{where} failed before an exercise: {err}"
                k += 1
                continue
            assert k + 1 < len(code) and k + 1 not in exercises, (
                f"{where}: an exercise must be followed by its self-check code cell"
            )
            check_index, check = code[k + 1]
            stub = stubs[cell.id]
            top_level = STUB in stub.source.splitlines()
            value = student.assigned_names(_solution_lines(cell.source)) is not None
            err = run(stub, index)
            if err is not None:
                assert err.ename == "NotImplementedError", f"{where} stub raised {err.ename}"
            assert (err is not None) == top_level, f"{where}: stub ran without reaching the raise"
            allowed = {"AssertionError", "NotImplementedError", "NotAnswered"}
            check_err = run(check, check_index)
            assert check_err is not None, f"{name} cell {check_index}: self-check passed a stub"
            # Never a NameError: a value exercise's stub defines its name (``my_effect = ...``)
            # and its check says so in words.
            assert check_err.ename in allowed, f"self-check raised {check_err.ename}"
            if value and "check_" in check.source:  # a course self-check (rnnlab.course.exercises)
                assert "not answered yet" in check_err.evalue, (where, check_err.evalue)
            assert run(cell, index) is None, f"{where}: the solution raised"
            err = run(check, check_index)
            assert err is None, f"{name} cell {check_index}: self-check fails on the solution"
            k += 2
    return len(exercises)


def _chapters_with_exercises() -> list[Path]:
    paths = sorted((ROOT / "chapters").rglob("*.ipynb"))
    return [
        p
        for p in paths
        if ".ipynb_checkpoints" not in p.parts
        and any(
            student.has_solution(c.source)
            for c in nbformat.read(p, as_version=4).cells
            if c.cell_type == "code"
        )
    ]


CHAPTERS = _chapters_with_exercises()


@pytest.mark.slow
@pytest.mark.parametrize("path", CHAPTERS, ids=[str(p.relative_to(ROOT)) for p in CHAPTERS])
def test_chapter_self_checks_fail_on_stub_and_pass_on_solution(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RNNLAB_PROFILE", "smoke")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    assert run_exercises(nb, path.parent, str(path.relative_to(ROOT))) >= 1


def _runnable_exercise_notebook(check: str) -> nbformat.NotebookNode:
    return new_notebook(
        cells=[
            new_code_cell("x = 2"),
            new_code_cell(
                f"def double(v):\n    {BEGIN_SOLUTION}\n    return 2 * v\n    {END_SOLUTION}"
            ),
            new_code_cell(check),
            new_code_cell(f"{BEGIN_SOLUTION}\nanswer = double(x) - 1\n{END_SOLUTION}"),
            new_code_cell("assert answer == 3"),
            new_code_cell("raise RuntimeError('cells after the last self-check are not run')"),
        ]
    )


@pytest.mark.slow
def test_run_exercises_accepts_good_and_rejects_lenient_self_checks(tmp_path: Path) -> None:
    assert run_exercises(_runnable_exercise_notebook("assert double(x) == 4"), tmp_path, "ok") == 2
    with pytest.raises(AssertionError, match="self-check passed a stub"):
        run_exercises(_runnable_exercise_notebook("print('no check')"), tmp_path, "lenient")


# --------------------------------------------------------------------------------------------
# The student edition: stubs are tagged, instructions do not mention markers, the book config.


def test_stub_and_its_check_are_tagged_raises_exception() -> None:
    nb = new_notebook(
        cells=[
            new_markdown_cell("Write it in the cell marked `### BEGIN SOLUTION`, then run it."),
            new_code_cell(f"def f():\n    {BEGIN_SOLUTION}\n    return 1\n    {END_SOLUTION}"),
            new_markdown_cell("Now check:"),
            new_code_cell("assert f() == 1"),
            new_code_cell("print('unrelated')"),
        ]
    )
    out = student.student_notebook(nb, name="t.ipynb")
    tags = [c.metadata.get("tags", []) for c in out.cells]
    assert "raises-exception" in tags[1] and "raises-exception" in tags[3]
    assert "raises-exception" not in tags[4]
    # On the student website an unanswered stub shows no traceback (issue 13).
    assert "remove-output" in tags[1] and "remove-output" in tags[3]
    assert "remove-output" not in tags[4]
    assert "BEGIN SOLUTION" not in out.cells[0].source
    assert "raise NotImplementedError(...)" in out.cells[0].source


def test_stub_cells_are_shown_in_the_student_edition() -> None:
    """The instructor edition folds solutions (``hide-input``); a student must see the stub."""
    exercise = new_code_cell(f"def f():\n    {BEGIN_SOLUTION}\n    return 1\n    {END_SOLUTION}")
    exercise.metadata["tags"] = ["hide-input"]
    value = new_code_cell(f"{BEGIN_SOLUTION}\nmy_prediction = 1.25\n{END_SOLUTION}")
    value.metadata["tags"] = ["hide-cell", "full-width"]
    other = new_code_cell("print('setup')")
    other.metadata["tags"] = ["hide-input"]
    nb = new_notebook(cells=[other, exercise, new_code_cell("f()"), value, new_code_cell("1")])
    out = student.student_notebook(nb, name="t.ipynb")
    tags = [c.metadata.get("tags", []) for c in out.cells]
    assert tags[0] == ["hide-input"]  # cells a student does not edit keep their folding
    assert tags[1] == ["raises-exception", "remove-output"]
    assert tags[3] == ["full-width", "raises-exception", "remove-output"]
    assert out.cells[3].source == "my_prediction = ...  # your answer here"


def test_chapter_stubs_are_visible_and_value_stubs_define_their_names() -> None:
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        instructor = nbformat.read(path, as_version=4)
        out = student.student_notebook(instructor, name=str(path))
        by_id = {c.id: c for c in out.cells}
        for cell in instructor.cells:
            if cell.cell_type != "code" or not student.has_solution(cell.source):
                continue
            copy_ = by_id[cell.id]
            hidden = set(copy_.metadata.get("tags", [])) & set(student.HIDING_TAGS)
            assert not hidden, f"{path.name} cell {cell.id}: the stub is folded by {hidden}"
            names = student.assigned_names(_solution_lines(cell.source))
            for name in names or []:
                assert f"{name} = ..." in copy_.source, (path.name, copy_.source)


@pytest.mark.parametrize(
    ("check", "call"),
    [
        ("check_halving_prediction", "check_halving_prediction(...)"),
        ("check_effect_prediction", "check_effect_prediction(..., lab='lab-a', cell={})"),
        ("check_flops_prediction", "check_flops_prediction(...)"),
        ("check_depth_coefficient_answer", "check_depth_coefficient_answer(...)"),
        ("check_narrow_state_answer", "check_narrow_state_answer(...)"),
        ("check_scale_reading_answer", "check_scale_reading_answer(...)"),
        ("check_split_answer", "check_split_answer(...)"),
        ("check_critical_path_answer", "check_critical_path_answer(...)"),
    ],
)
def test_value_checks_say_not_answered_yet(check: str, call: str) -> None:
    from rnnlab.course import exercises

    with pytest.raises(exercises.NotAnswered, match=rf"^{check}: not answered yet\. Replace"):
        eval(call, vars(exercises))  # noqa: S307 - a fixed call of our own


def test_student_copies_of_the_chapters_never_mention_markers() -> None:
    for path in sorted((ROOT / "chapters").glob("*.ipynb")):
        out = student.student_notebook(nbformat.read(path, as_version=4), name=str(path))
        for cell in out.cells:
            assert "BEGIN SOLUTION" not in cell.source, (path.name, cell.source[:80])


def test_student_book_config_points_colab_at_the_student_copies(tmp_path: Path) -> None:
    import importlib.util
    import sys

    import yaml

    spec = importlib.util.spec_from_file_location(
        "student_book", ROOT / "scripts" / "student_book.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules["student_book"] = module
    spec.loader.exec_module(module)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    s_config = module.student_config(config)
    assert s_config["repository"]["path_to_book"] == "student"
    assert s_config["repository"]["url"] == config["repository"]["url"]
    assert s_config["repository"]["branch"] == config["repository"]["branch"]
    assert all(p.startswith("../") for p in s_config["sphinx"]["config"]["html_static_path"])
    files = [ch["file"] for part in module.student_toc(toc)["parts"] for ch in part["chapters"]]
    assert "chapters/01_counting_parameters" in files
    assert not set(files) & set(module.INSTRUCTOR_ONLY)
    module.write(ROOT, tmp_path / "student")
    assert (tmp_path / "student" / "chapters" / "01_counting_parameters.ipynb").is_file()
    assert not module.check(ROOT, tmp_path / "student")
    (tmp_path / "student" / "_toc.yml").write_text("stale")
    assert module.check(ROOT, tmp_path / "student")


def test_committed_student_notebooks_equal_what_the_generator_makes() -> None:
    """The student copies are committed (student/chapters/, opened by the student site's Colab
    buttons); they must be exactly what ``make student`` makes of chapters/ today."""
    import subprocess

    problems = student.stale_student_copies(ROOT / "chapters", ROOT / "student" / "chapters")
    assert not problems, "run `make student` and commit student/chapters/:\n" + "\n".join(problems)
    tracked = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "student/chapters"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    sources = [p.relative_to(ROOT).as_posix() for p in sorted((ROOT / "chapters").glob("*.ipynb"))]
    assert sorted(tracked) == [f"student/{s}" for s in sources]
