"""The convergence experiment: claim (b) where the literature measured it.

The scale map (:mod:`rnnlab.experiments.scale`) stops at 6,000 steps, where no cell has
converged, tunes its rates at 1,500 steps, and tests on a fixed tail of a few files. Karpathy et
al. (2015) compared depths trained to convergence. This experiment asks the map's question
there, with a design declared here before any of its runs:

* **Task**: ``charlm-stdlib-tree`` (:mod:`rnnlab.core.tasks.heldout`): the standard library's
  modules, top level and packages (605 files, 9.9M characters in CPython 3.11), whole files held
  out, about 10% for validation and 20% for test (124 scored files); every window of every test
  file scored, its loss stored per file so the test sample's variance enters the interval.
  Windows of 128 characters, batch 32, embedding 32.
* **Models** (:data:`VARIANTS`): one layer (``L1``), two (``L2``), four with residual
  connections and LayerNorm (``L4-res-LN``, the trainable deep stack of the design chapter) and
  four plain layers beside it (``L4-plain``, the map's failing stack, as a trainability
  reference). The whole model matched within 2% of the budget.
* **Regularisation control**: dropout on every non-recurrent connection (embedding -> first
  layer, between layers, last layer -> head; :data:`rnnlab.core.models.DROPOUT_MODES` ``"all"``),
  the same placement for every depth, its rate tuned per variant from ``dropouts`` (0 among them;
  the plain L=4 reference runs at 0 only). If depth's advantage shrinks once every depth may
  regularise, part of it was regularisation.
* **Schedule**: warmup-stable-decay (``schedule="wsd"``, a linear cooldown over the last 20% of
  the steps; Hägele et al. 2024). Runs that differ only in length share their state until the
  first cooldown starts, so each run leaves a fork from which the other lengths of its family
  start (:func:`rnnlab.experiments.experiment.family_forks`): a shorter length costs its cooldown
  only, a longer one skips the shared stable phase. A run started from a fork equals the run
  trained alone, bit for bit on the CPU (tested), so this saves compute without changing a
  number.
* **Lengths**: ``lengths`` (8,000 and 16,000 steps in the reference profile). **Convergence
  rule**, declared: a variant is *converged at N steps* when doubling the training from N/2 to N
  improves its mean validation bits/char (over the reporting seeds, each length at its own tuned
  setting) by less than the margin, 0.01 bits/char. Where it does not, for any variant at a
  budget, the next length of ``extension`` (32,000) is added for every variant at that budget,
  tuned and run the same way (:func:`lengths_needed`: so every comparison has a common longest
  length; until 2026-12-05 only the failing variant was extended). A verdict is made at the
  longest length run and says, for each side, whether that length met the rule.
* **The larger budgets run the extension from the start** (``Design.extended_from_start``:
  400K in the reference profile, 400K and 1M in the gpu profile; declared at
  :data:`~rnnlab.experiments.converge.grid.EXTENDED_DECLARED`, before any run at those
  budgets; a test checks every run there started after it). At 160K every variant the rule
  had read failed it at 16,000 steps (one layer and two both gained more than the margin), and
  a budget is extended if *any* of its four variants fails, so the extension was the likely
  outcome at 400K too. Added by the rule, the 32,000-step runs would start only after the
  16,000-step reporting runs, sittings after the tuning runs whose forks they need, and forks
  are not committed: each lost fork costs the 12,800 steps it would have saved. Declared, a
  family costs the same steps when the extension is needed and every fork is kept, 36,800 for
  32,000 + 16,000 + 8,000; it wastes 19,200 only if every variant would have converged at
  16,000. The rule still reads every doubling, and the verdict is made at 32,000 steps. Nothing
  in it depends on either depth's result at those budgets. A sweep under ``--until`` that
  cannot fit a 32,000-step run into what is left of a sitting runs the 16,000-step one first;
  its fork then starts the 32,000-step sibling, in the same sitting where it fits.
* **Tuning at its own length**: every (budget, variant, length) is tuned itself: the rate on one
  log-spaced grid (:func:`rnnlab.experiments.tuning.cell_grid`: extended at an edge), at each
  dropout, on two tuning seeds (never reported); the dropout with the best tuned validation
  score wins.
* **Seeds**: 5 reporting seeds per cell, the depths of one seed sharing its data order (paired);
  for L1 and L2 raised, per budget, to the fewest that resolve the margin at the spread the
  tuning seeds measured (at most 16; :mod:`.seeding`, declared before any reporting run).
* **Analysis** (:mod:`rnnlab.evidence.convergence_stats`): per budget and length, depth minus
  width in test bits/char, paired by seed; the interval adds the test files' sampling variance (a
  bootstrap over held-out files) to the seeds' (t with n - 1 degrees of freedom); verdicts as in
  :func:`rnnlab.evidence.stats.verdict_v2_from_interval` at the 0.01 margin, Holm across the
  budgets.

**Design version 2** (declared 2026-12-04, before any of its runs). Version 1 ran this design on
``charlm-stdlib-files`` (the top-level files only, a tenth of them test). Its tuning runs
(:func:`pilot_out`; never reported) measured at the smallest budget that the test files differ
in how much depth helps: that share of the interval's standard error does not shrink with seeds,
so even ``max_seeds`` seeds could not resolve the margin. Only more test files reduce it.
Version 2 changes the task and nothing else: the package modules join the corpus and a fifth of
the files is held out for test. Its run ids differ from version 1's, so every run is new. The
plan prints the pilot's measurement and what it projects for version 2
(:func:`pilot_projection`); the seed rule decides on version 2's own tuning runs. The seed rule
itself (:mod:`.seeding`) was added to version 1 after 17 tuning runs; version 2 has it from its
first run.

Run order: budget by budget (smallest first); within one, the tuning runs of the design's
lengths, then their reporting runs, then each extension's tuning and reporting runs
(:func:`stages`; until 2026-12-05 an extension's tuning came before the reporting runs, which
put off the first verdict by the extension's tuning). A process that the first unfinished
stage leaves idle (at its tail, or while a grid extension waits for the runs that decide it)
takes a run of a later
stage that can already start (:func:`pending_runs`), so no core waits; which runs are made is
the stages' alone. A run that can start from a fork its sibling at another length left goes
first, and one whose fork a run in flight, or a longer sibling already due, has yet to write
goes last (:func:`rnnlab.experiments.sweep.fork_first`): forks live in the uncommitted
``<out>.ckpt``, so one used in the sitting that wrote it is compute a later sitting would pay
again, and where the rule has added a longer length before the shorter ones ran (the four-layer
stacks at a budget whose one- and two-layer stacks needed the extension), the longest run goes
first and leaves the others a cool-down each. ``--until`` ends a sitting with no run in flight
(:mod:`rnnlab.experiments.deadline`). Each stage is a
:class:`~rnnlab.experiments.sweep.SweepSpec`; one :func:`rnnlab.experiments.sweep.run_sweep`
runs them all, so a killed sweep resumes (run ids are stable) and checkpoints every few
minutes.

Command line::

    python -m rnnlab plan converge --profile reference      # design, resolution, core-hours
    python -m rnnlab run-converge --profile reference --jobs 2 --nice 19   # run or resume

The code is in submodules by job: :mod:`.grid` (the design), :mod:`.seeding` (the seed rule),
:mod:`.staging` (the convergence rule, its stages and the runs), :mod:`.timing` (seconds per
step: the benchmark, the runs', a deadline's estimate), :mod:`.run_cost` (what one run pays,
given the forks it can start from) and :mod:`.costing` (the plan); this package re-exports
their public names.
"""

