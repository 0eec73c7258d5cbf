"""How many training processes to pack onto one device: steps per second, per process and in all.

    python benchmarks/bench_packing.py                              # cpu, 1 and 2 processes
    python benchmarks/bench_packing.py --device cuda --jobs 1,2,4,8,12 --json packing-cuda.json

The convergence experiment's runs are small (a 160K-parameter LSTM, batch 32 x 128 characters:
4,096 tokens a step), so on a GPU one run is bound by latency (kernel launches, the recurrence's
128 sequential steps), not arithmetic: the device idles most of each step. Packing several runs
onto it fills the gaps, but only as far as the processes can share it (without NVIDIA's MPS, the
kernels of different processes take turns rather than overlap). This measures that instead of
guessing: for each number of processes K it starts K processes at once, each training the
experiment's model with the experiment's step (AdamW, fused on CUDA; mixed precision as
``TrainConfig(amp="auto")``; gradient clipping) on random characters for ``--seconds`` after a
warm-up, and prints each K's steps per second per process (the slowest) and in all.
``scripts/gpu_session.sh`` (``PACKING="1 2 4 8"``) runs it before the sweep and takes the K that
trains most steps per second in all among those whose every process still finishes a run in the
time left (:func:`rnnlab.experiments.runner.jobs_from_packing`). Prints figures; asserts nothing.
With ``--json PATH`` it writes the rows with their provenance.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import multiprocessing as mp
import os
import platform
import queue
import statistics
import time
from pathlib import Path

import torch
from torch import nn

from rnnlab.core.device import amp_dtype
from rnnlab.core.models import build_model, matched_config
from rnnlab.core.train import batch_loss

VOCAB, EMB = 97, 32  # the convergence experiment's character model (96 characters and padding)


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def train_for(device: str, budget: int, layers: int, batch: int, seq_len: int,
              seconds: float, barrier, results) -> None:  # fmt: skip
    """One process: build the model, warm up, wait for the others, then train for ``seconds``
    and put ``(steps, elapsed_s)`` in ``results``."""
    torch.set_num_threads(1)
    dev = torch.device(device)
    config, _ = matched_config(
        kind="lm", budget=budget, num_layers=layers, num_classes=VOCAB, vocab_size=VOCAB,
        embedding_dim=EMB,
    )  # fmt: skip
    torch.manual_seed(0)
    model = build_model(config).to(dev).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=dev.type == "cuda" or None)
    dtype = amp_dtype(dev, "auto")
    data = torch.randint(VOCAB, (4096, seq_len + 1), device=dev)
    gen = torch.Generator(device=dev).manual_seed(0)

    def step() -> None:
        idx = torch.randint(data.shape[0], (batch,), generator=gen, device=dev)
        x, y = data[idx, :-1], data[idx, 1:]
        with torch.autocast(dev.type, dtype=dtype) if dtype else contextlib.nullcontext():
            logits = model(x)
        loss = batch_loss(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    for _ in range(10):  # allocations, kernel choice
        step()
    _sync(dev)
    barrier.wait()
    steps, t0 = 0, time.perf_counter()
    while True:
        for _ in range(20):  # check the clock every 20 steps: one host sync per check
            step()
        steps += 20
        _sync(dev)
        if time.perf_counter() - t0 >= seconds:
            break
    results.put((steps, time.perf_counter() - t0))


def measure(device: str, jobs: int, budget: int, layers: int, batch: int, seq_len: int,
            seconds: float) -> dict:  # fmt: skip
    """Steps per second of ``jobs`` processes training at once on ``device``."""
    ctx = mp.get_context("spawn")
    barrier, results = ctx.Barrier(jobs), ctx.Queue()
    procs = [
        ctx.Process(target=train_for,
                    args=(device, budget, layers, batch, seq_len, seconds, barrier, results))
        for _ in range(jobs)
    ]  # fmt: skip
    for p in procs:
        p.start()
    got: list[tuple[int, float]] = []
    deadline = time.perf_counter() + 300 + seconds
    while len(got) < jobs:
        try:
            got.append(results.get(timeout=1.0))
        except queue.Empty:
            failed = [p.exitcode for p in procs if p.exitcode not in (None, 0)]
            if failed or time.perf_counter() > deadline:
                for p in procs:
                    p.kill()
                raise SystemExit(
                    f"{jobs} processes on {device}: "
                    + (f"a process failed (exit codes {failed})" if failed else "timed out")
                ) from None
    for p in procs:
        p.join()
    rates = [s / e for s, e in got]
    return {
        "device": device, "jobs": jobs, "budget": budget, "num_layers": layers,
        "batch": batch, "seq_len": seq_len, "seconds": seconds,
        "steps_per_s_slowest": min(rates), "steps_per_s_median": statistics.median(rates),
        "steps_per_s_total": sum(rates),
    }  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--device", default="cpu")
    p.add_argument("--jobs", default="1,2", help="comma-separated numbers of processes")
    p.add_argument("--budget", type=int, default=160_000, help="the model's parameter budget")
    p.add_argument("--layers", type=int, default=1)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--seconds", type=float, default=8.0, help="timed seconds per process")
    p.add_argument("--json", type=Path, default=None, help="also write the rows, with provenance")
    args = p.parse_args()
    jobs = [int(j) for j in args.jobs.split(",")]
    if not jobs or min(jobs) < 1:
        raise SystemExit(f"--jobs must be numbers >= 1, got {args.jobs!r}")
    if args.seconds <= 0:
        raise SystemExit(f"--seconds must be > 0, got {args.seconds!r}")
    started = time.perf_counter()
    print(f"== packing on {args.device}: budget {args.budget:,}, L={args.layers}, "
          f"batch {args.batch} x T={args.seq_len}, {args.seconds:g} s timed per K ==")  # fmt: skip
    print(f"{'K':>3s} {'steps/s each (slowest)':>23s} {'steps/s in all':>15s} {'vs K=1':>7s}")
    rows = []
    for k in jobs:
        row = measure(args.device, k, args.budget, args.layers, args.batch, args.seq_len,
                      args.seconds)  # fmt: skip
        rows.append(row)
        base = rows[0]["steps_per_s_total"] if rows[0]["jobs"] == 1 else float("nan")
        print(f"{k:3d} {row['steps_per_s_slowest']:23.1f} {row['steps_per_s_total']:15.1f} "
              f"{row['steps_per_s_total'] / base:7.2f}")  # fmt: skip
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    if args.json:
        from rnnlab.experiments.unit import git_commit

        name = (
            torch.cuda.get_device_name() if args.device.startswith("cuda") else platform.processor()
        )
        prov = {
            "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
            "machine": platform.node(), "device_name": name, "cpu_count": os.cpu_count(),
            "torch": torch.__version__, "git_commit": git_commit(),
            "mps": bool(os.environ.get("CUDA_MPS_PIPE_DIRECTORY")),
        }  # fmt: skip
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"provenance": prov, "rows": rows}, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
