"""Running the experiment: the map's sweep (:func:`run_scale`) and the transfer control
(:func:`run_transfer_control`), resumable, into their results files."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from rnnlab.experiments.scale.files import default_checkpoint_dir, default_drain_file, default_out
from rnnlab.experiments.scale.grid import sweep_spec
from rnnlab.experiments.scale.transfer import default_control_out, transfer_control_spec
from rnnlab.experiments.sweep import SweepSpec


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
