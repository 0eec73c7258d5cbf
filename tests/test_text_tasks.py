"""The larger corpora: charlm-stdlib (the whole single-file standard library) and charlm-text (a
text file of your own)."""

from __future__ import annotations

import hashlib
import sysconfig
from pathlib import Path

import pytest
import torch

from rnnlab.core.tasks import make_task, task_doc, task_names, task_options
from rnnlab.core.tasks.text import charlm_min_chars, charlm_window_starts, stdlib_corpus_files

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def test_new_tasks_are_registered_with_their_options():
    assert {"charlm-stdlib", "charlm-text"} <= set(task_names())
    assert task_options("charlm-stdlib") == {"seq_len": 64, "min_count": 20}
    assert task_options("charlm-text") == {"path": None, "seq_len": 64, "min_count": 20}
    assert "sha256" in task_doc("charlm-text") and "``lm``" in task_doc("charlm-stdlib")


# ----------------------------------------------------------------------------- charlm-stdlib


def test_stdlib_file_list_is_every_single_file_module_by_name():
    files = stdlib_corpus_files()
    names = [p.name for p in files]
    expected = sorted(
        p.name for p in STDLIB.iterdir() if p.suffix == ".py" and not p.name.startswith("__")
    )
    assert names == expected and len(names) > 100
    assert {"argparse.py", "typing.py", "textwrap.py"} <= set(names)
    assert "__future__.py" not in names and all(p.parent == STDLIB for p in files)


