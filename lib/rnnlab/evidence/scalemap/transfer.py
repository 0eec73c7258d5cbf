"""The rate-transfer check of the scale map: how much the rates transferred from short runs shift
depth's advantage in the check cell (:func:`transfer_effect`), and the bullets that report it."""

from __future__ import annotations

from collections.abc import Sequence

from rnnlab.core.text import fmt_signed
from rnnlab.evidence import analysis, stats
from rnnlab.evidence.scalemap.cells import DEEP_DEPTHS, design_grid, grid_key, map_cells
from rnnlab.evidence.stats import summarize
from rnnlab.experiments.store import eval_records


def transfer_lines(
    records: Sequence[dict],
    control: Sequence[dict],
    *,
    profile: str = "reference",
    deeps: Sequence[int] = DEEP_DEPTHS,
) -> list[str]:
    """Markdown bullets on the rate transfer, for Lab B and the Findings page: the declared
    rule's outcome in the check cell (:func:`rnnlab.experiments.scale.transfer_check`,
    :func:`rnnlab.experiments.scale.transfer_holds`) and, once the transfer control has runs
    (:func:`transfer_effect`), how much the transferred rates shift depth's
    advantage there. Empty until the check has run. Every number is read from the records."""
    from rnnlab.experiments import scale

    spec = scale.sweep_spec(profile)
    rows = scale.transfer_check(spec, records)
    holds = scale.transfer_holds(rows)
    if holds is None:
        return []
    first = rows[0]
    cell = f"{first['budget_target']:,} parameters x {first['steps']:,} steps"
    rates = "; ".join(
        f"L={r['num_layers']}: {r['short_rate']:g} tuned at {r['short_steps']:,} steps, "
        f"{r['own_rate']:g} at {r['steps']:,} ({r['grid_steps_apart']} grid "
        f"step{'s' if r['grid_steps_apart'] != 1 else ''} apart)"
        for r in rows
    )
    rule = (
        f"- **Rate transfer: the declared rule {'holds' if holds else 'fails'}.** The map tunes "
        f"each budget and depth at {first['short_steps']:,} steps and reuses that rate at the "
        f"longer lengths, on the condition, declared with the design, that in the check cell "
        f"({cell}) every depth's rate tuned at its own length is at most "
        f"{scale.MAX_TRANSFER_GRID_STEPS} grid step from the transferred one. {rates}."
    )
    if not holds:
        rule += (
            " So the longer-length cells of the map, all but the check cell, are trained at "
            "rates that are not tuned for their length."
        )
    lines = [rule]
    n_design = len(rows) * len(spec.seeds)
    effects = [e for e in (transfer_effect(records, control, deep=d) for d in deeps) if e]
    if not effects:
        lines.append(
            "  - The transfer control (the check cell trained again at the transferred rates, "
            "paired by seed) has no seed with all its runs yet, so the bias the transferred "
            "rates put on depth's advantage is not measured: `python -m rnnlab run-scale --profile "
            f"{profile} --transfer-control` runs it ({n_design} runs)."
        )
        return lines
    n_ctrl = len([r for r in control if r.get("role") == "eval"])
    for e in effects:
        s, deep = e["shift"], e["deep"]
        if s.ci_low > 0:
            reading = (
                "the transferred rates favour depth here, so a depth advantage of that size at "
                "the map's other long cells may come from the rates, not from depth"
            )
        elif s.ci_high < 0:
            reading = (
                "the transferred rates favour width here, so the map's other long cells, if "
                "anything, understate depth's advantage"
            )
        else:
            reading = (
                "no shift is detectable at this precision (its interval includes 0); the "
                "interval bounds the bias at this cell"
            )
        cost = ", ".join(f"L={d} {_ci(c)}" for d, c in e["cost"].items())
        lines.append(
            f"  - Transfer control (added after the check, outside the declared design), L={deep} "
            f"against L=1 in the check cell, {len(e['seeds'])} "
            f"paired seeds ({n_ctrl} of {n_design} control runs): depth's advantage is "
            f"{_ci(e['own'])} bits per character at the rates tuned at its own length and "
            f"{_ci(e['transferred'])} at the transferred rates: a shift of {_ci(s)}; "
            f"{reading}. The transferred rate costs each model (bits per character, > 0: "
            f"worse): {cost}." + _against_bias(records, e)
        )
    return lines


