"""Character LMs on the standard library with whole files held out for validation and test.

``charlm-stdlib`` (:mod:`rnnlab.core.tasks.text`) cuts one stream of concatenated files by position:
its test set is a fixed tail of a few files, and each seed samples its own windows from it. That
makes the test sample small, fixed and dominated by whichever files sit at the end. This task
holds out **whole files** instead, so the test set is a sample of files (the unit a reader
generalises over), scored completely, with a loss per file that an analysis can bootstrap over.

Two tasks share the code and differ in their files and the share held out (:data:`CORPORA`):

* ``charlm-stdlib-files`` (design version 1 of the convergence experiment): the 166 top-level
  files of :func:`rnnlab.core.tasks.text.stdlib_corpus_files`; buckets {0, 1} are test (19
  files in CPython 3.11), {2, 3} val.
* ``charlm-stdlib-tree`` (version 2): the files of
  :func:`rnnlab.core.tasks.text.stdlib_tree_files` (the top level and the packages, without test
  suites and generated tables; 605 in CPython 3.11); buckets {0, 1, 2, 3} are test (124 scored
  files there, about 20%), {4, 5}
  val. Version 1's 19 test files were too few: the files differ in how much depth helps, and
  that share of the interval does not shrink with seeds (see
  :mod:`rnnlab.experiments.converge`).

The partition (fixed, declared before any run):

* every file goes to a part by the SHA-256 of its *name* (its path relative to the
  standard-library folder): ``h mod 20`` in the test buckets is **test**, in the val buckets
  **val**, the rest **train**. The rule depends on the name only, so a file keeps its part on
  every Python version that ships it;
* the vocabulary is built from the **training files only** (characters seen at least
  ``min_count`` times there); every other character maps to the rare-symbol id;
* **train**: the training files concatenated in name order, cut into non-overlapping windows of
  ``T + 1`` characters (``T`` inputs, ``T`` targets shifted by one); a seeded sample of
  ``n_train`` of them (``n_train=0``... is not allowed: pass :func:`heldout_sizes` for all);
* **val**: a seeded sample of ``n_val`` windows of the validation files (each file cut on its own,
  no window crosses a file);
* **test**: the first ``n_test`` windows of a *fixed* order (independent of ``seed``) of every
  window of every test file, each file cut on its own. With ``n_test`` equal to
  ``heldout_sizes(...)["test"]`` every held-out character that fits a window is scored.

``test_groups`` holds the index of each test window's file in ``info["test_files"]`` (a list of
``[name, windows]``), so a run's ``test_by_group`` is the bits per character of every held-out
file, and the test score is their window-weighted mean.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from rnnlab.core.tasks.base import TaskData, check_int, split_rng, split_sizes, to_tensors
from rnnlab.core.tasks.text import read_stdlib_files

NAME = "charlm-stdlib-files"
TREE_NAME = "charlm-stdlib-tree"
PART_MODULUS = 20
_RARE = "<rare>"


@dataclass(frozen=True)
class HeldoutCorpus:
    """One held-out-files task: its name, whether it reads the package tree, and the hash
    buckets (of :data:`PART_MODULUS`) that are test and validation."""

    name: str
    tree: bool
    test_buckets: tuple[int, ...]
    val_buckets: tuple[int, ...]
    source: str


CORPORA: dict[str, HeldoutCorpus] = {
    NAME: HeldoutCorpus(
        NAME, False, (0, 1), (2, 3),
        "every single-file top-level CPython standard-library module, whole files held out by "
        "the SHA-256 of their name (rnnlab.tasks.heldout)",
    ),
    TREE_NAME: HeldoutCorpus(
        TREE_NAME, True, (0, 1, 2, 3), (4, 5),
        "every CPython standard-library module, top level and packages, without test suites and "
        "generated tables; whole files held out by the SHA-256 of their path "
        "(rnnlab.tasks.heldout)",
    ),
}  # fmt: skip


def _corpus(task: str) -> HeldoutCorpus:
    if task not in CORPORA:
        raise ValueError(f"task must be one of {sorted(CORPORA)}, got {task!r}")
    return CORPORA[task]


def file_part(name: str, task: str = NAME) -> str:
    """The part (``"train"``, ``"val"`` or ``"test"``) of the file called ``name`` in ``task``:
    by ``int(sha256(name)) mod 20`` (``charlm-stdlib-files``: 0-1 test, 2-3 val;
    ``charlm-stdlib-tree``: 0-3 test, 4-5 val; else train)."""
    corpus = _corpus(task)
    bucket = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16) % PART_MODULUS
    if bucket in corpus.test_buckets:
        return "test"
    if bucket in corpus.val_buckets:
        return "val"
    return "train"


@lru_cache(maxsize=4)
def _files(
    min_count: int, task: str = NAME
) -> tuple[dict[str, list[tuple[str, np.ndarray]]], list[str], dict]:
    corpus = _corpus(task)
    texts: dict[str, list[tuple[str, str]]] = {"train": [], "val": [], "test": []}
    files, skipped = read_stdlib_files(tree=corpus.tree)
    digests = {f.name: f.sha256 for f in files}
    for f in files:
        texts[file_part(f.name, task)].append((f.name, f.text))
    counts = Counter()
    for _, text in texts["train"]:
        counts.update(text)
    kept = sorted(c for c, n in counts.items() if n >= min_count)
    rare_id = len(kept)
    index = {c: i for i, c in enumerate(kept)}
    encoded = {
        part: [
            (name, np.fromiter((index.get(c, rare_id) for c in text), np.int64, len(text)))
            for name, text in files
        ]
        for part, files in texts.items()
    }
    listing = "".join(f"{n} {d}\n" for n, d in digests.items())
    info = {
        "source": corpus.source,
        "files_sha256": hashlib.sha256(listing.encode()).hexdigest(),
        "num_files": len(digests),
        "parts": {p: [n for n, _ in files] for p, files in texts.items()},
        "chars": {p: int(sum(len(t) for _, t in files)) for p, files in texts.items()},
        "skipped_not_utf8": skipped,
        "min_count": min_count,
        "rare_id": rare_id,
    }
    return encoded, [*kept, _RARE], info


def _cut(ids: np.ndarray, seq_len: int) -> np.ndarray:
    """Start offsets of the non-overlapping windows of ``seq_len + 1`` characters in ``ids``."""
    return seq_len * np.arange(max(len(ids) - 1, 0) // seq_len, dtype=np.int64)


def heldout_sizes(*, seq_len: int = 128, min_count: int = 20, task: str = NAME) -> dict[str, int]:
    """How many windows each part of ``task`` holds: ``n_train``, ``n_val`` and ``n_test`` may
    not exceed these (``n_test`` equal to ``"test"`` scores every held-out window)."""
    seq_len, min_count = check_int("seq_len", seq_len, 1), check_int("min_count", min_count, 1)
    return dict(_sizes(seq_len, min_count, task))


@lru_cache(maxsize=16)
def _sizes(seq_len: int, min_count: int, task: str) -> tuple[tuple[str, int], ...]:
    """:func:`heldout_sizes`, computed once per arguments (a design builds its experiments from
    it many times over)."""
    encoded, _, _ = _files(min_count, _corpus(task).name)
    train = np.concatenate([ids for _, ids in encoded["train"]])
    return (
        ("train", len(_cut(train, seq_len))),
        ("val", sum(len(_cut(ids, seq_len)) for _, ids in encoded["val"])),
        ("test", sum(len(_cut(ids, seq_len)) for _, ids in encoded["test"])),
    )


def _windows(ids: np.ndarray, starts: np.ndarray, seq_len: int) -> np.ndarray:
    return ids[starts[:, None] + np.arange(seq_len + 1)]


def charlm_stdlib_files_generator(
    *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int = 128, min_count: int = 20
) -> TaskData:
    """Character language model on the top-level standard library, whole files held out.

    See :mod:`rnnlab.core.tasks.heldout` for the partition (19 test files in CPython 3.11). Kind
    ``lm``, metric ``bits_per_char``; ``test_groups`` is the held-out file of each test window
    (``info["test_files"]``). ``n_train``, ``n_val`` and ``n_test`` may not exceed
    :func:`heldout_sizes`.

    Options: ``seq_len=128`` (>= 1), ``min_count=20`` (>= 1).
    """
    return _heldout_task(NAME, n_train, n_val, n_test, seed, seq_len, min_count)


def charlm_stdlib_tree_generator(
    *, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int = 128, min_count: int = 20
) -> TaskData:
    """Character language model on the standard library with its packages, whole files held out.

    As ``charlm-stdlib-files`` on :func:`rnnlab.core.tasks.text.stdlib_tree_files`, with about
    20% of the files held out for test (124 in CPython 3.11) and 10% for validation. Bounds:
    :func:`heldout_sizes` with ``task="charlm-stdlib-tree"``.

    Options: ``seq_len=128`` (>= 1), ``min_count=20`` (>= 1).
    """
    return _heldout_task(TREE_NAME, n_train, n_val, n_test, seed, seq_len, min_count)


def _heldout_task(
    task: str, n_train: int, n_val: int, n_test: int, seed: int, seq_len: int, min_count: int
) -> TaskData:
    sizes = split_sizes(n_train, n_val, n_test)
    seq_len = check_int("seq_len", seq_len, 1)
    encoded, vocab, info = _files(check_int("min_count", min_count, 1), task)
    have = heldout_sizes(seq_len=seq_len, min_count=min_count, task=task)
    for split, n in sizes.items():
        if n > have[split]:
            raise ValueError(
                f"n_{split} must be <= {have[split]} for {task} with seq_len={seq_len} (its "
                f"{split} files hold that many windows), got {n}"
            )
    train_ids = np.concatenate([ids for _, ids in encoded["train"]])
    starts = _cut(train_ids, seq_len)
    pick = split_rng(seed, task, "train").permutation(len(starts))[: sizes["train"]]
    splits = {"train": _windows(train_ids, starts[pick], seq_len)}
    for split in ("val", "test"):
        rows, groups, files = [], [], []
        for k, (name, ids) in enumerate(encoded[split]):
            w = _windows(ids, _cut(ids, seq_len), seq_len)
            rows.append(w)
            groups.append(np.full(len(w), k, dtype=np.int64))
            files.append([name, len(w)])
        allw, allg = np.concatenate(rows), np.concatenate(groups)
        order_seed = seed if split == "val" else 0  # the test order never depends on the seed
        order = split_rng(order_seed, task, split).permutation(len(allw))[: sizes[split]]
        if split == "test":
            order = np.sort(order)  # file by file
            test_groups = torch.from_numpy(allg[order])
            info_files = files
        splits[split] = allw[order]
    scored = Counter(test_groups.tolist())
    return TaskData(
        name=task,
        kind="lm",
        **to_tensors({s: (w[:, :-1], w[:, 1:]) for s, w in splits.items()}),
        vocab_size=len(vocab),
        input_features=None,
        num_classes=len(vocab),
        metric="bits_per_char",
        test_groups=test_groups,
        group_name="held-out file",
        info={
            **{k: v for k, v in info.items() if k != "parts"},
            "val_files": info["parts"]["val"],
            "test_files": [[name, scored.get(k, 0)] for k, (name, _) in enumerate(info_files)],
            "vocab": list(vocab),
            "tokens": list(vocab),
            "seed": seed,
            "seq_len": seq_len,
            "sizes": {s: int(len(w)) for s, w in splits.items()},
            "available": have,
        },
    )


def describe_partition(
    *, seq_len: int = 128, min_count: int = 20, task: str = NAME
) -> dict[str, Any]:
    """Files, characters and windows of each part of ``task`` (for the plan and the lab text)."""
    _, vocab, info = _files(check_int("min_count", min_count, 1), _corpus(task).name)
    return {
        "files": {p: len(v) for p, v in info["parts"].items()},
        "chars": dict(info["chars"]),
        "windows": heldout_sizes(seq_len=seq_len, min_count=min_count, task=task),
        "vocab_size": len(vocab),
    }


def held_out_file_windows(
    task: str = NAME, *, seq_len: int = 128, min_count: int = 20
) -> list[int]:
    """The windows of each test file of ``task``, in name order (their weights in the test
    score; :func:`rnnlab.experiments.resolution.effective_files` reads them)."""
    seq_len = check_int("seq_len", seq_len, 1)
    encoded, _, _ = _files(check_int("min_count", min_count, 1), _corpus(task).name)
    return [len(_cut(ids, seq_len)) for _, ids in encoded["test"]]


def corpus_digest(task: str = NAME, *, min_count: int = 20) -> str:
    """The ``files_sha256`` of ``task``'s corpus on this Python: the SHA-256 of its files' names
    and digests, as every record's ``task_info`` carries it."""
    _, _, info = _files(check_int("min_count", min_count, 1), _corpus(task).name)
    return info["files_sha256"]
