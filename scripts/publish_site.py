"""Assemble the website that is deployed: the student edition at the root, the instructor edition
(with solutions) under ``instructor/``.

The GitHub Pages workflow (``.github/workflows/pages.yml``) builds both editions
(``make book-build student-book``) and runs this; any other host can serve the folder it writes.
Students land on the edition without solutions; the instructor edition is one path away::

    _build/site/                 <- _build/student-html/   (the student edition)
    _build/site/instructor/      <- _build/html/           (the instructor edition)
    _build/site/.nojekyll        (GitHub Pages: serve _static/ and _images/ as they are)

Before writing anything it checks that both builds exist (each with an ``index.html``), that the
student build has none of the instructor-only pages, and that the instructor build has them.

Usage::

    python scripts/publish_site.py             # write _build/site/
    python scripts/publish_site.py --dry-run   # check and print the plan; write nothing
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTRUCTOR_PATH = "instructor"
#: Pages only the instructor edition has (scripts/student_book.py, INSTRUCTOR_ONLY).
INSTRUCTOR_PAGES = ("chapters/instructor_guide.html", "chapters/execution_status.html")


def check_builds(instructor: Path, student: Path) -> list[str]:
    """One line per problem with the two built sites (empty: ready to publish)."""
    problems = []
    for name, folder in (("instructor", instructor), ("student", student)):
        if not (folder / "index.html").is_file():
            problems.append(
                f"{name} edition: {folder}/index.html is missing; build it first "
                f"({'make book' if name == 'instructor' else 'make student-book'})"
            )
    if problems:
        return problems
    for page in INSTRUCTOR_PAGES:
        if (student / page).exists():
            problems.append(f"student edition: {student / page} is an instructor-only page")
        if not (instructor / page).is_file():
            problems.append(f"instructor edition: {instructor / page} is missing")
    return problems


def assemble(instructor: Path, student: Path, out: Path, *, dry_run: bool = False) -> list[str]:
    """Write the deploy folder ``out`` (replacing it); return the plan as lines.

    Raises ValueError (naming what is wrong) if :func:`check_builds` finds a problem.
    """
    problems = check_builds(instructor, student)
    if problems:
        raise ValueError("cannot publish:\n" + "\n".join(problems))
    if out.resolve() in (instructor.resolve(), student.resolve()):
        raise ValueError(f"out must be a new folder, not one of the builds, got {out}")
    count = {name: sum(1 for p in d.rglob("*") if p.is_file()) for name, d in
             (("student", student), ("instructor", instructor))}  # fmt: skip
    plan = [
        f"{out}/  <- {student}/ (student edition, {count['student']} files)",
        f"{out}/{INSTRUCTOR_PATH}/  <- {instructor}/ (instructor edition, "
        f"{count['instructor']} files)",
        f"{out}/.nojekyll",
    ]
    if dry_run:
        return plan
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(student, out)
    if (out / INSTRUCTOR_PATH).exists():
        raise ValueError(f"the student edition has its own {INSTRUCTOR_PATH}/ folder: rename it")
    shutil.copytree(instructor, out / INSTRUCTOR_PATH)
    (out / ".nojekyll").write_text("")
    return plan


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instructor", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--student", type=Path, default=ROOT / "_build" / "student-html")
    parser.add_argument("--out", type=Path, default=ROOT / "_build" / "site")
    parser.add_argument("--dry-run", action="store_true", help="check and print; write nothing")
    args = parser.parse_args(argv)
    try:
        plan = assemble(args.instructor, args.student, args.out, dry_run=args.dry_run)
    except ValueError as exc:
        print(f"publish_site: {exc}", file=sys.stderr)
        return 1
    print("publish_site (dry run): would write" if args.dry_run else "publish_site: wrote")
    for line in plan:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