def _against_bias(records: Sequence[dict], effect: dict) -> str:
    """A sentence setting the map's other longer-length cells where depth's mean leads against
    the upper end of the transfer control's shift (empty if that end is not above 0)."""
    shift = effect["shift"]
    if not shift.ci_high > 0:
        return ""
    shortest = min(design_grid()[1])
    leads = [
        c
        for c in sorted(map_cells(records, deep=effect["deep"]), key=grid_key)
        if grid_key(c)[1] != shortest
        and grid_key(c) != (effect["budget_target"], effect["steps"])
        and c.comparison.effect > 0
    ]
    if not leads:
        return (
            f" Depth's mean leads in none of the map's other cells longer than {shortest:,} steps."
        )
    # compared at the 3 digits shown, so that the sentence agrees with the numbers it prints
    clear = [c for c in leads if round(c.comparison.effect, 3) > round(shift.ci_high, 3)]
    upper = fmt_signed(shift.ci_high)
    cells = ", ".join(
        f"{grid_key(c)[0]:,} x {grid_key(c)[1]:,} ({fmt_signed(c.comparison.effect)})"
        for c in leads
    )
    return (
        f" Depth's mean leads in {len(leads)} of the map's other cells longer than {shortest:,} "
        f"steps (parameters x steps: {cells}); "
        + (
            f"{len(clear)} of them by more than the shift's upper end ({upper})"
            if clear
            else f"none by more than the shift's upper end ({upper})"
        )
        + ". Where the transferred rates bias a cell as much as they may bias this one, a lead "
        "within that bound cannot be told apart from the bias."
    )


def _ci(s: stats.Summary) -> str:
    return analysis.fmt_ci(s.mean, s.ci_low, s.ci_high)


def transfer_effect(records: Sequence[dict], control: Sequence[dict], *, deep: int) -> dict | None:
    """Depth ``deep`` against L=1 in the check cell, at its own-length rates (``records``, the
    map's runs) and at the transferred rates (``control``,
    :func:`rnnlab.experiments.scale.run_transfer_control`'s), paired
    by reporting seed. Advantages are oriented so that positive means depth is better (for bits
    per character: L=1's minus depth's).

    Returns ``None`` until some seed has all four runs, else a dict: ``budget_target``,
    ``steps``, ``deep``, ``seeds``, ``metric``; ``own`` and ``transferred``: depth's advantage
    (a :class:`~rnnlab.evidence.stats.Summary` over seeds) at each set of rates; ``shift``:
    transferred
    minus own, per seed (the bias the transferred rates put on depth's advantage); ``cost``:
    ``{depth: Summary}`` of how much worse each depth scores at the transferred rate (positive:
    worse); ``rates``: ``{depth: (own rate, transferred rate)}``."""
    ctrl = eval_records(control)
    if not ctrl:
        return None
    cell = {
        (r["experiment"]["labels"]["budget_target"], r["experiment"]["labels"]["steps"])
        for r in ctrl
    }
    if len(cell) != 1:
        raise ValueError(f"control must hold runs of one cell, got {sorted(cell)}")
    target, steps = cell.pop()

    def table(rs: Sequence[dict]) -> dict[tuple[int, int], dict]:
        return {
            (r["num_layers"], r["seed"]): r
            for r in eval_records(rs)
            if r["experiment"]["labels"]["budget_target"] == target
            and r["experiment"]["labels"]["steps"] == steps
        }

    own, tr = table(records), table(ctrl)
    seeds = sorted({s for (_, s) in tr if all((d, s) in own and (d, s) in tr for d in (1, deep))})
    if not seeds:
        return None
    first = tr[(1, seeds[0])]["metrics"]
    sign = 1.0 if first["higher_is_better"] else -1.0

    def adv(t: dict, s: int) -> float:
        return sign * (t[(deep, s)]["metrics"]["test"] - t[(1, s)]["metrics"]["test"])

    a_own = [adv(own, s) for s in seeds]
    a_tr = [adv(tr, s) for s in seeds]
    return {
        "budget_target": target,
        "steps": steps,
        "deep": deep,
        "seeds": seeds,
        "metric": first["metric"],
        "own": summarize(a_own),
        "transferred": summarize(a_tr),
        "shift": summarize([t - o for t, o in zip(a_tr, a_own, strict=True)]),
        "cost": {
            d: summarize(
                [
                    -sign * (tr[(d, s)]["metrics"]["test"] - own[(d, s)]["metrics"]["test"])
                    for s in seeds
                ]
            )
            for d in (1, deep)
        },
        "rates": {d: (own[(d, seeds[0])]["lr"], tr[(d, seeds[0])]["lr"]) for d in (1, deep)},
    }
