"""Learning-rate tuning: the grid of a cell, its growth at an edge, the chosen rate, the report.

The grid belongs to the *cell* (the experiment without its depth), so every depth gets the same
trials; the rate with the best mean validation score over :data:`TUNE_SEEDS` wins."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from rnnlab.experiments.experiment import TUNE_SEEDS, Experiment, run_id


def rate(x: float) -> float:
    """A learning rate rounded to 6 significant digits, so grown grids give stable run ids."""
    return float(f"{x:.6g}")


def tune_scores(experiment: Experiment, records: Iterable[dict]) -> dict[float, list[float]]:
    """``{lr: [validation score per tuning seed]}``, oriented so that higher is better (a
    diverged run scores ``-inf``)."""
    out: dict[float, list[float]] = {}
    for r in records:
        if r.get("experiment_key") == experiment.key and r.get("role") == "tune":
            m = r["metrics"]
            v = m["val"]
            score = float("-inf") if v is None or v != v else (v if m["higher_is_better"] else -v)
            out.setdefault(rate(r["lr"]), []).append(score)
    return out


def _best(grid: Sequence[float], scores: dict[float, list[float]]) -> float:
    def mean(lr: float) -> float:
        vals = scores[rate(lr)]
        return sum(vals) / len(vals)

    return max(grid, key=mean)


def cell_grid(
    cell: Sequence[Experiment], records: Sequence[dict], tune_seeds: Sequence[int] = TUNE_SEEDS
) -> tuple[tuple[float, ...], bool]:
    """The learning-rate grid of one cell so far, and whether its tuning is complete.

    Starts from the experiments' ``lr_grid``; while any depth's best rate (mean validation over
    ``tune_seeds``) is at an edge, adds one log-step beyond that edge unless it would pass
    ``lr_limits``. Incomplete while a tuning run of the current grid is missing.
    """
    first = cell[0]
    grid = [rate(g) for g in first.lr_grid]
    if len(grid) == 1:
        return tuple(grid), True
    lo_cap, hi_cap = first.lr_limits
    step = first.lr_step
    done = {r["run_id"] for r in records}
    while True:
        for exp in cell:
            for lr in grid:
                if any(run_id(exp, "tune", s, lr) not in done for s in tune_seeds):
                    return tuple(grid), False
        bests = [_best(grid, tune_scores(exp, records)) for exp in cell]
        up = any(b == grid[-1] for b in bests) and grid[-1] * step <= hi_cap * (1 + 1e-4)
        down = any(b == grid[0] for b in bests) and grid[0] / step >= lo_cap * (1 - 1e-4)
        if not (up or down):
            return tuple(grid), True
        if up:
            grid.append(rate(grid[-1] * step))
        if down:
            grid.insert(0, rate(grid[0] / step))


def cells_of(experiments: Sequence[Experiment]) -> dict[str, list[Experiment]]:
    """The experiments grouped by :attr:`Experiment.cell_key`, in design order."""
    out: dict[str, list[Experiment]] = {}
    for e in experiments:
        out.setdefault(e.cell_key, []).append(e)
    return out


def choose_lr(
    experiment: Experiment,
    records: Sequence[dict],
    cell: Sequence[Experiment] | None = None,
) -> float | None:
    """The tuned learning rate of ``experiment`` (best mean validation score over the tuning
    seeds on its cell's grid), or ``None`` while its cell's tuning is incomplete. A one-rate grid
    needs no tuning. ``cell`` defaults to the experiment alone."""
    grid, complete = cell_grid(cell or [experiment], records)
    if len(grid) == 1:
        return grid[0]
    if not complete:
        return None
    return _best(grid, tune_scores(experiment, records))


def tuning_report(experiments: Sequence[Experiment], records: Sequence[dict]) -> list[dict]:
    """One row per experiment: its cell's final grid, the mean validation score per rate, the
    chosen rate, whether the grid was extended and whether the choice sits at a cap.
    ``metric`` names what ``mean_val`` measures (read from the experiment's runs; ``None``
    before any has run)."""
    metric_of = {
        r.get("experiment_key"): r["metrics"].get("metric")
        for r in records
        if isinstance(r.get("metrics"), dict)
    }
    rows = []
    for cell in cells_of(experiments).values():
        grid, complete = cell_grid(cell, records)
        for exp in cell:
            scores = tune_scores(exp, records)
            chosen = choose_lr(exp, records, cell) if complete else None
            lo_cap, hi_cap = exp.lr_limits
            rows.append(
                {
                    "experiment_key": exp.key,
                    "labels": dict(exp.labels),
                    "budget": exp.budget,
                    "num_layers": exp.num_layers,
                    "dropout": exp.dropout,
                    "metric": metric_of.get(exp.key),
                    "grid": list(grid),
                    "initial_grid": [rate(g) for g in exp.lr_grid],
                    "extended": len(grid) > len(exp.lr_grid),
                    "complete": complete,
                    "mean_val": {
                        lr: (sum(v) / len(v) if v else None)
                        for lr, v in sorted(scores.items())
                        if lr in grid
                    },
                    "tune_seeds": len(TUNE_SEEDS) if len(grid) > 1 else 0,
                    "chosen": chosen,
                    "at_edge": chosen is not None
                    and len(grid) > 1
                    and chosen in (grid[0], grid[-1]),
                    "at_cap": chosen is not None
                    and len(grid) > 1
                    and (
                        (chosen == grid[-1] and grid[-1] * exp.lr_step > hi_cap * (1 + 1e-4))
                        or (chosen == grid[0] and grid[0] / exp.lr_step < lo_cap * (1 - 1e-4))
                    ),
                }
            )
    return rows
