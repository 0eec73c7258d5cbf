"""Character-level language models on text that ships with Python, or on a text file of your own."""

from __future__ import annotations

import copy
import hashlib
import os
import platform
import sysconfig
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from rnnlab.core.tasks.base import (
    TaskData,
    check_int,
    split_rng,
    split_sizes,
    to_tensors,
)

# --------------------------------------------------------------------------------------------
# 5-6. character language models
# --------------------------------------------------------------------------------------------

PYTHON_CORPUS_FILES: tuple[str, ...] = (
    "argparse.py",
    "bisect.py",
    "calendar.py",
    "cmd.py",
    "colorsys.py",
    "configparser.py",
    "contextlib.py",
    "copy.py",
    "csv.py",
    "dataclasses.py",
    "difflib.py",
    "fnmatch.py",
    "fractions.py",
    "functools.py",
    "gettext.py",
    "glob.py",
    "heapq.py",
    "ipaddress.py",
    "pprint.py",
    "queue.py",
    "shlex.py",
    "shutil.py",
    "statistics.py",
    "string.py",
    "tempfile.py",
    "textwrap.py",
    "threading.py",
    "timeit.py",
    "tokenize.py",
    "traceback.py",
)
"""Top-level standard-library modules that are single ``.py`` files in CPython 3.10 to 3.13."""

_SPLIT_FRACTIONS = (0.9, 0.95)  # train | val | test boundaries as fractions of the stream
_RARE = "<rare>"


@dataclass(frozen=True)
class _Corpus:
    ids: np.ndarray  # (num_chars,) int64, read-only
    vocab: list[str]  # id -> character; the last entry is the rare-symbol token
    info: dict


