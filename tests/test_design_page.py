"""Tests for rnnlab.course.design_page (the design chapter's tables and paragraphs) and
rnnlab.course.scale_page (Lab B's scale map on the page)."""

from __future__ import annotations

import math
import re

import pytest

from rnnlab.core import cost, params
from rnnlab.core.tasks.capacity import (
    bits_per_parameter,
    memorized_bits,
    symmetric_information_bits,
)
from rnnlab.core.text import fmt_signed
from rnnlab.course import design_page, scale_page
from rnnlab.evidence import analysis, scalemap
from rnnlab.experiments import store
from rnnlab.experiments.labs import get_lab, load_reference


def _columns(table) -> list[int]:
    """Columns of every table in an IPython HTML object."""
    return [
        len(re.findall(r"<th>", head)) for head in re.findall(r"<thead>.*?</thead>", table.data)
    ]


def _eval(task: str, stack: str, layers: int, seed: int, score: float) -> dict:
    return {
        "role": "eval",
        "task": task,
        "num_layers": layers,
        "seed": seed,
        "experiment": {"labels": {"task": task, "stack": stack}},
        "metrics": {"test": score},
    }


def test_cell_mean_is_the_mean_sd_and_count_of_one_cell() -> None:
    evals = [_eval("listops", "plain", 2, s, v) for s, v in enumerate((0.5, 0.6, 0.7))]
    evals.append(_eval("listops", "residual-ln", 2, 0, 0.9))
    m = design_page.cell_mean(evals, "listops", "plain", 2)
    assert m.n == 3 and m.mean == pytest.approx(0.6) and m.sd == pytest.approx(0.1)
    one = design_page.cell_mean(evals, "listops", "residual-ln", 2)
    assert one.n == 1 and one.mean == 0.9 and math.isnan(one.sd)
    none = design_page.cell_mean(evals, "listops", "plain", 8)
    assert none.n == 0 and math.isnan(none.mean)


def test_bench_source_says_whether_the_machine_was_busy() -> None:
    prov = {"date": "2026-12-01T10:00", "machine": "box", "cpu_count": 2, "threads": 1,
            "load_average_before": [1.5], "torch": "2.5",
            "git_commit": "0123456789abcdef"}  # fmt: skip
    busy = design_page.bench_source({"provenance": prov})
    assert "measured 2026-12-01 on box" in busy and "busy with other work" in busy
    assert "commit 0123456789" in busy and "abcdef" not in busy
    quiet = design_page.bench_source({"provenance": {**prov, "load_average_before": [0.2]}})
    assert "load average 0.2 before the run: quiet" in quiet


def test_depth_cost_summary_reads_the_ratios_from_the_rows() -> None:
    rows = [
        {"budget": 100_000, "num_layers": L, "forward_flops": 200_000, "train_s_per_token": t,
         "gen_s_per_token": g}
        for L, t, g in ((1, 1e-5, 2e-5), (8, 3e-5, 1e-4))
    ]  # fmt: skip
    text = design_page.depth_cost_summary(rows)
    assert "at L=8 are 1.00x those at L=1" in text
    assert "took 10 us at L=1 and 30 us at L=8 (3.0x)" in text and "(5.0x)" in text


def test_step_plans_sum_per_task_and_group_per_stack() -> None:
    plan = {
        "core_minutes": 50.0,
        "minutes_on_2_cores": 25.0,
        "provenance": {"date": "2026-12-01", "machine": "m", "cpu_count": 2, "torch": "2",
                       "load_average_before": [0.5], "git_commit": "abc", "timed_steps": 20},
        "rows": [
            {"task": "listops", "stack": "plain", "step_s": 0.010, "runs": 4, "core_s": 60.0},
            {"task": "listops", "stack": "projected", "step_s": 0.050, "runs": 2, "core_s": 120.0},
            {"task": "memorize", "stack": "plain", "step_s": 0.002, "runs": 3, "core_s": 6.0},
        ],
    }  # fmt: skip
    table = design_page.step_plan_table(plan).data
    assert "<td>listops</td><td>10-50</td><td>6</td><td>3.0</td>" in table
    assert "about 25 minutes on 2 cores" in design_page.step_plan_sentence(plan)
    assert design_page.ms_per_step_by_stack(plan) == {"plain": [10.0], "projected": [50.0]}
    sentence = design_page.reference_plan_sentence(plan, "took x")
    assert "plain 10-10, projected 50-50" in sentence and sentence.endswith("took x.")


