"""The console side of a sweep: progress lines, seed parsing, option checks, and
:func:`run_console`, the runner every command shares (``run``, ``run --text``, ``run-scale``,
``run-converge``)."""

from __future__ import annotations

import functools
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rnnlab.experiments import sweep
from rnnlab.experiments.options import RunOptions, check_device
from rnnlab.experiments.store import ResultsStore, failed_path, load_results
from rnnlab.experiments.sweep import SweepRecords, SweepSpec


def progress_line(rec: dict, done: int, total: int) -> str:
    """A one-line log of a finished run (for the CLI)."""
    m = rec["metrics"]
    return (
        f"[{done}/{total}] {rec['task']} budget={rec['budget']} L={rec['num_layers']} "
        f"d={rec['model']['hidden_size']} {rec['role']} seed={rec['seed']} lr={rec['lr']:g} "
        f"val={m['val']:.4f} test={m['test']:.4f} steps={m['steps']} "
        f"({rec['wall_time_s']:.1f}s)"
    )


def console_log(
    total: int, already: int = 0, recount: Callable[[], int] | None = None
) -> tuple[Callable[[dict], None], Callable[[dict], None]]:
    """``(on_record, on_failure)`` callbacks for a sweep run from the command line: a
    :func:`progress_line` per finished run, counted on from ``already``, and one ``FAILED`` line
    per failed run. A staged design (the convergence experiment) plans more runs as its stages
    are decided: once the count passes ``total``, ``recount()`` gives the new plan."""
    done, planned = [already], [total]

    def on_record(rec: dict) -> None:
        done[0] += 1
        if done[0] > planned[0] and recount is not None:
            planned[0] = max(recount(), done[0])
        print(progress_line(rec, done[0], planned[0]), flush=True)

    def on_failure(failure: dict) -> None:
        print(
            f"FAILED {failure['role']} seed={failure['seed']} lr={failure['lr']:g} "
            f"(run {failure['run_id']}): {failure['error']}",
            flush=True,
        )

    return on_record, on_failure


#: The largest seed ``--seeds`` accepts, and the most seeds a count may ask for.
MAX_SEED = 2**31 - 1
MAX_SEED_COUNT = 1000


def parse_seeds(text: str | None, default: tuple[int, ...]) -> tuple[int, ...]:
    """``--seeds``: ``"5"`` means seeds 0..4, ``"0,3,7"`` exactly those; ``None`` gives ``default``.

    A count must be in 1..:data:`MAX_SEED_COUNT` and every listed seed in 0..:data:`MAX_SEED`;
    anything else is a ValueError naming ``--seeds`` and the allowed range."""
    if text is None:
        return default
    try:
        if "," in text:
            seeds = tuple(int(s) for s in text.split(","))
        else:
            count = int(text)
            if not 1 <= count <= MAX_SEED_COUNT:
                raise ValueError(
                    f"--seeds as a count must be from 1 to {MAX_SEED_COUNT}, got {text!r}"
                )
            seeds = tuple(range(count))
    except ValueError as exc:
        if "--seeds" in str(exc):
            raise
        raise ValueError(
            f"--seeds must be a count like 5 or a list like 0,1,2, got {text!r}"
        ) from None
    if not seeds or any(not 0 <= s <= MAX_SEED for s in seeds):
        raise ValueError(f"--seeds must list seeds from 0 to {MAX_SEED}, got {text!r}")
    return seeds


def check_run_options(out: str | Path, options: RunOptions) -> None:
    """Refuse, before any training, what would make every run of a sweep fail here: an ``out``
    that is a folder, not writable, or not a results file
    (:meth:`ResultsStore.check_writable`), or a device (``options.device``, else
    ``$RNNLAB_DEVICE``) that is not a device of this machine. With a Dask ``scheduler`` the
    device is only parsed: the workers may have a GPU that this machine lacks. The options' own
    values are checked when they are made (:class:`RunOptions`). Raises ValueError or
    :class:`rnnlab.experiments.store.ResultsFileUnwritable`."""
    from rnnlab.core.device import select_device

    if options.scheduler is None:
        select_device(options.device)
    else:
        check_device(options.device or os.environ.get("RNNLAB_DEVICE") or "auto")
    ResultsStore(out).check_writable()


def run_console(
    out: str | Path,
    *,
    name: str,
    header: Callable[[int, int], str],
    planned_runs: Callable[[Sequence[dict]], int],
    run: Callable[..., SweepRecords],
    options: RunOptions,
) -> SweepRecords:
    """The console runner every command shares (``run``, ``run --text``, ``run-scale``,
    ``run-converge``): check the options (:func:`check_run_options`) before any training, print
    ``header(total_runs, already_done)`` (``total_runs`` is ``planned_runs`` of the records in
    ``out``), call ``run(out, options=options, on_record=..., on_failure=...)`` (e.g.
    :func:`rnnlab.experiments.sweep.run_sweep` of a spec, or a design's own runner such as
    :func:`rnnlab.experiments.scale.run_scale`) with a :func:`progress_line` per finished run and
    a ``FAILED`` line per failed run, then print one summary line, and one more naming
    ``<out>.failed`` if runs failed. Stopped (Ctrl-C, ``kill``), it prints how many runs are kept
    and how to resume, and lets the KeyboardInterrupt through. The caller turns ``.failures``
    into its exit status (non-zero when any run failed)."""
    from rnnlab.core.paths import shown_path

    check_run_options(out, options)
    done = load_results(out)
    total = planned_runs(done)
    print(header(total, len(done)), flush=True)
    log, log_failure = console_log(
        total, already=len(done), recount=lambda: planned_runs(load_results(out))
    )
    t0 = time.perf_counter()
    try:
        records = run(out, options=options, on_record=log, on_failure=log_failure)
    except KeyboardInterrupt:  # Ctrl-C, kill: what is kept, and how to go on
        print(
            f"{name}: stopped; {len(load_results(out))} runs in {shown_path(out)}; rerun the "
            "same command to resume (a run in flight that checkpoints resumes from the step it "
            "saved)",
            flush=True,
        )
        raise
    print(
        f"{name}: {len(records)} runs in {shown_path(out)} ({time.perf_counter() - t0:.0f} s)",
        flush=True,
    )
    if records.failures:
        print(
            f"{name}: {len(records.failures)} of {total} runs failed; their errors are in "
            f"{shown_path(failed_path(out))}; rerun the same command to retry them",
            flush=True,
        )
    return records


def run_spec_console(
    spec: SweepSpec,
    out: str | Path,
    *,
    header: Callable[[int, int], str],
    options: RunOptions | None = None,
    progress: bool | None = None,
) -> SweepRecords:
    """:func:`run_console` of one sweep spec: :func:`rnnlab.experiments.sweep.run_sweep` of
    ``spec`` with ``options`` (default ``RunOptions()``: one run at a time, in this process) and
    a progress bar per run when ``progress`` is true, named after its lab."""
    return run_console(
        out,
        name=spec.lab,
        header=header,
        planned_runs=spec.planned_runs,
        # run_sweep is looked up now, not at import: tests replace it
        run=functools.partial(sweep.run_sweep, spec, progress=progress),
        options=options if options is not None else RunOptions(),
    )


def print_flush(*args: Any) -> None:
    print(*args, flush=True, file=sys.stdout)
