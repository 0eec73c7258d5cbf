"""Sweeps: experiments as data, results on disk with provenance, and resume.

A lab's sweep is a list of :class:`Experiment` (task × options × budget × depth) run over seeds.
Each experiment is run in two phases, both recorded:

1. **tune**: one run per learning rate in the grid and tuning seed (:data:`TUNE_SEEDS`, never
   reported as results); the rate with the best *mean validation* score over the tuning seeds
   wins. The grid belongs to the *cell* (the experiment without its depth), so every depth gets
   the same trials. If any depth's best rate lies at an edge of the grid, the grid grows by one
   log-step in that direction (up to the experiment's ``lr_limits``, the declared cap) and the new
   rates are tuned too: a chosen rate is interior, or at the cap, where it is recorded as such
   (:func:`tuning_report`).
2. **eval**: one run per reporting seed at the chosen rate. Only these enter the lab's tables.

Each run's data come from ``data_seed + seed`` (:func:`data_seed_for`): every seed draws its own
train, val and test sample, and the two depths of one seed share it (a paired design).

Every finished run is one JSON line (a :class:`dict`, see
:func:`rnnlab.experiments.unit.make_record`) appended to a JSON Lines file by
:class:`rnnlab.experiments.store.ResultsStore`: one ``fsync``-ed line per run under an exclusive
lock (``<out>.lock``), so several processes may share one file and a killed sweep loses at most
the runs in progress; rerunning the same command skips every run whose ``run_id`` is already in
the file (:mod:`rnnlab.experiments.store` says how torn and corrupt lines are handled).

A run that raises does not end the sweep: it is recorded in ``<out>.failed`` (never read as a
result), the other runs go on, and a rerun retries it. Runs execute in this process
(``jobs=1``), in a pool of ``jobs`` processes, or as tasks on a Dask cluster
(``scheduler="tcp://host:8786"``): the executors of :mod:`rnnlab.experiments.runner`; in every
case only the submitting process writes the results file.

Where the parts live: :mod:`rnnlab.experiments.experiment` (experiments, run ids),
:mod:`rnnlab.experiments.unit` (one run), :mod:`rnnlab.experiments.tuning` (learning-rate
tuning), :mod:`rnnlab.experiments.runner` (executors), :mod:`rnnlab.experiments.console`
(the console runner of the CLI); here: the :class:`SweepSpec` and the sweep loop.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rnnlab.experiments import runner
from rnnlab.experiments.deadline import fits
from rnnlab.experiments.experiment import (
    FAMILY_LABEL,
    TUNE_SEEDS,
    Experiment,
    family_forks,
    fork_path,
    run_id,
)
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.store import ResultsFileError, ResultsStore, eval_records, failure_record
from rnnlab.experiments.tuning import cell_grid, cells_of, choose_lr
from rnnlab.experiments.unit import run_unit


@dataclass(frozen=True)
class SweepSpec:
    """A lab's sweep in one profile: its experiments and its reporting seeds.

    ``lr_from`` (optional) transfers tuned learning rates: pairs ``(key, source_key)`` of
    experiment keys, both in ``experiments``. Experiment ``key`` is then not tuned; its reporting
    runs use the rate chosen for ``source_key`` (by its own cell's tuning) and start once that
    tuning is complete. A cell (the experiment without its depth) is transferred whole: all of
    its depths, each from a source in one tuned cell. Used by :mod:`rnnlab.experiments.scale`,
    which tunes at
    the shortest training length and reuses the rate at the longer ones.
    """

    lab: str
    profile: str
    experiments: tuple[Experiment, ...]
    seeds: tuple[int, ...]
    lr_from: tuple[tuple[str, str], ...] = ()

    def __post_init__(self) -> None:
        if not self.lr_from:
            return
        by_key = {e.key: e for e in self.experiments}
        sources = dict(self.lr_from)
        if len(sources) != len(self.lr_from):
            raise ValueError("lr_from names an experiment twice")
        for key, src in self.lr_from:
            if key not in by_key or src not in by_key:
                missing = key if key not in by_key else src
                raise ValueError(f"lr_from names experiment {missing!r}, which is not in the sweep")
            if src in sources:
                raise ValueError(f"lr_from: source {src!r} takes its own rate from another one")
            if len(by_key[src].lr_grid) < 2:
                raise ValueError(f"lr_from: source {src!r} has a one-rate grid (nothing is tuned)")
        for cell in cells_of(self.experiments).values():
            moved = [e.key in sources for e in cell]
            if any(moved) and not all(moved):
                raise ValueError(
                    "lr_from must transfer a whole cell (every depth of it) or none of it; "
                    f"cell of {cell[0].key!r} is partly transferred"
                )
            if all(moved) and len({by_key[sources[e.key]].cell_key for e in cell}) != 1:
                raise ValueError(
                    f"lr_from: the depths of cell of {cell[0].key!r} take their rates from "
                    "different cells"
                )

    def source(self, experiment: Experiment) -> Experiment | None:
        """The experiment whose tuned rate ``experiment`` uses (``None``: it is tuned itself)."""
        src = dict(self.lr_from).get(experiment.key)
        if src is None:
            return None
        return next(e for e in self.experiments if e.key == src)

    def n_runs(self) -> int:
        """Runs of the initial design (grid extensions, decided by the data, add more)."""
        moved = dict(self.lr_from)
        tune = sum(
            len(e.lr_grid) * len(TUNE_SEEDS)
            for e in self.experiments
            if len(e.lr_grid) > 1 and e.key not in moved
        )
        return tune + len(self.experiments) * len(self.seeds)

    def planned_runs(self, records: Sequence[dict]) -> int:
        """Runs of the design as the data has grown it so far: every tuned cell's current grid
        (with the extensions that the finished tuning runs in ``records`` have triggered) at
        each tuning seed, and every experiment at each reporting seed. With no records this is
        :meth:`n_runs`; later extensions, decided by the data, may still add runs."""
        tune = 0
        for cell in cells_of(self.experiments).values():
            if self.source(cell[0]) is not None:
                continue
            grid, _ = cell_grid(cell, records)
            if len(grid) > 1:
                tune += len(grid) * len(TUNE_SEEDS) * len(cell)
        return tune + len(self.experiments) * len(self.seeds)

    def reporting_progress(self, records: Iterable[dict]) -> tuple[int, int]:
        """``(present, expected)``: how many of the design's reporting runs (every experiment
        at every reporting seed) ``records`` holds. Tuning runs and grid extensions do not
        count, and neither do runs of experiments outside the design."""
        wanted = {(e.key, s) for e in self.experiments for s in self.seeds}
        have = {(r.get("experiment_key"), r.get("seed")) for r in eval_records(records)}
        return len(wanted & have), len(wanted)

    def is_complete(self, records: Iterable[dict]) -> bool:
        """Whether ``records`` holds every reporting run of the design: the rule that decides
        whether a lab's verdicts are final or provisional."""
        present, expected = self.reporting_progress(records)
        return present == expected