def test_charlm_stdlib_records_every_file_hash_and_the_total_size():
    task = make_task("charlm-stdlib", n_train=50, n_val=10, n_test=10, seed=0, seq_len=128)
    info = task.info
    files = info["files"]
    assert list(files) == sorted(files) and info["num_files"] == len(files)
    assert set(files) | set(info["skipped_not_utf8"]) == {p.name for p in stdlib_corpus_files()}
    text = []
    for name, digest in files.items():
        data = (STDLIB / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
        text.append(data.decode("utf-8"))
    text = "".join(text)
    assert info["size_bytes"] == sum(len((STDLIB / n).read_bytes()) for n in files)
    assert info["num_chars"] == len(text) > 2_000_000
    assert info["text_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    listing = "".join(f"{n} {d}\n" for n, d in files.items())
    assert info["files_sha256"] == hashlib.sha256(listing.encode()).hexdigest()
    # windows are slices of that text, mapped through the vocabulary
    char_id = {c: i for i, c in enumerate(info["vocab"][:-1])}
    starts = charlm_window_starts(
        "charlm-stdlib", len(text), n_train=50, n_val=10, n_test=10, seed=0, seq_len=128
    )
    for s, row in zip(starts["test"], task.x_test.tolist(), strict=True):
        assert row == [char_id.get(c, info["rare_id"]) for c in text[s : s + 128]]


def test_charlm_stdlib_is_deterministic_and_seeded():
    kw = dict(n_train=200, n_val=20, n_test=20, seq_len=128)
    a, b = make_task("charlm-stdlib", seed=7, **kw), make_task("charlm-stdlib", seed=7, **kw)
    c = make_task("charlm-stdlib", seed=8, **kw)
    for split in ("x_train", "y_train", "x_val", "y_val", "x_test", "y_test"):
        assert torch.equal(getattr(a, split), getattr(b, split))
    assert not torch.equal(a.x_train, c.x_train)
    assert a.info == b.info
    assert torch.equal(a.x_train[:, 1:], a.y_train[:, :-1])


# ----------------------------------------------------------------------------- charlm-text


def write_text(tmp_path: Path, n_chars: int = 40_000, name: str = "mine.txt") -> Path:
    words = "the quick brown fox jumps over the lazy dog; ÄÖÜ ß — ünïcödé ok.\n"
    text = (words * (n_chars // len(words) + 1))[:n_chars]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_charlm_text_trains_on_the_file_and_records_its_hash(tmp_path):
    path = write_text(tmp_path)
    task = make_task("charlm-text", n_train=100, n_val=10, n_test=10, seed=0, path=str(path))
    data = path.read_bytes()
    assert task.info["sha256"] == hashlib.sha256(data).hexdigest()
    assert task.info["size_bytes"] == len(data) and task.info["path"] == str(path.resolve())
    assert task.info["num_chars"] == len(data.decode("utf-8"))
    assert "—" in task.info["vocab"] and task.kind == "lm" and task.metric == "bits_per_char"
    text = data.decode("utf-8")
    char_id = {c: i for i, c in enumerate(task.info["vocab"][:-1])}
    starts = charlm_window_starts(
        "charlm-text", len(text), n_train=100, n_val=10, n_test=10, seed=0, seq_len=64
    )
    for s, row in zip(starts["train"], task.x_train.tolist(), strict=True):
        assert row == [char_id.get(c, task.info["rare_id"]) for c in text[s : s + 64]]
    again = make_task("charlm-text", n_train=100, n_val=10, n_test=10, seed=0, path=str(path))
    assert torch.equal(again.x_train, task.x_train) and again.info == task.info


def test_charlm_text_rereads_an_edited_file(tmp_path):
    path = write_text(tmp_path)
    first = make_task("charlm-text", n_train=10, n_val=2, n_test=2, seed=0, path=str(path))
    path.write_text(path.read_text(encoding="utf-8").upper(), encoding="utf-8")
    second = make_task("charlm-text", n_train=10, n_val=2, n_test=2, seed=0, path=str(path))
    assert first.info["sha256"] != second.info["sha256"]
    assert first.info["vocab"] != second.info["vocab"]


def test_charlm_text_errors_name_the_parameter(tmp_path):
    sizes = dict(n_train=10, n_val=2, n_test=2, seed=0)
    with pytest.raises(ValueError, match="path must name a UTF-8 text file"):
        make_task("charlm-text", **sizes)
    with pytest.raises(ValueError, match="path '.*nope.txt' does not exist"):
        make_task("charlm-text", **sizes, path=str(tmp_path / "nope.txt"))
    with pytest.raises(ValueError, match="is not a file"):
        make_task("charlm-text", **sizes, path=str(tmp_path))
    bad = tmp_path / "latin1.txt"
    bad.write_bytes(b"x" * 5000 + "café".encode("latin-1") + b"y" * 5000)
    with pytest.raises(ValueError, match=r"not UTF-8 text: byte 0xe9 at byte offset 5003"):
        make_task("charlm-text", **sizes, path=str(bad))
    with pytest.raises(ValueError, match="unknown option 'file'"):
        make_task("charlm-text", **sizes, file=str(bad))


def test_charlm_text_too_short_says_how_many_characters_are_needed(tmp_path):
    need = charlm_min_chars(n_train=100, n_val=10, n_test=10, seq_len=64)
    sizes = dict(n_train=100, n_val=10, n_test=10, seed=0)
    # the 5% val and test parts need 10 * 64 + 1 characters each
    assert 12_800 < need <= 12_820  # ~ (10 * 64 + 1) / 0.05, less the rounding of the bounds
    make_task("charlm-text", **sizes, path=str(write_text(tmp_path, need, "exact.txt")))
    short = write_text(tmp_path, need - 1, "short.txt")
    with pytest.raises(ValueError, match=f"path .* holds {need - 1:,} characters.*{need:,}"):
        make_task("charlm-text", **sizes, path=str(short))


@pytest.mark.parametrize(
    "sizes", [(1, 0, 0, 1), (100, 10, 10, 64), (5000, 1, 1, 32), (3, 40, 1, 7), (1, 1, 1, 1)]
)
def test_charlm_min_chars_is_the_smallest_stream_that_fits(sizes):
    n_train, n_val, n_test, seq_len = sizes
    kw = dict(n_train=n_train, n_val=n_val, n_test=n_test, seq_len=seq_len)
    need = charlm_min_chars(**kw)
    charlm_window_starts("x", need, seed=0, **kw)  # fits
    with pytest.raises(ValueError, match="must be <="):
        charlm_window_starts("x", need - 1, seed=0, **kw)
