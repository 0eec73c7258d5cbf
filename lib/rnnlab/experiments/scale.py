"""The scale experiment: where does depth start to win on generation, over budget x training length?

The pilot (``shared/notes/pilot.md``, not in this repository, so its figures are not quoted) saw
claim (b) flip with scale: on Python source at 400K parameters, one wide layer led early and a
2-layer stack led later in training (2 of 2 seeds). The committed labs stop at 100K parameters
and 1,500 steps. This module holds the design
of the experiment that maps the question, its compute plan, and the command that runs it.

The design (profile ``reference``)
----------------------------------
* **Task**: character LM on ``charlm-stdlib`` (every single-file standard-library module, about
  4.7M characters, 97 symbols), windows of 128 characters, 30,000 training windows, 512
  validation and 1,024 test windows per seed (each seed draws its own sample; the depths of one
  seed share it, so depths are paired). Metric: test bits per character of the best-on-validation
  weights.
* **Models**: LSTM stacks of depth 1, 2 and 4, embedding 32, the whole model (embedding + stack
  + head) matched within 2% of the budget (:func:`rnnlab.experiments.budgets.fit_budget`).
* **Budgets**: 25K, 63K, 160K and 400K parameters (log-spaced, a factor of about 2.5).
* **Training lengths**: 1,500, 3,000 and 6,000 steps of 32 x 128 characters (6M, 12M and 25M
  characters: from 15 characters per parameter at 400K and 1,500 steps to 1,000 at 25K and
  6,000 steps). Each length is its own cosine schedule (warm-up 100 steps, decay to 0.1x at
  the last step; no early stopping).
* **Seeds**: 5 reporting seeds (0-4) in every budget x depth x length cell: every cell can enter
  a verdict. 2 tuning seeds (10000, 10001), never reported.
* **Learning rate**: the sweep's tuning (:mod:`rnnlab.experiments.sweep`): grid 1e-3, 2e-3, 4e-3
for every
  depth, best mean validation over the 2 tuning seeds, grid extended by a factor 2 whenever a
  depth's best rate is at an edge.

How the compute is spent, and why
---------------------------------
The whole map has to fit in about 15-20 core-hours on 2 CPU cores (the issue's estimate), and a
step of the 400K models costs about 9 times one of the 25K models (benchmark below). The plan
comes to 270 runs and about 21 core-hours by a benchmark taken on a loaded machine (an upper
estimate; ``python -m rnnlab plan scale`` prints the current figures). The choices:

* **Tune once per budget x depth, at the shortest length; reuse the rate at the longer
  lengths.** Tuning every length would triple the tuning runs, and a tuning run at 6,000 steps
  costs four at 1,500. *Assumption*: the best peak rate of a cosine schedule moves little
  between 1,500 and 6,000 steps (a factor-2 grid cannot resolve less). *Check*: one cell (63K
  parameters, 6,000 steps: the largest length ratio, at a budget where it is cheap) is tuned at
  its own length too, and its reporting runs use that rate; the lab compares it with the rate
  tuned at 1,500 steps (the rates and their validation curves are in the results file). If they
  disagree by more than one grid step, the transfer is reported as failed and the longer lengths
  need their own tuning. *Outcome* (reference profile): it failed for L=1 (0.032 tuned at 1,500
  steps, 0.008 at 6,000: two grid steps). Tuning every long cell again would cost more than the
  rest of the map, so the **transfer control** (:func:`transfer_control_spec`, added after the
  check failed) measures what the failure does to the question asked: the check cell trained
  again at the transferred rates, at the same seeds, paired with its own-length runs
  (:func:`rnnlab.evidence.scalemap.transfer_effect`); ``python -m rnnlab run-scale --profile
  reference
  --transfer-control`` runs it into ``data/results/scale/reference-transfer.jsonl``.
* **Each length is its own schedule**, not warmup-stable-decay branches. This is the costlier
  choice, said plainly: with lengths a factor 2 apart the separate runs cost 1.75x the longest
  alone (1 + 1/2 + 1/4), branches about 1.15x (the longest plus two cooldowns of 20%), so
  branches would save about a third of the reporting compute. In exchange every model is
  trained with the schedule the rate was tuned with and the labs use (a full cosine, so the
  1,500-step column is comparable with Lab B), the lengths' results are independent (a lost long
  run spoils no short one), the short lengths' results exist before any long run starts, and no
  new code path (starting a run from another run's mid-training state) enters the evidence.
* **Lengths stop at 6,000 steps**, past the point where the pilot saw depth take the lead
  at 400K. A 24,000-step column would cost over 20 core-hours at 400K
  alone. The longest length is therefore the pilot's crossover region, not convergence; if
  depth's advantage is still growing there, the lab bounds the crossover ("beyond 6,000 steps
  at this budget") instead of extrapolating, and names the longer run that would settle it.
* **Four budgets, not five**: the 400K budget costs more than the other three together; a
  fifth budget (200K) would add about a quarter to the total for a point that 160K and 400K
  bracket.
* **Seeds**: 5 everywhere, not more where the crossover is: the crossover's location is not
  known before the runs. Once the map shows it, more seeds in the neighbouring cells are the
  next spend (``--seeds 8`` resumes and adds seeds 5-7 to every cell).
* **Order**: the runs go by length (shortest first), then budget (smallest first), then depth;
  each cell's tuning runs come before its reporting runs. So the cheapest runs, and a complete
  1,500-step map, finish first, and a partial results file is a map of the shorter lengths plus
  some of the longest, never scattered cells. One exception: the transfer-check cell comes last
  in its length. Its tuning starts from the same grid as every cell (the standard: one grid per
  task, extended at an edge), and at 63K the rates tuned at 1,500 steps are 0.016-0.032, two
  or three grid steps above that grid's top (0.004); so it needs rounds of extensions (each
  round waits for the last) before its reporting runs can start, while every other cell of the
  length runs on rates already tuned. Placing it last lets the cells that answer the map's
  question (160K and 400K at 6,000 steps) finish first; it changes no run, only when it runs.

The ``gpu`` profile is the same design with a fifth budget, 1M parameters (the issue's "up to
about 1M"), for one GPU: ``scripts/gpu_session.sh`` runs the CUDA checks and then as many of its
runs as fit in a fixed time budget, ``JOBS`` processes sharing the GPU. The CPU benchmark prices
none of its runs, so its plan reports what is done and the runs' measured wall time, no estimate.
Its corpus is the standard library of the Python that runs it (the version and every file's
sha256 are in each record), so its numbers are compared with the reference map's only through
their verdicts, not value by value.

Cost model (so the estimate can be checked): a run of ``S`` steps costs
``S * t_step + (E * n_val + n_val + n_test) * t_window`` seconds on one core, where ``t_step`` is
the benchmarked time of one training step (forward, backward, clip, AdamW, schedule) of that
(budget, depth), ``E`` the number of evaluations (every ``eval_every`` steps and at the end) and
``t_window`` the benchmarked time to evaluate one window. Both come from
``data/scale_step_seconds.json``, written by ``benchmarks/bench_scale_steps.py`` (a few hundred
steps per model after a warm-up, one thread, with its machine, date and versions); the plan never
times anything itself.

Command line::

    python -m rnnlab plan scale --profile reference              # runs, core-hours, what is done
    python -m rnnlab run-scale --profile reference --jobs 2      # run it, or resume it

Results go to ``data/results/scale/reference.jsonl`` (a sub-folder: the labs'
``data/results/*.jsonl`` never read it), checkpoints to ``<out>.ckpt/`` (git-ignored): every run
saves its full state every 3 minutes and a killed run resumes from there. Rerunning the same
command skips every finished run (by ``run_id``).
"""

