"""The rate-transfer check (is the rate tuned at the shortest length good at the longer ones?) and
the transfer control that measures what a failed transfer costs the map."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.scale.files import default_out
from rnnlab.experiments.scale.grid import sweep_spec
from rnnlab.experiments.sweep import SweepSpec
from rnnlab.experiments.tuning import cells_of


def transfer_check(spec: SweepSpec, records: Sequence[dict]) -> list[dict]:
    """The check of the rate transfer, one row per depth of every cell tuned at a length other
    than the shortest, once both its tuning and the shortest length's are complete: the rate
    tuned at the shortest length (the one the other cells reuse), the rate tuned at the cell's
    own length, how many grid steps apart they are, and the cell's mean validation score (over
    the tuning seeds) at the transferred rate and at its best rate. Empty until then."""
    from rnnlab.experiments.tuning import choose_lr, rate, tune_scores

    experiments = spec.experiments
    cells = cells_of(experiments)
    shortest = min(e.label("steps") for e in experiments)
    short = {
        (e.budget, e.num_layers): e
        for e in experiments
        if e.label("steps") == shortest and spec.source(e) is None
    }
    rows = []
    for e in experiments:
        if e.label("steps") == shortest or spec.source(e) is not None:
            continue
        src = short.get((e.budget, e.num_layers))
        if src is None:
            continue
        short_rate = choose_lr(src, records, cells[src.cell_key])
        own_rate = choose_lr(e, records, cells[e.cell_key])
        if short_rate is None or own_rate is None:
            continue
        scores = tune_scores(e, records)
        mean = {lr: sum(v) / len(v) for lr, v in scores.items() if v}
        sign = 1 if records and _higher_is_better(records, e) else -1
        at = mean.get(rate(short_rate))
        rows.append(
            {
                "experiment_key": e.key,
                "budget_target": e.label("budget_target"),
                "num_layers": e.num_layers,
                "short_steps": shortest,
                "steps": e.label("steps"),
                "short_rate": short_rate,
                "own_rate": own_rate,
                "grid_steps_apart": round(
                    abs(math.log(own_rate / short_rate) / math.log(e.lr_step))
                ),
                "val_at_transferred": sign * at if at is not None else float("nan"),
                "best_val": sign * mean[rate(own_rate)],
            }
        )
    return rows


MAX_TRANSFER_GRID_STEPS = 1
"""The rule declared with the design (module docstring): the rate transfer holds when, at every
depth of the check cell, the rate tuned at the cell's own length is at most this many grid steps
from the rate tuned at the shortest length; otherwise it is reported as failed."""


def transfer_holds(rows: Sequence[dict]) -> bool | None:
    """The declared rule applied to :func:`transfer_check`'s ``rows``: ``True`` if every depth's
    two rates are at most :data:`MAX_TRANSFER_GRID_STEPS` grid steps apart, ``False`` if any is
    further, ``None`` while the check has not run."""
    if not rows:
        return None
    return all(r["grid_steps_apart"] <= MAX_TRANSFER_GRID_STEPS for r in rows)


# ----------------------------------------------------------------------------- transfer control
#
# What a failed transfer costs the map. The check cell's reporting runs use the rate tuned at its
# own length; the control trains the same cell, at the same reporting seeds (so the same data and
# initialisations: paired), at the rate every other long cell uses, the one tuned at the shortest
# length. The shift of depth's advantage between the two is the bias that the transferred rates
# may carry into the map's longer lengths. Added after the check failed the declared rule
# (L=1 at 63K x 6,000: two grid steps); its runs go to their own results file.

CONTROL_LAB = "scale-transfer"


def default_control_out(profile: str) -> Path:
    """Where the transfer control of ``profile`` goes: beside :func:`default_out`, with
    ``-transfer`` added to the name (``data/results/scale/reference-transfer.jsonl``)."""
    out = default_out(profile)
    return out.with_name(f"{out.stem}-transfer{out.suffix}")


def transfer_control_spec(
    profile: str, records: Sequence[dict], seeds: Sequence[int] | None = None
) -> SweepSpec:
    """The transfer control of ``profile`` as a :class:`~rnnlab.experiments.sweep.SweepSpec` (lab
    ``"scale-transfer"``): every depth of the check cell at its reporting seeds, trained at the
    rate tuned at the shortest length (a one-rate grid, so nothing is tuned). The rates come from
    ``records`` (the scale results, :func:`default_out`); labels ``lr_tuned_at_steps`` (the
    shortest length) and ``rate`` (``"transferred"``) tell its experiments apart from the map's.
    Raises ``ValueError`` while the transfer check has not run."""
    spec = sweep_spec(profile, seeds)
    rows = transfer_check(spec, records)
    if not rows:
        raise ValueError(
            "records must hold the transfer check's tuning (the check cell at its own length and "
            "at the shortest length); it has not finished yet"
        )
    by_key = {e.key: e for e in spec.experiments}
    experiments = []
    for row in rows:
        e = by_key[row["experiment_key"]]
        rate = row["short_rate"]
        labels = tuple(
            (k, row["short_steps"] if k == "lr_tuned_at_steps" else v) for k, v in e.labels
        )
        experiments.append(
            replace(
                e,
                lr_grid=(rate,),
                lr_limits=(rate, rate),
                labels=labels + (("rate", "transferred"),),
            )
        )
    return SweepSpec(CONTROL_LAB, profile, tuple(experiments), spec.seeds)


def _higher_is_better(records: Sequence[dict], e: Experiment) -> bool:
    for r in records:
        if r.get("experiment_key") == e.key:
            return bool(r["metrics"]["higher_is_better"])
    return False