def _lm_count(cell: str, vocab: int, emb: int, width: int, layers: int) -> int:
    """A character LM's parameters from the closed forms: embedding, stack and head."""
    count = params.gru_param_count if cell == "gru" else params.lstm_param_count
    head = width * vocab + vocab
    return params.embedding_param_count(vocab, emb) + count(emb, width, layers) + head


def test_each_design_gets_the_width_whose_count_is_nearest_the_budget() -> None:
    budget, vocab, emb = 36_000, 30, 8
    fits = design_page.match_designs(
        {"plain": {}, "GRU": {"cell": "gru"}},
        budget=budget,
        vocab_size=vocab,
        embedding_dim=emb,
        depths=(1, 3),
    )
    assert [(f.design, f.config.num_layers) for f in fits] == [
        ("plain", 1), ("plain", 3), ("GRU", 1), ("GRU", 3)
    ]  # fmt: skip
    table = design_page.width_matching_table(fits)
    assert _columns(table) == [6]
    assert f"<caption>Character LM (vocabulary {vocab}, embedding {emb}), budget 36,000" in (
        table.data
    )
    for fit in fits:
        cell, h, layers = fit.config.cell, fit.config.hidden_size, fit.config.num_layers
        count = _lm_count(cell, vocab, emb, h, layers)
        assert fit.config.param_count() == fit.match.param_count == count
        for w in (h - 1, h + 1):  # no neighbouring width comes nearer the budget
            assert abs(count - budget) <= abs(_lm_count(cell, vocab, emb, w, layers) - budget)
        row = (
            f"<tr><td>{fit.design}</td><td>{layers}</td><td>{h}</td><td>-</td>"
            f"<td>{count:,}</td><td>{(count - budget) / budget:+.2%}</td></tr>"
        )
        assert row in table.data
    assert fits[1].config.hidden_size < fits[0].config.hidden_size  # depth costs width


def test_a_projected_design_shows_its_projection() -> None:
    fits = design_page.match_designs(
        {"projected": {"proj_ratio": 0.5}}, budget=40_000, vocab_size=30, embedding_dim=8
    )
    table = design_page.width_matching_table(fits).data
    for fit in fits:
        assert 0 < fit.config.proj_size < fit.config.hidden_size
        assert f"<td>{fit.config.hidden_size}</td><td>{fit.config.proj_size}</td>" in table
    with pytest.raises(ValueError, match="at least one"):
        design_page.width_matching_table([])


def test_the_flops_table_counts_with_the_cost_model() -> None:
    budget, vocab, emb = 50_000, 40, 16
    fits = design_page.match_designs(
        {"plain": {}}, budget=budget, vocab_size=vocab, embedding_dim=emb, depths=(1, 2, 4)
    )
    table = design_page.flops_table(fits)
    assert _columns(table) == [8]
    assert "<caption>Character LM at 50,000 parameters (plain stacks)</caption>" in table.data
    one = cost.model_forward_flops(emb, fits[0].config.hidden_size, 1, vocab)
    for fit in fits:
        h, layers = fit.config.hidden_size, fit.config.num_layers
        fwd = cost.model_forward_flops(emb, h, layers, vocab)
        assert fit.forward_flops == fwd
        p = _lm_count("lstm", vocab, emb, h, layers)
        row = (
            f"<tr><td>{layers}</td><td>{h}</td><td>{p:,}</td><td>{fwd:,}</td><td>{2 * p:,}</td>"
            f"<td>{3 * fwd:,}</td><td>{6 * p:,}</td><td>{fwd / one:.3f}</td></tr>"
        )
        assert row in table.data
    with pytest.raises(ValueError, match="one-layer"):
        design_page.flops_table(fits[1:])
    two = design_page.match_designs(
        {"plain": {}, "GRU": {"cell": "gru"}}, budget=budget, vocab_size=vocab, embedding_dim=emb
    )
    with pytest.raises(ValueError, match="one design"):
        design_page.flops_table(two)