def shard(experiments: Sequence[Experiment], index: int, count: int) -> list[Experiment]:
    """Experiments ``index, index + count, ...`` (0-based ``index``), for ``--shard i/n``."""
    if not (isinstance(count, int) and count >= 1):
        raise ValueError(f"shard count must be an integer >= 1, got {count!r}")
    if not (isinstance(index, int) and 0 <= index < count):
        raise ValueError(f"shard index must be in [0, {count - 1}], got {index!r}")
    return [e for i, e in enumerate(experiments) if i % count == index]


def pending_units(
    spec: SweepSpec, records: Sequence[dict]
) -> list[tuple[Experiment, str, int, float]]:
    """Runs that can start now, in design order: missing tuning runs of each cell's current grid,
    and evaluation runs of experiments whose cell is tuned (or, for a transferred cell, whose
    source cell is tuned; see :attr:`SweepSpec.lr_from`)."""
    done = {r["run_id"] for r in records}
    todo = []
    cells = cells_of(spec.experiments)
    for cell in cells.values():
        if spec.lr_from and spec.source(cell[0]) is not None:  # a transferred rate
            for exp in cell:
                src = spec.source(exp)
                lr = choose_lr(src, records, cells[src.cell_key])
                if lr is None:  # the source's tuning is not complete yet
                    continue
                for seed in spec.seeds:
                    if run_id(exp, "eval", seed, lr) not in done:
                        todo.append((exp, "eval", seed, lr))
            continue
        grid, complete = cell_grid(cell, records)
        if len(grid) > 1 and not complete:
            for exp in cell:
                for lr in grid:
                    for s in TUNE_SEEDS:
                        if run_id(exp, "tune", s, lr) not in done:
                            todo.append((exp, "tune", s, float(lr)))
            continue
        for exp in cell:
            lr = choose_lr(exp, records, cell)
            assert lr is not None
            for seed in spec.seeds:
                if run_id(exp, "eval", seed, lr) not in done:
                    todo.append((exp, "eval", seed, lr))
    return todo


