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

The code is in submodules by job: :mod:`.grid` (the design), :mod:`.timings` (what runs cost),
:mod:`.files` (where results go), :mod:`.transfer` (the rate-transfer check and control) and
:mod:`.runs` (running it); this package re-exports their public names.
"""

from __future__ import annotations

from rnnlab.experiments.scale.files import (
    DEFAULT_OPTIONS,
    default_checkpoint_dir,
    default_drain_file,
    default_out,
    run_command,
)
from rnnlab.experiments.scale.grid import (
    SCALE_PROFILES,
    TASK,
    TIMINGS_FILE,
    design,
    lr_sources,
    matched_budgets,
    scale_experiments,
    scale_seeds,
    sweep_spec,
)
from rnnlab.experiments.scale.runs import (
    run_scale,
    run_transfer_control,
)
from rnnlab.experiments.scale.timings import (
    default_timings_path,
    load_timings,
    run_seconds,
    step_seconds,
)
from rnnlab.experiments.scale.transfer import (
    CONTROL_LAB,
    MAX_TRANSFER_GRID_STEPS,
    default_control_out,
    transfer_check,
    transfer_control_spec,
    transfer_holds,
)

__all__ = [
    "CONTROL_LAB",
    "DEFAULT_OPTIONS",
    "MAX_TRANSFER_GRID_STEPS",
    "SCALE_PROFILES",
    "TASK",
    "TIMINGS_FILE",
    "default_checkpoint_dir",
    "default_control_out",
    "default_drain_file",
    "default_out",
    "default_timings_path",
    "design",
    "load_timings",
    "lr_sources",
    "matched_budgets",
    "run_command",
    "run_scale",
    "run_seconds",
    "run_transfer_control",
    "scale_experiments",
    "scale_seeds",
    "step_seconds",
    "sweep_spec",
    "transfer_check",
    "transfer_control_spec",
    "transfer_holds",
]
