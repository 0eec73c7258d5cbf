"""Tests for rnnlab.course.plots: figures draw the library's numbers, are labelled, reject
bad input."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from rnnlab.core import params
from rnnlab.course import plots


def test_param_count_vs_width_marks_the_matched_widths() -> None:
    budget = params.lstm_param_count(32, 256, 1)
    fig = plots.param_count_vs_width(32, budget, max_layers=4, halving_from=256)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    assert ax.get_xlabel() == "hidden size d (units)"
    assert ax.get_ylabel() == "parameters (count)"
    assert "m = 32" in ax.get_title()
    texts = [t.get_text() for t in ax.texts]
    for n in range(1, 5):
        assert f"d = {params.matched_width(budget, 32, n).hidden_size}" in texts
    assert f"budget B = {budget:,}" in texts
    labels = ax.get_legend_handles_labels()[1]
    assert labels == ["L = 1", "L = 2", "L = 3", "L = 4", "seed: 2 layers of d/2"]
    # the curves are the exact counts
    curve = ax.get_lines()[2]  # L = 2 (lines alternate curve, marker)
    xs, ys = curve.get_data()
    assert ys[9] == params.lstm_param_count(32, int(xs[9]), 2)
    # the seed's cross sits below the budget line
    cross = [line for line in ax.get_lines() if line.get_label().startswith("seed")][0]
    assert cross.get_ydata()[0] == params.lstm_param_count(32, 128, 2) < budget


def test_halving_ratio_figure_draws_the_ratio_and_its_limit() -> None:
    fig = plots.halving_ratio_figure(input_sizes=(1, 32), max_width=256)
    ax_lines, ax_map = fig.axes[:2]
    assert "(units, log scale)" in ax_lines.get_xlabel()
    assert "ratio" in ax_lines.get_ylabel()
    m1 = ax_lines.get_lines()[0]
    xs, ys = m1.get_data()
    assert ys[-1] == pytest.approx(params.halving_ratio(1, int(xs[-1])))
    limits = [line for line in ax_lines.get_lines() if np.allclose(line.get_ydata(), 0.75)]
    assert limits, "the 3/4 asymptote is drawn"
    assert ax_map.get_ylabel().startswith("input size m")
    assert len(fig.axes) == 3  # two panels and a colour bar


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: plots.param_count_vs_width(32, 10**5, max_layers=0), "max_layers"),
        (lambda: plots.param_count_vs_width(32, 10), "budget"),
        (lambda: plots.halving_ratio_figure(max_width=2), "max_width"),
        (lambda: plots.halving_ratio_figure(input_sizes=()), "input_sizes"),
    ],
)
def test_bad_input_names_the_parameter(call, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()


# ------------------------------------------------------------------------------ lab figures


def _labelled(fig) -> bool:
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_xlabel()]
    return bool(axes) and all(ax.get_ylabel() for ax in axes if ax.get_xlabel())


def test_lab_figures_from_records_have_labels_and_source():
    import pytest

    from rnnlab.evidence import analysis
    from rnnlab.experiments.labs import load_reference

    b = load_reference("lab-b", "cpu")
    c = load_reference("lab-c", "cpu")
    if not b or not c:
        pytest.skip("no committed reference results")
    src = analysis.format_provenance(analysis.provenance(b))
    assert "profile cpu" in src and "5 seeds" in src
    cells = analysis.compare_cells(b, wide=1, deep=2, claim="depth")
    lm = [x for x in cells if "corpus" in dict(x.cell)]
    dyck = [x for x in cells if "corpus" not in dict(x.cell)]
    gaps = {x.name: analysis.curve_gap(b, x.cell, wide=1, deep=2) for x in lm}
    grid = analysis.compare_cells(c, wide=1, deep=2, claim="depth")
    figs = [
        plots.depth_comparison_figure(b, title="t", source=src),
        plots.gap_vs_budget_figure(lm, title="t", source=src, group_key="corpus"),
        plots.curve_gap_figure(gaps, title="t", source=src),
        plots.group_score_figure(analysis.group_scores(b, dyck[0].cell), title="t", source=src),
        plots.gap_heatmap(grid, row_key="nesting", col_key="n_train", title="t", source=src),
    ]
    for fig in figs:
        assert _labelled(fig)
        assert fig._supxlabel is not None and "Source:" in fig._supxlabel.get_text()
    with pytest.raises(ValueError, match="eval run"):
        plots.depth_comparison_figure([], title="t")


def test_critical_path_figure_draws_both_schedules() -> None:
    from rnnlab.core import cost

    fig = plots.critical_path_figure(grid_layers=3, grid_steps=5, depths=(1, 2, 4), seq_len=16)
    grid_ax, path_ax = fig.axes[:2]
    assert grid_ax.get_xlabel() == "time step t (tokens)" and grid_ax.get_ylabel() == "layer k"
    assert sorted(int(t.get_text()) for t in grid_ax.texts) == sorted(
        k + t - 1 for k in range(1, 4) for t in range(1, 6)
    )
    layerwise, wavefront = path_ax.get_lines()
    assert list(layerwise.get_ydata()) == [cost.critical_path(L, 16) for L in (1, 2, 4)]
    assert list(wavefront.get_ydata()) == [L + 16 - 1 for L in (1, 2, 4)]
    assert "critical path" in path_ax.get_ylabel()


def test_depth_cost_figure_plots_rows_per_budget_and_rejects_none() -> None:
    rows = [
        {"budget": b, "num_layers": L, "params": b, "forward_flops": 2 * b,
         "train_s_per_token": 1e-5 * L, "gen_s_per_token": 1e-4 * L}
        for b in (1000, 4000) for L in (1, 2, 4)
    ]  # fmt: skip
    fig = plots.depth_cost_figure(rows, title="t", source="here")
    flops_ax, train_ax, gen_ax = fig.axes[:3]
    assert "(us)" in train_ax.get_ylabel() and "(us)" in gen_ax.get_ylabel()
    assert all(ax.get_xlabel() == "layers L (log scale)" for ax in (flops_ax, train_ax, gen_ax))
    assert list(gen_ax.get_lines()[0].get_ydata()) == pytest.approx([100.0, 200.0, 400.0])
    with pytest.raises(ValueError, match="rows"):
        plots.depth_cost_figure([], title="t")


def test_scale_map_overview_draws_one_panel_per_depth_and_marks_missing_cells() -> None:
    from rnnlab.core.paths import results_dir
    from rnnlab.course import answer

    m = answer.scale_map(results_dir())
    cells = {2: m.cells[2][:-1], 4: m.cells[4]}  # one cell of L=2 left out: "not run"
    fig = plots.scale_map_overview(cells, rows=m.budgets, cols=m.lengths, title="t", source="s")
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert texts.count("not run") == 1
    assert sum(t.endswith(c.comparison.verdict) for t in texts for c in m.cells[2][:1]) >= 1
    with pytest.raises(ValueError, match="maps"):
        plots.scale_map_overview({}, rows=[1], cols=[1], title="t")


def _tuning_row(variant: str, dropout: float, vals: dict, chosen=None) -> dict:
    # tuning_report's rows store scores oriented so that higher is better (-bits/char)
    scores = {lr: (-v if v is not None else None) for lr, v in vals.items()}
    return {"labels": {"variant": variant}, "dropout": dropout, "chosen": chosen,
            "mean_val": scores}  # fmt: skip


def test_converge_tuning_figure_draws_a_panel_per_variant_and_circles_finished_choices() -> None:
    from rnnlab.course import figure_text

    rows = [
        _tuning_row("L1", 0.0, {0.002: 1.95, 0.004: 1.97, 0.008: 1.945, 0.016: 2.06}, 0.008),
        _tuning_row("L1", 0.2, {0.002: 1.92, 0.004: 1.90, 0.008: 1.876, 0.016: 1.935}, 0.008),
        _tuning_row("L2", 0.0, {0.002: 1.936, 0.004: None, 0.008: None}),
        _tuning_row("L4-plain", 0.0, {}),  # not run yet: no panel
    ]
    fig = plots.converge_tuning_figure(rows, title="t", source="s")
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["L1", "L2"]
    assert all(ax.get_xscale() == "log" and "learning rate" in ax.get_xlabel() for ax in axes)
    assert "bits per character" in axes[0].get_ylabel()
    # L1: two lines of four rates and two circles (the chosen rates); L2: one point, no circle
    l1 = [ln for ln in axes[0].get_lines() if ln.get_markerfacecolor() != "none"]
    circles = [ln for ln in axes[0].get_lines() if ln.get_markerfacecolor() == "none"]
    assert sorted(len(ln.get_xdata()) for ln in l1) == [4, 4]
    assert [(c.get_xdata()[0], c.get_ydata()[0]) for c in circles] == [(0.008, 1.945),
                                                                        (0.008, 1.876)]  # fmt: skip
    assert not [ln for ln in axes[1].get_lines() if ln.get_markerfacecolor() == "none"]
    alt = figure_text.converge_tuning_alt(rows)
    assert "L1 dropout 0.2: rates 0.002, 0.004, 0.008, 0.016, lowest 1.876 at 0.008" in alt
    assert "L2 dropout 0: rates 0.002, lowest 1.936 at 0.002 (grid not finished)" in alt
    assert "L4-plain" not in alt
    # with the runs behind the rows, each seed is a cross beside its mean
    runs = [{"role": "tune", "experiment_key": "k", "lr": 0.008, "metrics": {"val": v}}
            for v in (1.875, 1.877)]  # fmt: skip
    keyed = [dict(rows[1], experiment_key="k")]
    fig = plots.converge_tuning_figure(keyed, title="t", records=runs)
    crosses = [ln for ln in fig.axes[0].get_lines() if ln.get_marker() == "x"]
    assert [list(c.get_ydata()) for c in crosses] == [[1.875, 1.877]]
    assert "seeds 1.875-1.877 (chosen 0.008)" in figure_text.converge_tuning_alt(keyed, runs)
    with pytest.raises(ValueError, match="at least one tuning run"):
        plots.converge_tuning_figure(rows[3:], title="t")
    with pytest.raises(ValueError, match="at least one tuning run"):
        figure_text.converge_tuning_alt(rows[3:])


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_convergence_figures_put_at_most_two_variants_side_by_side(n) -> None:
    """The book shows a notebook figure about 690 px wide at 1280 px; three panels side by side
    were shown at 63% of their size. Every variant keeps its panel, rows of two at most, with
    the y label on each row and the legend in a spare slot where there is one."""
    names = ["L1", "L2", "L4-res-LN", "L4-plain"][:n]
    rows = [_tuning_row(v, 0.0, {0.002: 1.9, 0.004: 1.8}) for v in names]
    runs = {v: {40: [_eval_run(0, 40, 1.8), _eval_run(1, 40, 1.9)]} for v in names}
    for fig in (plots.converge_tuning_figure(rows, title="t", source="s"),
                plots.converge_curves_figure(runs, title="t", source="s")):  # fmt: skip
        panels = [ax for ax in fig.axes if ax.get_title()]
        assert [ax.get_title().split(" ")[0] for ax in panels] == names
        width, _ = fig.get_size_inches()
        assert width <= 3.4 * 2 + 0.6  # two panels wide at most
        assert sum(bool(ax.get_ylabel()) for ax in panels) == -(-n // 2)  # one per row
        legends = [ax for ax in fig.axes if ax.get_legend() is not None]
        assert len(legends) == 1
        if n % 2:  # the spare slot of the last row holds the legend
            assert n == 1 or not legends[0].axison


def _eval_run(seed: int, steps: int, final: float) -> dict:
    """A reporting run whose validation falls linearly to ``final`` over ``steps``."""
    curves = [{"step": s, "val": final + 0.5 * (1 - s / steps)} for s in range(400, steps + 1, 400)]
    return {"role": "eval", "seed": seed, "metrics": {"val": final}, "curves": curves}


def test_converge_curves_figure_draws_each_length_and_what_doubling_gained() -> None:
    from rnnlab.course import figure_text

    runs = {
        "L1": {16_000: [_eval_run(0, 16_000, 1.70), _eval_run(1, 16_000, 1.68)],
               8_000: [_eval_run(0, 8_000, 1.73), _eval_run(1, 8_000, 1.70)]},
        "L2": {16_000: [_eval_run(0, 16_000, 1.66)]},
        "L4-plain": {},  # no reporting run yet: no panel
    }  # fmt: skip
    fig = plots.converge_curves_figure(runs, title="t", source="s")
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["L1 (2 seeds)", "L2 (1 seed)"]
    assert axes[0].get_xlabel() == "training step" and "bits per character" in axes[0].get_ylabel()
    styles = {ln.get_linestyle() for ln in axes[0].get_lines() if len(ln.get_xdata()) > 1}
    assert styles == {"-", "--"}  # the longest length solid, the shorter dashed
    (note,) = [t.get_text() for t in axes[0].texts]
    # the rule's quantity: the mean over paired seeds of val at 8,000 minus val at 16,000
    assert "8,000 \N{RIGHTWARDS ARROW} 16,000: gain +0.025 (2 seeds)" in note
    assert "gain < 0.01" in note and not axes[1].texts  # L2 has one length: nothing to compare
    # the y axis starts below every final interval and ends above the late means
    low, high = axes[0].get_ylim()
    assert low < 1.66 and high >= 1.70 + 0.5 * 0.75
    alt = figure_text.converge_curves_alt(runs)
    assert "L1: 16,000 steps, 2 seeds, final 1.690 (seeds 1.680-1.700)" in alt
    assert "doubling 8,000 to 16,000 steps gains 0.025" in alt
    assert "L2: 16,000 steps, 1 seed, final 1.660." in alt and "L4-plain" not in alt
    for bad in ({}, {"L1": {}}):
        with pytest.raises(ValueError, match="at least one reporting run"):
            plots.converge_curves_figure(bad, title="t")
        with pytest.raises(ValueError, match="at least one reporting run"):
            figure_text.converge_curves_alt(bad)


def test_converge_lead_figure_draws_each_lead_with_its_interval_and_verdict() -> None:
    """One panel per budget; each point at its length with its 95% interval, filled only where
    its verdict decides the comparison, the verdict written beside it; the margin as a band
    and zero as a line; the alt text states the same numbers."""
    from matplotlib.collections import LineCollection

    from rnnlab.course import figure_text
    from rnnlab.evidence.converge_context import CONVERGE_SERIES, MAP_SERIES, Lead

    leads = {
        160_000: {
            MAP_SERIES: [Lead(6_000, 0.029, 0.004, 0.054, "inconclusive", 5)],
            CONVERGE_SERIES: [Lead(8_000, 0.012, 0.001, 0.022, "supported", 9),
                              Lead(32_000, 0.024, 0.019, 0.030, "no verdict yet", 7)],
        },
        400_000: {MAP_SERIES: [], CONVERGE_SERIES: [Lead(16_000, -0.05, -0.07, -0.03,
                                                         "contradicted", 5)]},
    }  # fmt: skip
    fig = plots.converge_lead_figure(leads, title="t", source="s", margin=0.01)
    axes = [ax for ax in fig.axes if ax.get_title()]
    assert [ax.get_title() for ax in axes] == ["160,000 parameters", "400,000 parameters"]
    ax = axes[0]
    assert ax.get_xscale() == "log" and "training steps" in ax.get_xlabel()
    assert "bits per character" in ax.get_ylabel() and "two layers better" in ax.get_ylabel()
    points = [ln for ln in ax.get_lines() if ln.get_marker() in ("s", "o")]
    drawn = {(float(ln.get_xdata()[0]), float(ln.get_ydata()[0])): ln for ln in points}
    assert set(drawn) == {(6_000, 0.029), (8_000, 0.012), (32_000, 0.024)}
    filled = {x for (x, _), ln in drawn.items() if ln.get_markerfacecolor() != "white"}
    assert filled == {8_000}  # "inconclusive" and "no verdict yet" are hollow
    bars = [
        seg for c in ax.collections if isinstance(c, LineCollection) for seg in c.get_segments()
    ]
    spans = {(float(s[0][0]), round(float(s[0][1]), 3), round(float(s[1][1]), 3)) for s in bars}
    assert {(6_000, 0.004, 0.054), (8_000, 0.001, 0.022), (32_000, 0.019, 0.030)} <= spans
    assert sorted(t.get_text() for t in ax.texts) == ["inconclusive", "no verdict yet", "supported"]
    low, high = ax.get_ylim()
    assert low < 0.001 and high > 0.054  # every interval is inside the axes
    (band,) = ax.patches  # the margin, +/- 0.01 around zero
    assert (band.get_y(), band.get_height()) == pytest.approx((-0.01, 0.02))
    assert [t.get_text() for t in axes[1].texts] == ["contradicted"]
    assert axes[1].get_ylim()[0] < -0.07
    alt = figure_text.converge_lead_alt(leads, 0.01)
    assert "160,000 parameters, scale map: 6,000 steps +0.029 [+0.004, +0.054] (inconclusive, " \
        "5 seeds); convergence experiment: 8,000 steps +0.012 [+0.001, +0.022] (supported, " \
        "9 seeds)" in alt  # fmt: skip
    assert "400,000 parameters, convergence experiment: 16,000 steps -0.050" in alt
    assert "margin of 0.01" in alt
    # a source of many lines (two experiments' runs) adds height below, not inside, the panels
    long = plots.converge_lead_figure(leads, title="t", source="commit abcdef0123, " * 40)
    assert long.get_figheight() > fig.get_figheight() + 0.12 * 4
    assert long.get_figwidth() == fig.get_figwidth()
    for bad in ({}, {160_000: {MAP_SERIES: []}}):
        with pytest.raises(ValueError, match="at least one point"):
            plots.converge_lead_figure(bad, title="t")
        with pytest.raises(ValueError, match="at least one point"):
            figure_text.converge_lead_alt(bad)