def test_forward_flops_count_the_design_options() -> None:
    (fit,) = design_page.match_designs(
        {"residual-ln": {"residual": True, "layer_norm": True}},
        budget=20_000,
        vocab_size=30,
        embedding_dim=8,
        depths=(3,),
    )
    h = fit.config.hidden_size
    assert fit.forward_flops == cost.model_forward_flops(
        8, h, 3, 30, residual=True, layer_norm=True
    )
    assert fit.forward_flops > cost.model_forward_flops(8, h, 3, 30)


def test_the_memorization_table_and_ceiling_come_from_the_capacity_counts() -> None:
    n, classes, budget = 1_000, 4, 400
    table = design_page.memorization_table(
        n_train=n, num_classes=classes, budget=budget, accuracies=(0.25, 0.7, 1.0)
    )
    assert _columns(table) == [4]
    assert "<th>bits stored (n = 1,000)</th><th>bits per parameter (400 parameters)</th>" in (
        table.data
    )
    for a in (0.25, 0.7, 1.0):
        row = (
            f"<tr><td>{a:.2f}</td><td>{symmetric_information_bits(a, classes):.3f}</td>"
            f"<td>{memorized_bits(a, n, classes):,.0f}</td>"
            f"<td>{bits_per_parameter(a, n, classes, budget):.2f}</td></tr>"
        )
        assert row in table.data
    assert "<tr><td>0.25</td><td>0.000</td><td>0</td><td>0.00</td></tr>" in table.data  # chance
    ceiling = n * math.log2(classes) / budget  # every label stored: 2 bits each
    text = design_page.probe_ceiling_sentence(
        n_train=n, num_classes=classes, budget=budget, steps=1_500, floor=1.0
    )
    assert f"store 1,000 labels of 4 classes: at most **{ceiling:.1f} bits per parameter**" in text
    assert text.count("1,500 steps") == 2 and "floor of 1 bit per parameter" in text
    binary = design_page.probe_ceiling_sentence(n_train=n, num_classes=2, budget=budget, steps=9)
    assert "1,000 binary labels: at most **2.5 bits per parameter**" in binary


def test_the_depth_eight_sentence_reads_the_budgets_of_the_profiles() -> None:
    lab = get_lab("lab-d")
    text = design_page.depth_eight_sentence(lab)
    for profile in ("reference", "gpu"):
        eight = {
            e.budget
            for e in lab.sweep(profile).experiments
            if e.task == "charlm-english" and e.num_layers == 8
        }
        assert len(eight) == 1 and f"{eight.pop():,}" in text


@pytest.fixture(scope="module")
def lab_d():
    lab = get_lab("lab-d")
    records = load_reference("lab-d", "cpu")
    if not records:
        pytest.skip("no committed Lab D results")
    return lab, records, analysis.claim_verdicts(lab, records)


def test_verdict_tables_are_two_narrow_tables_with_one_row_per_cell(lab_d) -> None:
    _, records, verdicts = lab_d
    for cv in (cv for cv in verdicts if cv.cells):
        found, behind = design_page.verdict_tables(cv, records)
        assert max(_columns(found) + _columns(behind)) <= 8
        for c in cv.cells:
            k = c.comparison
            assert analysis.fmt_ci(k.effect, k.ci_low, k.ci_high) in found.data
            assert f"{c.n_test:,}" in behind.data
        assert found.data.count("<tr>") == behind.data.count("<tr>") == len(cv.cells) + 1
        line = design_page.claim_line(cv, provisional="why")
        assert line.startswith(f"**Claim ({cv.claim.id}): {cv.verdict}**")
        assert "(provisional: why)" in line and line.endswith(f"at {cv.scale['text']}.")


