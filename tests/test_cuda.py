"""The CUDA path: the same models and training loop on a GPU. Skipped where there is none (CI and
this course's 2-core machines); ``scripts/gpu_session.sh`` runs them first on a GPU machine.

What they check, beyond "it runs":

* a forward and backward pass on CUDA equals the CPU's in fp32 (TF32 off), for every stack the
  course builds (plain, residual + LayerNorm, projected, GRU);
* training on CUDA learns a trivially learnable task in fp32 and under both autocast modes;
* a run killed mid-way on CUDA and resumed from its checkpoint ends where the uninterrupted run
  ends;
* the training step makes no host synchronisation: the number of syncs that
  ``torch.cuda.set_sync_debug_mode`` reports does not grow with the number of steps.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from test_checkpoint import Crash, lm_model, lm_task
from test_train import copy_last_task, small_model

import rnnlab.core.train as train_mod
from rnnlab.core.config import TrainConfig
from rnnlab.core.device import seed_everything
from rnnlab.core.models import ModelConfig, build_model
from rnnlab.core.train import train_model

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device here")

STACKS = {
    "plain": {},
    "residual-ln": {"residual": True, "layer_norm": True},
    "projected": {"proj_size": 12},
    "gru": {"cell": "gru"},
}


@pytest.fixture
def exact_fp32():
    """fp32 without TF32 (cuDNN's RNNs and cuBLAS use TF32 by default on recent GPUs)."""
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
    yield
    torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved


@pytest.mark.parametrize("stack", sorted(STACKS))
def test_forward_and_gradients_on_cuda_equal_the_cpus(stack, exact_fp32):
    seed_everything(0)
    cfg = ModelConfig(kind="lm", num_layers=3, hidden_size=24, num_classes=11, vocab_size=11,
                      embedding_dim=8, **STACKS[stack])  # fmt: skip
    cpu = build_model(cfg)
    gpu = build_model(cfg)
    gpu.load_state_dict(cpu.state_dict())
    gpu.cuda()
    x = torch.randint(11, (4, 20), generator=torch.Generator().manual_seed(1))
    grads = []
    for model, dev in ((cpu, "cpu"), (gpu, "cuda")):
        logits = model(x.to(dev))
        loss = F.cross_entropy(logits.reshape(-1, 11), x.to(dev).roll(-1, 1).reshape(-1))
        loss.backward()
        grads.append((logits.detach().cpu(), [p.grad.cpu() for p in model.parameters()]))
    (l_cpu, g_cpu), (l_gpu, g_gpu) = grads
    torch.testing.assert_close(l_gpu, l_cpu, rtol=1e-4, atol=1e-5)
    for a, b in zip(g_gpu, g_cpu, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-5)


@pytest.mark.parametrize("amp", ["off", "bf16", "fp16"])
def test_learns_a_trivially_learnable_task_on_cuda(amp):
    task = copy_last_task()
    cfg = TrainConfig(max_steps=300, batch_size=32, lr=1e-2, eval_every=50, patience=None,
                      amp=amp)  # fmt: skip
    res = train_model(small_model(task), task, cfg, seed=0, device="cuda")
    assert res.test > 0.95, res
    assert res.curves[-1]["train_loss"] < res.curves[0]["train_loss"]


def test_a_killed_cuda_run_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch):
    task = lm_task()
    cfg = TrainConfig(max_steps=40, batch_size=16, lr=5e-3, eval_every=7, patience=None,
                      amp="off")  # fmt: skip
    reference = train_model(lm_model(task, 3), task, cfg, seed=3, device="cuda")
    ckpt = tmp_path / "run.pt"
    real_save = train_mod.save_checkpoint

    def save_then_crash(path, state):
        real_save(path, state)
        if state["step"] == 25:
            raise Crash("killed after step 25")

    monkeypatch.setattr(train_mod, "save_checkpoint", save_then_crash)
    with pytest.raises(Crash):
        train_model(lm_model(task, 3), task, cfg, seed=3, device="cuda", checkpoint=ckpt,
                    checkpoint_every_s=0)  # fmt: skip
    monkeypatch.setattr(train_mod, "save_checkpoint", real_save)
    resumed = train_model(lm_model(task, 99), task, cfg, seed=3, device="cuda", checkpoint=ckpt)
    # cuDNN's kernels need not be bit-reproducible; the same state must give the same run
    assert resumed.steps == reference.steps and resumed.best_step == reference.best_step
    assert resumed.test == pytest.approx(reference.test, rel=1e-3)
    assert [c["val"] for c in resumed.curves] == pytest.approx(
        [c["val"] for c in reference.curves], rel=1e-3
    )


def _syncs(max_steps: int) -> int:
    task = lm_task()
    # one evaluation, at the end: any sync that scales with max_steps is in the training step
    cfg = TrainConfig(max_steps=max_steps, batch_size=16, eval_every=max_steps, patience=None,
                      amp="bf16")  # fmt: skip
    model = lm_model(task, 0)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        torch.cuda.set_sync_debug_mode("warn")
        try:
            train_model(model, task, cfg, seed=0, device="cuda", progress=False)
        finally:
            torch.cuda.set_sync_debug_mode("default")
    return sum("synchroniz" in str(w.message) for w in seen)


def test_the_training_step_makes_no_host_sync():
    _syncs(5)  # warm-up: first calls (cuDNN plans, allocator) may sync once
    assert _syncs(10) == _syncs(40)
