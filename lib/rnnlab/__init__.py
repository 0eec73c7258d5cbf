"""rnnlab: the library behind the course "Stacked RNNs: depth vs width".

Four layers and the command line on top. A module imports only from its own layer or the layers
below it (tests/test_layers.py checks it), never upwards, and no two modules import each other::

    rnnlab.__main__        the CLI: python -m rnnlab run | run-scale | run-converge | findings ...
      |
    rnnlab.course          what the book shows and how it is built
      |
    rnnlab.evidence        from result records to statistics, effects and verdicts
      |
    rnnlab.experiments     experiments as data, how they run, where their results are kept
      |
    rnnlab.core            parameter counts, tasks, models, training (no other rnnlab import)

The map, one job per module:

- :mod:`rnnlab.core`
  :mod:`~rnnlab.core.params` exact parameter counts (``counts``), budget matching
  (``matching``) and sympy forms (``symbolic``); :mod:`~rnnlab.core.tasks` deterministic,
  offline data generators and corpus loaders; :mod:`~rnnlab.core.models` budget-matched stacked
  LSTMs; :mod:`~rnnlab.core.config` the training configuration and result;
  :mod:`~rnnlab.core.device` devices, seeds, precision; :mod:`~rnnlab.core.train` the training
  loop and evaluation; :mod:`~rnnlab.core.checkpoint` resumable checkpoints;
  :mod:`~rnnlab.core.cost` FLOPs and critical path; :mod:`~rnnlab.core.paths` where the course
  and its results are; :mod:`~rnnlab.core.text` how a signed difference prints (never ``-0.000``).
- :mod:`rnnlab.experiments`
  :mod:`~rnnlab.experiments.experiment` an experiment and a run's id;
  :mod:`~rnnlab.experiments.unit` one run (train, evaluate, record);
  :mod:`~rnnlab.experiments.tuning` learning-rate grids and the chosen rate;
  :mod:`~rnnlab.experiments.options` the run options every runner takes (jobs, device, Dask);
  :mod:`~rnnlab.experiments.sweep` the sweep spec and loop (resume, failures);
  :mod:`~rnnlab.experiments.runner` the executors (inline, process pool, Dask) behind one seam,
  with :mod:`~rnnlab.experiments.distributed` (the Dask client);
  :mod:`~rnnlab.experiments.store` results files; :mod:`~rnnlab.experiments.console` the CLI's
  sweep runner; :mod:`~rnnlab.experiments.profiles` the profiles;
  :mod:`~rnnlab.experiments.budgets` budgets every depth can match;
  :mod:`~rnnlab.experiments.lab` what a lab is; :mod:`~rnnlab.experiments.lab_a` ...
  :mod:`~rnnlab.experiments.lab_d` the four labs; :mod:`~rnnlab.experiments.labs` the registry
  and running a lab; :mod:`~rnnlab.experiments.scale` (with
  :mod:`~rnnlab.experiments.scale_plan`, its compute plan) and
  :mod:`~rnnlab.experiments.converge` the scale map's and the convergence experiment's designs,
  with :mod:`~rnnlab.experiments.resolution` (what a design can resolve);
  :mod:`~rnnlab.experiments.owntext` Lab B on a text of your own.
- :mod:`rnnlab.evidence`
  :mod:`~rnnlab.evidence.stats` summaries and intervals, paired comparisons and the verdict
  rules, what a cell can show; :mod:`~rnnlab.evidence.analysis` records to cells, verdicts,
  tables and provenance; :mod:`~rnnlab.evidence.scalemap` the scale map's cells and crossovers;
  :mod:`~rnnlab.evidence.convergence_stats`, :mod:`~rnnlab.evidence.converge_results` and
  :mod:`~rnnlab.evidence.converge_report` the convergence experiment's analysis, comparisons
  and report, :mod:`~rnnlab.evidence.converge_context` the report beside the scale map and the
  literature.
- :mod:`rnnlab.course`
  :mod:`~rnnlab.course.plots`, :mod:`~rnnlab.course.widgets` pictures (the explorer's
  JavaScript is package data in ``rnnlab/course/assets/``); :mod:`~rnnlab.course.exercises`
  self-checks, one module per chapter; :mod:`~rnnlab.course.book` notebook display helpers;
  :mod:`~rnnlab.course.findings`, :mod:`~rnnlab.course.answer` the Findings page and answer
  blocks (:mod:`~rnnlab.course.answer_converge` their convergence bullet and caveat);
  :mod:`~rnnlab.course.guide` the instructor guide; :mod:`~rnnlab.course.status`
  execution status; :mod:`~rnnlab.course.student` student copies; :mod:`~rnnlab.course.colab`
  the Colab bootstrap; :mod:`~rnnlab.course.sphinxext` the Sphinx extension.

The packages ``params``, ``stats``, ``analysis`` and ``exercises`` export their parts' public
names, so notebooks keep writing ``params.matched_width`` or ``stats.summarize``.
"""

__version__ = "0.5.40"
