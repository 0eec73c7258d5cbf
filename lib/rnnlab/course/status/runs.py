"""The runs table: load the result files, group the runs by where they ran, and render them
(with the build environment) as Markdown."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterable
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from rnnlab.core.config import own_wall_time_s

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
        total = float(sum(own_wall_time_s(r) for r in members))
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
