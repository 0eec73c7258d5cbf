"""Lab D's design cells: bits per parameter, equivalence verdicts, the pre-declared comparisons."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from rnnlab.evidence import stats
from rnnlab.evidence.analysis.cells import CellComparison, cell_name, cell_of, cell_sort_key
from rnnlab.experiments.lab import DesignClaim
from rnnlab.experiments.store import eval_records


def bits_per_parameter_of(record: dict) -> float:
    """Bits stored per parameter by one memorize run: :func:`rnnlab.core.tasks.capacity.
    bits_per_parameter` of its test accuracy (the test set is the training set) over its
    ``n_test`` examples."""
    from rnnlab.core.tasks.capacity import bits_per_parameter

    return bits_per_parameter(
        float(record["metrics"]["test"]),
        int(record["experiment"]["n_test"]),
        int(record["task_info"]["num_classes"]),
        int(record["param_count"]),
    )


def equivalence_cell_verdict(
    comp: stats.PairedComparison,
    plan: stats.AnalysisPlan = stats.PLAN_V2,
    *,
    floor: float | None = None,
) -> str:
    r"""A cell of an equivalence claim (two one-sided tests against the declared margin, Holm
    adjusted across the claim's cells): *equivalent* when the adjusted ``p_equiv < alpha / 2``
    (the interval lies inside :math:`\pm` margin), *contradicted* when the interval lies wholly
    outside it (a difference larger than the margin, either way), *inconclusive* otherwise. A
    statistically significant difference smaller than the margin is still *equivalent*: the
    claim is about the size of the difference, not its sign. With a ``floor``, a cell whose two
    means both lie below it is *inconclusive* whatever the interval (a floor effect)."""
    if floor is not None and max(comp.wide.mean, comp.deep.mean) < floor:
        return "inconclusive"
    pe = comp.p_equiv_adjusted
    if pe == pe and pe < plan.alpha / 2:
        return "equivalent"
    lo, hi, m = comp.ci_low, comp.ci_high, comp.margin
    if lo == lo and hi == hi and lo != hi and (lo > m or hi < -m):
        return "contradicted"
    return "inconclusive"


def equivalence_verdict(cell_verdicts: Sequence[str]) -> str:
    """The verdict of an equivalence claim (d2) from its cells' verdicts
    (:func:`equivalence_cell_verdict`): the one combining rule,
    :func:`rnnlab.evidence.stats.combine_cells` with ``equivalence=True`` (an *equivalent* cell
    backs the
    claim, a *contradicted* one goes against it; not-informative cells are set aside)."""
    return stats.combine_cells(cell_verdicts, equivalence=True)


def _gap(runs: dict[int, dict[int, dict]], depth: int, seed: int) -> float:
    """Test score at ``depth`` minus at one layer, for one seed (not yet oriented)."""
    return runs[depth][seed]["metrics"]["test"] - runs[1][seed]["metrics"]["test"]


def design_cells(
    claim: DesignClaim, records: Sequence[dict], plan: stats.AnalysisPlan = stats.PLAN_V2
) -> list[CellComparison]:
    r"""The per-cell comparisons of a Lab D claim (uncorrected; :func:`claim_verdicts` applies
    Holm's correction), one per (cell, depth > 1):

    * ``"gap_closure"``: for each seed :math:`s`, with :math:`x` the test score oriented so that
      higher is better, :math:`d_s = (x^{\text{fix}}_{L,s} - x^{\text{fix}}_{1,s}) -
      (x^{\text{base}}_{L,s} - x^{\text{base}}_{1,s})`: positive when the fixed stack's gap to
      one layer is smaller than the plain stack's. ``wide`` of the comparison holds the base
      gaps, ``deep`` the fixed ones; the margin is the metric's. ``fix_gap`` holds the fixed
      stack's own comparison of depth :math:`L` with one layer, which decides whether the fix
      *closes* the gap or only narrows it (:func:`closes_gap`).
    * ``"equivalence"``: bits stored per parameter (:func:`bits_per_parameter_of`) of depth
      :math:`L` against one layer, paired by seed, margin ``claim.margin``; positive when the
      deeper stack stores more.

    The cell is the records' :func:`cell_of` (without the stack label for gap closure) plus
    ``("layers", L)``.
    """
    evals = eval_records(records)
    out: list[CellComparison] = []
    if claim.test == "gap_closure":
        groups: dict[tuple, dict[str, dict[int, dict[int, float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(dict))
        )
        for r in evals:
            cell = dict(cell_of(r))
            stack = cell.pop(claim.label, None)
            if stack not in (claim.base, claim.fix):
                continue
            groups[tuple(sorted(cell.items()))][stack][r["num_layers"]][r["seed"]] = r
        for base_cell in sorted(groups, key=cell_sort_key):
            by = groups[base_cell]
            base, fix = by.get(claim.base, {}), by.get(claim.fix, {})
            depths = sorted(set(base) & set(fix) - {1})
            if 1 not in base or 1 not in fix:
                continue
            for depth in depths:
                seeds = sorted(set(base[1]) & set(fix[1]) & set(base[depth]) & set(fix[depth]))
                if not seeds:
                    continue
                first = base[1][seeds[0]]["metrics"]
                metric, hib = first["metric"], first["higher_is_better"]

                comp = stats.paired_compare(
                    [_gap(base, depth, s) for s in seeds],
                    [_gap(fix, depth, s) for s in seeds],
                    higher_is_better=hib,
                    claim=claim.direction,
                    margin=plan.margin(metric),
                    plan=plan,
                )
                comp = stats.judge_cells([comp], plan)[0]
                fix_gap = stats.paired_compare(
                    [fix[1][s]["metrics"]["test"] for s in seeds],
                    [fix[depth][s]["metrics"]["test"] for s in seeds],
                    higher_is_better=hib,
                    claim="depth",
                    margin=plan.margin(metric),
                    plan=plan,
                )
                cell = (*base_cell, ("layers", depth), ("stacks", f"{claim.fix} vs {claim.base}"))
                n_test = int(base[1][seeds[0]]["experiment"].get("n_test", 0))
                name = f"{cell_name(base_cell)}, L={depth} vs L=1"
                out.append(
                    CellComparison(
                        cell, name, metric, 1, depth, comp, n_test, tuple(seeds), fix_gap=fix_gap
                    )
                )
        return out
    if claim.test == "equivalence":
        if not (claim.margin and claim.margin > 0):
            raise ValueError(f"margin must be > 0 for an equivalence claim, got {claim.margin!r}")
        by_cell: dict[tuple, dict[int, dict[int, float]]] = defaultdict(lambda: defaultdict(dict))
        for r in evals:
            if r["task"] == "memorize":
                by_cell[cell_of(r)][r["num_layers"]][r["seed"]] = bits_per_parameter_of(r)
        for cell in sorted(by_cell, key=cell_sort_key):
            by_l = by_cell[cell]
            for depth in sorted(set(by_l) - {1}):
                seeds = sorted(set(by_l.get(1, {})) & set(by_l[depth]))
                if not seeds:
                    continue
                comp = stats.paired_compare(
                    [by_l[1][s] for s in seeds],
                    [by_l[depth][s] for s in seeds],
                    higher_is_better=True,
                    claim="depth",
                    margin=claim.margin,
                    plan=plan,
                )
                comp = stats.judge_cells([comp], plan)[0]
                n_test = next(int(r["experiment"]["n_test"]) for r in evals if cell_of(r) == cell)
                out.append(
                    CellComparison(
                        (*cell, ("layers", depth)),
                        f"{cell_name(cell)}, L={depth} vs L=1",
                        claim.metric or "bits_per_parameter",
                        1,
                        depth,
                        comp,
                        n_test,
                        tuple(seeds),
                    )
                )
        return out
    raise ValueError(f"test must be one of 'gap_closure', 'equivalence', got {claim.test!r}")
