"""Results files that several processes can write at once, and that survive a kill.

A sweep's results live in one **JSON Lines** file (``runs/lab-c-cpu.jsonl``): one finished run per
line, each line a JSON object with at least the keys of :data:`REQUIRED_KEYS` (the full record is
built by :func:`rnnlab.experiments.unit.make_record`). Next to it live two helper files:

``<out>.lock``
    An exclusive lock (the ``filelock`` package: ``fcntl.flock`` on POSIX, ``msvcrt`` on Windows).
    Every write takes it, so any number of processes -- two ``--shard`` runs pointed at the same
    ``--out``, a ``--jobs 4`` pool, a ``merge`` -- can share one file without losing a line.
    Readers do not need it. The file itself is empty; deleting it between sweeps is harmless.
``<out>.failed``
    Runs that *raised* (JSON Lines too, one failure per line: ``run_id``, ``lab``, ``profile``,
    ``role``, ``seed``, ``lr``, ``experiment_key``, ``error``, ``traceback``, ``failed_at``,
    ``host``). It is a separate file on purpose: a failure can never be read as a result by
    :func:`load_results`, nor counted by a lab's tables. Its name does not end in ``.jsonl`` so
    ``data/results/*.jsonl`` never picks it up. A rerun retries every missing run, so a failure
    that succeeds on the rerun is removed from this file (:meth:`ResultsStore.prune_failures`).

Writing (:meth:`ResultsStore.append`): under the lock, (1) repair a torn last line (see below),
(2) skip the record if its ``run_id`` is already in the file (two processes finished the same
run), (3) append the record as one line and ``fsync`` it. Appending, not rewriting, means a
writer killed with ``SIGKILL`` loses at most the run it was training: every line already on disk
stays there. An append returns only when every byte of its line is written and ``fsync``-ed; a
short write, a full disk (``ENOSPC``) or any other write error cuts the partial line off again
and raises :class:`ResultsWriteFailed`, so a run is never reported as recorded when it is not,
and the lines already recorded are never touched.

What a store writes to: ``path`` must be missing, empty, or a results file. Anything else -- a
notes file, a folder, a file whose first line is not a run record -- raises before a byte is
written, and the file is left as it was (a last line without newline is taken for a torn record
only when it looks like one, i.e. starts with ``{``).

Reading (:func:`load_results`): a missing file is ``[]``. A last line that is not valid JSON and
has no final newline is a **torn write** (a writer died in the middle of ``write``, or the machine
lost power): it is skipped with a :class:`TornLineWarning` naming the file and line, and the next
locked write truncates it. A bad line anywhere else -- or a complete last line ending in a newline
-- is corruption, not a torn write: :class:`ResultsFileError` names the file and line and nothing
is written. A ``run_id`` that appears twice is returned once (its first line).

Example::

    store = ResultsStore("runs/lab-c-cpu.jsonl")
    store.append(record)          # True: written; False: that run_id was already there
    records = store.read()        # every run, each run_id once
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import socket
import tempfile
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path

from filelock import FileLock

#: Keys every run record must have; a line without them is not a result.
REQUIRED_KEYS = ("run_id", "lab", "profile", "role", "seed", "metrics", "experiment")

#: Seconds to wait for another writer's lock before giving up (a write holds it for milliseconds).
LOCK_TIMEOUT_S = 120.0


class ResultsFileError(ValueError):
    """A results file holds a line that is not a valid run record (the message names file:line)."""


class ResultsFileUnwritable(OSError):
    """The results file (or its folder, or its lock) cannot be created or written."""


class ResultsWriteFailed(ResultsFileUnwritable):
    """An append could not write all of its bytes (disk full, I/O error); nothing of it is kept.

    Raised mid-sweep: the sweep stops, the runs already in the file stay, and rerunning the same
    command (after freeing space) resumes."""


class TornLineWarning(UserWarning):
    """The last line of a results file was cut short by a killed writer; it is being ignored."""


def lock_path(path: str | Path) -> Path:
    """``runs/x.jsonl`` -> ``runs/x.jsonl.lock``: the lock every writer of ``path`` takes."""
    path = _file_path(path)
    return path.with_name(path.name + ".lock")


def failed_path(path: str | Path) -> Path:
    """``runs/x.jsonl`` -> ``runs/x.jsonl.failed``: where runs that raised are recorded."""
    path = _file_path(path)
    return path.with_name(path.name + ".failed")


def _file_path(path: str | Path) -> Path:
    """``path`` as a :class:`Path`; raises :class:`ResultsFileUnwritable` when it names a folder
    (``--out .``, ``--out runs/``): a results file is a file."""
    path = Path(path)
    if not path.name or path.is_dir():
        raise ResultsFileUnwritable(
            f"cannot write results file {path}: it is a folder; give a file name such as "
            f"{Path(path) / 'results.jsonl'}"
        )
    return path


# ----------------------------------------------------------------------------- parsing


def _parse(path: Path, data: bytes, *, required: Sequence[str]) -> tuple[list[dict], int | None]:
    """Parse JSON Lines ``data``; return the records and the byte offset of a torn last line
    (``None`` when the file ends cleanly). Raises :class:`ResultsFileError` for corruption."""
    records: list[dict] = []
    torn_at: int | None = None
    lines = data.split(b"\n")
    offset = 0
    for lineno, raw in enumerate(lines, start=1):
        start = offset
        offset += len(raw) + 1
        is_tail = lineno == len(lines)  # the bytes after the last newline (usually empty)
        if not raw.strip(b" \t\r\x00"):
            if is_tail and raw:  # e.g. NUL bytes left by a crash: torn
                torn_at = start
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            if is_tail and raw.lstrip(b" \t\r\x00").startswith(b"{"):  # a record cut short
                warnings.warn(
                    f"{path}:{lineno}: the last line is cut short (a writer was killed "
                    "mid-write?); ignoring it -- the next write to this file removes it.",
                    TornLineWarning,
                    stacklevel=4,
                )
                torn_at = start
                continue
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            if not records:  # the very first line: this is some other file, not ours
                raise _not_results_file(path, f"line {lineno} is not JSON ({reason})") from None
            raise ResultsFileError(
                f"{path}:{lineno}: not valid JSON ({reason}); the file is corrupt. "
                "Fix or delete that line; nothing was overwritten."
            ) from None
        if not isinstance(rec, dict) or any(k not in rec for k in required):
            if not records:
                raise _not_results_file(path, f"line {lineno} is not a run record")
            missing = [k for k in required if not isinstance(rec, dict) or k not in rec]
            raise ResultsFileError(
                f"{path}:{lineno}: not a run record (missing {missing}); nothing was overwritten."
            )
        records.append(rec)
    return records, torn_at


def _not_results_file(path: Path, why: str) -> ResultsFileError:
    return ResultsFileError(
        f"{path} is not a results file ({why}); a results file must be missing, empty or JSON "
        "Lines run records: choose another --out. The file was left unchanged."
    )


def _unique(records: Iterable[dict]) -> list[dict]:
    """Each ``run_id`` once, first occurrence first, order kept."""
    seen: set[str] = set()
    out = []
    for r in records:
        if r["run_id"] not in seen:
            seen.add(r["run_id"])
            out.append(r)
    return out


def load_results(path: str | Path) -> list[dict]:
    """Read a results file: every run record, each ``run_id`` once; a missing file is ``[]``.

    Takes no lock (so it works on read-only folders, e.g. a checkout's ``data/results/``). A torn
    last line is skipped with a :class:`TornLineWarning`; any other bad line raises
    :class:`ResultsFileError` naming ``file:line``.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    records, _ = _parse(path, data, required=REQUIRED_KEYS)
    return _unique(records)


def eval_records(records: Iterable[dict]) -> list[dict]:
    """Only the reporting runs (role ``eval``), the ones a lab's tables use."""
    return [r for r in records if r.get("role") == "eval"]


def write_results_atomic(path: str | Path, records: Sequence[dict]) -> None:
    """Replace ``path`` with exactly ``records`` (JSON Lines), atomically, under the file's lock.

    For whole-file rewrites such as ``python -m rnnlab merge``: a temporary file in the same
    folder is written, ``fsync``-ed and renamed over ``path``, so readers see the old or the new
    file, never a mix. Holding ``<path>.lock`` means no concurrent :meth:`ResultsStore.append`
    writes into the file being replaced.
    """
    path = Path(path)
    _ensure_parent(path)
    with _lock(path):
        _write_atomic(path, records)


class MergeConflict(ValueError):
    """Two files hold the same ``run_id`` with different metrics (the message names both)."""


def merge_results(
    out: str | Path, sources: Sequence[str | Path], *, prefer: str | None = None
) -> list[dict]:
    """Merge the results files ``sources`` into ``out`` (which may already hold runs); returns
    every record now in ``out``.

    The whole read-modify-write happens under ``out``'s lock, so a sweep appending to ``out``
    meanwhile loses nothing: its appends wait, then land in the merged file. A ``run_id`` found
    in two places (``out`` first, then ``sources`` in order) with the same metrics is kept once;
    with different metrics it is a :class:`MergeConflict` naming both files and nothing is
    written, unless ``prefer`` is ``"first"`` (the earliest copy wins) or ``"last"`` (the latest
    wins). ``out`` must be missing, empty or a results file.
    """
    if prefer not in (None, "first", "last"):
        raise ValueError(f"prefer must be None, 'first' or 'last', got {prefer!r}")
    out = Path(out)
    _ensure_parent(out)
    inputs = [(Path(src), load_results(src)) for src in sources]
    with _lock(out):
        merged: dict[str, tuple[Path, dict]] = {}
        for path, records in [(out, load_results(out)), *inputs]:
            for rec in records:
                rid = rec["run_id"]
                if rid not in merged:
                    merged[rid] = (path, rec)
                elif rec.get("metrics") != merged[rid][1].get("metrics"):
                    if prefer is None:
                        raise MergeConflict(
                            f"run {rid} has different metrics in {merged[rid][0]} and {path}; "
                            "pass --prefer first or --prefer last to choose; nothing was written"
                        )
                    if prefer == "last":
                        merged[rid] = (path, rec)
        records = [rec for _, rec in merged.values()]
        _write_atomic(out, records)
    return records


def _write_atomic(path: Path, records: Sequence[dict]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for rec in records:
                fh.write(json.dumps(rec, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes the file private; results are meant to be shared
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise ResultsWriteFailed(
                f"cannot write {path}: {exc.strerror or exc}; the file was left as it was"
            ) from None
        raise


def _ensure_parent(path: Path) -> None:
    _file_path(path)
    for folder in [path.parent, *path.parent.parents]:
        if folder.exists():
            if not folder.is_dir():
                raise ResultsFileUnwritable(
                    f"cannot write results file {path}: {folder} is a file, not a folder"
                )
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ResultsFileUnwritable(
            f"cannot create the folder of results file {path}: {exc.strerror or exc}"
        ) from None


def _lock(path: Path) -> FileLock:
    """The exclusive lock of results file ``path`` (``<path>.lock``).

    The lock file is opened once here first: ``FileLock`` treats a lock file it cannot create
    (a read-only folder, ``/proc``) as "held by someone else" and would wait for the timeout,
    where the user needs to hear at once that the location is not writable."""
    lp = lock_path(path)
    try:
        os.close(os.open(lp, os.O_RDWR | os.O_CREAT, 0o644))
    except OSError as exc:
        raise ResultsFileUnwritable(
            f"cannot write results file {path}: cannot create its lock file {lp.name} "
            f"({exc.strerror or exc})"
        ) from None
    return FileLock(str(lp), timeout=LOCK_TIMEOUT_S)


def _write_all(fd: int, data: bytes, offset: int) -> None:
    """``os.pwrite`` every byte of ``data`` at ``offset``, looping over short writes (a disk
    that fills up mid-write returns fewer bytes, then raises ``ENOSPC``)."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        if n <= 0:  # no progress and no error: treat it as a full disk rather than spin
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        view, offset = view[n:], offset + n


def _append_line(path: Path, line: bytes, *, run_id: str | None) -> bool:
    """With the lock held: append ``line`` to ``path`` and ``fsync`` it; raises
    :class:`ResultsWriteFailed` (with the partial line cut off again) unless every byte is
    written.

    ``run_id`` given: ``path`` is a results file; a torn last line is cut off first, and nothing
    is written (``False``) when a record with that ``run_id`` is already there. ``run_id``
    ``None``: a failures file, whose unfinished last line (no newline) is simply cut off.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        data = os.pread(fd, size, 0) if size else b""
        end = size
        if run_id is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", TornLineWarning)  # repaired right here
                records, torn_at = _parse(path, data, required=REQUIRED_KEYS)
            if any(r["run_id"] == run_id for r in records):
                return False
            if torn_at is not None:
                end = torn_at
            elif data and not data.endswith(b"\n"):  # a complete last record without newline
                line = b"\n" + line
        elif data and not data.endswith(b"\n"):
            end = data.rfind(b"\n") + 1
        try:
            if end != size:
                os.ftruncate(fd, end)
            _write_all(fd, line, end)
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):  # leave the file as it was before this append
                os.ftruncate(fd, end)
                os.fsync(fd)
            raise ResultsWriteFailed(
                f"cannot write to {path}: {exc.strerror or exc} (a full disk?); this run was not "
                "recorded, the runs already in the file are intact. Free space or choose another "
                "--out, then rerun the same command to resume."
            ) from None
        return True
    finally:
        os.close(fd)


# ----------------------------------------------------------------------------- the store


class ResultsStore:
    """One results file plus its lock and failures file; safe to share between processes.

    ``path`` is the JSON Lines results file. Nothing is created until the first write. See the
    module docstring for the format and the guarantees.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.lock_path = lock_path(self.path)
        self.failed_path = failed_path(self.path)

    def __repr__(self) -> str:
        return f"ResultsStore({str(self.path)!r})"

    def check_writable(self) -> None:
        """Raise :class:`ResultsFileUnwritable` (one clear sentence) unless this process can
        create or append to the results file and its lock, and :class:`ResultsFileError` when
        the file exists but is not a results file (it is then left untouched). Writes nothing to
        the results file, and leaves none behind where there was none: a sweep refused later
        (say, by an unreachable scheduler) leaves no empty results file."""
        _ensure_parent(self.path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TornLineWarning)  # the first append repairs it
            load_results(self.path)
        try:
            with _lock(self.path):
                existed = self.path.exists()
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
                os.close(fd)
                if not existed:  # appenders take the same lock, so nobody wrote in between
                    self.path.unlink()
        except ResultsFileUnwritable:
            raise
        except OSError as exc:
            raise ResultsFileUnwritable(
                f"cannot write results file {self.path}: {exc.strerror or exc}"
            ) from None

    def read(self) -> list[dict]:
        """Every run record, each ``run_id`` once (see :func:`load_results`)."""
        return load_results(self.path)

    def append(self, record: dict) -> bool:
        """Add one finished run; ``False`` (and nothing written) when its ``run_id`` is there."""
        _ensure_parent(self.path)
        line = (json.dumps(record, sort_keys=True) + "\n").encode("utf-8")
        with _lock(self.path):
            return _append_line(self.path, line, run_id=record["run_id"])

    # -- failures -----------------------------------------------------------------------

    def record_failure(self, failure: dict) -> None:
        """Append one failure (see :func:`failure_record`) to ``<out>.failed``."""
        _ensure_parent(self.path)
        line = (json.dumps(failure, sort_keys=True, default=str) + "\n").encode("utf-8")
        with _lock(self.path):
            _append_line(self.failed_path, line, run_id=None)

    def failures(self) -> list[dict]:
        """The failures on record whose run has not since succeeded, latest per ``run_id``."""
        if not self.failed_path.exists():
            return []
        done = {r["run_id"] for r in self.read()}
        latest: dict[str, dict] = {}
        for raw in self.failed_path.read_text(encoding="utf-8").splitlines():
            try:
                f = json.loads(raw)
            except json.JSONDecodeError:
                continue  # a torn failure line: the failure will show again on the rerun
            if isinstance(f, dict) and "run_id" in f and f["run_id"] not in done:
                latest[f["run_id"]] = f
        return list(latest.values())

    def prune_failures(self) -> int:
        """Drop failures whose run has since succeeded; delete the file when none is left.
        Returns how many unresolved failures remain."""
        if not self.failed_path.exists():
            return 0
        with _lock(self.path):
            left = self.failures()
            if left:
                _write_atomic(self.failed_path, left)
            else:
                self.failed_path.unlink(missing_ok=True)
        return len(left)


def failure_record(
    *,
    run_id: str,
    lab: str,
    profile: str,
    role: str,
    seed: int,
    lr: float,
    experiment_key: str,
    error: BaseException | str,
    traceback_text: str = "",
) -> dict:
    """One failed run for ``<out>.failed``: which run, what went wrong, when and where."""
    if isinstance(error, BaseException):
        error = f"{type(error).__name__}: {error}"
    return {
        "run_id": run_id,
        "lab": lab,
        "profile": profile,
        "role": role,
        "seed": seed,
        "lr": float(lr),
        "experiment_key": experiment_key,
        "error": error,
        "traceback": traceback_text,
        "failed_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
    }
