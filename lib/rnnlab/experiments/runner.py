"""Where the runs of a sweep execute, behind one seam.

An executor takes one run ``(experiment, role, seed, lr)`` at a time (:meth:`submit`) and hands
back a future; :func:`rnnlab.experiments.sweep.run_sweep` keeps up to ``slots`` in flight, waits for
the first to finish (:meth:`wait_first`) and records it. Three executors:

* :class:`Inline`: in this process, one after the other (``jobs=1``);
* :class:`ProcessPool`: a pool of ``jobs`` spawned processes that die with this one;
* :class:`Dask`: tasks on a Dask cluster (``scheduler="tcp://host:8786"``; the client helpers
  are in :mod:`rnnlab.experiments.distributed`).

Every executor runs the same pure function (:func:`rnnlab.experiments.unit.run_unit`, passed
in as ``run``) and never writes the results file: only the submitting process does.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Protocol

from rnnlab.experiments.experiment import run_id
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.unit import git_commit

Unit = tuple  # (experiment, role, seed, lr)


class Executor(Protocol):
    """The seam: ``slots`` runs in flight at most (``None``: no limit)."""

    slots: int | None

    def submit(self, unit: Unit) -> Any:
        """Start one run; returns a future whose ``result()`` is its record."""

    def wait_first(self, futures: list) -> set:
        """The futures of ``futures`` that have finished, waiting until one has."""

    def check_lost(self, exc: BaseException) -> None:
        """Raise a sweep-level error if ``exc`` means the executor itself is gone (not the
        run); return to have ``exc`` recorded as the run's failure."""


class Inline:
    """Runs in this process, one at a time, each as it is submitted."""

    slots = 1

    def __init__(self, run: Callable[..., dict], kwargs: dict, progress: bool | None) -> None:
        self.run, self.kwargs, self.progress = run, kwargs, progress

    def submit(self, unit: Unit) -> concurrent.futures.Future:
        exp, role, seed, lr = unit
        fut: concurrent.futures.Future = concurrent.futures.Future()
        try:
            rec = self.run(exp, role=role, seed=seed, lr=lr, progress=self.progress, **self.kwargs)
        except Exception as exc:  # any error of one run is that run's failure
            fut.set_exception(exc)
        else:
            fut.set_result(rec)
        return fut

    def wait_first(self, futures: list) -> set:
        return set(futures)

    def check_lost(self, exc: BaseException) -> None:
        return None


class ProcessPool:
    """A pool of ``jobs`` spawned processes; a pool broken by a dead worker is replaced."""

    def __init__(self, run: Callable[..., dict], kwargs: dict, jobs: int) -> None:
        self.run, self.kwargs, self.slots = run, kwargs, jobs
        self.pools: list[ProcessPoolExecutor] = []

    def _new_pool(self) -> ProcessPoolExecutor:
        import multiprocessing as mp

        self.pools.append(
            ProcessPoolExecutor(
                max_workers=self.slots,
                mp_context=mp.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(),),
            )
        )
        return self.pools[-1]

    def submit(self, unit: Unit) -> Any:
        exp, role, seed, lr = unit
        args = dict(role=role, seed=seed, lr=lr, progress=False, **self.kwargs)
        try:
            return self.pools[-1].submit(run_in_worker, self.run, exp, **args)
        except BrokenProcessPool:  # a worker died (its runs are recorded as failed): start afresh
            self.pools[-1].shutdown(wait=False, cancel_futures=True)
            return self._new_pool().submit(run_in_worker, self.run, exp, **args)

    def wait_first(self, futures: list) -> set:
        return wait(futures, return_when=FIRST_COMPLETED).done

    def check_lost(self, exc: BaseException) -> None:
        return None

    def interrupt_workers(self) -> None:
        """Send ``SIGINT`` to every live worker (Ctrl-C reaches them with the sweep's own, but
        ``kill -INT <sweep>`` reaches the sweep alone)."""
        import signal

        for pool in self.pools:
            workers = getattr(pool, "_processes", None) or {}  # pid -> Process (CPython's)
            for proc in list(workers.values()):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGINT)

    def stop(self) -> None:
        """Interrupt the workers and wait for them: each run in flight saves its step and
        stops, or, if it was finishing, hands back its record (the sweep still records it)."""
        self.interrupt_workers()
        for pool in self.pools:
            pool.shutdown(wait=True, cancel_futures=True)

    @contextlib.contextmanager
    def started(self) -> Iterator[ProcessPool]:
        # the workers start later, maybe after the checkout has changed: they record this commit
        saved_commit = os.environ.get("RNNLAB_GIT_COMMIT")
        os.environ["RNNLAB_GIT_COMMIT"] = git_commit()
        self._new_pool()
        try:
            yield self
        except KeyboardInterrupt:
            # the sweep stops recording: tell the workers to stop too (each saves the step it is
            # in, rnnlab.core.train), instead of waiting for runs whose records nobody would write
            self.interrupt_workers()
            raise
        finally:
            for pool in self.pools:
                pool.shutdown(wait=True, cancel_futures=True)
            if saved_commit is None:
                os.environ.pop("RNNLAB_GIT_COMMIT", None)
            else:
                os.environ["RNNLAB_GIT_COMMIT"] = saved_commit