from __future__ import annotations

import json
import math
import shlex
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rnnlab.core.config import TrainConfig
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.profiles import SMOKE_CHARLM
from rnnlab.experiments.sweep import SweepSpec
from rnnlab.experiments.tuning import cells_of

TASK = "charlm-stdlib"
SCALE_PROFILES = ("reference", "gpu", "smoke")
TIMINGS_FILE = "scale_step_seconds.json"


def _design(profile: str) -> dict:
    if profile == "reference":
        return dict(
            depths=(1, 2, 4),
            budgets=(25_000, 63_000, 160_000, 400_000),
            steps=(1_500, 3_000, 6_000),
            eval_every={1_500: 100, 3_000: 150, 6_000: 300},
            check=(63_000, 6_000),  # tuned at its own length too: the transfer check
            batch_size=32,
            seq_len=128,
            n_train=30_000,  # of about 33,000 training windows of 128 (CPython 3.11)
            n_val=512,
            n_test=1_024,
            embedding_dim=32,
            warmup_steps=100,
            lr_grid=(1e-3, 2e-3, 4e-3),
            lr_limits=(1e-4, 0.1),
            seeds=(0, 1, 2, 3, 4),
        )
    if profile == "gpu":
        # the same map, one budget further (about 1M parameters): for one GPU, many runs packed
        # onto it at once (scripts/gpu_session.sh). Declared before any of its runs.
        return dict(_design("reference"), budgets=(25_000, 63_000, 160_000, 400_000, 1_000_000))
    if profile == "smoke":
        return dict(
            depths=(1, 2),
            budgets=(12_000,),
            steps=(12, 24, 36),
            eval_every={12: 6, 24: 12, 36: 12},
            check=(12_000, 24),
            n_test=16,
            seeds=(0, 1),
            **SMOKE_CHARLM,
        )
    raise ValueError(f"profile must be one of {SCALE_PROFILES}, got {profile!r}")