def stdlib_corpus_files() -> list[Path]:
    """The files of ``charlm-stdlib``: every ``*.py`` directly in the standard-library folder
    (``sysconfig.get_paths()["stdlib"]``) whose name does not start with ``__``, sorted by name.
    Files that are not valid UTF-8 are skipped when the corpus is read (none in CPython 3.11)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    return sorted(
        (p for p in stdlib.glob("*.py") if not p.name.startswith("__") and p.is_file()),
        key=lambda p: p.name,
    )


@dataclass(frozen=True)
class StdlibFile:
    """One file of :func:`stdlib_corpus_files`, read: its name, text, SHA-256 and size in bytes."""

    name: str
    text: str
    sha256: str
    size: int


STDLIB_TREE_SKIPPED_DIRS: tuple[str, ...] = (
    "test",
    "tests",
    "idle_test",
    "site-packages",
    "encodings",
    "pydoc_data",
    "__phello__",
)
"""Folders :func:`stdlib_tree_files` leaves out: test suites (``test``, ``tests``,
``idle_test``), installed third-party packages, and generated text (the ``encodings`` codec
tables, ``pydoc_data``'s help topics, the ``__phello__`` freeze fixture)."""


def stdlib_tree_files() -> list[Path]:
    """The files of ``charlm-stdlib-tree``: every ``*.py`` of the standard-library folder and its
    packages, sorted by path relative to that folder, except:

    * anything under a folder named in :data:`STDLIB_TREE_SKIPPED_DIRS` or ``config-*`` (the
      build's generated configuration);
    * top-level files whose name starts with ``__`` (as :func:`stdlib_corpus_files`).

    Its top level is :func:`stdlib_corpus_files`; package modules (``asyncio/events.py``,
    ``email/parser.py``, ...) add about 440 files. CPython 3.11 gives 605 files, 9.9M characters.
    """
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    kept = []
    for path in stdlib.rglob("*.py"):
        rel = path.relative_to(stdlib)
        folders = rel.parts[:-1]
        if any(f in STDLIB_TREE_SKIPPED_DIRS or f.startswith("config-") for f in folders):
            continue
        if not folders and path.name.startswith("__"):
            continue
        if path.is_file():
            kept.append(path)
    return sorted(kept, key=lambda p: p.relative_to(stdlib).as_posix())


def read_stdlib_files(tree: bool = False) -> tuple[list[StdlibFile], list[str]]:
    """The files of :func:`stdlib_corpus_files` (or, with ``tree=True``, of
    :func:`stdlib_tree_files`) that are valid UTF-8, in name order, and the names of those that
    are not (skipped). A file's name is its path relative to the standard-library folder, with
    ``/`` between parts (a top-level file's name is its file name). The stdlib corpora read them
    here: ``charlm-stdlib`` (one stream), ``charlm-stdlib-files`` and ``charlm-stdlib-tree``
    (:mod:`rnnlab.core.tasks.heldout`)."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files, skipped = [], []
    for path in stdlib_tree_files() if tree else stdlib_corpus_files():
        name = path.relative_to(stdlib).as_posix()
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            skipped.append(name)
            continue
        files.append(StdlibFile(name, text, hashlib.sha256(data).hexdigest(), len(data)))
    return files, skipped


def _read_stdlib() -> tuple[str, dict]:
    files, skipped = read_stdlib_files()
    digests = {f.name: f.sha256 for f in files}
    texts, size = [f.text for f in files], sum(f.size for f in files)
    listing = "".join(f"{name} {digest}\n" for name, digest in digests.items())
    return "".join(texts), {
        "source": "every single-file top-level CPython standard-library module (*.py directly in "
        "the stdlib folder, no __*.py), concatenated in name order",
        "stdlib_dir": sysconfig.get_paths()["stdlib"],
        "files": digests,
        "files_sha256": hashlib.sha256(listing.encode()).hexdigest(),
        "num_files": len(digests),
        "size_bytes": size,
        "skipped_not_utf8": skipped,
    }


def _read_corpus(name: str) -> tuple[str, dict]:
    if name == "charlm-stdlib":
        return _read_stdlib()
    if name == "charlm-english":
        from pydoc_data.topics import topics

        text = "".join(topics[key] for key in sorted(topics))
        return text, {
            "source": "pydoc_data.topics.topics, values concatenated in sorted-key order",
            "num_topics": len(topics),
        }
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    texts, digests = [], {}
    for filename in PYTHON_CORPUS_FILES:
        data = (stdlib / filename).read_bytes()
        digests[filename] = hashlib.sha256(data).hexdigest()
        texts.append(data.decode("utf-8"))
    return "".join(texts), {
        "source": "CPython standard-library modules, concatenated in the listed order",
        "stdlib_dir": str(stdlib),
        "files": digests,
    }


@lru_cache(maxsize=8)
def load_corpus(name: str, min_count: int) -> _Corpus:
    return _encode(*_read_corpus(name), min_count)


def _encode(text: str, info: dict, min_count: int) -> _Corpus:
    """Character ids of ``text``: characters seen at least ``min_count`` times in code-point
    order, then one rare-symbol id shared by all the others."""
    if not text:
        raise ValueError("the corpus is empty")
    counts = Counter(text)
    kept = sorted(char for char, count in counts.items() if count >= min_count)
    rare_id = len(kept)
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    table = np.full(int(codes.max()) + 1, rare_id, dtype=np.int64)
    table[[ord(char) for char in kept]] = np.arange(rare_id)
    ids = table[codes]
    ids.setflags(write=False)
    info.update(
        python_version=platform.python_version(),
        num_chars=len(text),
        text_sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(),
        min_count=min_count,
        vocab=[*kept, _RARE],
        rare_id=rare_id,
        rare_chars="".join(sorted(char for char, count in counts.items() if count < min_count)),
    )
    return _Corpus(ids=ids, vocab=[*kept, _RARE], info=info)


def split_bounds(num_chars: int) -> dict[str, tuple[int, int]]:
    a, b = (int(f * num_chars) for f in _SPLIT_FRACTIONS)
    return {"train": (0, a), "val": (a, b), "test": (b, num_chars)}


def charlm_window_starts(
    name: str, num_chars: int, *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int
) -> dict[str, np.ndarray]:
    """Where each character-LM window starts in the stream, per split.

    The stream of ``num_chars`` characters is cut by position: ``[0, 0.9 N)`` train,
    ``[0.9 N, 0.95 N)`` val, ``[0.95 N, N)`` test. Inside a part ``[lo, hi)`` the candidate
    windows start at ``lo, lo + T, lo + 2T, ...`` (``T = seq_len``) and need ``T + 1``
    characters inside the part (``T`` inputs plus the target of the last one), so targets never
    repeat across windows and no window crosses a split boundary. Each split takes the first
    ``n`` of a seeded permutation of its candidates.

    Returns ``{"train": (n_train,), "val": (n_val,), "test": (n_test,)}`` int64 arrays.
    Raises ValueError naming the maximum when a part has fewer than ``n`` windows.
    """
    sizes = split_sizes(n_train, n_val, n_test)
    starts = {}
    for split, (lo, hi) in split_bounds(num_chars).items():
        candidates = lo + seq_len * np.arange(max(hi - lo - 1, 0) // seq_len, dtype=np.int64)
        n = sizes[split]
        if n > len(candidates):
            raise ValueError(
                f"n_{split} must be <= {len(candidates)} for {name} with seq_len={seq_len} "
                f"(the {split} part holds that many windows), got {n}"
            )
        starts[split] = candidates[split_rng(seed, name, split).permutation(len(candidates))[:n]]
    return starts


def charlm_min_chars(*, n_train: int, n_val: int, n_test: int, seq_len: int) -> int:
    """The fewest characters a stream needs for ``n_train``, ``n_val`` and ``n_test`` windows of
    ``seq_len`` characters under the 90% / 5% / 5% split (:func:`charlm_window_starts`)."""
    sizes = split_sizes(n_train, n_val, n_test)
    seq_len = check_int("seq_len", seq_len, 1)
    need = {split: n * seq_len + 1 if n else 0 for split, n in sizes.items()}
    fractions = {"train": 0.9, "val": 0.05, "test": 0.05}
    guess = max(int(need[s] / fractions[s]) for s in need)
    num_chars = max(1, guess - 64)
    while True:
        bounds = split_bounds(num_chars)
        if all(hi - lo >= need[s] for s, (lo, hi) in bounds.items()):
            return num_chars
        num_chars += 1


def charlm_generator(
    name: str,
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    seq_len: int = 64,
    min_count: int = 20,
) -> TaskData:
    chars = load_corpus(name, check_int("min_count", min_count, 1))
    return _charlm_task(
        name, chars, n_train=n_train, n_val=n_val, n_test=n_test, seed=seed, seq_len=seq_len
    )


def _charlm_task(
    name: str, chars: _Corpus, *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int
) -> TaskData:
    seq_len = check_int("seq_len", seq_len, 1)
    starts = charlm_window_starts(
        name,
        len(chars.ids),
        n_train=n_train,
        n_val=n_val,
        n_test=n_test,
        seed=seed,
        seq_len=seq_len,
    )
    splits = {}
    for split, first in starts.items():
        window = chars.ids[first[:, None] + np.arange(seq_len + 1)]  # (n, T + 1)
        splits[split] = (window[:, :-1], window[:, 1:])
    vocab_size = len(chars.vocab)
    return TaskData(
        name=name,
        kind="lm",
        **to_tensors(splits),
        vocab_size=vocab_size,
        input_features=None,
        num_classes=vocab_size,
        metric="bits_per_char",
        info={
            **copy.deepcopy(chars.info),
            "vocab": list(chars.vocab),
            "tokens": list(chars.vocab),
            "seed": seed,
            "seq_len": seq_len,
            "split_bounds": {s: list(b) for s, b in split_bounds(len(chars.ids)).items()},
            "sizes": {s: len(v) for s, v in starts.items()},
        },
    )


def charlm_english_generator(**kwargs: Any) -> TaskData:
    """Character language model on English prose: CPython's bundled pydoc topics.

    The text is ``pydoc_data.topics.topics`` (a dict of help texts that ships with every
    CPython), values concatenated in sorted-key order: about 465k characters. Each character
    seen at least ``min_count`` times gets its own id, in code-point order; all rarer characters
    share one last id, the rare symbol (``info["vocab"]`` lists id -> character,
    ``info["rare_chars"]`` the merged characters). ``vocab_size = num_classes``.

    Kind ``lm``: ``x`` and ``y`` are ``(N, seq_len)`` int64 with ``y[:, t] = x[:, t + 1]``:
    each window holds ``seq_len + 1`` consecutive characters. The stream is split by position,
    first 90% train, next 5% val, last 5% test; windows never cross a boundary nor share a
    target (:func:`charlm_window_starts`). Metric ``bits_per_char``: the mean cross-entropy in bits,
    :math:`-\\frac{1}{NT}\\sum \\log_2 p(y_{n,t} \\mid x_{n,\\le t})`; lower is better.
    ``n_train`` may not exceed the number of train windows (about 6500 at ``seq_len=64``).

    The text differs slightly between Python versions; ``info`` records the version and the
    text's sha256.

    Options: ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    return charlm_generator("charlm-english", **kwargs)


def charlm_python_generator(**kwargs: Any) -> TaskData:
    """Character language model on Python source: a fixed list of standard-library modules.

    The text is the files :data:`PYTHON_CORPUS_FILES` (30 single-file top-level modules such as
    ``argparse.py`` and ``textwrap.py``, about 1 MB; all exist in CPython 3.10-3.13) read from
    ``sysconfig.get_paths()["stdlib"]`` and concatenated in that order. Their contents vary
    slightly between Python versions, so exact numbers are tied to the Python version, which
    ``info`` records together with every file's sha256.

    Kind ``lm``; vocabulary, windows, splits and metric as for ``charlm-english``: characters
    seen fewer than ``min_count`` times share one rare-symbol id, ``y`` is ``x`` shifted by one,
    the stream is split 90% / 5% / 5% by position, metric ``bits_per_char``.

    Options: ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    return charlm_generator("charlm-python", **kwargs)


def charlm_stdlib_generator(**kwargs: Any) -> TaskData:
    """Character language model on Python source: the whole single-file standard library.

    The text is every ``*.py`` file directly in ``sysconfig.get_paths()["stdlib"]`` whose name
    does not start with ``__`` (:func:`stdlib_corpus_files`; 166 files and about 4.7M characters
    in CPython 3.11), in name order, concatenated. Files that are not valid UTF-8 would be skipped
    and listed in ``info["skipped_not_utf8"]``. The file set and contents vary between Python
    versions, so ``info`` records the Python version, every file's sha256 (``info["files"]``),
    one sha256 of that list (``info["files_sha256"]``), the number of files and their total size
    in bytes.

    Kind ``lm``; vocabulary, windows, splits and metric as for ``charlm-english``: characters
    seen fewer than ``min_count`` times share one rare-symbol id, ``y`` is ``x`` shifted by one,
    the stream is split 90% / 5% / 5% by position, metric ``bits_per_char``. This is the corpus
    of the scale experiment (:mod:`rnnlab.experiments.scale`): about 33,000 training windows of 128.

    Options: ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    return charlm_generator("charlm-stdlib", **kwargs)


def read_text_file(path: str | os.PathLike) -> tuple[str, dict]:
    """The text of a UTF-8 file and its provenance (resolved path, size in bytes, sha256).

    Raises ValueError naming ``path`` for a missing file, a folder, or bytes that are not UTF-8
    (with the byte offset of the first bad byte).
    """
    if path is None or (isinstance(path, str) and not path.strip()):
        raise ValueError("path must name a UTF-8 text file for charlm-text, got " + repr(path))
    resolved = Path(path).expanduser().resolve()
    if not resolved.exists():
        raise ValueError(f"path {str(path)!r} does not exist (resolved: {resolved})")
    if not resolved.is_file():
        raise ValueError(f"path {str(path)!r} is not a file (resolved: {resolved})")
    data = resolved.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start : exc.start + 1].hex()
        raise ValueError(
            f"path {str(path)!r} is not UTF-8 text: byte 0x{bad} at byte offset {exc.start} "
            f"cannot be decoded ({exc.reason}); convert the file to UTF-8"
        ) from None
    return text, {
        "source": "a text file given with path=",
        "path": str(resolved),
        "size_bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


@lru_cache(maxsize=4)
def _text_corpus(resolved: str, sha256: str, min_count: int) -> _Corpus:
    """The encoded file, cached by its path *and* content hash (an edited file is re-read)."""
    text, info = read_text_file(resolved)
    if info["sha256"] != sha256:  # changed between the two reads
        return _text_corpus(resolved, info["sha256"], min_count)
    return _encode(text, info, min_count)


def charlm_text_generator(
    *,
    n_train: int,
    n_val: int,
    n_test: int,
    seed: int,
    path: str | None = None,
    seq_len: int = 64,
    min_count: int = 20,
) -> TaskData:
    """Character language model on your own text: any UTF-8 text file.

    ``path`` names the file (required). Everything else is as for ``charlm-english``: characters
    seen fewer than ``min_count`` times share one rare-symbol id, windows of ``seq_len + 1``
    characters, ``y`` is ``x`` shifted by one, the stream is split 90% / 5% / 5% by position,
    metric ``bits_per_char``. ``info`` records the file's resolved ``path``, its size in bytes
    (``size_bytes``) and its ``sha256``, so a result can be tied to the exact text.

    Kind ``lm``. The file must hold enough characters for the windows asked for
    (:func:`charlm_min_chars`); otherwise a ValueError says how many are needed.

    Options: ``path`` (a UTF-8 text file), ``seq_len=64`` (>= 1), ``min_count=20`` (>= 1).
    """
    min_count = check_int("min_count", min_count, 1)
    seq_len = check_int("seq_len", seq_len, 1)
    needed = charlm_min_chars(n_train=n_train, n_val=n_val, n_test=n_test, seq_len=seq_len)
    text, info = read_text_file(path)
    if len(text) < needed:
        raise ValueError(
            f"path {str(path)!r} holds {len(text):,} characters, too few for n_train={n_train}, "
            f"n_val={n_val}, n_test={n_test} windows of seq_len={seq_len} under the 90/5/5 split: "
            f"it needs at least {needed:,} characters (use a longer text, or fewer or shorter "
            "windows)"
        )
    chars = _text_corpus(info["path"], info["sha256"], min_count)
    return _charlm_task(
        "charlm-text", chars, n_train=n_train, n_val=n_val, n_test=n_test, seed=seed,
        seq_len=seq_len,
    )  # fmt: skip