class Dask:
    """Tasks on the Dask cluster whose scheduler is at ``address``; as many in flight as there
    are pending runs (the cluster queues them)."""

    slots = None

    def __init__(
        self, run: Callable[..., dict], kwargs: dict, client: Any, address: str, out: str | Path
    ) -> None:
        self.run, self.kwargs, self.client, self.address, self.out = (
            run,
            kwargs,
            client,
            address,
            out,
        )

    def submit(self, unit: Unit) -> Any:
        exp, role, seed, lr = unit
        return self.client.submit(
            self.run,
            exp,
            role=role,
            seed=seed,
            lr=lr,
            progress=False,
            key=f"rnnlab-{run_id(exp, role, seed, lr)}",
            pure=False,
            **self.kwargs,
        )

    def wait_first(self, futures: list) -> set:
        from rnnlab.experiments.distributed import wait_first_dask

        return wait_first_dask(self.client, futures, self.address, self.out)

    def check_lost(self, exc: BaseException) -> None:
        from rnnlab.experiments.distributed import raise_if_lost

        raise_if_lost(exc, self.address, self.out)


@contextlib.contextmanager
def executor(
    run: Callable[..., dict],
    kwargs: dict,
    options: RunOptions,
    *,
    out: str | Path,
    progress: bool | None = None,
) -> Iterator[Executor]:
    """The executor for ``options.jobs`` and ``options.scheduler`` (see the module docstring),
    started; it is shut down when the block ends. ``kwargs`` go to every call of ``run``;
    ``progress`` shows a bar per run (in this process only)."""
    if options.scheduler is not None:
        from rnnlab.experiments.distributed import dask_client

        with dask_client(options.scheduler) as client:
            yield Dask(run, kwargs, client, options.scheduler, out)
    elif options.jobs == 1:
        yield Inline(run, kwargs, progress)
    else:
        with ProcessPool(run, kwargs, options.jobs).started() as pool:
            yield pool


_WORKER = {"in_run": False, "stopping": False}


def _worker_interrupt(signum: int, frame: Any) -> None:
    """A pool worker's ``SIGINT``: in a run, the KeyboardInterrupt that stops it (training saves
    its step first, :mod:`rnnlab.core.train`); idle, only a note to start no further run. An idle
    worker waits in the pool's queue, where a KeyboardInterrupt would kill it with a traceback on
    the console; the pool's shutdown ends it cleanly instead."""
    if _WORKER["in_run"]:
        raise KeyboardInterrupt
    _WORKER["stopping"] = True


def run_in_worker(run: Callable[..., dict], exp: Any, **kwargs: Any) -> dict:
    """``run(exp, **kwargs)`` in a pool worker, interruptible (:func:`_worker_interrupt`); a
    worker interrupted while idle refuses the run it is handed next."""
    _WORKER["in_run"] = True  # first, so that a SIGINT from here on raises ...
    try:
        if _WORKER["stopping"]:  # ... and one that came before is seen here
            raise KeyboardInterrupt("the sweep is stopping")
        return run(exp, **kwargs)
    finally:
        _WORKER["in_run"] = False


def start_worker(parent_pid: int) -> None:
    """A pool worker's start: it dies with the sweep (:func:`die_with_parent`), and it takes
    ``SIGINT`` (:func:`_worker_interrupt`) even when the sweep was started in the background
    (``cmd &`` makes a shell ignore ``SIGINT`` in what it starts, and the workers would inherit
    that): the sweep's :meth:`ProcessPool.interrupt_workers` must reach them."""
    import signal

    signal.signal(signal.SIGINT, _worker_interrupt)
    die_with_parent(parent_pid)


