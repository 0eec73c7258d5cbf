"""How long each lab takes: the measured wall time per lab and profile (:func:`lab_time`) and
its Markdown table."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rnnlab.core.config import own_wall_time_s
from rnnlab.course.status.runs import (
    format_duration,
    markdown_table,
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
        compute_s=float(sum(own_wall_time_s(r) for r in records)),
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
