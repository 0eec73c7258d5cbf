"""How well ``run-converge --until`` predicts a run's wall time: a replay of the committed runs.

    python benchmarks/bench_deadline_estimate.py                       # the reference profile
    python benchmarks/bench_deadline_estimate.py --profile gpu

``--until`` starts a run only if now + ``MARGIN`` x its estimate is before the deadline
(:mod:`rnnlab.experiments.deadline`). This replays the results file in the order its runs were
written: for each run, the estimate :func:`rnnlab.experiments.converge.timing.step_seconds_now`
would have given from the runs written before it (times the steps the run paid itself: a run
started from a fork pays the steps after it), against the wall time it really took
(:func:`rnnlab.core.config.own_wall_time_s`). It prints, per budget and depth and in all, the
median ratio of actual to estimated time and how many runs took longer than ``MARGIN`` x their
estimate (each such run, under a deadline, would have ended after it), beside the same for the
median of *all* earlier runs (the estimate before the newest :data:`RECENT_RUNS` were used).

Prints figures; asserts nothing. Reads committed results only; trains nothing (seconds).
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from rnnlab.core.config import own_wall_time_s
from rnnlab.experiments import converge
from rnnlab.experiments.converge.timing import (
    RECENT_RUNS,
    paid_steps,
    run_step_seconds,
    step_seconds_now,
)
from rnnlab.experiments.deadline import MARGIN
from rnnlab.experiments.store import load_results


def replay(profile: str) -> dict[tuple[int, int] | str, dict[str, list[float]]]:
    """Per (budget, depth) and ``"all"``: the ratios actual / estimate of the newest-runs
    estimate (``"recent"``) and of the median over every earlier run (``"all runs"``)."""
    out_path = converge.default_out(profile)
    records = load_results(out_path)
    d = converge.design_for(profile, records)
    ratios: dict = defaultdict(lambda: defaultdict(list))
    for i, r in enumerate(records):
        steps, key = paid_steps(r), (int(r["budget"]), int(r["num_layers"]))
        if steps <= 0:
            continue
        before = records[:i]
        recent = step_seconds_now(d, before).get(key)
        every = run_step_seconds(before).get(key)
        actual = own_wall_time_s(r)
        for name, t in (
            ("recent", recent),
            ("all runs", statistics.median(every) if every else None),
        ):
            if t:
                ratios[key][name].append(actual / (steps * t))
                ratios["all"][name].append(actual / (steps * t))
    return ratios


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--profile", default="reference", help="reference or gpu")
    args = ap.parse_args()
    ratios = replay(args.profile)
    print(
        f"converge {args.profile}: actual / estimated wall time of each committed run, replayed "
        f"in the order written (margin {MARGIN}x; newest {RECENT_RUNS} runs of the cell)"
    )
    head = ("cell", "estimate", "runs", "median", "p90", "over margin")
    print("  {:24s} {:9s} {:>5s} {:>7s} {:>6s} {:>12s}".format(*head))
    for key in sorted((k for k in ratios if k != "all"), key=str) + ["all"]:
        label = "all cells" if key == "all" else f"{key[0]:,} params, L={key[1]}"
        for name in ("recent", "all runs"):
            xs = sorted(ratios[key][name])
            if not xs:
                continue
            over = sum(x > MARGIN for x in xs)
            p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
            print(f"  {label:24s} {name:9s} {len(xs):5d} {statistics.median(xs):7.2f} {p90:6.2f}"
                  f" {over:5d} ({over / len(xs):4.0%})")  # fmt: skip


if __name__ == "__main__":
    main()
