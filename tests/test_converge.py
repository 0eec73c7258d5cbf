"""The convergence experiment: held-out files, dropout everywhere, forks across lengths, the
design's stages and rule, its analysis and plan (rnnlab.experiments.converge,
rnnlab.evidence.convergence_stats)."""

from __future__ import annotations

import math
import statistics
from dataclasses import replace

import numpy as np
import pytest
import torch

from rnnlab.core.config import TrainConfig, own_wall_time_s
from rnnlab.core.models import ModelConfig, build_model
from rnnlab.core.tasks import make_task
from rnnlab.core.tasks.heldout import file_part, heldout_sizes
from rnnlab.core.text import fmt_signed
from rnnlab.evidence.convergence_stats import (
    paired_file_effect,
)
from rnnlab.evidence.stats import VERDICTS_V2
from rnnlab.experiments import converge
from rnnlab.experiments.converge import staging
from rnnlab.experiments.experiment import (
    FAMILY_LABEL,
    Experiment,
    family_forks,
    fork_step,
    with_length,
)
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.resolution import resolution, seeds_for_resolution
from rnnlab.experiments.store import load_results
from rnnlab.experiments.unit import run_unit

# ----------------------------------------------------------------------------- held-out files


@pytest.mark.parametrize("task", ["charlm-stdlib-files", "charlm-stdlib-tree"])
def test_heldout_files_partition_is_disjoint_and_test_scores_every_window(task):
    sizes = heldout_sizes(seq_len=64, task=task)
    a = make_task(task, n_train=50, n_val=8, n_test=sizes["test"], seed=0, seq_len=64)
    b = make_task(task, n_train=50, n_val=8, n_test=sizes["test"], seed=7, seq_len=64)
    files = a.info["test_files"]
    assert {file_part(name, task) for name, _ in files} == {"test"}
    assert {file_part(name, task) for name in a.info["val_files"]} == {"val"}
    assert sum(n for _, n in files) == sizes["test"] == a.x_test.shape[0]
    # the test set is the same for every seed; train and val samples are not
    assert torch.equal(a.x_test, b.x_test) and torch.equal(a.test_groups, b.test_groups)
    assert not torch.equal(a.x_train, b.x_train)
    assert torch.equal(a.y_test[:, :-1], a.x_test[:, 1:])
    counts = torch.bincount(a.test_groups, minlength=len(files)).tolist()
    assert counts == [n for _, n in files]


def test_the_tree_corpus_adds_package_modules_and_leaves_out_tests_and_generated_text():
    from rnnlab.core.tasks.text import (
        STDLIB_TREE_SKIPPED_DIRS,
        read_stdlib_files,
        stdlib_corpus_files,
    )

    tree, _ = read_stdlib_files(tree=True)
    names = [f.name for f in tree]
    assert names == sorted(names) and len(set(names)) == len(names)
    top = {p.name for p in stdlib_corpus_files()}
    assert top <= set(names)  # the top level is version 1's corpus, under the same names
    packaged = [n for n in names if "/" in n]
    assert len(packaged) > 2 * len(top) and any(n.startswith("asyncio/") for n in packaged)
    for n in names:
        assert not set(n.split("/")[:-1]) & set(STDLIB_TREE_SKIPPED_DIRS), n
    info = make_task("charlm-stdlib-tree", n_train=10, n_val=1, n_test=1, seed=0).info
    held = [
        name
        for name, _ in make_task(
            "charlm-stdlib-tree",
            n_train=10,
            n_val=1,
            n_test=heldout_sizes(task="charlm-stdlib-tree")["test"],
            seed=0,
        ).info["test_files"]
    ]
    # about a fifth of the files is test, a tenth validation (hash buckets 0-3 and 4-5 of 20)
    assert 0.15 < len(held) / info["num_files"] < 0.25
    assert 0.05 < len(info["val_files"]) / info["num_files"] < 0.15


def test_heldout_sizes_out_of_range_is_a_clear_error():
    have = heldout_sizes(seq_len=128)["test"]
    with pytest.raises(ValueError, match=rf"n_test must be <= {have}"):
        make_task("charlm-stdlib-files", n_train=10, n_val=1, n_test=have + 1, seed=0)


# ----------------------------------------------------------------------------- dropout


def test_dropout_everywhere_regularises_one_layer_and_keeps_the_count():
    base = dict(kind="lm", num_layers=1, hidden_size=16, num_classes=11, vocab_size=11,
                embedding_dim=8, dropout=0.5)  # fmt: skip
    x = torch.randint(0, 11, (4, 12))
    between, everywhere = (
        build_model(ModelConfig(**base, dropout_mode=m)) for m in ("between", "all")
    )
    between.train(), everywhere.train()
    assert torch.equal(between(x), between(x))  # no effect on one layer (PyTorch's placement)
    assert not torch.equal(everywhere(x), everywhere(x))
    everywhere.eval()
    assert torch.equal(everywhere(x), everywhere(x))
    assert (
        ModelConfig(**base, dropout_mode="all").param_count() == ModelConfig(**base).param_count()
    )
    assert "dropout_mode" not in ModelConfig(**base).to_dict()  # old configs keep their form
    with pytest.raises(ValueError, match="dropout_mode must be one of"):
        ModelConfig(**base, dropout_mode="sometimes")


def test_committed_scale_runs_keep_their_experiment_keys():
    from rnnlab.experiments import scale

    keys = {e.key for e in scale.scale_experiments("reference")}
    records = load_results(scale.default_out("reference"))
    assert {r["experiment_key"] for r in records} <= keys


# ----------------------------------------------------------------------------- forks


def _tiny(steps: int, family=(20, 40)) -> Experiment:
    train = TrainConfig(max_steps=steps, batch_size=8, eval_every=5, warmup_steps=2,
                        schedule="wsd", decay_fraction=0.25)  # fmt: skip
    return Experiment(task="charlm-stdlib-files", budget=12_000, num_layers=2, n_train=64,
                      n_val=16, n_test=32, task_options=(("seq_len", 32),), embedding_dim=16,
                      dropout=0.2, dropout_mode="all", train=train, lr_grid=(2e-3, 4e-3),
                      labels=(("steps", steps), (FAMILY_LABEL, family)))  # fmt: skip


def test_fork_step_is_the_end_of_the_earlier_stable_phase():
    a, b = _tiny(40).train, _tiny(20).train
    assert fork_step(a, b) == 15 and fork_step(b, a) == 15
    assert fork_step(a, b.replace(lr=1.0)) is None  # not the same schedule otherwise
    assert fork_step(a.replace(schedule="cosine"), b.replace(schedule="cosine")) is None
    assert [(s, o.key) for s, o in family_forks(_tiny(40))] == [(15, _tiny(20).key)]
    assert with_length(_tiny(40), 20).key == _tiny(20).key


def test_a_run_started_from_a_fork_equals_the_run_trained_alone(tmp_path):
    kw = dict(lab="x", profile="smoke", role="eval", seed=1, lr=4e-3)
    alone = run_unit(_tiny(20), **kw, checkpoint_dir=tmp_path / "a")
    run_unit(_tiny(40), **kw, checkpoint_dir=tmp_path / "b")
    assert len(list((tmp_path / "b").glob("*.fork.pt"))) == 1
    branch = run_unit(_tiny(20), **kw, checkpoint_dir=tmp_path / "b")
    assert branch["metrics"]["forked_from"]["step"] == 15
    assert "forked_from" not in alone["metrics"]
    for key in ("test", "val", "best_step", "test_by_group"):
        assert branch["metrics"][key] == alone["metrics"][key]
    strip = [{k: v for k, v in c.items() if k != "elapsed_s"} for c in alone["curves"]]
    assert [{k: v for k, v in c.items() if k != "elapsed_s"} for c in branch["curves"]] == strip
    assert not list((tmp_path / "b").iterdir())  # the fork was consumed, the run cleaned up
    # its record counts the fork's 15 steps in its clock; its own compute leaves them out
    inherited = branch["metrics"]["forked_from"]["elapsed_s"]
    assert inherited > 0
    assert own_wall_time_s(branch) == pytest.approx(branch["wall_time_s"] - inherited)
    assert own_wall_time_s(branch) < branch["wall_time_s"]
    assert own_wall_time_s(alone) == alone["wall_time_s"]  # a run trained alone owns all of it


def test_own_wall_time_counts_every_attempt_of_an_early_resumed_record():
    """Records written before resumed runs counted every attempt kept only the last attempt in
    ``wall_time_s``; ``metrics.wall_time_s`` has all of it, and the larger clock is used."""
    early = {"wall_time_s": 4016.0, "metrics": {"wall_time_s": 6025.0}}
    assert own_wall_time_s(early) == 6025.0
    forked = {"wall_time_s": 900.0,
              "metrics": {"wall_time_s": 900.0, "forked_from": {"elapsed_s": 600.0}}}  # fmt: skip
    assert own_wall_time_s(forked) == 300.0


