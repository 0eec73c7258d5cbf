"""Lab B on your own text: the design moved onto charlm-text, the CLI path, the self-check."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from rnnlab.__main__ import main
from rnnlab.core.models import matched_config_for_task
from rnnlab.core.tasks import make_task
from rnnlab.course import exercises
from rnnlab.experiments.labs import get_lab
from rnnlab.experiments.owntext import default_out, lab_b_on_text, text_windows

POEM = "Tyger Tyger, burning bright,\nIn the forests of the night; — ünïcödé\n"


def own_text(tmp_path: Path, n_chars: int = 40_000) -> Path:
    path = tmp_path / "poem.txt"
    path.write_text((POEM * (n_chars // len(POEM) + 1))[:n_chars], encoding="utf-8")
    return path


def test_lab_b_on_text_swaps_the_corpus_and_drops_other_tasks(tmp_path):
    path = own_text(tmp_path)
    design = get_lab("lab-b").sweep("cpu").experiments
    moved = lab_b_on_text(design, path)
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    lm = [e for e in design if e.task.startswith("charlm-")]
    assert any(e.task == "dyck" for e in design)
    # English and Python copies of a cell collapse into one: budgets x depths remain
    cells = {(e.label("budget_target"), e.num_layers) for e in lm}
    assert len(moved) == len(cells) >= 3  # every budget x depth of the design (cpu: 25K x 1, 2, 4)
    assert {(e.label("budget_target"), e.num_layers) for e in moved} == cells
    for e in moved:
        assert e.task == "charlm-text"
        assert dict(e.task_options)["path"] == str(path.resolve())
        assert dict(e.task_options)["seq_len"] == 64
        assert e.label("corpus") == "text" and e.label("text_sha256") == sha
        assert e.train == lm[0].train and e.lr_grid == lm[0].lr_grid
        # the budget is re-matched to the file's vocabulary, within 2% for every depth
        example = make_task("charlm-text", n_train=1, n_val=1, n_test=1, seed=0,
                            **dict(e.task_options))  # fmt: skip
        config, match = matched_config_for_task(
            example, budget=e.budget, num_layers=e.num_layers, embedding_dim=e.embedding_dim
        )
        assert abs(match.relative_error) <= 0.02
        assert e.n_train == min(4_000, text_windows(40_000, 64))  # 40K chars: 562 windows
    assert moved[0].n_train == 562
    with pytest.raises(ValueError, match="no character-LM experiment"):
        lab_b_on_text([e for e in design if e.task == "dyck"], path)


def test_an_edited_text_gives_new_experiment_keys(tmp_path):
    path = own_text(tmp_path)
    design = get_lab("lab-b").sweep("smoke").experiments
    before = {e.key for e in lab_b_on_text(design, path)}
    path.write_text(path.read_text(encoding="utf-8") + "!", encoding="utf-8")
    after = {e.key for e in lab_b_on_text(design, path)}
    assert not before & after


def test_cli_runs_lab_b_on_own_text_and_the_self_check_accepts_it(tmp_path, capsys):
    path = own_text(tmp_path)
    out = tmp_path / "mine.jsonl"
    argv = ["run", "lab-b", "--profile", "smoke", "--text", str(path), "--out", str(out)]
    assert main([*argv, "--seeds", "1"]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert records and {r["task"] for r in records} == {"charlm-text"}
    assert {r["num_layers"] for r in records} == {1, 2}
    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert all(r["task_info"]["sha256"] == sha for r in records)
    assert not (tmp_path / "mine.jsonl.ckpt").exists() or not list(
        (tmp_path / "mine.jsonl.ckpt").iterdir()
    )
    text = capsys.readouterr().out
    assert str(path.resolve()) in text and "lab-b" in text

    check = exercises.check_own_text_record(records[0])
    assert check.passed and "5/5" in check.summary()

    # a record of the built-in corpus is not "your own text"
    other = json.loads(json.dumps(records[0]))
    other["task"], other["task_info"] = "charlm-english", {"num_chars": 1}
    with pytest.raises(AssertionError, match="check_own_text_record"):
        exercises.check_own_text_record(other)
    # the file changed since the run: the recorded sha256 no longer matches
    path.write_text("something else entirely\n" * 2000, encoding="utf-8")
    with pytest.raises(AssertionError, match="sha256 of"):
        exercises.check_own_text_record(records[0])
    with pytest.raises(AssertionError, match="exists"):
        exercises.check_own_text_record(records[0], path=tmp_path / "gone.txt")


def test_text_option_errors(tmp_path, capsys):
    path = own_text(tmp_path)
    assert main(["run", "lab-a", "--profile", "smoke", "--text", str(path)]) == 2
    assert "--text runs Lab B" in capsys.readouterr().err
    missing = tmp_path / "missing.txt"
    assert main(["run", "lab-b", "--profile", "smoke", "--text", str(missing)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert default_out("lab-b", path, "cpu").name.startswith("lab-b-text-")
