"""Checkpoint and resume inside one run: a run killed mid-way and resumed ends bit-identical to a
run never interrupted (on the CPU); a checkpoint of another run is refused; the learning-rate
schedules."""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import torch

import rnnlab.core.train as train_mod
from rnnlab.core.checkpoint import saved_progress
from rnnlab.core.config import TrainConfig
from rnnlab.core.device import seed_everything
from rnnlab.core.models import ModelConfig, build_model
from rnnlab.core.tasks import TaskData
from rnnlab.core.train import train_model

LIB = str(Path(__file__).resolve().parents[1] / "lib")


def lm_task(n=256, T=12, V=7, seed=0) -> TaskData:
    """A small next-token task whose stream has structure (a noisy counter mod V)."""
    g = torch.Generator().manual_seed(seed)
    stream = torch.arange(n * (T + 1) + 800) + (torch.rand(n * (T + 1) + 800, generator=g) < 0.2)
    stream = stream % V
    windows = stream[: (n + 60) * (T + 1)].reshape(n + 60, T + 1)
    x, y = windows[:, :-1].clone(), windows[:, 1:].clone()
    return TaskData(
        name="counter-lm",
        kind="lm",
        x_train=x[:n],
        y_train=y[:n],
        x_val=x[n : n + 30],
        y_val=y[n : n + 30],
        x_test=x[n + 30 :],
        y_test=y[n + 30 :],
        vocab_size=V,
        input_features=None,
        num_classes=V,
        metric="bits_per_char",
    )


def lm_model(task: TaskData, seed: int, dropout: float = 0.0):
    seed_everything(seed)
    return build_model(
        ModelConfig(
            kind="lm",
            num_layers=2,
            hidden_size=12,
            num_classes=task.num_classes,
            vocab_size=task.vocab_size,
            embedding_dim=6,
            dropout=dropout,
        )
    )


CFG = TrainConfig(max_steps=60, batch_size=8, eval_every=7, patience=None, warmup_steps=5, lr=1e-2)


def outcome(result, model) -> tuple:
    curves = [{k: v for k, v in row.items() if k != "elapsed_s"} for row in result.curves]
    d = result.to_dict()
    metrics = {k: v for k, v in d.items() if k not in ("curves", "wall_time_s")}
    return metrics, curves, {k: v.clone() for k, v in model.state_dict().items()}


def assert_same(a: tuple, b: tuple) -> None:
    assert a[0] == b[0]
    assert a[1] == b[1]
    assert a[2].keys() == b[2].keys()
    for k in a[2]:
        assert torch.equal(a[2][k], b[2][k]), k


def assert_resumes_to_the_uninterrupted_run(task, cfg, seed: int, ckpt) -> None:
    """Resume the run whose checkpoint is ``ckpt``: it deletes the checkpoint and ends exactly
    as a run of the same seed never interrupted."""
    model = lm_model(task, seed)
    resumed = train_model(model, task, cfg, seed=seed, device="cpu", checkpoint=ckpt,
                          progress=False)  # fmt: skip
    assert not ckpt.exists()
    model_ref = lm_model(task, seed)
    reference = train_model(model_ref, task, cfg, seed=seed, device="cpu", progress=False)
    assert_same(outcome(resumed, model), outcome(reference, model_ref))