def test_plan_sets_the_runs_measured_step_time_beside_the_cost_model():
    from rnnlab.experiments import scale

    def record(rid, budget, layers, steps, wall, fork=None):
        m = {"steps": steps, "wall_time_s": wall}
        if fork:
            m["forked_from"] = {"step": fork[0], "elapsed_s": fork[1]}
        return {"run_id": rid, "budget": budget, "num_layers": layers, "wall_time_s": wall,
                "metrics": m}  # fmt: skip

    runs = [record("a", 160_000, 1, 16_000, 3_200.0), record("b", 160_000, 1, 16_000, 1_600.0),
            record("c", 160_000, 1, 8_000, 1_840.0, fork=(6_400, 1_600.0))]  # fmt: skip
    per_step = converge.run_step_seconds(runs)
    # a forked run pays only its own 1,600 steps: (1,840 - 1,600) / 1,600 = 0.15 s per step
    assert per_step == {(160_000, 1): [0.2, 0.1, pytest.approx(0.15)]}
    p = converge.plan("reference", runs, [], scale.load_timings())
    text = "\n".join(converge.plan_lines(p))
    model = p.step_seconds[(160_000, 1)]
    assert "median 0.150 s per step over 3 runs (range 0.100-0.200" in text
    assert f"{0.15 / model:.1f}x the cost model" in text
    left = sum(s.core_hours * (s.runs - s.done) / s.runs for s in p.stages)
    assert f"{left * 0.15 / model:,.1f} core-h at the runs' measured median" in text
    empty = "\n".join(converge.plan_lines(converge.plan("reference", [], [], scale.load_timings())))
    assert "measured by the runs" not in empty and "at the runs' measured median" not in empty
    one = "\n".join(
        converge.plan_lines(converge.plan("reference", runs[:1], [], scale.load_timings()))
    )
    assert "median 0.200 s per step over 1 run (range" in one


def test_a_fork_for_another_rate_is_not_used(tmp_path):
    kw = dict(lab="x", profile="smoke", role="eval", seed=1)
    run_unit(_tiny(40), **kw, lr=4e-3, checkpoint_dir=tmp_path)
    other = run_unit(_tiny(20), **kw, lr=2e-3, checkpoint_dir=tmp_path)
    assert "forked_from" not in other["metrics"]


# ----------------------------------------------------------------------------- the design


def test_reference_design_is_the_declared_one():
    d = converge.design("reference")
    assert d.budgets == (160_000, 400_000) and d.lengths == (8_000, 16_000)
    assert d.family == (8_000, 16_000, 32_000) and len(d.seeds) == 5
    assert [v.name for v in d.variants] == ["L1", "L2", "L4-res-LN", "L4-plain"]
    stages = converge.stages(d, [])
    first = stages[0]
    assert (first.kind, first.budget, first.steps, first.variants) == ("tune", 160_000, 16_000,
                                                                       ("L1", "L2"))  # fmt: skip
    for e in first.spec.experiments:
        assert e.dropout_mode == "all" and e.train.schedule == "wsd" and e.train.patience is None
        assert e.task == converge.TASK == "charlm-stdlib-tree"
        assert e.n_test == heldout_sizes(task=converge.TASK)["test"]
    with pytest.raises(ValueError, match="profile must be one of"):
        converge.design("huge")


def _eval(e: Experiment, seed: int, val: float) -> dict:
    from rnnlab.experiments.experiment import run_id

    return {"run_id": run_id(e, "eval", seed, None), "experiment_key": e.key, "role": "eval",
            "seed": seed, "metrics": {"val": val}}  # fmt: skip


def test_convergence_rule_adds_the_extension_only_where_doubling_still_gains(monkeypatch):
    d = converge.design("smoke")
    v = d.variants[0]
    picked = {n: converge.experiment(d, 12_000, v, 0.0, n) for n in d.family}
    # patched where the convergence rule looks it up
    monkeypatch.setattr(staging, "chosen", lambda d_, b, v_, n, r: picked[n])
    # the rule is read over the reporting seeds the seed rule gives (tests/test_seed_rule.py)
    monkeypatch.setattr(staging, "report_seeds", lambda d_, b, names, r: d.seeds)
    flat = [_eval(picked[20], s, 2.000) for s in d.seeds] + [
        _eval(picked[40], s, 1.995) for s in d.seeds
    ]
    assert converge.converged(d, 12_000, v, 40, flat) is True
    assert converge.lengths_needed(d, 12_000, v, flat) == [20, 40]
    gaining = [dict(r, metrics={"val": r["metrics"]["val"] - 0.05}) if r["seed"] >= 0 and
               r["experiment_key"] == picked[40].key else r for r in flat]  # fmt: skip
    assert converge.converged(d, 12_000, v, 40, gaining) is False
    assert converge.lengths_needed(d, 12_000, v, gaining) == [20, 40, 80]
    assert converge.converged(d, 12_000, v, 40, flat[:-1]) is None  # a seed missing


def test_doubling_gain_is_one_function_for_the_rule_and_its_reading_so_far() -> None:
    """The rule (``converged``) and the report's reading so far (``doubling_gains``) compute the
    gain with one function: paired by seed, a missing seed is no gain at all (not a mean over
    the seeds that happen to be in), and the reading so far uses the seeds both lengths have."""
    import doctest

    from rnnlab.evidence.converge_report import doubling_gains

    assert doctest.testmod(staging).failed == 0
    half, full = {0: 2.00, 1: 2.10, 2: 1.90}, {0: 1.98, 1: 2.06}
    assert converge.doubling_gain(half, full, [0, 1]) == pytest.approx(0.03)
    assert converge.doubling_gain(half, full, [0, 1, 2]) is None  # seed 2 lacks its long run
    assert converge.doubling_gain(half, full, []) is None
    # an unpaired mean would give (2.00 + 2.10 + 1.90) / 3 - (1.98 + 2.06) / 2 = -0.02
    runs = {n: [{"seed": s, "metrics": {"val": v}} for s, v in vals.items()]
            for n, vals in ((20, half), (40, full))}  # fmt: skip
    ((h, n, gain, seeds),) = doubling_gains(runs)
    assert (h, n, seeds) == (20, 40, 2) and gain == pytest.approx(0.03)


def test_a_budget_s_variants_are_extended_together_after_the_design_s_verdict(monkeypatch):
    """One variant failing the rule extends every variant at its budget (so each comparison has
    a common longest length), and the extension's stages come after the reporting stages of
    the design's lengths (the first verdict is not put off by the extension's tuning)."""
    d = converge.design("smoke")
    one, two = d.variants
    picked = {(v.name, n): converge.experiment(d, 12_000, v, 0.0, n)
              for v in d.variants for n in d.family}  # fmt: skip
    monkeypatch.setattr(staging, "chosen", lambda d_, b, v_, n, r: picked[v_.name, n])
    monkeypatch.setattr(staging, "report_seeds", lambda d_, b, names, r: d.seeds)
    records = [_eval(picked[v.name, n], s, 2.0) for v in d.variants for n in d.lengths
               for s in d.seeds]  # fmt: skip
    assert converge.lengths_needed(d, 12_000, two, records) == [20, 40]
    order = [(st.kind, st.steps) for st in converge.stages(d, records)]
    assert order == [("tune", 40), ("tune", 20), ("report", 40), ("report", 20)]
    # one layer still gains 0.05 from doubling; two layers have flattened
    gaining = [dict(r, metrics={"val": 1.95}) if r["experiment_key"] == picked[one.name, 40].key
               else r for r in records]  # fmt: skip
    assert converge.converged(d, 12_000, one, 40, gaining) is False
    assert converge.converged(d, 12_000, two, 40, gaining) is True
    assert converge.lengths_needed(d, 12_000, two, gaining) == [20, 40, 80]
    stages = converge.stages(d, gaining)
    assert [(st.kind, st.steps) for st in stages] == [
        ("tune", 40),
        ("tune", 20),
        ("report", 40),
        ("report", 20),
        ("tune", 80),
        ("report", 80),
    ]
    assert stages[-1].variants == (one.name, two.name)


def test_an_idle_process_takes_a_later_stage_s_run_and_nothing_undecided():
    """Before any run, the first stage's tuning runs come first, then every other stage's tuning
    runs (each needs no other stage), in stage order; no reporting run, no longer length: the
    data have decided neither. A process the first stage leaves idle takes from the rest."""
    from rnnlab.experiments.experiment import run_id
    from rnnlab.experiments.sweep import pending_units

    d = converge.design("reference")
    units = converge.pending_runs(d, [])
    stages = converge.stages(d, [])
    first = pending_units(stages[0].spec, [])
    assert first and units[: len(first)] == first
    expected = [u for st in stages for u in pending_units(st.spec, [])]
    assert [run_id(*u) for u in units] == list(dict.fromkeys(run_id(*u) for u in expected))
    assert {role for _, role, _, _ in units} == {"tune"}
    first_kinds = {(e.budget, e.num_layers) for e, *_ in first}
    assert first_kinds == {(d.budgets[0], 1), (d.budgets[0], 2)}  # L1 and L2 first
    # then every budget's and every variant's tuning: an idle process has work
    assert {(e.budget, e.num_layers) for e, *_ in units} == {
        (b, n) for b in d.budgets for n in (1, 2, 4)
    }
    # no extension the rule has not added yet; the declared ones only where declared
    assert {(e.budget, e.label("steps")) for e, *_ in units} == {
        (b, n) for b in d.budgets for n in d.lengths_at(b)
    }
    assert set(d.lengths_at(d.budgets[0])) == set(d.lengths)


