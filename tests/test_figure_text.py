"""Tests for rnnlab.course.figure_text: every alt text follows the data its figure plots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

from rnnlab.core import params
from rnnlab.core.text import fmt_signed
from rnnlab.course import figure_text, plots
from rnnlab.evidence import scalemap
from rnnlab.experiments.profiles import PROFILES

CHAPTERS = Path(__file__).resolve().parents[1] / "chapters"


def _run(depth: int, seed: int, score: float, *, task: str = "charlm-english") -> dict:
    return {
        "run_id": f"{task}-{depth}-{seed}",
        "role": "eval",
        "task": task,
        "experiment": {"labels": {"task": task}, "n_test": 1_000},
        "budget": 160_000,
        "num_layers": depth,
        "seed": seed,
        "model": {"hidden_size": 200 if depth == 1 else 120},
        "metrics": {"test": score, "metric": "bits_per_char", "higher_is_better": False},
    }


def _records(l1: float, l2: float, seeds: int = 5) -> list[dict]:
    return [_run(1, s, l1) for s in range(seeds)] + [_run(2, s, l2) for s in range(seeds)]


def test_the_depth_comparison_alt_reads_the_means_and_seeds_from_the_records() -> None:
    alt = figure_text.depth_comparison_alt(_records(1.96, 1.93))
    assert "L=1 1.960" in alt and "L=2 1.930" in alt and "5 seeds each" in alt
    assert "test bits per character" in alt and "charlm-english, budget 160,000" in alt
    other = figure_text.depth_comparison_alt(_records(2.10, 2.20, seeds=3))
    assert "L=1 2.100" in other and "L=2 2.200" in other and "3 seeds each" in other
    assert other != alt


def test_described_figure_carries_its_alt_text_in_the_png(tmp_path) -> None:
    records = _records(1.96, 1.93)
    fig = plots.depth_comparison_figure(records, title="t")
    shown = figure_text.described(fig, figure_text.depth_comparison_alt(records))
    path = tmp_path / "f.png"
    path.write_bytes(shown.png())
    assert figure_text.png_alt_text(path) == shown.alt
    data, meta = shown._repr_mimebundle_()
    assert data["text/plain"] == shown.alt and meta["image/png"]["alt"] == shown.alt
    assert figure_text.png_alt_text(tmp_path / "missing.png") is None


@pytest.mark.parametrize("alt", ["", "   ", "plot.png"])
def test_an_empty_or_file_name_alt_is_refused(alt: str) -> None:
    with pytest.raises(ValueError, match="alt"):
        figure_text.described(Figure(), alt)


def test_the_chapter_1_alts_are_computed_from_the_counts() -> None:
    budget = params.lstm_param_count(32, 256, 1)
    alt = figure_text.param_count_vs_width_alt(32, budget, max_layers=4, halving_from=256)
    widths = [params.matched_width(budget, 32, L).hidden_size for L in (1, 2, 3, 4)]
    assert f"B = {budget:,}" in alt and all(
        f"{w} for L={L}" in alt for L, w in zip((1, 2, 3, 4), widths, strict=True)
    )
    assert "72% of the budget" in alt  # two layers of 128 (the chapter's number)
    assert "d = 256 for L=1" in figure_text.param_count_vs_width_alt(32, budget)
    assert "d = 64 for L=1" in figure_text.param_count_vs_width_alt(
        32, params.lstm_param_count(32, 64, 1)
    )
    ratio = figure_text.halving_ratio_alt((1, 512), num_layers=2)
    assert "limit 0.75" in ratio and f"{params.halving_ratio(512, 4096):.2f}" in ratio
    assert "limit 1.25" in figure_text.halving_ratio_alt((1, 512), num_layers=3)


def test_the_heatmap_alt_names_the_extremes_and_the_verdicts() -> None:
    rng = np.random.default_rng(0)
    recs = []
    for (budget, steps), adv in {(25_000, 1_500): 0.05, (100_000, 6_000): -0.03}.items():
        for seed in range(5):
            base = 2.0 + 0.1 * rng.standard_normal()
            for depth, bpc in ((1, base), (2, base - adv + 0.002 * rng.standard_normal())):
                labels = {"task": "charlm-stdlib", "budget_target": budget, "steps": steps}
                recs.append({"run_id": f"{budget}-{steps}-{depth}-{seed}", "role": "eval",
                             "experiment": {"labels": labels, "n_test": 1_024}, "budget": budget,
                             "num_layers": depth, "seed": seed,
                             "metrics": {"test": bpc, "metric": "bits_per_char",
                                         "higher_is_better": False}})  # fmt: skip
    cells = scalemap.map_cells(recs, deep=2)
    alt = figure_text.gap_heatmap_alt(
        cells, row_key="budget_target", col_key="steps", row_label="budget",
        col_label="training length", rows=[25_000, 100_000], cols=[1_500, 6_000],
    )  # fmt: skip
    hi = max(c.comparison.effect for c in cells)
    assert "2 of 4 cells have results" in alt
    assert f"Largest {fmt_signed(hi)} at budget 25,000, training length 1,500" in alt
    assert "smallest" in alt and re.search(r"Verdicts: .*supported", alt)


def test_the_curve_tuning_and_cost_alts_read_their_rows() -> None:
    rows = [{"step": 100, "gap": 0.01, "ci_low": -0.01, "ci_high": 0.03},
            {"step": 200, "gap": 0.02, "ci_low": 0.01, "ci_high": 0.03}]  # fmt: skip
    alt = figure_text.curve_gap_alt({"a": rows}, effect="advantage")
    assert "a: +0.020 [+0.010, +0.030] at step 200" in alt
    tuning = [{"labels": {"task": "listops", "nesting": 1}, "num_layers": 2, "chosen": 0.003,
               "grid": [0.001, 0.003, 0.01], "mean_val": {}}]  # fmt: skip
    assert "nesting 1, L=2: 0.003" in figure_text.tuning_alt(tuning)
    bench = [{"budget": 100_000, "num_layers": L, "forward_flops": 190_000 + L, "params": 95_000,
              "train_s_per_token": 1e-5 * L, "gen_s_per_token": 2e-5 * L}
             for L in (1, 8)]  # fmt: skip
    cost_alt = figure_text.depth_cost_alt(bench)
    assert "training 10 to 80 us per token" in cost_alt and "generation 20 to 160 us" in cost_alt
    assert "11 wavefront steps against 32" in figure_text.critical_path_alt(
        grid_layers=4, grid_steps=8, depths=(1, 8), seq_len=64
    )


def test_the_profile_note_comes_from_the_profile_declaration() -> None:
    assert figure_text.profile_note(PROFILES["cpu"]) == ""
    assert PROFILES["smoke"].description in figure_text.profile_note(PROFILES["smoke"])


def test_no_chapter_types_an_alt_text() -> None:
    """Alt texts are computed (figure_text), never typed in a cell's metadata; every cell that
    draws a figure shows it through figure_text.described."""
    for path in sorted(CHAPTERS.glob("*.ipynb")):
        if path.name.startswith("_"):
            continue  # a scratch copy, not a chapter
        for cell in json.loads(path.read_text())["cells"]:
            image = cell["metadata"].get("mystnb", {}).get("image", {})
            assert "alt" not in image, f"{path.name}: typed alt text {image.get('alt', '')[:60]!r}"
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and re.search(
                r"plots\.\w+_(figure|heatmap)|plots\.param_count", source
            ):
                assert "figure_text.described" in source, (
                    f"{path.name}: a figure without alt:\n{source[:200]}"
                )
