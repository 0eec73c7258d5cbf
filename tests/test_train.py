"""The training loop: it learns, it is deterministic, it stops, it measures right."""

import math

import pytest
import torch
import torch.nn.functional as F

from rnnlab.core.config import TrainConfig
from rnnlab.core.device import seed_everything, select_device
from rnnlab.core.models import ModelConfig, build_model
from rnnlab.core.tasks import TaskData
from rnnlab.core.train import evaluate, fit, train_model


def copy_last_task(n=600, T=6, V=5, seed=0) -> TaskData:
    """A trivially learnable task: the class is the last token."""
    g = torch.Generator().manual_seed(seed)
    xs = [torch.randint(V, (m, T), generator=g) for m in (n, 200, 200)]
    return TaskData(
        name="copy-last",
        kind="classify",
        x_train=xs[0],
        y_train=xs[0][:, -1].clone(),
        x_val=xs[1],
        y_val=xs[1][:, -1].clone(),
        x_test=xs[2],
        y_test=xs[2][:, -1].clone(),
        vocab_size=V,
        input_features=None,
        num_classes=V,
        metric="accuracy",
        test_groups=xs[2][:, 0].clone(),
        group_name="first token",
    )


def small_model(task: TaskData, seed=0, layers=1):
    seed_everything(seed)
    return build_model(
        ModelConfig(
            kind=task.kind,
            num_layers=layers,
            hidden_size=16,
            num_classes=task.num_classes,
            vocab_size=task.vocab_size,
            embedding_dim=8,
        )
    )


def test_learns_a_trivially_learnable_task():
    task = copy_last_task()
    cfg = TrainConfig(max_steps=300, batch_size=32, lr=1e-2, eval_every=50, patience=None)
    res = train_model(small_model(task), task, cfg, seed=0, device="cpu")
    assert res.test > 0.95, res
    assert res.curves[-1]["train_loss"] < res.curves[0]["train_loss"]
    assert set(res.test_by_group) == {str(v) for v in range(5)}


def test_same_seed_bit_identical_other_seed_differs():
    task = copy_last_task()
    cfg = TrainConfig(max_steps=40, batch_size=16, eval_every=20, patience=None)
    runs = [train_model(small_model(task, s), task, cfg, seed=s, device="cpu") for s in (3, 3, 4)]
    strip = [[{k: v for k, v in p.items() if k != "elapsed_s"} for p in r.curves] for r in runs]
    assert strip[0] == strip[1]
    assert (runs[0].val, runs[0].test) == (runs[1].val, runs[1].test)
    assert strip[0] != strip[2]


def test_early_stopping_and_fixed_compute():
    task = copy_last_task()
    # lr so small nothing improves after the first evaluation: patience 2 stops at step 3*eval.
    stop = train_model(
        small_model(task),
        task,
        TrainConfig(max_steps=1000, lr=1e-9, eval_every=10, patience=2, min_lr_ratio=1.0),
        seed=0,
        device="cpu",
    )
    assert stop.stopped_early and stop.steps < 1000
    fixed = train_model(
        small_model(task),
        task,
        TrainConfig(max_steps=50, lr=1e-9, eval_every=10, patience=None),
        seed=0,
        device="cpu",
    )
    assert fixed.steps == 50 and not fixed.stopped_early
    assert [p["step"] for p in fixed.curves] == [10, 20, 30, 40, 50]


def test_bits_per_char_and_sequence_accuracy_by_hand():
    model = torch.nn.Sequential()  # identity: "logits" are the inputs themselves
    logits = torch.randn(4, 3, 6)
    y = torch.randint(6, (4, 3))
    bpc, _ = evaluate(model, logits, y, "bits_per_char")
    assert bpc == pytest.approx(
        F.cross_entropy(logits.reshape(-1, 6), y.reshape(-1)).item() / math.log(2)
    )
    y2 = logits.argmax(-1).clone()
    y2[0, 1] = (y2[0, 1] + 1) % 6  # one wrong position in sequence 0
    y2[1, 2] = -100  # unscored
    acc, _ = evaluate(model, logits, y2, "sequence_accuracy")
    assert acc == pytest.approx(3 / 4)


def test_fit_picks_the_best_rate_on_validation():
    task = copy_last_task()
    cfg = TrainConfig(max_steps=150, batch_size=32, eval_every=50, patience=None)
    res, lr, scores = fit(lambda: small_model(task), task, cfg, [1e-7, 1e-2], seed=0, device="cpu")
    assert lr == 1e-2 and scores[1e-2] > scores[1e-7] and res.val == scores[1e-2]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(max_steps=0), "max_steps"),
        (dict(lr=-1.0), "lr"),
        (dict(patience=0), "patience"),
        (dict(amp="fp8"), "amp"),
        (dict(warmup_steps=10, max_steps=10), "warmup_steps"),
        (dict(clip=-1.0), "clip"),
    ],
)
def test_bad_train_config(kwargs, match):
    with pytest.raises(ValueError, match=match):
        TrainConfig(**kwargs)


def test_device_selection():
    assert select_device("cpu").type == "cpu"
    if not torch.cuda.is_available():
        assert select_device("auto").type in ("cpu", "mps")
        with pytest.raises(ValueError, match="CUDA"):
            select_device("cuda")
    with pytest.raises(ValueError, match="device"):
        select_device("tpu")
    with pytest.raises(ValueError, match="seed"):
        seed_everything(-1)
