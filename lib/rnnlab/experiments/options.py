"""How a sweep runs: :class:`RunOptions`, the one bundle of run options that every runner takes
(:func:`rnnlab.experiments.sweep.run_sweep`, :func:`rnnlab.experiments.labs.run_lab`,
:func:`rnnlab.experiments.owntext.run_lab_on_text`, :func:`rnnlab.experiments.scale.run_scale`,
:func:`rnnlab.experiments.converge.run_converge`) and that the command line builds once from its
options (``--jobs``, ``--device``, ``--threads``, ``--scheduler``, ``--checkpoint-dir``,
``--max-runs``, ``--until``)."""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from pathlib import Path

DEVICE_CHOICES = "'auto', 'cpu', 'cuda[:i]' or 'mps'"


@dataclass(frozen=True)
class RunOptions:
    """Where and how much a sweep runs: never *what* it runs. No option here changes a design's
    runs, their run ids or what a finished run records about its training, so a sweep can be
    stopped with one set of options and resumed with another (more ``jobs``, a cluster).

    ``jobs`` (``--jobs``, an integer >= 1, default 1)
        how many runs train at once on this machine: ``1`` runs them one after the other in this
        process; more starts a pool of that many processes. Ignored with ``scheduler``.
    ``device`` (``--device``: ``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:i"`` or ``"mps"``)
        where each run trains; ``None`` reads ``$RNNLAB_DEVICE``, else ``"auto"`` (CUDA, then
        Apple's MPS, then the CPU). Whether the device exists is checked where the runs start
        (:func:`rnnlab.experiments.console.check_run_options`), not here: a cluster's workers may
        have a GPU that this machine lacks.
    ``threads`` (``--threads``, an integer >= 1)
        torch threads per run; ``None``: 1 per run with ``jobs > 1`` or a ``scheduler`` (the
        runs share the cores), else torch's default.
    ``scheduler`` (``--scheduler``, e.g. ``"tcp://head:8786"``)
        the address of a Dask scheduler: each run becomes a task on that cluster
        (:mod:`rnnlab.experiments.distributed`), and only this process writes the results file.
        ``None``: the runs train on this machine.
    ``checkpoint_dir`` (``--checkpoint-dir``, a folder)
        each run in progress saves its state there every few minutes, so a killed sweep resumes
        *inside* the run it was training. ``None``: no checkpoints for a plain sweep; the scale
        map, the convergence experiment and a lab on your own text use ``<out>.ckpt``.
    ``max_runs`` (``--max-runs``, an integer >= 1)
        stop after this many new runs have finished (``None``: run every missing run).
    ``stop_file`` (a path)
        drains the sweep: once this file exists no new run starts, the runs in progress finish and
        are recorded, and the sweep returns (see
        :func:`rnnlab.experiments.scale.default_drain_file`).
    ``until`` (``--until``, an aware datetime; :func:`rnnlab.experiments.deadline.parse_until`
    reads the option)
        start no run that is not expected to end by then (:func:`rnnlab.experiments.deadline.fits`
        on the design's estimate of each run), so the sweep returns with nothing in flight and
        fills its last hour with the shorter runs that fit. Runs in flight are not stopped.
        Only a sweep that can estimate its runs takes it (``run-converge``).

    A bad value is a ValueError naming the option and what it allows, e.g.
    ``--jobs must be an integer >= 1, got 0``. ``dataclasses.replace`` checks the new values
    again. How a runner shows its progress (``progress=`` bars, ``on_record=`` callbacks) is not a
    run option: it is an argument of the runner.
    """

    jobs: int = 1
    device: str | None = None
    threads: int | None = None
    scheduler: str | None = None
    checkpoint_dir: Path | None = None
    max_runs: int | None = None
    stop_file: Path | None = None
    until: _dt.datetime | None = None

    def __post_init__(self) -> None:
        _check_count("--jobs", self.jobs)
        if self.threads is not None:
            _check_count("--threads", self.threads)
        if self.max_runs is not None:
            _check_count("--max-runs", self.max_runs)
        if self.device is not None:
            check_device(self.device, "--device")
        if self.scheduler is not None and (
            not isinstance(self.scheduler, str) or not self.scheduler.strip()
        ):
            raise ValueError(
                "--scheduler must be a Dask scheduler's address such as tcp://head:8786, "
                f"got {self.scheduler!r}"
            )
        if self.until is not None and (
            not isinstance(self.until, _dt.datetime) or self.until.tzinfo is None
        ):
            raise ValueError(
                f"--until must be a date and time with a time zone, got {self.until!r}"
            )
        for name in ("checkpoint_dir", "stop_file"):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, (str, Path)) or not str(value):
                option = "--checkpoint-dir" if name == "checkpoint_dir" else "stop_file"
                raise ValueError(f"{option} must be a path, got {value!r}")
            object.__setattr__(self, name, Path(value))


def _check_count(option: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{option} must be an integer >= 1, got {value!r}")


def check_device(choice: str, option: str = "device") -> None:
    """Raise a ValueError naming ``option`` unless ``choice`` names a kind of device torch knows
    (``"auto"``, ``"cpu"``, ``"cuda"``, ``"cuda:i"``, ``"mps"``); whether this machine has it is
    :func:`rnnlab.core.device.select_device`'s question."""
    if choice == "auto":
        return
    import torch

    try:
        if not isinstance(choice, str):
            raise TypeError(choice)
        torch.device(choice)
    except (RuntimeError, TypeError):
        raise ValueError(f"{option} must be {DEVICE_CHOICES}, got {choice!r}") from None