class Crash(RuntimeError):
    pass


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_resume_after_a_crash_is_bit_identical(tmp_path, monkeypatch, dropout):
    task = lm_task()
    model = lm_model(task, 3, dropout)
    reference = outcome(train_model(model, task, CFG, seed=3, device="cpu"), model)

    ckpt = tmp_path / "run.pt"
    real_save = train_mod.save_checkpoint
    saved_steps = []

    def save_then_crash(path, state):
        real_save(path, state)
        saved_steps.append(state["step"])
        if state["step"] == 25:  # after evaluations at 7, 14, 21: best weights are in the state
            raise Crash("killed after step 25")

    monkeypatch.setattr(train_mod, "save_checkpoint", save_then_crash)
    with pytest.raises(Crash):
        train_model(
            lm_model(task, 3, dropout), task, CFG, seed=3, device="cpu", checkpoint=ckpt,
            checkpoint_every_s=0,
        )  # fmt: skip
    assert ckpt.exists() and saved_steps == list(range(1, 26))
    step, elapsed = saved_progress(ckpt)  # what a deadline or a carry reads, without resuming
    assert step == 25 and elapsed > 0
    monkeypatch.setattr(train_mod, "save_checkpoint", real_save)
    state = torch.load(ckpt, weights_only=True)
    assert state["step"] == 25 and [r["step"] for r in state["curves"]] == [7, 14, 21]
    assert state["best_state"] is not None

    # The resumed run starts from *other* weights (seed 99): everything must come from the file.
    model = lm_model(task, 99, dropout)
    resumed = train_model(model, task, CFG, seed=3, device="cpu", checkpoint=ckpt)
    assert_same(outcome(resumed, model), reference)
    assert not ckpt.exists(), "the checkpoint is deleted when the run finishes"
    assert not list(tmp_path.iterdir()), "no temporary files are left behind"


def test_without_a_checkpoint_the_other_weights_give_another_result():
    """The control for the test above: seed 99 alone does not reproduce the seed-3 run."""
    task = lm_task()
    a = lm_model(task, 3)
    b = lm_model(task, 99)
    ra = train_model(a, task, CFG, seed=3, device="cpu")
    rb = train_model(b, task, CFG, seed=3, device="cpu")
    assert ra.val != rb.val


CHILD = textwrap.dedent(
    """
    import sys, torch
    sys.path.insert(0, {tests!r})
    torch.set_num_threads(1)
    from test_checkpoint import lm_task, lm_model, CFG
    from rnnlab.core.train import train_model
    task = lm_task()
    cfg = CFG.replace(max_steps=3000, eval_every=100)
    train_model(lm_model(task, 5), task, cfg, seed=5, device="cpu", checkpoint={ckpt!r},
                checkpoint_every_s=0, progress=False)
    """
)