class Terminated(KeyboardInterrupt):
    """The KeyboardInterrupt that ``SIGTERM`` raises once :func:`terminate_as_interrupt` is on;
    ``signum`` tells a command's exit status which signal stopped it (``128 + signum``)."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signum}")
        self.signum = signum


def terminate_as_interrupt() -> None:
    """From now on ``SIGTERM`` (``kill``, ``pkill``) stops this process as Ctrl-C does (a
    KeyboardInterrupt, :class:`Terminated`), so that a sweep stopped that way stops its workers,
    which save their step (:meth:`ProcessPool.interrupt_workers`), instead of dying at once and
    taking them with it. Only from the main thread; elsewhere it does nothing."""
    import signal
    import threading

    def interrupt(signum, frame) -> None:
        raise Terminated(signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def die_with_parent(parent_pid: int, poll_s: float = 1.0) -> None:
    """Make this pool worker exit when ``parent_pid`` (the sweep) dies, even by ``SIGKILL``.

    A ``ProcessPoolExecutor`` worker whose parent is killed would otherwise train on, orphaned
    (hundreds of MB each). On Linux the kernel sends the worker ``SIGKILL`` when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``); everywhere, a daemon thread checks every ``poll_s`` seconds
    that the parent is still ours and ends the process if not."""
    import signal
    import threading

    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass  # the watchdog below still applies
    if os.getppid() != parent_pid:  # the parent died before the line above
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="rnnlab-parent-watchdog", daemon=True).start()


def bench_step_seconds(bench: dict, device: str) -> dict[tuple[int, int], float]:
    """Seconds per training step of each (budget, depth) that ``bench`` (the JSON of
    ``benchmarks/bench_depth_cost.py``) measured on ``device``: a row's seconds per token times
    the benchmark's batch and sequence length. Empty when it holds no such row or no sizes."""
    size = bench.get("provenance", {}).get("sizes", {})
    if "batch" not in size or "seq_len" not in size:
        return {}
    return {
        (int(r["budget"]), int(r["num_layers"])): r["train_s_per_token"]
        * size["batch"]
        * size["seq_len"]
        for r in bench.get("rows", [])
        if str(r.get("device", "")).startswith(device)
    }


def jobs_that_fit(bench: dict, device: str, steps: int, window_s: float, most: int) -> int:
    """How many runs of ``steps`` training steps to start at once on one ``device`` so that each
    finishes within ``window_s`` seconds even if the device ran their steps one after another
    (the safe assumption before anyone has measured how runs share it), between 1 and ``most``.

    A step's time is the slowest one- or two-layer step of ``device`` in ``bench``
    (:func:`bench_step_seconds`), with a margin of half again for evaluation and start-up.
    ``scripts/gpu_session.sh`` sizes its processes with this. Raises ValueError when ``bench``
    holds no such row."""
    if steps < 1 or window_s < 0 or most < 1:
        raise ValueError(
            f"steps and most must be >= 1 and window_s >= 0, got {steps!r}, {most!r}, {window_s!r}"
        )
    shallow = [t for (_, depth), t in bench_step_seconds(bench, device).items() if depth <= 2]
    if not shallow:
        raise ValueError(f"bench holds no one- or two-layer row measured on {device!r}")
    return max(1, min(most, int(window_s / (1.5 * steps * max(shallow)))))


def jobs_from_packing(packing: dict, steps: int, window_s: float, most: int) -> int:
    """How many runs of ``steps`` training steps to start at once, from a measurement of how
    runs share the device (the JSON of ``benchmarks/bench_packing.py``): of the measured numbers
    of processes K (at most ``most``) whose slowest process would still finish a run within
    ``window_s`` seconds (with a margin of half again for evaluation and start-up, as in
    :func:`jobs_that_fit`), the one that trains the most steps per second in all. When no K
    fits, the one whose processes run fastest, so that as much as possible finishes.
    Raises ValueError when ``packing`` holds no row."""
    if steps < 1 or window_s < 0 or most < 1:
        raise ValueError(
            f"steps and most must be >= 1 and window_s >= 0, got {steps!r}, {most!r}, {window_s!r}"
        )
    rows = [r for r in packing.get("rows", []) if 1 <= int(r["jobs"]) <= most]
    if not rows:
        raise ValueError(f"packing holds no row of 1 to {most} processes")
    fits = [r for r in rows if 1.5 * steps / r["steps_per_s_slowest"] <= window_s]
    if fits:
        return int(max(fits, key=lambda r: (r["steps_per_s_total"], -r["jobs"]))["jobs"])
    return int(max(rows, key=lambda r: (r["steps_per_s_slowest"], -r["jobs"]))["jobs"])