def design(profile: str = "reference") -> dict:
    """The design's parameters of ``profile`` (a copy): depths, budget targets, training
    lengths, the transfer-check cell, batch, window, data sizes, grid and reporting seeds."""
    return dict(_design(profile))


def _budgets(profile: str) -> dict[int, int]:
    """Budget target -> the budget every depth matches within 2%
    (:func:`rnnlab.experiments.budgets.fit_budget`)."""
    from rnnlab.experiments.budgets import fit_budget

    d = _design(profile)
    options = (("seq_len", d["seq_len"]),)
    return {
        t: fit_budget(t, d["depths"], task=TASK, options=options, embedding_dim=d["embedding_dim"])
        for t in d["budgets"]
    }


def _experiment(d: dict, budget: int, target: int, depth: int, steps: int, tuned_at: int):
    train = TrainConfig(
        max_steps=steps,
        batch_size=d["batch_size"],
        eval_every=d["eval_every"][steps],
        patience=None,  # the schedule ends where training ends
        warmup_steps=d["warmup_steps"],
        schedule="cosine",
    )
    return Experiment(
        task=TASK,
        budget=budget,
        num_layers=depth,
        n_train=d["n_train"],
        n_val=d["n_val"],
        n_test=d["n_test"],
        task_options=(("seq_len", d["seq_len"]),),
        embedding_dim=d["embedding_dim"],
        train=train,
        lr_grid=d["lr_grid"],
        lr_limits=d["lr_limits"],
        labels=(
            ("task", TASK),
            ("budget_target", target),
            ("steps", steps),
            ("corpus", "stdlib"),
            ("lr_tuned_at_steps", tuned_at),
        ),
    )


def _tuned_at(d: dict, target: int, steps: int) -> int:
    """Where the rate of (budget target, length) is tuned: at its own length for the shortest
    length and the check cell, else at the shortest length."""
    return (
        steps if steps == d["steps"][0] or (target, steps) == tuple(d["check"]) else d["steps"][0]
    )


def scale_experiments(profile: str = "reference") -> tuple[Experiment, ...]:
    """The design of ``profile`` (see the module docstring), in run order: by training length
    (shortest first), then budget (smallest first), then depth, except that the transfer-check
    cell comes last in its length. Labels: ``task``, ``budget_target``, ``steps``, ``corpus``,
    ``lr_tuned_at_steps``."""
    d = _design(profile)
    budgets = _budgets(profile)
    check = tuple(d["check"])

    def last_if_check(target: int, steps: int) -> bool:
        return steps != d["steps"][0] and (target, steps) == check

    return tuple(
        _experiment(d, budgets[target], target, depth, steps, _tuned_at(d, target, steps))
        for steps in d["steps"]
        for target in sorted(d["budgets"], key=lambda t: (last_if_check(t, steps), t))
        for depth in d["depths"]
    )


def scale_seeds(profile: str = "reference") -> tuple[int, ...]:
    """The reporting seeds of ``profile``."""
    return _design(profile)["seeds"]