def fork_first(
    units: Sequence[tuple[Experiment, str, int, float]],
    checkpoint_dir: str | Path | None,
    busy: set[str] = frozenset(),
) -> list[tuple[Experiment, str, int, float]]:
    """``units`` in the order to start them when runs of one family (lengths of one
    warmup-stable-decay schedule, :func:`rnnlab.experiments.experiment.family_forks`) share
    ``checkpoint_dir``: first the shorter lengths that can start from a fork a longer one left
    there (each costs its cool-down only), then the rest, and last the runs whose fork a run in
    flight (``busy``: run ids) has yet to write, or a longer sibling also in ``units`` (at the
    same rate) would write. Forks are not committed, so a fork used in the sitting that wrote
    it is compute saved that a later sitting would pay again: where the rule has already added
    a longer length, its run goes first and its forks make the shorter lengths a cool-down
    each, in minutes, instead of leaving a fork for the longer one that the sitting may end
    before using (run in either order within one sitting, the family costs the same steps). A
    run of the family's longest length that has a fork keeps its place: it still starts from
    the fork, but costs most of its length, so it does not jump ahead of the runs before it
    (until 2026-12-05 it did, which would have put an extension's tuning ahead of the runs of
    the first verdict). The order within each group is kept; without ``checkpoint_dir``
    nothing changes."""
    if checkpoint_dir is None:
        return list(units)
    waiting = {(run_id(*u), float(u[3])) for u in units}

    def rank(unit: tuple[Experiment, str, int, float]) -> int:
        exp, role, seed, lr = unit
        longest = max(exp.label(FAMILY_LABEL) or (exp.train.max_steps,))
        shorter = exp.train.max_steps < longest
        if shorter and fork_path(checkpoint_dir, exp, role, seed, lr).exists():
            return 0
        siblings = family_forks(exp)
        if any(run_id(other, role, seed, lr) in busy for _, other in siblings):
            return 2
        if any(
            other.train.max_steps > exp.train.max_steps
            and (run_id(other, role, seed, lr), float(lr)) in waiting
            for _, other in siblings
        ):
            return 2
        return 1

    return sorted(units, key=rank)


class SweepRecords(list):
    """What :func:`run_sweep` returns: a plain ``list`` of every run record in the results file
    (each ``run_id`` once), plus ``failures``: the runs that raised in this sweep, as
    :func:`rnnlab.experiments.store.failure_record` dicts (also written to ``<out>.failed``),
    and ``held_back``: the run ids that could have started when the sweep returned but were
    not expected to end by ``options.until`` (empty without a deadline)."""

    failures: list[dict]
    held_back: list[str]

    def __init__(
        self,
        records: Iterable[dict] = (),
        failures: Iterable[dict] = (),
        held_back: Iterable[str] = (),
    ) -> None:
        super().__init__(records)
        self.failures = list(failures)
        self.held_back = list(held_back)