def test_the_design_tables_fit_the_column(lab_d) -> None:
    lab, records, _ = lab_d
    assert _columns(design_page.profiles_table(lab)) == [6]
    assert _columns(design_page.design_table(lab.sweep("reference"))) == [6]
    evals = store.eval_records(records)
    text = design_page.cpu_findings(evals, 4)
    assert text.count("\n- ") == 2 and "**Memorisation probe**" in text


def test_reference_findings_name_each_task_and_claim() -> None:
    lab = get_lab("lab-d")
    records = load_reference("lab-d", "reference")
    if not records:
        pytest.skip("no committed reference-profile results")
    spec = lab.sweep("reference")
    verdicts = analysis.claim_verdicts(lab, records)
    text = design_page.reference_findings(records, spec, verdicts)
    assert "**charlm-english**" in text and "**listops**" in text
    table = design_page.reference_table(store.eval_records(records), spec)
    assert max(_columns(table)) <= 8


def _map_records() -> list[dict]:
    out = []
    for (budget, steps), adv in {(160_000, 3_000): 0.02, (25_000, 1_500): 0.05}.items():
        for seed in range(5):
            labels = {"task": "charlm-stdlib", "budget_target": budget, "steps": steps}
            for depth, bpc in ((1, 2.0 + 0.01 * seed), (2, 2.0 + 0.01 * seed - adv + 0.001 * seed)):
                out.append({"run_id": f"{budget}-{steps}-{depth}-{seed}", "role": "eval",
                            "experiment": {"labels": labels, "n_test": 1_024}, "budget": budget,
                            "num_layers": depth, "seed": seed,
                            "metrics": {"test": bpc, "metric": "bits_per_char",
                                        "higher_is_better": False}})  # fmt: skip
    return out


def test_the_scale_map_table_is_ordered_by_budget_then_length() -> None:
    rows = scale_page.map_table_rows(_map_records(), depths=(2,))
    assert [r[1:3] for r in rows] == [["25,000", "1,500"], ["160,000", "3,000"]]
    assert all(len(r) == len(scale_page.MAP_TABLE_HEADER) <= 8 for r in rows)
    assert scale_page.map_table([], depths=(2,)) is None


def test_the_scale_map_heatmap_carries_an_alt_from_its_cells(monkeypatch) -> None:
    monkeypatch.setattr(scale_page.book, "source_line", lambda records: "test records")
    assert scale_page.map_heatmap([], deep=2, batch_size=32, seq_len=128) is None
    shown = scale_page.map_heatmap(_map_records(), deep=2, batch_size=32, seq_len=128)
    cells = scalemap.map_cells(_map_records(), deep=2)
    hi = max(c.comparison.effect for c in cells)
    assert f"Largest {fmt_signed(hi)} at budget 25,000" in shown.alt


def test_the_along_training_sentence_says_where_depth_stays_ahead() -> None:
    rows = [
        {"step": 100, "gap": -0.01, "ci_low": -0.02, "ci_high": 0.0, "schedule": 300},
        {"step": 200, "gap": 0.01, "ci_low": 0.0, "ci_high": 0.02, "schedule": 300},
        {"step": 300, "gap": 0.02, "ci_low": 0.01, "ci_high": 0.03, "schedule": 300},
    ]
    text = scale_page.along_training_sentences({25_000: rows, 63_000: rows[:1]})
    assert "At 25,000 parameters (300-step schedule) L=2's advantage" in text
    assert "stays above 0 from step 200 to the end." in text
    assert "At 63,000 parameters" in text and "its mean is not above 0 at the end." in text


def test_the_design_sentence_names_the_grid_and_the_core_hours() -> None:
    budgets, lengths = scalemap.design_grid("reference")
    text = scale_page.design_sentence([], "reference")
    assert text.startswith("**The design.** Budgets " + ", ".join(f"{b:,}" for b in budgets))
    assert f"{lengths[-1]:,} steps" in text and "0.0 of them done." in text
