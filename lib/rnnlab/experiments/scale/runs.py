"""Running the experiment: the map's sweep (:func:`run_scale`) and the transfer control
(:func:`run_transfer_control`), resumable, into their results files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path

from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.scale.files import (
    DEFAULT_OPTIONS,
    default_checkpoint_dir,
    default_drain_file,
    default_out,
)
from rnnlab.experiments.scale.grid import sweep_spec
from rnnlab.experiments.scale.transfer import default_control_out, transfer_control_spec
from rnnlab.experiments.sweep import SweepRecords, SweepSpec


def run_scale(
    profile: str,
    out: str | Path | None = None,
    *,
    seeds: Sequence[int] | None = None,
    options: RunOptions | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
) -> SweepRecords:
    """Run (or resume) the scale sweep of ``profile`` into ``out`` (default :func:`default_out`)
    with ``options`` (default :data:`rnnlab.experiments.scale.files.DEFAULT_OPTIONS`: two
    processes) and per-run checkpoints in ``options.checkpoint_dir`` (default ``<out>.ckpt``).
    Returns :func:`rnnlab.experiments.sweep.run_sweep`'s records.

    Creating ``<out>.drain`` (:func:`default_drain_file`; ``options.stop_file`` when given) while
    it runs drains it: no new run starts, the runs in progress finish and are recorded, and the
    file is removed on return. A drain file left from before is removed at the start, so it never
    stops a new sweep."""
    target = Path(out) if out else default_out(profile)
    return _run(sweep_spec(profile, seeds), target, options, on_record, on_failure)


def run_transfer_control(
    profile: str,
    out: str | Path | None = None,
    *,
    results: str | Path | None = None,
    seeds: Sequence[int] | None = None,
    options: RunOptions | None = None,
    on_record: Callable[[dict], None] | None = None,
    on_failure: Callable[[dict], None] | None = None,
) -> SweepRecords:
    """Run (or resume) the transfer control of ``profile`` (:func:`transfer_control_spec`, its
    rates read from the scale results ``results``, default :func:`default_out`) into ``out``
    (default :func:`default_control_out`); options, checkpoints and the drain file as for
    :func:`run_scale`."""
    from rnnlab.experiments.store import load_results

    reference = load_results(Path(results) if results else default_out(profile))
    target = Path(out) if out else default_control_out(profile)
    spec = transfer_control_spec(profile, reference, seeds)
    return _run(spec, target, options, on_record, on_failure)


def _run(
    spec: SweepSpec,
    target: Path,
    options: RunOptions | None,
    on_record: Callable[[dict], None] | None,
    on_failure: Callable[[dict], None] | None,
) -> SweepRecords:
    from rnnlab.experiments.sweep import run_sweep

    options = options if options is not None else DEFAULT_OPTIONS
    options = dataclasses.replace(
        options,
        checkpoint_dir=options.checkpoint_dir or default_checkpoint_dir(target),
        stop_file=options.stop_file or default_drain_file(target),
    )
    options.stop_file.unlink(missing_ok=True)
    try:
        return run_sweep(spec, target, options=options, on_record=on_record, on_failure=on_failure)
    finally:
        options.stop_file.unlink(missing_ok=True)