def test_sigkilled_run_resumes_to_the_uninterrupted_result(tmp_path):
    task = lm_task()
    cfg = CFG.replace(max_steps=3000, eval_every=100)
    ckpt = tmp_path / "killed.pt"
    script = CHILD.format(tests=str(Path(__file__).parent), ckpt=str(ckpt))
    env = {**os.environ, "PYTHONPATH": LIB + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.time() + 120
    try:
        while time.time() < deadline and proc.poll() is None:
            if ckpt.exists():
                time.sleep(0.3)  # let it run a few more steps and saves
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the child finished before it could be killed"
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    killed_at = torch.load(ckpt, weights_only=True)["step"]
    assert 1 <= killed_at < cfg.max_steps

    assert_resumes_to_the_uninterrupted_run(task, cfg, 5, ckpt)


CHILD_NO_SAVES = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, {tests!r})
    from test_checkpoint import lm_task, lm_model, CFG
    import torch
    from rnnlab.core.train import train_model
    torch.set_num_threads(1)  # as in the test process (conftest): the same sums, bit for bit
    task = lm_task()
    cfg = CFG.replace(max_steps=3000, eval_every=100)
    model = lm_model(task, 5)
    calls = []
    def mark(module, args, output):  # tell the test that training is under way
        calls.append(1)
        if len(calls) == 50:
            Path({marker!r}).touch()
    model.register_forward_hook(mark)
    # no periodic save within the run: only the interrupt can write the checkpoint
    train_model(model, task, cfg, seed=5, device="cpu", checkpoint={ckpt!r},
                checkpoint_every_s=3600, progress=False)
    """
)


def test_an_interrupted_run_saves_its_last_step_and_resumes_to_the_uninterrupted_result(
    tmp_path,
):
    """SIGINT (Ctrl-C, or ``timeout -s INT`` ending a GPU session) between periodic saves: the
    run finishes its step, saves it, raises KeyboardInterrupt; resumed, it ends as if never
    stopped. Before, everything since the last periodic save was lost."""
    task = lm_task()
    cfg = CFG.replace(max_steps=3000, eval_every=100)
    ckpt, marker = tmp_path / "interrupted.pt", tmp_path / "training"
    script = CHILD_NO_SAVES.format(tests=str(Path(__file__).parent), ckpt=str(ckpt),
                                   marker=str(marker))  # fmt: skip
    env = {**os.environ, "PYTHONPATH": LIB + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE,
                            text=True)  # fmt: skip
    try:
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and not marker.exists():
            time.sleep(0.01)
        assert proc.poll() is None, "the child finished before it could be interrupted"
        assert not ckpt.exists(), "no periodic save was due"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 1 and "KeyboardInterrupt" in err, err
    stopped_at = torch.load(ckpt, weights_only=True)["step"]
    assert 50 <= stopped_at < cfg.max_steps

    assert_resumes_to_the_uninterrupted_run(task, cfg, 5, ckpt)
    # and the handler is the default again once a run is over: Ctrl-C interrupts at once
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_checkpoint_of_another_run_is_refused(tmp_path, monkeypatch):
    task = lm_task()
    ckpt = tmp_path / "run.pt"
    real_save = train_mod.save_checkpoint

    def save_then_crash(path, state):
        real_save(path, state)
        raise Crash

    monkeypatch.setattr(train_mod, "save_checkpoint", save_then_crash)
    with pytest.raises(Crash):
        train_model(lm_model(task, 1), task, CFG, seed=1, checkpoint=ckpt, checkpoint_every_s=0)
    monkeypatch.setattr(train_mod, "save_checkpoint", real_save)
    for model, cfg, seed in [
        (lm_model(task, 1), CFG.replace(lr=3e-3), 1),  # another config
        (lm_model(task, 1), CFG, 2),  # another seed
    ]:
        with pytest.raises(ValueError, match="checkpoint .* belongs to a different run"):
            train_model(model, task, cfg, seed=seed, device="cpu", checkpoint=ckpt)
    wider = build_model(
        ModelConfig(kind="lm", num_layers=2, hidden_size=13, num_classes=7, vocab_size=7,
                    embedding_dim=6)
    )  # fmt: skip
    with pytest.raises(ValueError, match="different run"):
        train_model(wider, task, CFG, seed=1, device="cpu", checkpoint=ckpt)
    assert ckpt.exists(), "a refused checkpoint is left alone"
    with pytest.raises(ValueError, match="checkpoint_every_s"):
        train_model(lm_model(task, 1), task, CFG, seed=1, checkpoint=ckpt, checkpoint_every_s=-1)


def test_a_corrupt_checkpoint_is_named_moved_aside_and_the_run_starts_afresh(tmp_path):
    task = lm_task()
    ckpt = tmp_path / "run.pt"
    ckpt.write_bytes(b"PK\x03\x04 not a checkpoint: the disk filled up mid-save")
    with pytest.warns(UserWarning, match=r"checkpoint .*run\.pt cannot be read"):
        result = train_model(lm_model(task, 1), task, CFG, seed=1, device="cpu", checkpoint=ckpt)
    reference = train_model(lm_model(task, 1), task, CFG, seed=1, device="cpu")
    assert result.to_dict()["test"] == reference.to_dict()["test"]  # from scratch, same run
    assert (tmp_path / "run.pt.corrupt").exists() and not ckpt.exists()


def test_checkpoint_every_s_limits_how_often_it_saves(tmp_path, monkeypatch):
    task = lm_task()
    calls = []
    monkeypatch.setattr(train_mod, "save_checkpoint", lambda path, state: calls.append(state))
    train_model(
        lm_model(task, 0), task, CFG, seed=0, device="cpu", checkpoint=tmp_path / "c.pt",
        checkpoint_every_s=3600,
    )  # fmt: skip
    assert calls == []


# ----------------------------------------------------------------------------- schedules


def lrs(cfg: TrainConfig) -> list[float]:
    factor = train_mod.lr_schedule(cfg)
    return [factor(s) for s in range(cfg.max_steps + 1)]


def test_cosine_default_is_unchanged():
    cfg = TrainConfig(max_steps=100, warmup_steps=10, min_lr_ratio=0.1)
    assert cfg.schedule == "cosine"
    f = lrs(cfg)
    assert f[0] == pytest.approx(0.1) and f[9] == pytest.approx(1.0)
    for s in range(10, 101):
        cosine = 0.5 * (1.0 + math.cos(math.pi * ((s - 10) / 90)))
        assert f[s] == 0.1 + 0.9 * cosine  # exactly the formula used before "wsd" existed


def test_wsd_is_warmup_then_constant_then_linear_cooldown():
    cfg = TrainConfig(
        max_steps=100, warmup_steps=10, min_lr_ratio=0.1, schedule="wsd", decay_fraction=0.2
    )
    f = lrs(cfg)
    assert cfg.decay_steps == 20
    assert f[:10] == [pytest.approx((s + 1) / 10) for s in range(10)]
    assert f[10:80] == [1.0] * 70
    assert f[90] == pytest.approx(0.55) and f[100] == pytest.approx(0.1)
    assert all(a > b for a, b in zip(f[80:-1], f[81:], strict=True))
    task = lm_task()
    model = lm_model(task, 0)
    res = train_model(model, task, cfg.replace(eval_every=10, patience=None), seed=0, device="cpu")
    seen = {row["step"]: row["lr"] for row in res.curves}
    assert seen[50] == pytest.approx(cfg.lr) and seen[100] == pytest.approx(cfg.lr * 0.1)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(schedule="linear"), "schedule"),
        (dict(schedule="wsd", decay_fraction=0.0), "decay_fraction"),
        (dict(schedule="wsd", decay_fraction=1.5), "decay_fraction"),
        (dict(schedule="wsd", max_steps=100, warmup_steps=50, decay_fraction=0.6), "cooldown"),
    ],
)
def test_bad_schedules(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**kwargs)


def test_run_sweep_resumes_inside_a_run_from_its_checkpoint(tmp_path, monkeypatch):
    from rnnlab.experiments.experiment import run_id
    from rnnlab.experiments.labs import get_lab
    from rnnlab.experiments.options import RunOptions
    from rnnlab.experiments.sweep import SweepSpec, run_sweep

    full = get_lab("lab-c").sweep("smoke", (0,))
    spec = SweepSpec(full.lab, full.profile, full.experiments[:1], (0,))
    exp = spec.experiments[0]
    assert len(exp.lr_grid) == 1 and exp.train.max_steps == 12
    reference = run_sweep(spec, tmp_path / "ref.jsonl")[0]

    ckdir = tmp_path / "out.jsonl.ckpt"
    real_save = train_mod.save_checkpoint

    def save_then_crash(path, state):
        if state["step"] == 8:  # the interrupted attempt "took" 100 s more than it did
            state = {**state, "elapsed_s": state["elapsed_s"] + 100.0}
        real_save(path, state)
        if state["step"] == 8:
            raise Crash

    monkeypatch.setattr(train_mod, "save_checkpoint", save_then_crash)
    monkeypatch.setattr(train_mod, "train_model", _every_step(train_mod.train_model))
    crashed = run_sweep(spec, tmp_path / "out.jsonl", options=RunOptions(checkpoint_dir=ckdir))
    assert len(crashed) == 0 and len(crashed.failures) == 1  # recorded as failed, not a result
    expected = ckdir / f"{run_id(exp, 'eval', 0, exp.lr_grid[0])}.pt"
    assert [p.name for p in ckdir.iterdir()] == [expected.name]
    assert torch.load(expected, weights_only=True)["step"] == 8
    monkeypatch.setattr(train_mod, "save_checkpoint", real_save)
    resumed = run_sweep(spec, tmp_path / "out.jsonl", options=RunOptions(checkpoint_dir=ckdir))[0]
    assert not expected.exists()
    for key in ("val", "test", "test_by_group", "best_step", "steps"):
        assert resumed["metrics"][key] == reference["metrics"][key]
    strip = [[{k: v for k, v in r.items() if k != "elapsed_s"} for r in rec["curves"]]
             for rec in (resumed, reference)]  # fmt: skip
    assert strip[0] == strip[1]
    # the record's wall time counts the interrupted attempt, not only the last one
    assert resumed["wall_time_s"] >= resumed["metrics"]["wall_time_s"] >= 100.0


def _every_step(train):
    """``train_model`` with ``checkpoint_every_s=0`` (run_unit uses the default of minutes)."""

    def wrapper(*args, **kwargs):
        return train(*args, **{**kwargs, "checkpoint_every_s": 0})

    return wrapper


def test_a_process_that_ignores_interrupts_keeps_ignoring_them():
    """A sweep started in the background (``cmd &``) ignores SIGINT, as its shell set it; the
    training loop must not turn that back on for it (Python itself does not)."""
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with train_mod._interrupt_saves(True) as flag:
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert flag == [False]
    finally:
        signal.signal(signal.SIGINT, previous)
    with train_mod._interrupt_saves(True) as flag:  # the usual case: the loop's own handler
        assert signal.getsignal(signal.SIGINT) not in (signal.SIG_IGN, previous)
        signal.raise_signal(signal.SIGINT)
        assert flag == [True]
    assert signal.getsignal(signal.SIGINT) is previous


def test_an_interrupt_in_the_last_step_keeps_the_finished_training(tmp_path):
    """Interrupted in its very last step, a run saves that step too: the sweep that would record
    it is stopping, so a run allowed to finish would be lost with its checkpoint deleted.
    Resumed, it only evaluates, and ends as if never stopped."""
    task = lm_task()
    cfg = CFG.replace(max_steps=200, eval_every=100)
    ckpt = tmp_path / "last.pt"
    model = lm_model(task, 3)
    calls = []

    def interrupt_in_last_step(module, args, output):
        if module.training:
            calls.append(1)
            if len(calls) == cfg.max_steps:
                os.kill(os.getpid(), signal.SIGINT)

    hook = model.register_forward_hook(interrupt_in_last_step)
    with pytest.raises(KeyboardInterrupt):
        train_model(model, task, cfg, seed=3, device="cpu", checkpoint=ckpt,
                    checkpoint_every_s=3600, progress=False)  # fmt: skip
    hook.remove()
    assert torch.load(ckpt, weights_only=True)["step"] == cfg.max_steps
    assert_resumes_to_the_uninterrupted_run(task, cfg, 3, ckpt)


def test_saved_progress_only_reads_and_says_none_for_what_is_not_a_checkpoint(tmp_path):
    """No file, a truncated file and a file that is not a checkpoint give ``None`` and stay
    where they are (moving a damaged file aside is the owning run's job)."""
    assert saved_progress(tmp_path / "none.pt") is None
    bad = tmp_path / "bad.pt"
    torch.save({"step": 3, "elapsed_s": 1.5}, bad)
    assert saved_progress(bad) == (3, 1.5)
    bad.write_bytes(bad.read_bytes()[:20])  # truncated mid-write by a full disk, say
    assert saved_progress(bad) is None and bad.exists()
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(2)}, other)
    assert saved_progress(other) is None and other.exists()
