"""Wall time of whole cpu lab runs on this machine, and whether they reproduce the committed runs.

    python benchmarks/time_labs.py lab-a lab-b lab-c --json data/bench/lab-walltime-cpu.json

For each lab it runs ``python -m rnnlab run LAB --profile cpu --jobs 2`` (what ``make results``
runs, one thread per process) into a scratch file, from nothing, and times it with a wall clock.
Then it compares the scratch results with the committed ones (``data/results/LAB-cpu.jsonl``)
run by run: the same run ids, and the same learning rate, validation and test score to the last
bit (the course's promise that the same seed on a CPU gives the same numbers). That promise
holds on the same CPU model: a run records its CPU in ``device_name``, and the comparison says how
many of the committed runs were recorded on this machine's CPU model.

The load average before and after each lab is recorded: anything else running on the machine
slows the lab down, so on a shared machine the wall time is an upper bound for a quiet one. The
target the labs are designed to (``rnnlab.experiments.profiles.PROFILES["cpu"]``) is at most 30
minutes
per lab
on 2 cores.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from rnnlab.core.paths import results_dir
from rnnlab.experiments.profiles import CPU_TARGET_MINUTES
from rnnlab.experiments.store import load_results
from rnnlab.experiments.unit import git_commit


def compare(new: list[dict], committed: list[dict]) -> dict:
    """Run-by-run comparison of two results files of one lab (see the module docstring)."""
    a = {r["run_id"]: r for r in new}
    b = {r["run_id"]: r for r in committed}
    common = sorted(set(a) & set(b))

    def same(k: str) -> bool:
        x, y = a[k], b[k]
        return x["lr"] == y["lr"] and all(
            x["metrics"][m] == y["metrics"][m] for m in ("val", "test")
        )

    return {
        "runs_new": len(a),
        "runs_committed": len(b),
        "common": len(common),
        "identical": sum(same(k) for k in common),
        # the promise is "to the last bit on the same CPU model"; count the runs it applies to
        "same_cpu_model": sum(a[k].get("device_name") == b[k].get("device_name") for k in common),
        "max_abs_test_difference": max(
            (abs(a[k]["metrics"]["test"] - b[k]["metrics"]["test"]) for k in common), default=0.0
        ),
    }


def time_lab(lab: str, jobs: int, scratch: Path) -> dict:
    """Run ``lab``'s cpu profile from nothing into ``scratch`` and time it."""
    out = scratch / f"{lab}-cpu.jsonl"
    env = dict(os.environ, OMP_NUM_THREADS="1", TQDM_DISABLE="1")
    cmd = [sys.executable, "-m", "rnnlab", "run", lab, "--profile", "cpu"]
    cmd += ["--jobs", str(jobs), "--out", str(out)]
    load_before = os.getloadavg()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    committed = load_results(results_dir() / f"{lab}-cpu.jsonl")
    return {
        "lab": lab,
        "profile": "cpu",
        "jobs": jobs,
        "wall_seconds": round(wall, 1),
        "wall_minutes": round(wall / 60, 2),
        "load_average_before": list(load_before),
        "load_average_after": list(os.getloadavg()),
        "reproduces_committed": compare(load_results(out), committed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("labs", nargs="+", help="labs to time, e.g. lab-a lab-b lab-c")
    parser.add_argument("--jobs", type=int, default=2, help="processes, one per core (default 2)")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--note", default="", help="a note on the machine's state")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for lab in args.labs:
            row = time_lab(lab, args.jobs, Path(scratch))
            rows.append(row)
            rep = row["reproduces_committed"]
            print(
                f"{lab}: {row['wall_minutes']:.1f} min on {args.jobs} jobs; "
                f"{rep['identical']}/{rep['common']} runs identical to the committed results "
                f"({rep['runs_new']} new, {rep['runs_committed']} committed)",
                flush=True,
            )
            if args.json:  # after every lab, so an interruption keeps what was measured
                payload = {
                    "provenance": {
                        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                        "machine": "vm",
                        "platform": platform.platform(),
                        "processor": platform.machine(),
                        "cpu_count": os.cpu_count(),
                        "torch": torch.__version__,
                        "python": platform.python_version(),
                        "git_commit": git_commit(),
                        "command": " ".join(["python", "benchmarks/time_labs.py", *sys.argv[1:]]),
                        "note": args.note,
                    },
                    "target_minutes": CPU_TARGET_MINUTES,
                    "rows": rows,
                }
                args.json.parent.mkdir(parents=True, exist_ok=True)
                args.json.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()