@pytest.mark.slow
def test_smoke_design_runs_resumes_and_plans(tmp_path, capsys):
    from rnnlab.__main__ import main

    out = tmp_path / "c.jsonl"
    part = converge.run_converge("smoke", out, options=RunOptions(max_runs=5))
    assert len(part) == 5
    records = converge.run_converge("smoke", out, options=RunOptions())
    ids = [r["run_id"] for r in records]
    assert len(ids) == len(set(ids))
    d = converge.design("smoke")
    assert all(converge.stage_done(s, records) for s in converge.stages(d, records))
    evals = [r for r in records if r["role"] == "eval"]
    assert {r["experiment"]["labels"]["steps"] for r in evals} >= set(d.lengths)
    assert any("forked_from" in r["metrics"] for r in records)  # the forks were used
    for r in records:
        assert r["git_commit"] and r["versions"]["torch"] and r["wall_time_s"] > 0
        assert r["model"]["dropout_mode"] == "all"
    assert main(["plan", "converge", "--profile", "smoke", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "convergence rule" in text and f"{len(records)} done" in text


# ----------------------------------------------------------------------------- the analysis


def _record(seed: int, bits: list[float], windows: list[int]) -> dict:
    return {"run_id": f"r{seed}", "seed": seed,
            "task_info": {"test_files": [[f"f{k}.py", n] for k, n in enumerate(windows)]},
            "metrics": {"test_by_group": {str(k): b for k, b in enumerate(bits)}}}  # fmt: skip


def _bits(record: dict) -> np.ndarray:
    g = record["metrics"]["test_by_group"]
    return np.array([g[str(k)] for k in range(len(g))])


def test_paired_file_effect_recovers_a_known_effect_and_counts_both_sources():
    rng = np.random.default_rng(0)
    windows = [50, 100, 150, 200]
    base = np.array([2.0, 1.8, 1.6, 1.9])
    wide = {s: _record(s, list(base + rng.normal(0, 0.002, 4)), windows) for s in range(5)}
    deep = {s: _record(s, list(_bits(wide[s]) - 0.03 + rng.normal(0, 0.001)), windows)
            for s in range(5)}  # fmt: skip
    e = paired_file_effect(wide, deep)
    assert e.effect == pytest.approx(0.03, abs=0.002)
    assert e.verdict == "supported" and e.ci_low > 0 and e.n_files == 4 and e.test_windows == 500
    # files that disagree widen the interval through the file component, not the seeds'
    gains = np.array([0.10, -0.05, 0.08, -0.02])
    uneven = {s: _record(s, list(_bits(wide[s]) - gains), windows) for s in range(5)}
    u = paired_file_effect(wide, uneven)
    assert u.se_file > 10 * e.se_file and u.half_width > e.half_width
    assert u.half_width == pytest.approx(resolution(u.se_seed * math.sqrt(5), 5, u.se_file))
    with pytest.raises(ValueError, match="at least 2 seeds"):
        paired_file_effect({0: wide[0]}, {0: deep[0]})


def test_resolution_is_t_calibrated_and_seeds_for_it_are_minimal():
    assert resolution(0.02, 5) == pytest.approx(2.776 * 0.02 / math.sqrt(5), rel=1e-3)
    n = seeds_for_resolution(0.02, 0.01)
    assert resolution(0.02, n) <= 0.01 < resolution(0.02, n - 1)
    assert seeds_for_resolution(0.02, 0.01, se_file=0.02) is None
    with pytest.raises(ValueError, match="n_seeds must be an integer >= 2"):
        resolution(0.02, 1)


def test_plan_prints_design_resolution_and_cost():
    from rnnlab.experiments import scale

    p = converge.plan("reference", [], load_results(scale.default_out("reference")),
                      scale.load_timings())  # fmt: skip
    text = "\n".join(converge.plan_lines(p))
    test_files = p.partition["files"]["test"]
    assert test_files > 100 and f"{test_files} held-out test files" in text
    assert "resolution before any run" in text
    assert p.resolution == pytest.approx(resolution(p.prior_sd, 5))
    assert sum(s.runs for s in p.stages) == sum(
        len(st.spec.experiments) * 3 * 2 if st.kind == "tune" else len(st.variants) * 5
        for st in converge.stages(p.design, [])
    )
    assert all(s.core_hours > 0 for s in p.stages)
    assert replace(p, spent_core_hours=0.0).spent_core_hours == 0.0
    # the next verdict: every stage up to the first reporting stage, summed
    first = next(i for i, s in enumerate(p.stages) if s.kind == "report")
    to_verdict = sum(s.core_hours for s in p.stages[: first + 1])
    (line,) = [x for x in text.splitlines() if "to the next verdict" in x]
    s = p.stages[first]
    assert f"({s.budget:,} parameters, L1 vs L2 at {s.steps:,} steps): {to_verdict:.1f} core-h" in (
        line
    )
    done = [replace(s, done=s.runs) for s in p.stages]  # every stage done: no next verdict
    assert not any("next verdict" in x for x in converge.plan_lines(replace(p, stages=done)))


def test_the_plan_times_each_budget_s_longest_run_for_a_deadline():
    """The plan prints the longest run of each budget and depth as this machine runs it lately,
    and with the deadline's margin: before any run at 160K the design's 16,000 steps, at 400K the
    declared 32,000; each time is its steps times ``step_seconds_now``."""
    from rnnlab.experiments import scale
    from rnnlab.experiments.converge.timing import step_seconds_now
    from rnnlab.experiments.deadline import MARGIN

    timings = scale.load_timings()
    p = converge.plan("reference", [], [], timings)
    now = step_seconds_now(p.design, [], timings)
    assert {k: steps for k, (steps, _) in p.longest_runs.items()} == {
        (160_000, 1): 16_000, (160_000, 2): 16_000, (160_000, 4): 16_000,
        (400_000, 1): 32_000, (400_000, 2): 32_000, (400_000, 4): 32_000,
    }  # fmt: skip
    for (b, depth), (steps, secs) in p.longest_runs.items():
        assert secs == pytest.approx(steps * now[(b, depth)])
    (line,) = [x for x in converge.plan_lines(p) if "longest runs" in x]
    steps, secs = p.longest_runs[(400_000, 4)]
    assert f"400,000 L=4 32,000 steps {secs / 60:.0f} min ({MARGIN * secs / 60:.0f})" in line
    assert not any("longest runs" in x for x in converge.plan_lines(replace(p, longest_runs={})))


@pytest.mark.slow
def test_report_is_provisional_until_runs_exist_then_states_each_comparison(tmp_path):
    from rnnlab.evidence import converge_report

    empty = converge_report.report_lines("reference", [])
    d = converge.design("reference")  # every declared length of every budget, 5 seeds each
    least = sum(len(d.lengths_at(b)) for b in d.budgets) * len(d.variants) * len(d.seeds)
    assert least == 100  # 160K: 8,000 and 16,000 steps; 400K: 32,000 as well
    assert empty[0].startswith(f"- **Provisional**: 0 of at least {least} reporting runs")
    assert any("nothing is measured at convergence" in line for line in empty)
    records = converge.run_converge("smoke", tmp_path / "c.jsonl", options=RunOptions())
    lines = converge_report.report_lines("smoke", records)
    assert lines[0].startswith("- **Final**")
    cells = converge_report.results("smoke", records)
    assert cells and {c.deep for c in cells} == {"L2"}
    for c in cells:
        seeds = converge.report_seeds(converge.design("smoke"), c.budget, ("L1", "L2"), records)
        assert seeds is not None and c.effect.n_seeds == len(seeds) >= 2
        # smoke models of 20-40 steps score worse than the unigram model: they failed to train,
        # and their comparison says so instead of a verdict
        assert c.effect.verdict in VERDICTS_V2
        assert (c.effect.verdict == "not informative") == ("failed to train" in c.reason)
        (line,) = [
            x
            for x in lines
            if x.startswith(f"- {c.budget:,} parameters, {c.steps:,} steps, L2 - L1: ")
        ]
        # the rule's reading, said once for both: at the shortest length it cannot apply
        if c.steps // 2 not in converge.design("smoke").family:
            assert f"L1 and L2: convergence not testable at {c.steps:,} steps" in line
        else:
            assert "not testable" not in line and "L1" in line.split("dropout")[-1]
    # the answer page's clause: each comparison at its longest length, with its verdict
    clause = converge_report.answer_clause("smoke", records)
    longest = max(c.steps for c in cells)
    (last,) = [c for c in cells if c.steps == longest]
    assert clause.startswith(f"L2 - L1 at 12,000 parameters and {longest:,} steps: ")
    assert f"**{last.effect.verdict}** ({last.effect.n_seeds} seeds; " in clause
    # the convergence rule's reading of both models, in words that say what it compares
    neither = set(last.converged.values()) == {False}
    assert ("neither converged: doubling the training still gains at least 0.01" in clause) == (
        neither
    )
    assert converge_report.progress("smoke", records).final
    assert converge_report.answer_clause("smoke", []) is None
    # a budget is answered at the longest length the rule asks for; each shorter comparison
    # says it is not the answer, and the answer clause says so while that length is not compared
    answer = converge.longest_length(converge.design("smoke"), 12_000, records)
    assert answer == longest and "not the budget's answer" not in clause
    for c in cells:
        (line,) = [x for x in lines if x.startswith(f"- 12,000 parameters, {c.steps:,} steps, ")]
        said = f"; not the budget's answer, which is made at {answer:,} steps"
        assert (said in line) == (c.steps < answer) and "not yet compared there" not in line
    at_answer = {r["experiment_key"] for r in records
                 if r["experiment"]["labels"]["steps"] == answer}  # fmt: skip
    short = [r for r in records if r["experiment_key"] not in at_answer]
    assert f"not the budget's answer, which is made at {answer:,} steps" in (
        converge_report.answer_clause("smoke", short)
    ) and "not yet compared there" in converge_report.answer_clause("smoke", short)
    # the curves figure's runs: each variant's reporting runs of each length's tuned setting
    d = converge.design("smoke")
    runs = converge_report.reporting_runs("smoke", records, 12_000)
    assert list(runs) == [v.name for v in d.variants]
    for v in d.variants:
        for steps, rs in runs[v.name].items():
            key = converge.chosen(d, 12_000, v, steps, records).key
            seeds = converge.report_seeds(d, 12_000, (v.name,), records)
            assert [r["seed"] for r in rs] == sorted(seeds)
            assert all(r["role"] == "eval" and r["experiment_key"] == key for r in rs)
    assert converge_report.reporting_runs("smoke", [], 12_000) == {}
    # the convergence rule's reading, once every reporting seed is in: what it decided
    (conv,) = [x for x in lines if x.startswith("- *Convergence so far*")]
    for v in d.variants:
        for steps in d.family:
            flag = converge.converged(d, 12_000, v, steps, records)
            if flag is not None:
                word = "converged" if flag else "not converged"
                assert f"{v.name}, {steps // 2:,} to {steps:,} steps: " in conv
                assert f"seeds: {word} at {steps:,})" in conv.split(f"{v.name}, {steps // 2:,}")[1]
    # a deep model whose best checkpoint is its first failed to train: the comparison counts
    # neither way, says why, and leaves the Holm family
    key = runs["L2"][max(runs["L2"])][0]["experiment_key"]
    failed = [
        {**r, "metrics": {**r["metrics"], "best_step": 1}} if r["experiment_key"] == key else r
        for r in records
    ]
    (bad,) = [c for c in converge_report.results("smoke", failed) if c.steps == max(runs["L2"])]
    assert bad.effect.verdict == "not informative" and math.isnan(bad.effect.p_diff_adjusted)
    assert bad.reason.startswith("L2 failed to train (best checkpoint at ")
    (line,) = [x for x in converge_report.report_lines("smoke", failed)
               if x.startswith(f"- 12,000 parameters, {bad.steps:,} steps, L2 - L1")]  # fmt: skip
    assert f"windows): **not informative**: {bad.reason}; " in line and "Holm" not in line
    assert f"**not informative** ({bad.reason}; " in converge_report.answer_clause("smoke", failed)
    # an interim look (a seed the design gives the comparison is missing): no verdict, and out
    # of Holm's family
    seeds = converge.report_seeds(d, 12_000, ("L1", "L2"), records)
    last = [r for r in records if r["experiment_key"] == key and r["seed"] == max(seeds)]
    early = [r for r in records if r not in last]
    (cell,) = [c for c in converge_report.results("smoke", early) if c.steps == bad.steps]
    assert cell.interim and cell.planned == len(seeds) and cell.effect.n_seeds == len(seeds) - 1
    assert cell.effect.verdict == converge_report.INTERIM and math.isnan(
        cell.effect.p_diff_adjusted
    )
    (line,) = [x for x in converge_report.report_lines("smoke", early)
               if x.startswith(f"- 12,000 parameters, {bad.steps:,} steps, L2 - L1")]  # fmt: skip
    assert f"**no verdict yet**: interim, {len(seeds) - 1} of {len(seeds)} seeds" in line
    assert "Holm" not in line
    assert f"(the verdict waits for all {len(seeds)})" in line
    assert f"**no verdict yet** ({len(seeds) - 1} of {len(seeds)} seeds; " in (
        converge_report.answer_clause("smoke", early)
    )
    with pytest.raises(ValueError, match="budget must be one of"):
        converge_report.reporting_runs("smoke", records, 13_000)
    from types import SimpleNamespace

    from rnnlab.course.answer import convergence_caveat

    (tmp_path / "converge").mkdir()
    (tmp_path / "c.jsonl").rename(tmp_path / "converge" / "smoke.jsonl")
    caveat = convergence_caveat(tmp_path, SimpleNamespace(lengths=[6_000]), profiles=("smoke",))
    assert f"final, {converge_report.progress('smoke', records).text()} in: {clause} (" in caveat
    from rnnlab.evidence.analysis import fmt_signed

    # the regularisation control: each setting's tuned score is its best rate's mean over the
    # tuning seeds, so depth's lead at dropout 0 can be recomputed from the runs themselves
    d = converge.design("smoke")
    (control,) = [line for line in lines if "regularisation control changed" in line]
    for steps in d.lengths:
        means: dict[tuple, list[float]] = {}
        for r in records:
            labels = r["experiment"]["labels"]
            if r["role"] == "tune" and labels["steps"] == steps:
                key = (labels["variant"], r["experiment"]["dropout"], r["lr"])
                means.setdefault(key, []).append(r["metrics"]["val"])
        best = {(v, p): min(statistics.mean(x) for (v2, p2, _), x in means.items()
                            if (v2, p2) == (v, p)) for v, p, _ in means}  # fmt: skip
        at0 = best["L1", 0.0] - best["L2", 0.0]
        tuned = min(best["L1", p] for p in (0.0, 0.2)) - min(best["L2", p] for p in (0.0, 0.2))
        assert f"{steps:,} steps, L2 - L1: {fmt_signed(at0)} with dropout 0 for both, " in control
        assert f" both, {fmt_signed(tuned)} with each one's tuned dropout" in control
    assert "-0.000" not in control  # a change that rounds to zero has no direction


def test_the_literature_line_sets_each_answered_budget_beside_karpathy(monkeypatch):
    """The committed reference runs: each comparison that answers its budget is set beside
    the literature, with what its verdict says of their finding and whether its models have
    converged; one seed fewer (an interim look) leaves it out. The words follow the verdict
    and the rule's reading, not the data's direction."""
    from rnnlab.core.paths import results_dir
    from rnnlab.evidence import converge_context as cx
    from rnnlab.evidence import converge_report as cr

    records = load_results(results_dir() / "converge" / "reference.jsonl")
    d = converge.design_for("reference", records)
    cells = cr.results("reference", records)
    answered = [c for c in cells if cr.answers_budget(d, c, records)]
    assert answered, "the committed runs answer the 160,000-parameter budget"
    line = cx.literature_line(d, records, cells)
    assert line.startswith(f"- The literature: {cx.LITERATURE}. Beside it, ")
    assert line == cr.report_lines("reference", records)[-1]
    for c in answered:
        said = f"{c.budget:,} parameters (inside their range), {c.deep} - L1 at {c.steps:,} steps"
        assert (
            f"{said}: **{c.effect.verdict}**, which {cx.AGAINST_LITERATURE[c.effect.verdict]}"
            in (line)
        )
    # shorter lengths, the trainable-vs-plain comparison and interim looks are not answers
    others = [c for c in cells if c not in answered]
    assert others, "the committed runs hold comparisons that do not answer a budget"
    # (each named with its budget: an interim look at one budget shares its words with an
    # answer at another)
    for c in others:
        for side in ("inside", "outside"):
            named = f"{c.budget:,} parameters ({side} their range), {c.deep} - {c.wide} "
            assert named + f"at {c.steps:,} steps: **" not in line, (c.budget, c.steps)
    c = answered[0]
    interim = [replace(c, planned=c.effect.n_seeds + 1)]
    assert cx.literature_line(d, records, interim).endswith(
        "No comparison has been made yet where its budget is answered."
    )
    # each verdict and each reading of the rule in its own words
    names = list(c.converged)
    for verdict, words in cx.AGAINST_LITERATURE.items():
        got = cx.literature_line(
            d, records, [replace(c, effect=replace(c.effect, verdict=verdict))]
        )
        assert f"**{verdict}**, which {words}" in got
    both = replace(c, converged=dict.fromkeys(names, True))
    got = cx.literature_line(d, records, [both])
    assert "with both models converged by the declared rule." in got and "theirs" not in got
    one = replace(c, converged={names[0]: False, names[1]: True})
    got = cx.literature_line(d, records, [one])
    assert f"but {names[0]} has not converged there by the declared rule (theirs trained" in got
    neither = replace(c, converged=dict.fromkeys(names, False))
    assert "but neither model has converged there" in cx.literature_line(d, records, [neither])
    monkeypatch.setattr(cx, "LITERATURE_BUDGETS", (c.budget + 1, 2 * c.budget))
    assert f"{c.budget:,} parameters (outside their range)" in cx.literature_line(d, records, [c])


def test_two_layer_leads_are_the_report_s_comparisons_beside_the_map_s_cells():
    """The lead figure's data, from the committed runs: the convergence series is every L2 - L1
    comparison the report states at that budget, the map series every map cell there; budgets
    without a convergence comparison are left out, and so is everything before one exists."""
    from rnnlab.core.paths import results_dir
    from rnnlab.evidence import converge_context as cx
    from rnnlab.evidence import converge_report as cr
    from rnnlab.evidence import scalemap

    records = load_results(results_dir() / "converge" / "reference.jsonl")
    scale_records = load_results(results_dir() / "scale" / "reference.jsonl")
    leads = cx.two_layer_leads("reference", records, scale_records)
    cells = [c for c in cr.results("reference", records) if (c.wide, c.deep) == ("L1", "L2")]
    assert set(leads) == {c.budget for c in cells} and leads
    for budget, by in leads.items():
        mine = sorted((c.steps, c.effect.effect, c.effect.verdict) for c in cells
                      if c.budget == budget)  # fmt: skip
        assert [(p.steps, p.effect, p.verdict) for p in by[cx.CONVERGE_SERIES]] == mine
        theirs = sorted((scalemap.grid_key(c)[1], c.comparison.effect, c.comparison.verdict)
                        for c in scalemap.map_cells(scale_records, deep=2)
                        if scalemap.grid_key(c)[0] == budget)  # fmt: skip
        assert [(p.steps, p.effect, p.verdict) for p in by[cx.MAP_SERIES]] == theirs
        assert all(p.low <= p.effect <= p.high for pts in by.values() for p in pts)
    assert cx.two_layer_leads("reference", [], scale_records) == {}


def test_the_report_compares_the_trainable_stack_with_the_plain_one_and_sets_the_map_beside():
    from rnnlab.evidence import converge_context, converge_report, scalemap

    d = converge.design("reference")
    pairs = converge_report.comparisons(d)
    assert pairs[:3] == [("L1", "L2"), ("L1", "L4-res-LN"), ("L1", "L4-plain")]
    assert pairs[3] == ("L4-plain", "L4-res-LN")
    assert converge_report.comparisons(converge.design("smoke")) == [("L1", "L2")]
    scale = load_results("data/results/scale/reference.jsonl")
    (line,) = converge_context.map_lines(d, scale)
    for deep in (2, 4):
        cell = next(c for c in scalemap.map_cells(scale, deep=deep)
                    if scalemap.grid_key(c) == (400_000, 6_000))  # fmt: skip
        assert (
            f"400,000 parameters, L{deep} - L1 at 6,000 steps: {fmt_signed(cell.comparison.effect)}"
            in (line)
        )
        assert f"**{cell.comparison.verdict}**" in line
    assert converge_context.map_lines(d, []) == []


def test_tuning_lines_give_each_setting_its_mean_over_seeds_and_the_leader():
    from rnnlab.evidence import converge_report

    def tune(seed, lr, drop, val):
        exp = {"dropout": drop, "labels": {"variant": "L1", "steps": 16_000}}
        return {"role": "tune", "budget": 160_000, "seed": seed, "lr": lr, "experiment": exp,
                "metrics": {"val": val}}  # fmt: skip

    runs = [tune(0, 0.004, 0.0, 2.0), tune(1, 0.004, 0.0, 1.9), tune(0, 0.004, 0.2, 1.8),
            tune(1, 0.004, 0.2, 1.9), tune(0, 0.008, 0.2, 1.0)]  # fmt: skip
    (head, line) = converge_report.tuning_lines(runs)
    assert "not a result" in head
    assert "160,000 parameters, L1, 16,000 steps: dropout 0: rate 0.004 1.950" in line
    assert "dropout 0.2: rate 0.004 1.850, 0.008 1.000 (1 seed)" in line
    # a setting with one tuning seed so far cannot lead, however good
    assert line.endswith("leading so far: dropout 0.2, rate 0.004")
    assert converge_report.tuning_lines([r for r in runs if r["lr"] == 0.008])[1].endswith(
        "0.008 1.000 (1 seed)"
    )
    assert converge_report.tuning_lines([]) == []


def test_tuning_lines_say_where_validation_rose_after_the_best_checkpoint():
    from rnnlab.evidence import converge_report

    def tune(seed, best, last):
        curves = [{"step": 2_000, "val": 1.9}, {"step": 4_000, "val": best},
                  {"step": 8_000, "val": last}]  # fmt: skip
        return {"role": "tune", "budget": 400_000, "seed": seed, "lr": 0.008, "curves": curves,
                "experiment": {"dropout": 0.0, "labels": {"variant": "L1", "steps": 8_000}},
                "metrics": {"val": best, "best_step": 4_000}}  # fmt: skip

    rose = f"{converge_report.ROSE_AFTER_BEST + 0.01 + 1.7:.2f}"
    (_, line) = converge_report.tuning_lines([tune(0, 1.7, float(rose)), tune(1, 1.8, 1.8)])
    assert line.endswith(
        f"rate 0.008 1.750 (validation rose after the best checkpoint: best at step 4,000, {rose}"
        " at step 8,000); leading so far: dropout 0, rate 0.008"
    )
    # a rise within the threshold, a run without curves and a seed that held its best: no note
    small = tune(0, 1.7, 1.7 + converge_report.ROSE_AFTER_BEST / 2)
    bare = {**tune(0, 1.7, 9.0), "curves": []}
    for runs in ([small], [bare], [tune(1, 1.8, 1.8)]):
        assert "rose" not in converge_report.tuning_lines(runs)[1]
    # a run that ended on a non-finite score rose too
    assert "nan at step 8,000" in converge_report.tuning_lines([tune(0, 1.7, float("nan"))])[1]


def test_runs_that_can_start_from_a_fork_go_first(tmp_path):
    from rnnlab.experiments.experiment import fork_path, run_id
    from rnnlab.experiments.sweep import fork_first

    d = converge.design("smoke")
    v = d.variants[0]
    long_, short = (converge.experiment(d, 12_000, v, 0.0, n) for n in (40, 20))
    other = converge.experiment(d, 12_000, d.variants[1], 0.0, 40)
    units = [(other, "tune", 10_000, 0.002), (short, "tune", 10_000, 0.002),
             (short, "tune", 10_001, 0.002)]  # fmt: skip
    assert fork_first(units, None) == units  # no checkpoints: the design order
    # the sibling at 40 steps of the second seed is in flight: that short run goes last
    busy = {run_id(long_, "tune", 10_001, 0.002)}
    assert fork_first(units, tmp_path, busy) == [units[0], units[1], units[2]]
    assert fork_first(units[::-1], tmp_path, busy) == [units[1], units[0], units[2]]
    # a fork waiting for the first seed's short run: it goes first
    fork_path(tmp_path, short, "tune", 10_000, 0.002).write_bytes(b"")
    assert fork_first(units, tmp_path, busy) == [units[1], units[0], units[2]]
    # a fork for the family's longest length (an extension, which costs most of its length
    # even from the fork) keeps its place behind the runs before it
    longest = converge.experiment(d, 12_000, v, 0.0, max(d.family))
    ext = (longest, "tune", 10_000, 0.002)
    fork_path(tmp_path, longest, "tune", 10_000, 0.002).write_bytes(b"")
    assert fork_first([units[0], ext], tmp_path) == [units[0], ext]
    assert fork_first([units[1], units[0], ext], tmp_path) == [units[1], units[0], ext]
    # a run whose longer sibling (same seed and rate) is also due waits for it: the longer
    # run's forks then make it a cool-down in the same sitting
    mid = (long_, "tune", 10_001, 0.002)
    ext2 = (longest, "tune", 10_001, 0.002)
    assert fork_first([units[2], mid, ext2, units[0]], tmp_path) == [ext2, units[0], units[2], mid]
    assert fork_first([units[2], mid], tmp_path) == [mid, units[2]]
    other_rate = (longest, "tune", 10_001, 0.004)  # another rate: no fork for mid, which
    assert fork_first([units[2], mid, other_rate], tmp_path) == [mid, other_rate, units[2]]


@pytest.mark.slow
def test_a_sitting_uses_the_forks_it_writes(tmp_path):
    # two runs, one process: the second is the first one's sibling at the other length,
    # started from the fork the first left (the design order would start another long run)
    out = tmp_path / "c.jsonl"
    records = converge.run_converge("smoke", out, options=RunOptions(jobs=1, max_runs=2))
    first, second = records
    assert first["experiment"]["labels"]["steps"] == 40 and "forked_from" not in first["metrics"]
    assert second["experiment"]["labels"]["steps"] == 20
    assert second["metrics"]["forked_from"]["step"] == 16
    assert (second["seed"], second["lr"]) == (first["seed"], first["lr"])


def test_effective_files_counts_equal_files_and_discounts_one_large_file():
    from rnnlab.experiments.resolution import effective_files

    assert effective_files([40, 40, 40, 40]) == pytest.approx(4.0)
    assert effective_files([1000, 1, 1, 1]) == pytest.approx(1.006, abs=1e-3)
    assert effective_files([0, 10, 10]) == pytest.approx(2.0)  # an unscored file weighs nothing
    with pytest.raises(ValueError, match="windows must hold"):
        effective_files([0, 0])


def test_the_pilot_measured_why_version_2_holds_out_more_files():
    """Design version 1's committed tuning runs give the spread; version 2's test files are
    more (effectively), so the projected file share is smaller by sqrt(old / new)."""
    from rnnlab.experiments import scale

    pilot = load_results(converge.pilot_out())
    assert pilot and {r["experiment"]["task"] for r in pilot} == {converge.PILOT_TASK}
    d = converge.design("reference")
    q = converge.pilot_projection(d, pilot)
    assert q is not None and q.budget == 160_000 and q.runs == len(pilot)
    assert q.files[0] < q.new_files[0] and q.files[1] < q.new_files[1]
    factor = (q.files[1] / q.new_files[1]) ** 0.5
    assert q.projected.file_fixed == pytest.approx(q.spread.file_fixed * factor)
    assert q.projected.sd_seed == q.spread.sd_seed  # more files do not change the seeds' share
    # the pilot's own file share keeps its resolution above the margin at the most seeds
    assert q.old_half_width > d.margin
    assert q.half_width == pytest.approx(
        resolution(q.projected.sd_seed, q.seeds, q.projected.se_file_at(q.seeds))
    )
    # the rule would never decide on the pilot: version 1's tuning of L2 is incomplete
    assert converge.seed_spread(converge.pilot_design("reference"), 160_000, pilot) is None
    p = converge.plan("reference", [], [], scale.load_timings(), pilot)
    line = next(x for x in converge.plan_lines(p) if "the pilot (design version 1" in x)
    assert f"{q.new_files[0]} scored test files" in line and f"+/-{q.half_width:.4f}" in line


def test_a_sweep_refuses_to_resume_runs_made_on_another_corpus(tmp_path):
    """Run ids do not name the corpus (the standard library of the Python that ran them), so a
    results file made on another Python is refused before anything runs, in one line."""
    import json
    import subprocess
    import sys

    from rnnlab.core.tasks.heldout import corpus_digest

    d = converge.design("smoke")
    out = tmp_path / "converge-smoke.jsonl"
    here = {"run_id": "x", "task": d.task, "task_info": {"files_sha256": corpus_digest(d.task)}}
    converge.check_same_corpus(d, [here], out)  # the same corpus: nothing to say
    other = {**here, "task_info": {"files_sha256": "0" * 64}}
    with pytest.raises(ValueError, match="on another corpus .*000000000000"):
        converge.check_same_corpus(d, [here, other], out)
    # a whole record, as the GPU machine's Python wrote it, with its corpus digest made foreign
    real = json.loads((converge.default_out("gpu")).read_text().splitlines()[0])
    other = {**real, "task_info": {**real["task_info"], "files_sha256": "0" * 64}}
    out.write_text(json.dumps(other) + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "rnnlab", "run-converge", "--profile", "smoke", "--out", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode != 0 and "on another corpus" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert out.read_text() == json.dumps(other) + "\n"  # nothing was added


def test_the_gpu_profile_is_priced_by_its_own_runs_and_the_gpu_benchmark():
    """On a GPU the CPU benchmark prices nothing: a cell with runs costs their median step, a
    cell without the GPU benchmark's step at the nearest budget times the measured ratio."""
    from rnnlab.experiments import scale
    from rnnlab.experiments.converge.timing import gpu_step_seconds, run_step_seconds

    gpu = load_results(converge.default_out("gpu"))  # the H200 runs of 2026-12-04
    bench = {
        "provenance": {"sizes": {"batch": 32, "seq_len": 128}},
        "rows": [{"device": "cuda", "budget": b, "num_layers": k, "train_s_per_token": t / 4096}
                 for b, k, t in [(100_000, 1, 0.004), (100_000, 2, 0.003), (400_000, 1, 0.008),
                                 (400_000, 2, 0.006), (400_000, 4, 0.005)]]
             + [{"device": "cpu", "budget": 400_000, "num_layers": 2, "train_s_per_token": 1.0}],
    }  # fmt: skip
    t = gpu_step_seconds(gpu, (160_000, 1_000_000), bench)
    measured = {k: statistics.median(v) for k, v in run_step_seconds(gpu).items()}
    assert (160_000, 1) in measured  # the committed runs measure this cell at least
    for cell, seconds in measured.items():
        assert t[cell] == pytest.approx(seconds)
    # the benchmark's row of the same depth at the nearest budget on a log scale (160K: 100K;
    # 1M: 400K); the CPU row is never read
    rows = {(100_000, 1): 0.004, (100_000, 2): 0.003, (400_000, 1): 0.008,
            (400_000, 2): 0.006, (400_000, 4): 0.005}  # fmt: skip

    def nearest(budget: int, depth: int) -> float:
        same = [b for b, k in rows if k == depth]
        return rows[(min(same, key=lambda b: abs(math.log(b / budget))), depth)]

    ratio = statistics.median(seconds / nearest(*cell) for cell, seconds in measured.items())
    for depth, seconds in [(1, 0.008), (2, 0.006), (4, 0.005)]:
        if (1_000_000, depth) not in measured:
            assert t[(1_000_000, depth)] == pytest.approx(ratio * seconds)
    if (160_000, 2) not in measured:
        assert t[(160_000, 2)] == pytest.approx(ratio * 0.003)
    assert t[(160_000, 4)] == pytest.approx(ratio * 0.005)  # the only row of that depth
    no_deep = {**bench, "rows": [r for r in bench["rows"] if r["num_layers"] < 4]}
    assert (160_000, 4) not in gpu_step_seconds(gpu, (160_000,), no_deep)  # not priced
    assert gpu_step_seconds([], (160_000,), bench)[(160_000, 1)] == pytest.approx(0.004)
    p = converge.plan("gpu", gpu, [], scale.load_timings())
    text = "\n".join(converge.plan_lines(p))
    assert p.unit == "process-h on the GPU" and "process-h on the GPU spent" in text
    assert "160,000 parameters, L=1: " in text and "(measured)" in text
    assert "0.082" not in text  # the CPU benchmark's step


def test_a_plan_of_runs_made_on_another_python_prints_their_corpus():
    """The GPU's runs read that machine's standard library: the plan prints their partition and
    projects the pilot onto their test files, not this Python's."""
    from rnnlab.experiments import scale
    from rnnlab.experiments.converge.timing import gpu_step_seconds, run_step_seconds

    gpu = load_results(converge.default_out("gpu"))
    info = gpu[0]["task_info"]
    p = converge.plan("gpu", gpu, [], scale.load_timings(), load_results(converge.pilot_out()))
    assert p.partition["files"]["test"] == len(info["test_files"])
    assert p.partition["windows"] == info["available"]
    scored = sum(n > 0 for _, n in info["test_files"])
    assert p.pilot.new_files[0] == scored
    line = "\n".join(converge.plan_lines(p))
    assert f"{len(info['test_files'])} held-out test files" in line
    assert f"{scored} scored test files" in line
    # a benchmark without its sizes prices nothing beyond the measured cells
    partial = {
        "provenance": {"sizes": {"batch": 32}},
        "rows": [{"device": "cuda", "budget": 400_000, "num_layers": 2, "train_s_per_token": 1e-6}],
    }
    measured = set(run_step_seconds([r for r in gpu if r["device"] == "cuda"]))
    assert measured and set(gpu_step_seconds(gpu, (400_000,), partial)) == measured


def test_findings_show_the_gpu_profile_beside_the_reference_once_it_has_runs(tmp_path):
    """The gpu profile's progress (and, later, its verdicts) reach the Findings page in a block of
    its own, its time counted on the GPU, never mixed with the reference profile's numbers."""
    from rnnlab.core.paths import repo_root
    from rnnlab.course.findings import convergence_lines

    (tmp_path / "converge").mkdir()
    without = "\n".join(convergence_lines(tmp_path))
    assert "reference profile, cpu" in without and "The same design on a GPU" not in without
    real = (repo_root() / "data" / "results" / "converge" / "gpu.jsonl").read_text()
    (tmp_path / "converge" / "gpu.jsonl").write_text(real)
    text = "\n".join(convergence_lines(tmp_path))
    gpu = text[text.index("The same design on a GPU") :]
    assert f"{len(real.splitlines())} runs in all (" in gpu
    assert "process-hours on the GPU" in gpu and "core-hours" not in gpu
    assert "--profile gpu` resumes it" in gpu


def test_a_model_that_failed_to_train_makes_a_comparison_count_neither_way():
    from rnnlab.evidence.analysis import baseline_of
    from rnnlab.evidence.convergence_stats import failed_to_train

    # the reference profile's first reporting runs: one layer at 160K parameters, 16,000 steps
    records = load_results("data/results/converge/reference.jsonl")
    l1 = [r for r in records if r["role"] == "eval" and r["num_layers"] == 1
          and r["experiment"]["labels"]["steps"] == 16_000]  # fmt: skip
    assert len(l1) >= 2

    def like(runs, **metrics):
        return [{**r, "metrics": {**r["metrics"], **metrics}} for r in runs]

    best = min(statistics.mean(r["metrics"]["test"] for r in rs) for rs in (l1,))
    chance = baseline_of(min(l1, key=lambda r: r["seed"])).chance
    assert 4.0 < chance < 5.0  # the unigram model of the held-out files, in bits/char
    assert failed_to_train({"L1": l1, "L2": like(l1, test=best - 0.02)}, [], 0.01) == ""
    # a quarter of the best model's gain over the unigram model is the declared threshold
    just_under = chance - 0.24 * (chance - best)
    reason = failed_to_train({"L1": l1, "L4-plain": like(l1, test=just_under)}, [], 0.01)
    assert reason.startswith(f"L4-plain failed to train ({just_under:.3f}: 24% of the best")
    assert f"over the unigram model, {chance:.3f})" in reason
    assert failed_to_train({"L1": l1, "L2": like(l1, test=chance - 0.26 * (chance - best))},
                           [], 0.01) == ""  # fmt: skip
    # the best model may be a third variant of the same budget and length (the family)
    better = like(l1, test=best - 1.0)
    assert "L2 failed to train" in failed_to_train(
        {"L1": l1, "L2": like(l1, test=chance - 0.3 * (chance - best))}, [better], 0.01
    )
    # a best checkpoint in the first tenth of training, on the median seed
    early = like(l1, best_step=800)
    assert failed_to_train({"L1": l1, "L2": early}, [], 0.01) == (
        "L2 failed to train (best checkpoint at 5% of training on the median seed)"
    )
    # a warmup-stable-decay run makes much of its gain in the cool-down: not "far from
    # convergence" (this experiment's own convergence rule decides that)
    assert "far from convergence" not in failed_to_train({"L1": l1, "L2": l1}, [], 0.01)
    with pytest.raises(ValueError, match="models must give every model"):
        failed_to_train({"L1": l1, "L2": []}, [], 0.01)


def test_the_convergence_reading_so_far_is_the_mean_gain_over_the_seeds_in_and_decides_nothing():
    from rnnlab.evidence import converge_report

    records = load_results("data/results/converge/reference.jsonl")
    d = converge.design_for("reference", records)
    val = {}
    for r in records:
        if r["role"] == "eval" and r["num_layers"] == 1 and r["budget"] == 160_000:
            val[r["experiment"]["labels"]["steps"], r["seed"]] = r["metrics"]["val"]
    seeds = sorted({s for n, s in val if n == 8_000} & {s for n, s in val if n == 16_000})
    assert len(seeds) >= 2
    gain = statistics.mean(val[8_000, s] - val[16_000, s] for s in seeds)
    (line,) = converge_report.convergence_lines(d, records)
    want = len(converge.report_seeds(d, 160_000, ("L1",), records))
    if len(seeds) < want:  # the rule waits for every reporting seed
        assert (
            f"160,000 parameters, L1, 8,000 to 16,000 steps: {fmt_signed(gain)} ({len(seeds)} of "
            f"{want} seeds so far; the rule reads them all)"
        ) in line
    else:
        want_line = (
            f"160,000 parameters, L1, 8,000 to 16,000 steps: {fmt_signed(gain)} ({want} seeds: "
        )
        assert want_line in line
    assert line in converge_report.report_lines("reference", records)
    assert converge_report.convergence_lines(d, []) == []


def test_the_plain_stack_failing_to_train_is_what_its_comparison_with_the_trainable_one_measures():
    from rnnlab.evidence import converge_report as cr

    d = converge.design("reference")
    checked = {pair: cr.checked_for_training(pair) for pair in cr.comparisons(d)}
    assert checked[("L1", "L4-plain")] == ("L1", "L4-plain")  # a failed plain stack: no verdict
    assert checked[("L1", "L2")] == ("L1", "L2")
    assert checked[(cr.PLAIN, cr.TRAINABLE)] == (cr.TRAINABLE,)


def test_each_length_is_costed_from_the_fork_it_starts_from():
    from rnnlab.experiments.converge.run_cost import run_cost as _run_cost

    d = converge.design("reference")  # lengths 8,000 and 16,000; extension 32,000; 20% cooldown
    assert _run_cost(d, 160_000, 16_000, 0.1) == pytest.approx(1_600.0)  # the whole run
    assert _run_cost(d, 160_000, 8_000, 0.1) == pytest.approx(160.0)  # its cooldown, 1,600 steps
    # from the 16,000-step run's fork at 12,800: 19,200 steps left
    assert _run_cost(d, 160_000, 32_000, 0.1) == pytest.approx(1_920.0)
    # 400K declares 32,000 from the start: that run is whole, the others its cooldowns
    assert _run_cost(d, 400_000, 32_000, 0.1) == pytest.approx(3_200.0)
    assert _run_cost(d, 400_000, 16_000, 0.1) == pytest.approx(320.0)
    assert _run_cost(d, 400_000, 8_000, 0.1) == pytest.approx(160.0)
    # a family costs the same steps either way when the extension is needed and no fork is lost
    ways = [sum(_run_cost(d, b, n, 1.0) for n in d.family) for b in d.budgets]
    assert ways == [36_800, 36_800]


def test_a_fork_serves_only_the_lengths_that_share_its_tuned_setting() -> None:
    """A fork carries one run's state: at 400K, L2 tuned dropout 0.2 at 32,000 steps and 0 at
    16,000 and 8,000 (the committed tuning), so the 16,000-step runs train whole and leave the
    8,000-step runs their forks; the cost counts that, not a fork that cannot exist."""
    import doctest

    from rnnlab.experiments.converge import run_cost
    from rnnlab.experiments.converge.run_cost import run_cost as _run_cost
    from rnnlab.experiments.converge.run_cost import sharing_lengths as _sharing_lengths

    assert doctest.testmod(run_cost).failed == 0
    d = converge.design("reference")
    assert _run_cost(d, 400_000, 16_000, 0.1, frozenset({8_000, 16_000})) == pytest.approx(1_600)
    assert _run_cost(d, 400_000, 8_000, 0.1, frozenset({8_000, 16_000})) == pytest.approx(160)
    assert _run_cost(d, 400_000, 8_000, 0.1, frozenset({8_000})) == pytest.approx(800)
    assert _run_cost(d, 160_000, 32_000, 0.1, frozenset({32_000})) == pytest.approx(3_200)
    assert _run_cost(d, 160_000, 32_000, 0.1, frozenset({16_000, 32_000})) == pytest.approx(1_920)
    records = load_results("data/results/converge/reference.jsonl")
    d = converge.design_for("reference", records)
    l2 = next(v for v in d.variants if v.name == "L2")
    picks = {n: converge.chosen(d, 400_000, l2, n, records) for n in (8_000, 16_000, 32_000)}
    assert picks[32_000].dropout != picks[16_000].dropout == picks[8_000].dropout
    assert _sharing_lengths(d, picks[32_000], records) == {32_000}
    assert _sharing_lengths(d, picks[16_000], records) == {8_000, 16_000}


def test_what_is_left_is_priced_from_the_forks_on_disk(tmp_path):
    """A run whose fork-giving sibling (the design's longest length, same seed and rate) is
    done but whose fork is not on disk (an earlier sitting left it) costs its whole length; a
    fork or checkpoint on disk prices it from its step; a sibling not yet run will leave the
    fork, so the cost model's assumption stands."""
    from rnnlab.experiments.converge.costing import StagePlan
    from rnnlab.experiments.converge.run_cost import left_cost as _left_cost
    from rnnlab.experiments.converge.run_cost import run_cost as _run_cost
    from rnnlab.experiments.experiment import run_id

    d = converge.design("smoke")  # lengths 20 and 40, extension 80, 20% cooldown
    v, t = d.variants[0], 0.5
    e20, e40, e80 = (converge.experiment(d, 12_000, v, 0.0, n) for n in (20, 40, 80))
    u20, u40, u80 = ((e, "tune", 10_000, 0.002) for e in (e20, e40, e80))
    ckpt = tmp_path / "ckpt"

    def left(unit, done=()):
        return _left_cost(d, unit, unit[0].train.max_steps, t, set(done), ckpt)

    assert left(u80) == (_run_cost(d, 12_000, 80, t), False) == (48 * t, False)
    assert left(u20) == (_run_cost(d, 12_000, 20, t), False) == (4 * t, False)
    assert left(u40) == (40 * t, False)
    rec = run_unit(e40, lab=converge.LAB, profile="smoke", role="tune", seed=10_000, lr=0.002,
                   checkpoint_dir=ckpt)  # fmt: skip
    done = {rec["run_id"]}
    assert rec["run_id"] == run_id(*u40)
    assert left(u80, done) == (48 * t, False)  # its fork at step 32 is on disk
    assert left(u20, done) == (4 * t, False)  # its fork at step 16
    for path in ckpt.glob("*.fork.pt"):
        path.unlink()  # a new checkout: the forks are gone
    assert left(u80, done) == (80 * t, True)
    assert left(u20, done) == (20 * t, True)
    s = StagePlan("tune", 12_000, 80, ("L1",), runs=4, done=1, core_hours=2.0)
    assert s.left == pytest.approx(1.5)  # without a checkpoint folder: the share by runs
    assert StagePlan("tune", 1, 80, ("L1",), 4, 1, 2.0, left_core_hours=0.2).left == 0.2


def test_a_verdict_says_how_many_budgets_its_holm_family_has_so_far() -> None:
    """Holm adjusts across the design's budgets; while only some are judged the adjustment, and
    so the verdict, can still change, and the line says over how many budgets it was made."""
    from types import SimpleNamespace

    from rnnlab.evidence import converge_report

    d = converge.design("reference")
    assert len(d.budgets) == 2

    def cell(budget: int, steps: int = 16_000, reason: str = "", planned: int = 9, n: int = 9):
        effect = SimpleNamespace(p_diff_adjusted=0.032, n_seeds=n)
        return converge_report.CellResult(budget, steps, "L2", effect, {}, {}, "L1", reason,
                                          planned)  # fmt: skip

    one = cell(160_000)
    others = [cell(400_000, reason="L2 failed to train"), cell(400_000, n=3),
              cell(400_000, steps=8_000)]  # fmt: skip
    said = converge_report._holm(d, one, [one, *others])
    assert said == "Holm p 0.032 over 1 of 2 budgets so far"
    both = [one, cell(400_000)]
    assert converge_report._holm(d, one, both) == "Holm p 0.032"


def test_the_reading_line_names_cells_whose_interval_and_verdict_seem_to_disagree() -> None:
    """A cell's interval is unadjusted and its verdict is Holm's: the line before the cells
    says so, and names the judged cells whose interval excludes 0 but whose verdict is
    inconclusive (not an interim look or a failed model, which carry no verdict)."""
    from types import SimpleNamespace

    from rnnlab.evidence import converge_report

    def cell(budget, verdict, lo, hi, n=5, reason=""):
        effect = SimpleNamespace(verdict=verdict, ci_low=lo, ci_high=hi, n_seeds=n)
        return converge_report.CellResult(budget, 8_000, "L2", effect, {}, {}, "L1", reason, 5)

    plain = converge_report.reading_line([cell(160_000, "supported", 0.01, 0.02)])
    assert "unadjusted" in plain and "Holm" in plain and "now:" not in plain
    cells = [
        cell(160_000, "inconclusive", 0.001, 0.022),  # named
        cell(400_000, "inconclusive", -0.004, 0.019),  # includes 0: consistent
        cell(400_000, "inconclusive", 0.002, 0.03, n=3),  # interim: no verdict
        cell(400_000, "inconclusive", -0.03, -0.002, reason="L2 failed to train"),
        cell(400_000, "inconclusive", -0.03, -0.002),  # named, the other side
    ]
    line = converge_report.reading_line(cells)
    assert line.endswith(
        "(now: 160,000 parameters, 8,000 steps, L2 - L1; 400,000 parameters, 8,000 steps, L2 - L1)."
    )


def _declared(budget: int = 12_000) -> converge.Design:
    """The smoke design with ``budget`` running its extension (80 steps) from the start."""
    return replace(converge.design("smoke"), extended_from_start=(budget,),
                   extended_declared="2026-12-05T09:45:00+00:00")  # fmt: skip


def test_grid_doctests_give_the_reference_lengths() -> None:
    """``grid``'s docstrings state the reference design's lengths per budget; they must hold
    (and at least two must run, so the check cannot pass with none)."""
    import doctest

    from rnnlab.experiments.converge import grid

    tested = doctest.testmod(grid)
    assert tested.failed == 0 and tested.attempted >= 2


def test_a_declared_budget_runs_the_extension_from_the_start_longest_first(monkeypatch):
    """A budget in ``extended_from_start`` runs the extension whatever the rule says: its
    lengths before any record, its stages (the longest length first, each tuning stage before
    the reporting ones), and no extension left for the plan to price. The rule still reads the
    doubling to the extension."""
    d = _declared()
    v = d.variants[0]
    assert d.lengths_at(12_000) == (20, 40, 80) and d.lengths_at(1) == d.lengths
    assert d.longest_at(12_000) == 80 and d.longest_at(1) == max(d.lengths)
    assert converge.longest_length(d, 12_000, []) == 80
    assert converge.lengths_needed(d, 12_000, v, []) == [20, 40, 80]
    assert converge.lengths_needed(converge.design("smoke"), 12_000, v, []) == [20, 40]
    assert [(st.kind, st.steps) for st in converge.stages(d, [])] == [
        ("tune", 80), ("tune", 40), ("tune", 20), ("report", 80), ("report", 40), ("report", 20)
    ]  # fmt: skip
    # every tuning run of every length can start at once; the 80-step runs come first
    units = converge.pending_runs(d, [])
    assert {e.label("steps") for e, *_ in units} == {20, 40, 80}
    assert units[0][0].label("steps") == 80
    picked = {n: converge.experiment(d, 12_000, v, 0.0, n) for n in d.family}
    monkeypatch.setattr(staging, "chosen", lambda d_, b, v_, n, r: picked[n])
    monkeypatch.setattr(staging, "report_seeds", lambda d_, b, names, r: d.seeds)
    recs = [_eval(picked[n], s, val) for n, val in ((40, 2.0), (80, 1.95)) for s in d.seeds]
    assert converge.rule_gain(d, 12_000, v, 80, recs) == pytest.approx(0.05)
    assert converge.converged(d, 12_000, v, 80, recs) is False


def test_every_run_at_a_declared_budget_started_after_the_declaration():
    """The committed results hold no run at a budget declared to run the extension from the
    start that began before the declaration: the decision could not have read their results."""
    from datetime import datetime

    for profile in ("reference", "gpu"):
        d = converge.design(profile)
        assert d.extended_from_start and d.extended_declared
        when = datetime.fromisoformat(d.extended_declared)
        path = converge.default_out(profile)
        records = load_results(path) if path.exists() else []
        at = [r for r in records if r["budget"] in d.extended_from_start]
        early = [r["run_id"] for r in at if datetime.fromisoformat(r["started_at"]) < when]
        assert early == [], f"{profile}: runs at a declared budget before {when}: {early}"
        assert all(b in d.budgets for b in d.extended_from_start)
    assert converge.design("smoke").extended_from_start == ()


def test_the_plan_states_the_declaration_and_the_gains_it_rests_on():
    """The plan's line names the declared budgets and when, and recomputes from the records the
    doubling gains at the budgets below them; without a declared budget there is no line."""
    from rnnlab.experiments.converge.costing import declared_text

    d = converge.design("reference")
    records = load_results(converge.default_out("reference"))
    text = declared_text(d, records)
    assert text.startswith("at 400,000 parameters 32,000 steps are run from the start")
    assert d.extended_declared in text
    gains = {v.name: converge.rule_gain(d, 160_000, v, 16_000, records) for v in d.variants}
    assert gains["L1"] is not None and gains["L2"] is not None  # both reporting stages are in
    for name, g in gains.items():
        assert (f" {name} " in text) == (g is not None)
        assert g is None or f"{name} {fmt_signed(g)}" in text
    assert declared_text(converge.design("smoke"), records) == ""


@pytest.mark.slow
def test_a_declared_budget_s_longest_run_leaves_the_others_their_forks(tmp_path, monkeypatch):
    """A real smoke sweep of a budget that declares its extension: each family's 80-step run
    goes first, and every 40- and 20-step tuning run starts from the fork its 80-step sibling
    left (the sibling ran just before it, in the same sweep), paying its cooldown only."""
    d = _declared()
    monkeypatch.setattr(staging, "design", lambda profile: d)
    out = tmp_path / "c.jsonl"
    records = converge.run_converge("smoke", out, options=RunOptions(jobs=1, max_runs=12))
    tune = [r for r in records if r["role"] == "tune"]
    steps = [r["experiment"]["labels"]["steps"] for r in tune]
    assert steps[0] == 80 and steps.count(80) == 4 and len(steps) == 12
    shorter = [r for r in tune if r["experiment"]["labels"]["steps"] < 80]
    for r in shorter:
        assert r["metrics"]["forked_from"]["max_steps"] == 80
        n = r["experiment"]["labels"]["steps"]
        assert r["metrics"]["forked_from"]["step"] == round((1 - d.decay_fraction) * n)


def test_every_report_stage_is_priced_for_each_of_its_variants():
    """A report stage counts every variant's reporting runs at its seeds, also while one
    variant's tuning is done and the other's is not (the committed results held that state on
    2026-12-05: L1's 32,000-step tuning done, L2's not, and the plan counted 9 runs, not 18)."""
    from rnnlab.experiments import scale

    records = load_results(converge.default_out("reference"))
    p = converge.plan("reference", records, [], scale.load_timings())
    by_key = {(st.kind, st.budget, st.steps, st.variants): st
              for st in converge.stages(p.design, records)}  # fmt: skip
    reports = [s for s in p.stages if s.kind == "report"]
    assert reports
    for s in reports:
        seeds = by_key[("report", s.budget, s.steps, s.variants)].spec.seeds
        assert s.runs == len(s.variants) * len(seeds), (s.budget, s.steps, s.variants)
