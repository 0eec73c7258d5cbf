"""What ran where: the tables on the book's *Execution status* page.

The committed reference results live in ``data/results/*.jsonl`` (JSON Lines: one finished run
per line). Each run records its provenance; this module needs these keys:

=================  ==========================================================
``lab``            which lab the run belongs to, e.g. ``"A"``
``profile``        the compute profile, e.g. ``"cpu"``
``seed``           the run's random seed
``device``         where it ran, e.g. ``"cpu"`` or ``"cuda"`` (an optional ``device_name``,
                   e.g. ``"Tesla T4"``, is shown next to it)
``versions``       ``{package: version}``, e.g. ``{"torch": "2.13.0"}``
``wall_time_s``    seconds from start to finish
``git_commit``     the commit of the code that produced the run
``started_at``     ISO 8601 start time, e.g. ``"2026-11-30T14:03:00+00:00"``
=================  ==========================================================

:func:`summarize_runs` groups runs by (file, lab, profile, device, versions) and returns plain
dicts; :func:`results_table_markdown` renders them as one Markdown table (or says there are no
results yet). Nothing here needs pandas.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

REQUIRED_KEYS = (
    "lab",
    "profile",
    "seed",
    "device",
    "versions",
    "wall_time_s",
    "git_commit",
    "started_at",
)

COLUMNS = (
    ("file", "File"),
    ("lab", "Lab"),
    ("profile", "Profile"),
    ("device", "Device"),
    ("runs", "Runs"),
    ("seeds", "Seeds"),
    ("wall_time", "Total wall time"),
    ("dates", "Dates (UTC)"),
    ("n_commits", "Commits"),
)


def load_runs(results_dir: str | Path) -> list[dict]:
    """Every run in ``results_dir/*.jsonl`` and ``results_dir/scale/*.jsonl``, each with an
    added ``"file"`` key (its path in ``results_dir``, e.g. ``scale/reference.jsonl``).

    Blank lines are skipped. A missing folder gives ``[]``.

    Raises:
        ValueError: a line that is not a JSON object, or lacks one of :data:`REQUIRED_KEYS`
            (the message names the file and line).
    """
    folder = Path(results_dir)
    runs: list[dict] = []
    for path in _result_files(folder):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if not line.strip():
                continue
            try:
                run = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path.name} line {number}: not valid JSON ({exc})") from None
            if not isinstance(run, dict):
                raise ValueError(f"{path.name} line {number}: expected a JSON object, got {line!r}")
            missing = [key for key in REQUIRED_KEYS if key not in run]
            if missing:
                raise ValueError(
                    f"{path.name} line {number}: missing keys {missing}; "
                    f"each run needs {list(REQUIRED_KEYS)}"
                )
            runs.append({**run, "file": path.relative_to(folder).as_posix()})
    return runs


def _result_files(folder: Path) -> list[Path]:
    """The current designs' results files: ``folder/*.jsonl`` and the scale map's
    ``folder/scale/*.jsonl`` (the archives in ``v1/`` and ``superseded/`` are not evidence)."""
    if not folder.is_dir():
        return []
    return sorted(folder.glob("*.jsonl")) + sorted(folder.glob("scale/*.jsonl"))


def _parse_time(text: str) -> datetime:
    """ISO 8601 (a trailing ``Z`` allowed) as an aware UTC datetime; naive times count as UTC."""
    when = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc)


def format_versions(versions: dict) -> str:
    """``{"torch": "2.13.0", "python": "3.11"}`` -> ``"python 3.11, torch 2.13.0"``."""
    if not isinstance(versions, dict):
        raise ValueError(f"versions must be a dict of package -> version, got {versions!r}")
    return ", ".join(f"{name} {versions[name]}" for name in sorted(versions))


def format_duration(seconds: float) -> str:
    """A wall time for people: ``"42.0 s"``, ``"3 min 05 s"``, ``"2 h 07 min"``."""
    if not seconds >= 0:
        raise ValueError(f"seconds must be a number >= 0, got {seconds!r}")
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {secs:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def _device(run: dict) -> str:
    """``"cpu"``, or ``"cuda (Tesla T4)"`` when the run names its hardware (``device_name``)."""
    name = str(run.get("device_name") or "")
    device = str(run["device"])
    return f"{device} ({name})" if name and name != device else device


def summarize_runs(runs: Iterable[dict]) -> list[dict]:
    """One row per (file, lab, profile, device, versions), sorted by those keys.

    Each row holds the grouping keys (``versions`` as text) and ``runs`` (count), ``seeds``
    (distinct seeds), ``wall_time_s`` (sum), ``wall_time`` (the sum, formatted), ``first`` and
    ``last`` (start times, UTC ISO dates), ``dates`` (``first`` to ``last``) and ``commits``
    (distinct ``git_commit`` values, shortened to 7 characters, comma-separated) and
    ``n_commits`` (how many; the page shows the count, the files hold every commit).
    """
    groups: dict[tuple, list[dict]] = {}
    for run in runs:
        key = (
            str(run.get("file", "")),
            str(run["lab"]),
            str(run["profile"]),
            _device(run),
            format_versions(run["versions"]),
        )
        groups.setdefault(key, []).append(run)
    rows = []
    for key in sorted(groups):
        members = groups[key]
        starts = sorted(_parse_time(r["started_at"]) for r in members)
        first, last = starts[0].date().isoformat(), starts[-1].date().isoformat()
        total = float(sum(float(r["wall_time_s"]) for r in members))
        rows.append(
            {
                "file": key[0],
                "lab": key[1],
                "profile": key[2],
                "device": key[3],
                "versions": key[4],
                "runs": len(members),
                "seeds": len({r["seed"] for r in members}),
                "wall_time_s": total,
                "wall_time": format_duration(total),
                "first": first,
                "last": last,
                "dates": first if first == last else f"{first} to {last}",
                "commits": ", ".join(sorted({str(r["git_commit"])[:7] for r in members})),
                "n_commits": len({str(r["git_commit"]) for r in members}),
            }
        )
    return rows


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def markdown_table(rows: list[dict], columns: Iterable[tuple[str, str]] = COLUMNS) -> str:
    """Rows (dicts) as a GitHub/MyST Markdown pipe table with the given (key, header) columns."""
    columns = list(columns)
    lines = [
        "| " + " | ".join(header for _, header in columns) + " |",
        "|" + "|".join("---" for _ in columns) + "|",
    ]
    lines += ["| " + " | ".join(_cell(row[key]) for key, _ in columns) + " |" for row in rows]
    return "\n".join(lines)


def results_table_markdown(results_dir: str | Path | None = None) -> str:
    """The reference-results table for ``results_dir`` (default: ``data/results``) as Markdown.

    Says so in a sentence when there are no results files yet.
    """
    if results_dir is None:
        from rnnlab.core.paths import results_dir as default_results_dir

        results_dir = default_results_dir()
    runs = load_runs(results_dir)
    if not runs:
        return (
            "No reference results are committed yet: `data/results/` holds no `*.jsonl` files "
            "with runs. Run `make results` to produce them."
        )
    rows = summarize_runs(runs)
    total = format_duration(sum(row["wall_time_s"] for row in rows))
    versions = sorted({row["versions"] for row in rows})
    return (
        markdown_table(rows)
        + f"\n\n{len(runs)} runs in {len({r['file'] for r in rows})} files; "
        + f"total wall time {total}. Package versions (one set per line; each run records its "
        + "own): "
        + "; ".join(f"*{v}*" for v in versions)
        + "."
    )


def build_environment_markdown() -> str:
    """One sentence: the profile, Python, torch and machine this build executed notebooks with."""
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        torch_version = "not installed"
    profile = os.environ.get("RNNLAB_PROFILE", "(unset)")
    return (
        f"This build executed the notebooks with `RNNLAB_PROFILE={profile}`, "
        f"Python {platform.python_version()}, torch {torch_version}, "
        f"on {platform.system()} {platform.machine()} with {os.cpu_count()} CPU cores."
    )


def _bench(path: str | Path | None = None) -> dict | None:
    """``data/bench/lab-walltime-cpu.json`` (``benchmarks/time_labs.py``), or ``None``."""
    if path is None:
        from rnnlab.core.paths import repo_root

        path = repo_root() / "data" / "bench" / "lab-walltime-cpu.json"
    path = Path(path)
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


@dataclass(frozen=True)
class LabTime:
    """What a lab's committed results cost, from their provenance and the wall-time benchmark:
    the one source of every time and run count the book states about a lab.

    ``runs``: runs in the committed results file (tuning included); ``planned``: the design's
    runs (:meth:`rnnlab.experiments.sweep.SweepSpec.planned_runs`); ``compute_s``: the sum of the
    runs'
    own wall times (each run timed alone, so on a busy machine an upper bound);
    ``wall_s``/``jobs``/``measured``: the whole lab rerun from nothing by
    ``benchmarks/time_labs.py`` with ``jobs`` processes (``None`` when not measured)."""

    lab: str
    profile: str
    runs: int
    planned: int
    compute_s: float
    wall_s: float | None = None
    jobs: int | None = None
    measured: str | None = None
    target_minutes: float | None = None

    def text(self) -> str:
        """``"97 runs (tuning included), 82 min 10 s of summed run time; the whole lab, rerun
        with 2 processes: 10 min 24 s (2026-12-02)"``."""
        if not self.runs:
            return f"{self.planned:,} runs planned; no committed results, so no measured time"
        head = (
            f"{self.runs:,} runs (tuning included), {format_duration(self.compute_s)} of summed "
            "run time"
        )
        if self.wall_s is None:
            return head + "; the whole lab's wall time has not been measured"
        return (
            f"{head}; the whole lab, rerun with {self.jobs} processes: "
            f"{format_duration(self.wall_s)} ({self.measured})"
        )


def lab_time(
    lab: str,
    profile: str = "cpu",
    results_dir: str | Path | None = None,
    bench: str | Path | None = None,
) -> LabTime:
    """:class:`LabTime` of ``lab``'s committed ``profile`` results (``data/results/`` and
    ``data/bench/lab-walltime-cpu.json`` by default)."""
    from rnnlab.experiments.labs import get_lab
    from rnnlab.experiments.store import load_results

    if results_dir is None:
        from rnnlab.core.paths import results_dir as default_results_dir

        results_dir = default_results_dir()
    path = Path(results_dir) / f"{lab}-{profile}.jsonl"
    records = load_results(path) if path.exists() else []
    spec = get_lab(lab).sweep(profile)
    data = _bench(bench) if profile == "cpu" else None
    row = next((r for r in (data or {}).get("rows", []) if r["lab"] == lab), None)
    return LabTime(
        lab=lab,
        profile=profile,
        runs=len(records),
        planned=spec.planned_runs(records),
        compute_s=float(sum(r["wall_time_s"] for r in records)),
        wall_s=row["wall_seconds"] if row else None,
        jobs=row["jobs"] if row else None,
        measured=data["provenance"]["date"][:10] if row else None,
        target_minutes=data["target_minutes"] if data else None,
    )


def _command(command: str) -> str:
    """The benchmark's command without its free-text ``--note`` (kept in the JSON file)."""
    return command.split(" --note", 1)[0]


def lab_walltime_markdown(path: str | Path | None = None) -> str:
    """The measured wall time of each whole cpu lab on 2 cores (``benchmarks/time_labs.py``,
    ``data/bench/lab-walltime-cpu.json``) as Markdown: minutes against the design's target,
    whether the rerun reproduced the committed results run by run, the machine and its load.
    A lab with committed cpu results that was not rerun has a row that says so, with its runs'
    summed time (:func:`lab_time`). Says so in a sentence when nothing has been measured."""
    from rnnlab.experiments.labs import LABS

    data = _bench(path)
    if data is None:
        return (
            "The wall time of the cpu labs has not been measured on this checkout "
            "(`python benchmarks/time_labs.py lab-a lab-b lab-c lab-d --json "
            "data/bench/lab-walltime-cpu.json` measures it)."
        )
    prov, target = data["provenance"], data["target_minutes"]
    rows = []
    measured = {r["lab"]: r for r in data["rows"]}
    for r in sorted(data["rows"], key=lambda r: r["lab"]):
        rep = r["reproduces_committed"]
        rows.append(
            {
                "lab": r["lab"],
                "wall": f"{r['wall_minutes']:.1f} min",
                "target": "yes" if r["wall_minutes"] <= target else "**no**",
                "jobs": str(r["jobs"]),
                "same": f"{rep['identical']} of {rep['common']} runs identical "
                f"({rep['runs_new']} rerun, {rep['runs_committed']} committed)",
                "load": f"{r['load_average_before'][0]:.1f} / {r['load_average_after'][0]:.1f}",
            }
        )
    for name, lab in LABS.items():
        if name in measured or "cpu" not in lab.profiles:
            continue
        t = lab_time(name, "cpu", bench=path)
        if t.runs:
            rows.append(
                {
                    "lab": name,
                    "wall": "not measured",
                    "target": "not measured",
                    "jobs": "",
                    "same": f"not rerun ({t.runs} committed runs, "
                    f"{format_duration(t.compute_s)} of summed run time)",
                    "load": "",
                }
            )
    columns = (
        ("lab", "Lab"),
        ("wall", "Wall time (cpu profile)"),
        ("target", f"Within {target} min?"),
        ("jobs", "Processes"),
        ("same", "Rerun equals the committed results"),
        ("load", "Load average before / after"),
    )
    return (
        markdown_table(rows, columns)
        + f"\n\nMeasured {prov['date'][:10]} on {prov['cpu_count']} CPU cores "
        + f"({prov['processor']}), torch {prov['torch']}, with `{_command(prov['command'])}`."
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
                "state": state,
                "failed": failed,
                "command": command,
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
            "reporting": f"{r['reporting']:,} of {r['expected']:,}",
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
        count = f"{r['reporting']:>4,} of {r['expected']:>4,} reporting runs"
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
        "The scale map's plan (runs, core-hours, what is done and what remains):",
        "  python -m rnnlab plan scale --profile reference",
    ]
    return "\n".join(lines)
