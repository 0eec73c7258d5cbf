"""Tests for rnnlab.plots: figures draw the library's numbers, are labelled, reject bad input."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure

from rnnlab import params, plots


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