def lr_sources(experiments: Sequence[Experiment]) -> tuple[tuple[str, str], ...]:
    """``(key, source_key)`` for every experiment tuned at another length: the source is the same
    budget and depth at the length named by its ``lr_tuned_at_steps`` label."""
    index = {
        (e.budget, e.num_layers, e.label("steps")): e
        for e in experiments
        if e.label("lr_tuned_at_steps") == e.label("steps")
    }
    out = []
    for e in experiments:
        at = e.label("lr_tuned_at_steps")
        if at != e.label("steps"):
            src = index.get((e.budget, e.num_layers, at))
            if src is None:
                raise ValueError(
                    f"experiment {e.key} (budget {e.budget}, L={e.num_layers}) takes its rate "
                    f"from length {at}, which is not tuned in the design"
                )
            out.append((e.key, src.key))
    return tuple(out)


def sweep_spec(profile: str = "reference", seeds: Sequence[int] | None = None) -> SweepSpec:
    """The design as a :class:`~rnnlab.experiments.sweep.SweepSpec` (lab ``"scale"``, rates
    transferred from
    the shortest length, :attr:`~rnnlab.experiments.sweep.SweepSpec.lr_from`) for
    :func:`rnnlab.experiments.sweep.run_sweep`."""
    experiments = scale_experiments(profile)
    if seeds is not None:
        seeds = tuple(seeds)
        if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
            raise ValueError(f"seeds must be integers >= 0, at least one, got {seeds!r}")
    return SweepSpec(
        "scale",
        profile,
        experiments,
        seeds if seeds is not None else scale_seeds(profile),
        lr_from=lr_sources(experiments),
    )


# ----------------------------------------------------------------------------- timings


def default_timings_path() -> Path:
    """``data/scale_step_seconds.json`` of the course repository."""
    from rnnlab.core.paths import repo_root

    return repo_root() / "data" / TIMINGS_FILE


def load_timings(path: str | Path | None = None) -> dict:
    """The benchmark file (see ``benchmarks/bench_scale_steps.py``) as a dict."""
    path = Path(path) if path is not None else default_timings_path()
    if not path.is_file():
        raise ValueError(
            f"timings file {str(path)!r} does not exist: run "
            "python benchmarks/bench_scale_steps.py to benchmark the design's models"
        )
    doc = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise ValueError(f"timings file {str(path)!r} has no 'cells' list")
    return doc


def _cell_of(e: Experiment) -> tuple:
    return (e.task, e.budget, e.num_layers, e.embedding_dim, e.train.batch_size,
            dict(e.task_options).get("seq_len"))  # fmt: skip


def step_seconds(experiments: Sequence[Experiment], timings: Mapping) -> dict:
    """``{(budget, depth): (seconds per training step, seconds per evaluated window)}`` for every
    experiment, from the benchmark ``timings`` (:func:`load_timings`): the row of the same task,
    budget, depth, embedding, batch and window length. Raises ValueError naming a missing one."""
    rows = {
        (c["task"], c["budget"], c["num_layers"], c["embedding_dim"], c["batch_size"],
         c["seq_len"]): c
        for c in timings["cells"]
    }  # fmt: skip
    out = {}
    for e in experiments:
        row = rows.get(_cell_of(e))
        if row is None:
            raise ValueError(
                f"timings has no benchmark of budget={e.budget} num_layers={e.num_layers} "
                f"(task {e.task}, batch {e.train.batch_size}, embedding {e.embedding_dim}): rerun "
                "python benchmarks/bench_scale_steps.py"
            )
        out[(e.budget, e.num_layers)] = (row["step_s_median"], row["eval_s_per_window"])
    return out


def run_seconds(e: Experiment, seconds_per_step: float, seconds_per_window: float) -> float:
    """The cost model of the module docstring: one run of ``e`` in seconds on one core."""
    if not (seconds_per_step > 0 and seconds_per_window >= 0):
        raise ValueError(
            f"seconds_per_step must be > 0 and seconds_per_window >= 0, got {seconds_per_step!r} "
            f"and {seconds_per_window!r}"
        )
    t = e.train
    evaluations = t.max_steps // t.eval_every + (t.max_steps % t.eval_every != 0)
    windows = evaluations * e.n_val + e.n_val + e.n_test
    return t.max_steps * seconds_per_step + windows * seconds_per_window


# ----------------------------------------------------------------------------- the plan


