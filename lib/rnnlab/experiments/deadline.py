"""A sweep that ends by a given time: which runs still fit (``--until``).

A run in flight when its machine goes away keeps only the step it saved, in a folder
(``<out>.ckpt``) that is not committed; the next sitting on a fresh checkout starts that run
again from scratch. On 2026-12-05 that cost two 32,000-step runs at 30,130 and 25,753 steps.
``--until`` avoids it: the sweep starts a run only if the run is expected to end before the
given time, so a sitting can end with nothing in flight, and the cores its long runs would
leave idle take shorter runs that fit. Runs in flight are never stopped for the deadline.

* :func:`parse_until` reads the option: a clock time (``"08:30"``, the next time the clock
  shows it), an ISO date and time, or a duration from now (``"2h30m"``).
* :func:`saved_step` is where a run would start: its own checkpoint, else the fork another
  length of its family left, else step 0.
* :func:`fits` is the rule: now + ``MARGIN`` x the estimated seconds <= the deadline. A run
  whose time cannot be estimated does not start.

The estimate itself belongs to the design (e.g.
:func:`rnnlab.experiments.converge.timing.seconds_left`);
:func:`rnnlab.experiments.sweep.run_sweep` applies the rule to every run it could start.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from pathlib import Path

#: The estimate is a median of the newest runs, and a run shares the machine with whatever
#: else runs there (a test suite, a book build), so runs take longer than their estimate: a run
#: must fit with this factor on it. Replayed over the 100 committed reference runs of
#: 2026-12-05 (``benchmarks/bench_deadline_estimate.py``), 28 took longer than 1.2x their
#: estimate, 14 longer than 1.5x and 10 longer than 1.6x (the 90th percentile is 1.60).
MARGIN = 1.6

_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})$")


def parse_until(text: str, now: _dt.datetime | None = None) -> _dt.datetime:
    """The deadline ``text`` names, as an aware datetime (local time zone unless ``text`` gives
    one). ``now`` (default: the current time) is what a duration and a clock time count from.

    >>> now = _dt.datetime(2026, 12, 5, 6, 30, tzinfo=_dt.timezone.utc)
    >>> parse_until("2h15m", now).isoformat()
    '2026-12-05T08:45:00+00:00'
    >>> parse_until("08:00", now).isoformat()
    '2026-12-05T08:00:00+00:00'
    >>> parse_until("05:00", now).isoformat()  # already past today: tomorrow's
    '2026-12-06T05:00:00+00:00'
    >>> parse_until("2026-12-05T09:10+00:00", now).isoformat()
    '2026-12-05T09:10:00+00:00'
    """
    now = now if now is not None else _dt.datetime.now().astimezone()
    raw = text.strip() if isinstance(text, str) else ""
    d = _DURATION.match(raw)
    if raw and d and any(d.groups()):
        h, m, s = (int(x or 0) for x in d.groups())
        return now + _dt.timedelta(hours=h, minutes=m, seconds=s)
    c = _CLOCK.match(raw)
    if c and int(c[1]) < 24 and int(c[2]) < 60:
        at = now.replace(hour=int(c[1]), minute=int(c[2]), second=0, microsecond=0)
        return at if at > now else at + _dt.timedelta(days=1)
    try:
        at = _dt.datetime.fromisoformat(raw) if "T" in raw or " " in raw else None
    except ValueError:
        at = None
    if at is None:
        raise ValueError(
            "--until must be a clock time such as 08:30, an ISO date and time such as "
            f"2026-12-05T08:30, or a duration such as 2h30m; got {text!r}"
        )
    if at.tzinfo is None:
        at = at.replace(tzinfo=now.tzinfo)
    if at <= now:
        raise ValueError(
            f"--until must be in the future (now {now.isoformat(timespec='minutes')}); got {text!r}"
        )
    return at


def saved_step(checkpoint_dir: str | Path | None, run: str, fork: Path | None = None) -> int:
    """The step the run ``run`` (its run id) would start from in ``checkpoint_dir``: the step
    of its own checkpoint ``<run>.pt``, else that of ``fork`` (the fork a sibling of its
    family left for it, :func:`rnnlab.experiments.experiment.fork_path`), else 0. A file that
    cannot be read counts as 0: the run would start again (``load_checkpoint`` moves it
    aside)."""
    if checkpoint_dir is None:
        return 0
    from rnnlab.core.checkpoint import saved_progress

    for path in (Path(checkpoint_dir) / f"{run}.pt", fork):
        if path is not None and path.exists():
            saved = saved_progress(path)
            return saved[0] if saved is not None else 0
    return 0


def fits(seconds: float | None, now: float, until: float, margin: float = MARGIN) -> bool:
    """Whether a run estimated at ``seconds`` (wall time), started at ``now`` (epoch
    seconds), ends by ``until`` with ``margin`` on its estimate. ``None`` or NaN: unknown,
    so no.

    >>> fits(600, now=0, until=1000), fits(600, now=0, until=900), fits(float("nan"), 0, 1e9)
    (True, False, False)
    """
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return False
    return now + margin * seconds <= until
