"""Scale a sweep out over many machines with Dask (``python -m rnnlab run LAB --scheduler ...``).

How it works: start a Dask scheduler on one machine and Dask workers on as many as you like
(``dask scheduler``; ``dask worker tcp://HOST:8786 --nworkers 4 --nthreads 1``), then run the
usual command with ``--scheduler tcp://HOST:8786`` (or set ``DASK_SCHEDULER_ADDRESS``). The
submitting process -- the one running ``python -m rnnlab run`` -- is the only writer of the
results file:

1. it reads ``--out`` and computes the runs that can start now
(:func:`rnnlab.experiments.sweep.pending_units`:
   missing tuning runs, and evaluation runs of experiments whose tuning is complete);
2. it submits each as one Dask task, the pure function :func:`rnnlab.experiments.unit.run_unit`
   (experiment, role, seed, learning rate -> result record), keyed ``rnnlab-<run_id>`` so two
   submitters sharing a scheduler compute a run once;
3. as each task completes it appends the record to ``--out`` (locked, fsynced: see
   :mod:`rnnlab.experiments.store`) and recomputes the pending runs, submitting evaluation runs as
   soon as
   their experiment's tuning runs are in -- exactly the process-pool path of
   :func:`rnnlab.experiments.sweep.run_sweep`, with Dask in place of ``ProcessPoolExecutor``.

A task that raises is recorded in ``<out>.failed`` like any failing run. If the scheduler goes
away, the sweep stops with :class:`SchedulerLost`; every run already written stays, and running
the same command against a new scheduler resumes (finished runs are skipped).

Workers need the same ``rnnlab`` (and torch) installed as the submitter; each task uses
``threads`` torch threads (default 1), so give each worker ``--nthreads`` equal to its cores.
On SLURM/PBS/SGE clusters, `dask-jobqueue <https://jobqueue.dask.org>`_ starts the workers as
batch jobs (``SLURMCluster(...).scale(jobs=10)``); pass its ``scheduler_address``.

Requires the optional extra ``pip install "rnnlab[dask]"`` (the ``distributed`` package).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

#: Seconds to wait for the scheduler when connecting, and to wait for it to come back when the
#: connection drops before the sweep gives up (override with $RNNLAB_DASK_TIMEOUT).
CONNECT_TIMEOUT_S = 20.0

#: Seconds to wait for a first worker to join a scheduler that has none before the sweep gives
#: up with :class:`SchedulerUnavailable` (override with $RNNLAB_DASK_WORKER_TIMEOUT); a line on
#: stderr says that it is waiting after :data:`NO_WORKER_NOTICE_S` seconds.
WORKER_TIMEOUT_S = 300.0
NO_WORKER_NOTICE_S = 3.0


class SchedulerUnavailable(RuntimeError):
    """The Dask scheduler cannot be reached (wrong address, not started, firewall)."""


class SchedulerLost(RuntimeError):
    """The Dask scheduler went away mid-sweep; the runs already written are kept."""


def scheduler_address(cli_value: str | None) -> str | None:
    """``--scheduler`` if given, else ``$DASK_SCHEDULER_ADDRESS``, else ``None`` (no Dask)."""
    return cli_value or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def _timeout() -> float:
    return float(os.environ.get("RNNLAB_DASK_TIMEOUT", CONNECT_TIMEOUT_S))


@contextlib.contextmanager
def dask_client(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` connected to ``address``, closed on exit."""
    try:
        import dask
        from distributed import Client
    except ImportError:
        raise SchedulerUnavailable(
            "--scheduler needs Dask: pip install 'rnnlab[dask]' (the 'distributed' package)"
        ) from None
    timeout = _timeout()
    with dask.config.set({"distributed.comm.timeouts.connect": f"{timeout}s"}):
        try:
            client = Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, asyncio.TimeoutError) as exc:
            raise SchedulerUnavailable(
                f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({exc})"
            ) from None
    restore = _silence_dask_logs()
    try:
        wait_for_workers(client, address)
        yield client
    except SchedulerLost:  # the process ends soon: keep Dask's reconnect tracebacks quiet
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        raise
    except BaseException:
        with contextlib.suppress(Exception):
            client.close(timeout=5)
        restore()
        raise
    with contextlib.suppress(Exception):
        client.close(timeout=5)
    restore()


def wait_for_workers(client: Any, address: str) -> None:
    """Return once the scheduler at ``address`` has a worker. Says so on stderr after
    :data:`NO_WORKER_NOTICE_S` seconds without one, and raises :class:`SchedulerUnavailable`
    after $RNNLAB_DASK_WORKER_TIMEOUT (default :data:`WORKER_TIMEOUT_S`) seconds: a sweep on a
    scheduler without workers would otherwise wait forever, silently."""
    limit = float(os.environ.get("RNNLAB_DASK_WORKER_TIMEOUT", WORKER_TIMEOUT_S))
    first = min(NO_WORKER_NOTICE_S, limit)
    try:
        client.wait_for_workers(1, timeout=first)
        return
    except (TimeoutError, asyncio.TimeoutError):
        pass
    if limit > first:
        print(
            f"no Dask worker is connected to {address}; waiting up to {limit - first:g} s more "
            f"(start one: dask worker {address})",
            file=sys.stderr,
            flush=True,
        )
        try:
            client.wait_for_workers(1, timeout=limit - first)
            return
        except (TimeoutError, asyncio.TimeoutError):
            pass
    raise SchedulerUnavailable(
        f"the Dask scheduler at {address} has no workers (waited {limit:g} s); start some with "
        f"'dask worker {address}', then rerun the same command"
    )


def _silence_dask_logs() -> Callable[[], None]:
    """Silence ``distributed``'s own logging while a sweep runs, and return the function that
    restores it. When the scheduler dies Dask logs dozens of lines of connection tracebacks
    (and goes on while the process exits) before :class:`SchedulerLost` says the one thing the
    user needs: the finished runs are saved; start a scheduler and rerun."""
    import logging

    names = [
        n
        for n in ["distributed", "tornado", "asyncio", *logging.root.manager.loggerDict]
        if n.split(".")[0] in ("distributed", "tornado", "asyncio")
    ]
    loggers = [logging.getLogger(n) for n in dict.fromkeys(names)]  # children set their own level
    saved = [(lg, lg.level, lg.disabled) for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
        lg.disabled = True

    def restore() -> None:
        for lg, level, disabled in saved:
            lg.setLevel(level)
            lg.disabled = disabled

    return restore


def wait_first_dask(client: Any, futures: list, address: str, out: str | Path) -> set:
    """The futures of ``futures`` that have finished, waiting until at least one has; raises
    :class:`SchedulerLost` if the scheduler goes away while waiting."""
    from distributed import wait

    with client.as_current():
        try:
            return set(wait(futures, return_when="FIRST_COMPLETED").done)
        except Exception as exc:
            raise_if_lost(exc, address, out)
            raise


def raise_if_lost(exc: BaseException, address: str, out: str | Path) -> None:
    """Turn a future cancelled because the scheduler went away into :class:`SchedulerLost`
    (a sweep-level problem), leaving genuine run errors to be recorded as failures."""
    cancelled = (concurrent.futures.CancelledError, asyncio.CancelledError)
    if isinstance(exc, cancelled) or type(exc).__name__ in {
        "FutureCancelledError",
        "FuturesCancelledError",
        "CommClosedError",
    }:
        raise SchedulerLost(
            f"lost the Dask scheduler at {address} ({type(exc).__name__}); the finished runs "
            f"are saved in {out}: start a scheduler and rerun the same command to resume"
        ) from None