def default_out(profile: str) -> Path:
    """Where ``profile``'s results go: ``data/results/scale/<profile>.jsonl`` for the reference
    and gpu profiles (committed), ``runs/scale-<profile>.jsonl`` otherwise."""
    from rnnlab.core.paths import repo_root, runs_dir

    _design(profile)  # validates the profile
    if profile in ("reference", "gpu"):
        return repo_root() / "data" / "results" / "scale" / f"{profile}.jsonl"
    return runs_dir() / f"scale-{profile}.jsonl"


def default_checkpoint_dir(out: str | Path) -> Path:
    """``<out>.ckpt``: one checkpoint file per run in progress (git-ignored)."""
    out = Path(out)
    return out.with_name(out.name + ".ckpt")


def default_drain_file(out: str | Path) -> Path:
    """``<out>.drain``: while this file exists, :func:`run_scale` starts no new run; the runs in
    progress finish, are recorded, and the sweep stops (``touch`` it to end a sitting without
    losing the runs in flight; the sweep removes it when it stops)."""
    out = Path(out)
    return out.with_name(out.name + ".drain")


def run_command(profile: str, out: str | Path, jobs: int = 2) -> str:
    """The command that runs (or resumes) ``profile`` into ``out``."""
    return (
        f"python -m rnnlab run-scale --profile {shlex.quote(profile)} --jobs {jobs} "
        f"--out {shlex.quote(str(out))}"
    )


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


def run_scale(
    profile: str,
    out: str | Path | None = None,
    *,
    jobs: int = 2,
    checkpoint_dir: str | Path | None = None,
    seeds: Sequence[int] | None = None,
    device: str | None = None,
    threads: int | None = None,
    max_runs: int | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
):
    """Run (or resume) the scale sweep of ``profile`` into ``out`` (default :func:`default_out`)
    with per-run checkpoints in ``checkpoint_dir`` (default ``<out>.ckpt``). Returns
    :func:`rnnlab.experiments.sweep.run_sweep`'s records.

    Creating ``<out>.drain`` (:func:`default_drain_file`) while it runs drains it: no new run
    starts, the runs in progress finish and are recorded, and the file is removed on return. A
    drain file left from before is removed at the start, so it never stops a new sweep."""
    return _run(
        sweep_spec(profile, seeds),
        Path(out) if out else default_out(profile),
        jobs=jobs,
        checkpoint_dir=checkpoint_dir,
        device=device,
        threads=threads,
        max_runs=max_runs,
        on_record=on_record,
        on_failure=on_failure,
    )


def run_transfer_control(
    profile: str,
    out: str | Path | None = None,
    *,
    results: str | Path | None = None,
    jobs: int = 2,
    checkpoint_dir: str | Path | None = None,
    seeds: Sequence[int] | None = None,
    device: str | None = None,
    threads: int | None = None,
    max_runs: int | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
):
    """Run (or resume) the transfer control of ``profile`` (:func:`transfer_control_spec`, its
    rates read from the scale results ``results``, default :func:`default_out`) into ``out``
    (default :func:`default_control_out`); checkpoints and the drain file as for
    :func:`run_scale`."""
    from rnnlab.experiments.store import load_results

    reference = load_results(Path(results) if results else default_out(profile))
    return _run(
        transfer_control_spec(profile, reference, seeds),
        Path(out) if out else default_control_out(profile),
        jobs=jobs,
        checkpoint_dir=checkpoint_dir,
        device=device,
        threads=threads,
        max_runs=max_runs,
        on_record=on_record,
        on_failure=on_failure,
    )


def _run(
    spec: SweepSpec,
    target: Path,
    *,
    jobs: int,
    checkpoint_dir: str | Path | None,
    device: str | None,
    threads: int | None,
    max_runs: int | None,
    on_record: Callable[[dict], None] | None,
    on_failure: Callable[[dict], None] | None,
):
    from rnnlab.experiments.sweep import run_sweep

    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1, got {jobs!r}")
    drain = default_drain_file(target)
    drain.unlink(missing_ok=True)
    try:
        return run_sweep(
            spec,
            target,
            jobs=jobs,
            device=device,
            threads=threads,
            on_record=on_record,
            on_failure=on_failure,
            max_runs=max_runs,
            checkpoint_dir=checkpoint_dir
            if checkpoint_dir is not None
            else default_checkpoint_dir(target),
            stop_file=drain,
        )
    finally:
        drain.unlink(missing_ok=True)