def run_sweep(
    spec: SweepSpec,
    out: str | Path,
    *,
    options: RunOptions | None = None,
    progress: bool | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
    pending: Callable[[Sequence[dict]], list[tuple[Experiment, str, int, float]]] | None = None,
    estimate: Callable[[tuple[Experiment, str, int, float], Sequence[dict]], float | None]
    | None = None,
) -> SweepRecords:
    """Run every missing run of ``spec``, appending each finished one to ``out``.

    ``options`` (:class:`rnnlab.experiments.options.RunOptions`, default ``RunOptions()``) say
    where the runs execute:

    * ``jobs == 1`` (and no ``scheduler``): one after the other in this process, with a progress
      bar per run when ``progress`` is true;
    * ``jobs > 1``: a pool of that many processes (each with ``threads`` torch threads, default
      1);
    * ``scheduler="tcp://host:port"``: as Dask tasks on that cluster (``jobs`` is then ignored;
      ``threads`` defaults to 1 per task). See :mod:`rnnlab.experiments.distributed`.

    In every case records are written by this process only, as each run finishes, through
    :class:`rnnlab.experiments.store.ResultsStore` (locked, fsynced appends: other processes may
    write the
    same file). Pending runs are recomputed after each finished run, so evaluation runs start
    as soon as their experiment's tuning runs are in. Rerunning after an interruption resumes:
    finished runs are skipped, none is repeated.

    Each finished run is reported through ``on_record``. A run that raises is recorded in
    ``<out>.failed`` with its error and traceback (never as a result), reported through
    ``on_failure``, not retried within this sweep, and retried by the next one. The returned
    :class:`SweepRecords` lists every record of ``out`` and, in ``.failures``, this sweep's
    failures. ``options.max_runs`` stops after that many new runs (used by the tests to simulate
    an interruption). ``options.checkpoint_dir`` (e.g. ``f"{out}.ckpt"``) makes each run save
    checkpoints there every few minutes, so a killed sweep also resumes *inside* the run in
    progress.

    ``options.stop_file`` drains the sweep: once that file exists, no new run starts, the runs in
    progress finish and are recorded, and the sweep returns (the file is left for the caller to
    remove). Use it to end a sitting without throwing away the compute of the runs in flight.

    ``pending(records)`` (default :func:`pending_units` of ``spec``) lists the runs that can
    start now, in order of priority; a design run in stages passes its own, across its stages
    (:func:`rnnlab.experiments.converge.pending_runs`), and ``spec`` then only names the lab
    and profile.

    ``options.until`` ends the sweep by a time: a run starts only if ``estimate(unit, records)``
    (its expected wall seconds from now on, e.g.
    :func:`rnnlab.experiments.converge.timing.seconds_left`) says it ends by then
    (:func:`rnnlab.experiments.deadline.fits`); the runs that do not fit are passed over for
    later ones that do, and the sweep returns when none is in flight (``.held_back`` lists the
    ones left). A deadline without ``estimate`` is a ValueError.
    """
    if options is not None and options.until is not None and estimate is None:
        raise ValueError(
            "--until needs a sweep that estimates how long each run takes (run-converge)"
        )
    store = ResultsStore(out)
    out = store.path
    records = store.read()
    for i, r in enumerate(records, start=1):
        if r["lab"] != spec.lab or r["profile"] != spec.profile:
            raise ResultsFileError(
                f"{out}:{i}: holds a run of lab {r['lab']!r} profile {r['profile']!r}, "
                f"but this sweep is lab {spec.lab!r} profile {spec.profile!r}; use another --out"
            )
    options = options if options is not None else RunOptions()
    threads = options.threads or (1 if options.jobs > 1 or options.scheduler else None)
    new = 0
    failed: dict[str, dict] = {}

    def accept(rec: dict) -> None:
        nonlocal new, records
        if store.append(rec):
            records.append(rec)
        else:  # another process wrote this run first: its copy is the one on disk
            records = store.read()
        new += 1
        if on_record:
            on_record(rec)

    def fail(unit: tuple, exc: BaseException) -> None:
        exp, role, seed, lr = unit
        rec = failure_record(
            run_id=run_id(exp, role, seed, lr),
            lab=spec.lab,
            profile=spec.profile,
            role=role,
            seed=seed,
            lr=lr,
            experiment_key=exp.key,
            error=exc,
            traceback_text="".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        )
        store.record_failure(rec)
        failed[rec["run_id"]] = rec
        if on_failure:
            on_failure(rec)

    def budget_left() -> bool:
        if options.stop_file is not None and options.stop_file.exists():
            return False
        return options.max_runs is None or new < options.max_runs

    def todo() -> list[tuple[Experiment, str, int, float]]:
        units = pending(records) if pending is not None else pending_units(spec, records)
        return [u for u in units if run_id(*u) not in failed]

    until = options.until.timestamp() if options.until is not None else None
    held: list[str] = []  # the runs the deadline kept back when last looked at

    def fits_deadline(unit: tuple[Experiment, str, int, float]) -> bool:
        if until is None:
            return True
        if fits(estimate(unit, records), time.time(), until):
            return True
        held.append(run_id(*unit))
        return False

    def finish() -> SweepRecords:
        store.prune_failures()
        return SweepRecords(records, failed.values(), held)

    kwargs = dict(
        lab=spec.lab,
        profile=spec.profile,
        device=options.device,
        threads=threads,
        checkpoint_dir=options.checkpoint_dir,
    )
    with runner.executor(run_unit, kwargs, options, out=out, progress=progress) as ex:
        # Keep up to ``ex.slots`` runs in flight (``None``: every pending run); record each as
        # it completes, then look again for runs that can start (tuning -> evaluation).
        running: dict[Any, tuple] = {}
        try:
            while True:
                held.clear()
                if budget_left():
                    busy = {run_id(*u) for u in running.values()}
                    for unit in fork_first(todo(), options.checkpoint_dir, busy):
                        if ex.slots is not None and len(running) >= ex.slots:
                            break
                        if run_id(*unit) not in busy and fits_deadline(unit):
                            running[ex.submit(unit)] = unit
                if not running:
                    break
                for fut in ex.wait_first(list(running)):
                    unit = running.pop(fut)
                    try:
                        rec = fut.result()
                    except Exception as exc:
                        ex.check_lost(exc)
                        fail(unit, exc)
                    else:
                        accept(rec)  # a finished run is never thrown away
        except KeyboardInterrupt:  # Ctrl-C, kill: stop the runs in flight (they save their step)
            stop = getattr(ex, "stop", None)
            if stop is not None:
                stop()
            for fut in running:  # a run that finished as the sweep stopped is still recorded
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    accept(fut.result())
            raise
    return finish()
