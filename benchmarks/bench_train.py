"""Benchmarks: engine overhead, throughput, and lab wall times. Prints figures; asserts nothing.

    python benchmarks/bench_train.py                 # everything (a few minutes on 2 CPU cores)
    python benchmarks/bench_train.py --skip-smoke    # no smoke-lab timings
    python benchmarks/bench_train.py --device cuda   # on a GPU

1. **Overhead**: ms per training step of :func:`rnnlab.core.train.train_model` against a bare loop
   (``nn.Embedding`` + ``nn.LSTM`` + ``nn.Linear``, AdamW, gradient clipping, cosine schedule) on
   identical shapes and batches. Target ratio <= 1.05 on CPU.
2. **Throughput**: tokens/s and achieved GFLOP/s, counted as 6 x parameters x tokens / s (the
   usual forward+backward estimate for dense layers; an LSTM's recurrence is included in its
   weight count).
3. **Lab wall times**: each lab in the smoke profile (timed here) and in the cpu profile (read
   from the committed results' provenance: compute time summed over runs, and the span between
   the first and last run's start).
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from rnnlab.core.config import TrainConfig  # noqa: E402
from rnnlab.core.device import seed_everything, select_device  # noqa: E402
from rnnlab.core.models import ModelConfig, build_model, count_parameters  # noqa: E402
from rnnlab.core.paths import results_dir  # noqa: E402
from rnnlab.core.tasks import TaskData  # noqa: E402
from rnnlab.core.train import evaluate, train_model  # noqa: E402
from rnnlab.experiments.labs import LABS, run_lab  # noqa: E402
from rnnlab.experiments.store import load_results  # noqa: E402

CONFIGS = [  # (name, layers, hidden, vocab, emb, T, batch)
    ("char-LM L=1 d=128", 1, 128, 96, 32, 64, 32),
    ("char-LM L=2 d=80", 2, 80, 96, 32, 64, 32),
    ("char-LM L=4 d=54", 4, 54, 96, 32, 64, 32),
    ("LM L=1 d=256 (pilot shape)", 1, 256, 96, 32, 100, 64),
]


def lm_data(vocab: int, T: int, n: int = 2048) -> TaskData:
    g = torch.Generator().manual_seed(0)
    x = torch.randint(vocab, (n, T + 1), generator=g)
    return TaskData(
        "bench", "lm", x[:, :-1], x[:, 1:], x[:64, :-1], x[:64, 1:], x[:64, :-1], x[:64, 1:],
        vocab, None, vocab, "bits_per_char",
    )  # fmt: skip


def bare_loop(model, data: TaskData, steps: int, batch: int, device) -> float:
    """The same work without the engine: seconds per step."""
    model.to(device).train()
    x, y = data.x_train.to(device), data.y_train.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * s / steps))
    )
    gen = torch.Generator(device=device).manual_seed(0)
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(steps):
        idx = torch.randint(x.shape[0], (batch,), generator=gen, device=device)
        logits = model(x[idx])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y[idx].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
    _sync(device)
    return (time.perf_counter() - t0) / steps


def engine_loop(model, data: TaskData, steps: int, batch: int, device) -> float:
    cfg = TrainConfig(max_steps=steps, batch_size=batch, eval_every=steps, patience=None)
    _sync(device)
    t0 = time.perf_counter()
    train_model(model, data, cfg, seed=0, device=device, progress=False)
    _sync(device)
    elapsed = time.perf_counter() - t0
    # train_model evaluates 3 times at the end (val at the last step, then val and test of the
    # restored best weights); time one evaluation and subtract them, so only steps are compared.
    x, y = data.x_val.to(device), data.y_val.to(device)
    t1 = time.perf_counter()
    evaluate(model, x, y, data.metric)
    _sync(device)
    return (elapsed - 3 * (time.perf_counter() - t1)) / steps


def _sync(device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def overhead_and_throughput(device, steps: int, repeats: int) -> None:
    print(f"\n== 1-2. Engine overhead and throughput on {device} "
          f"({torch.get_num_threads()} threads), {steps} steps x {repeats} repeats ==")  # fmt: skip
    print(f"{'config':30s} {'params':>8s} {'bare ms':>8s} {'engine ms':>9s} {'ratio':>6s} "
          f"{'tokens/s':>9s} {'GFLOP/s':>8s}")  # fmt: skip
    for name, layers, hidden, vocab, emb, T, batch in CONFIGS:
        data = lm_data(vocab, T)
        cfg = ModelConfig("lm", layers, hidden, vocab, vocab_size=vocab, embedding_dim=emb)
        bare, eng = [], []
        for r in range(repeats):  # interleave to share any background noise fairly
            seed_everything(r)
            bare.append(bare_loop(build_model(cfg), data, steps, batch, device))
            seed_everything(r)
            eng.append(engine_loop(build_model(cfg), data, steps, batch, device))
        b, e = statistics.median(bare), statistics.median(eng)
        n_params = count_parameters(build_model(cfg))
        tok_s = batch * T / e
        print(f"{name:30s} {n_params:8,d} {b * 1e3:8.2f} {e * 1e3:9.2f} {e / b:6.3f} "
              f"{tok_s:9,.0f} {6 * n_params * tok_s / 1e9:8.2f}")  # fmt: skip


def lab_times(skip_smoke: bool) -> None:
    print("\n== 3. Lab wall times ==")
    if not skip_smoke:
        with tempfile.TemporaryDirectory() as tmp:
            for name in LABS:
                t0 = time.perf_counter()
                run_lab(name, profile="smoke", out=Path(tmp) / f"{name}.jsonl")
                print(f"   smoke  {name}: {time.perf_counter() - t0:6.1f} s (target <= 20 s)")
    for name in LABS:
        for profile in ("cpu", "reference", "gpu"):
            path = results_dir() / f"{name}-{profile}.jsonl"
            recs = load_results(path)
            if not recs:
                continue
            starts = sorted(dt.datetime.fromisoformat(r["started_at"]) for r in recs)
            last = max(recs, key=lambda r: r["started_at"])
            span = (starts[-1] - starts[0]).total_seconds() + last["wall_time_s"]
            compute = sum(r["wall_time_s"] for r in recs)
            expected = LABS[name].sweep(profile).n_runs()
            print(f"   {profile:5s}  {name}: {len(recs)}/{expected} runs, {compute / 60:6.1f} min "
                  f"of compute, {span / 60:6.1f} min wall (first to last run) on "
                  f"{recs[0]['device_name']}, {recs[0]['threads']} thread(s) per run")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default=None)
    p.add_argument("--steps", type=int, default=150)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--skip-smoke", action="store_true")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    device = select_device(args.device)
    overhead_and_throughput(device, args.steps, args.repeats)
    lab_times(args.skip_smoke)


if __name__ == "__main__":
    main()
