"""How far each design is: runs done against runs planned, per lab, profile and scale map."""

from __future__ import annotations

from pathlib import Path

from rnnlab.course.status.runs import (
    markdown_table,
)


def design_progress(results_dir: str | Path | None = None) -> list[dict]:
    """How far each design is: one row per lab and profile (smoke aside) and per scale-map
    profile, whether or not it has a results file yet.

    The scale map's transfer control (``"scale-transfer"``) has a row once the map's transfer
    check has run (its rates come from there).

    Each row holds ``design`` (``"lab-b"``, ``"scale"``), ``profile``, ``file`` (the path in
    ``results_dir``, or ``None`` when there is none), ``runs`` (every run in the file, tuning
    and grid extensions included), ``reporting`` and ``expected`` (the design's reporting runs
    present, and how many it has: :meth:`rnnlab.experiments.sweep.SweepSpec.reporting_progress`),
    ``state``
    (``"complete"``, ``"provisional"`` or ``"not run"``), ``failed`` (runs that raised and have
    not succeeded since, from ``<file>.failed``) and ``command`` (the one that runs it,
    or resumes it: finished runs are skipped). Only a complete design gives final verdicts.

    The convergence experiment (``"converge"``, :mod:`rnnlab.experiments.converge`) has a row
    per profile too. Its reporting runs are those of the stages its data have decided so far
    (:func:`rnnlab.evidence.converge_report.progress`); while its seed rule has not decided
    every budget, ``expected`` is a floor and ``at_least`` is true (false in every other row).
    """
    from rnnlab.experiments import scale
    from rnnlab.experiments.labs import LABS
    from rnnlab.experiments.store import ResultsStore, load_results

    if results_dir is None:
        from rnnlab.core.paths import results_dir as default_results_dir

        results_dir = default_results_dir()
    folder = Path(results_dir)
    designs = [
        (
            name,
            profile,
            Path(f"{name}-{profile}.jsonl"),
            lab.sweep(profile),
            f"python -m rnnlab reproduce --profile {profile} --labs {name}",
        )
        for name, lab in LABS.items()
        for profile in lab.profiles
        if profile != "smoke"
    ]
    designs += [
        (
            "scale",
            profile,
            Path("scale") / f"{profile}.jsonl",
            scale.sweep_spec(profile),
            f"python -m rnnlab run-scale --profile {profile} --jobs 2",
        )
        for profile in scale.SCALE_PROFILES
        if profile != "smoke"
    ]
    for profile in ("reference", "gpu"):  # the transfer control, once the map's check has run
        source = folder / "scale" / f"{profile}.jsonl"
        map_records = load_results(source) if source.exists() else []
        if scale.transfer_check(scale.sweep_spec(profile), map_records):
            designs.append(
                (
                    scale.CONTROL_LAB,
                    profile,
                    Path("scale") / f"{profile}-transfer.jsonl",
                    scale.transfer_control_spec(profile, map_records),
                    f"python -m rnnlab run-scale --profile {profile} --transfer-control --jobs 2",
                )
            )
    rows = []
    for design, profile, relative, spec, command in designs:
        path = folder / relative
        records = load_results(path) if path.exists() else []
        failed = len(ResultsStore(path).failures()) if path.exists() else 0
        present, expected = spec.reporting_progress(records)
        state = "complete" if present == expected else "provisional" if records else "not run"
        rows.append(
            {
                "design": design,
                "profile": profile,
                "file": relative.as_posix() if path.exists() else None,
                "runs": len(records),
                "reporting": present,
                "expected": expected,
                "at_least": False,
                "state": state,
                "failed": failed,
                "command": command,
            }
        )
    return rows + _converge_rows(folder)


def _converge_rows(folder: Path) -> list[dict]:
    """:func:`design_progress`'s rows of the convergence experiment, one per profile."""
    from rnnlab.evidence import converge_report
    from rnnlab.experiments.store import ResultsStore, load_results

    rows = []
    for profile in ("reference", "gpu"):
        relative = Path("converge") / f"{profile}.jsonl"
        path = folder / relative
        records = load_results(path) if path.exists() else []
        p = converge_report.progress(profile, records)
        rows.append(
            {
                "design": "converge",
                "profile": profile,
                "file": relative.as_posix() if path.exists() else None,
                "runs": len(records),
                "reporting": p.have,
                "expected": p.wanted,
                "at_least": p.open_seeds,
                "state": "complete" if p.final else "provisional" if records else "not run",
                "failed": len(ResultsStore(path).failures()) if path.exists() else 0,
                "command": f"python -m rnnlab run-converge --profile {profile} --jobs 2",
            }
        )
    return rows


def design_progress_markdown(results_dir: str | Path | None = None) -> str:
    """:func:`design_progress` as a Markdown table, for the *Execution status* page."""
    rows = [
        {
            "design": r["design"],
            "profile": r["profile"],
            "file": f"`{r['file']}`" if r["file"] else "none",
            "reporting": f"{r['reporting']:,} of {'at least ' * r['at_least']}{r['expected']:,}",
            "runs": f"{r['runs']:,}",
            "state": r["state"] if r["state"] != "provisional" else "**provisional**",
            "command": f"`{r['command']}`",
        }
        for r in design_progress(results_dir)
    ]
    columns = (
        ("design", "Design"),
        ("profile", "Profile"),
        ("file", "Results file"),
        ("reporting", "Reporting runs"),
        ("runs", "Runs in the file"),
        ("state", "State"),
        ("command", "Runs or resumes it"),
    )
    return markdown_table(rows, columns)


def design_progress_text(results_dir: str | Path | None = None) -> str:
    """:func:`design_progress` as plain text: what ``python -m rnnlab status`` prints."""
    rows = design_progress(results_dir)
    width = max(len(f"{r['design']} {r['profile']}") for r in rows)
    lines = ["Committed results in data/results/, against each design's reporting runs:"]
    for r in rows:
        name = f"{r['design']} {r['profile']}".ljust(width)
        expected = ("at least " if r["at_least"] else "") + f"{r['expected']:,}"
        count = f"{r['reporting']:>4,} of {expected:>4} reporting runs"
        extra = f", {r['runs']:,} runs in {r['file']}" if r["file"] else ""
        if r["failed"]:
            extra += f"; {r['failed']} FAILED (errors in {r['file']}.failed)"
        lines.append(f"  {name}  {r['state']:<11s}  {count}{extra}")
    unfinished = [r for r in rows if r["state"] != "complete"]
    if unfinished:
        lines += ["", "To run or resume one (finished runs are skipped):"]
        lines += [f"  {r['command']}" for r in unfinished]
    lines += [
        "",
        "The plans of the scale map and the convergence experiment (runs, core-hours, what is "
        "done and what remains):",
        "  python -m rnnlab plan scale --profile reference",
        "  python -m rnnlab plan converge --profile reference",
    ]
    return "\n".join(lines)