from __future__ import annotations

from rnnlab.experiments.converge.costing import (
    PilotProjection,
    Plan,
    StagePlan,
    pilot_projection,
    pilot_text,
    plan,
    plan_lines,
)
from rnnlab.experiments.converge.grid import (
    LAB,
    PILOT_TASK,
    PROFILES,
    TASK,
    VARIANTS,
    Design,
    Variant,
    best_dropout,
    candidates,
    chosen,
    design,
    design_for,
    experiment,
    pilot_design,
    tuned_scores,
    tuning_experiments,
)
from rnnlab.experiments.converge.seeding import (
    decision_text,
    paired_seeds,
    report_seeds,
    seed_spread,
    seeds_from_spread,
)
from rnnlab.experiments.converge.staging import (
    DEFAULT_OPTIONS,
    Stage,
    check_same_corpus,
    converged,
    default_out,
    doubling_gain,
    lengths_needed,
    longest_length,
    pending_runs,
    pilot_out,
    planned_runs,
    rule_gain,
    run_converge,
    stage_done,
    stages,
)
from rnnlab.experiments.converge.timing import (
    measured_step_seconds,
    run_step_seconds,
    seconds_left,
)

__all__ = [
    "TASK",
    "PILOT_TASK",
    "LAB",
    "PROFILES",
    "Variant",
    "VARIANTS",
    "Design",
    "design",
    "design_for",
    "pilot_design",
    "pilot_out",
    "experiment",
    "candidates",
    "chosen",
    "tuned_scores",
    "best_dropout",
    "tuning_experiments",
    "paired_seeds",
    "report_seeds",
    "decision_text",
    "seed_spread",
    "seeds_from_spread",
    "DEFAULT_OPTIONS",
    "Stage",
    "check_same_corpus",
    "converged",
    "rule_gain",
    "doubling_gain",
    "lengths_needed",
    "longest_length",
    "stages",
    "stage_done",
    "planned_runs",
    "pending_runs",
    "default_out",
    "run_converge",
    "StagePlan",
    "Plan",
    "PilotProjection",
    "measured_step_seconds",
    "run_step_seconds",
    "seconds_left",
    "plan",
    "plan_lines",
    "pilot_projection",
    "pilot_text",
]
