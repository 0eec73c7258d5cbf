"""What depth costs at an equal parameter budget: time and FLOPs per token, and critical paths.

    python benchmarks/bench_depth_cost.py                 # --quick (default): well under 2 min
    python benchmarks/bench_depth_cost.py --full          # longer sequences, more repeats
    python benchmarks/bench_depth_cost.py --device cuda   # also on a GPU (if there is one)
    python benchmarks/bench_depth_cost.py --json data/bench/depth_cost-cpu.json  # keep the numbers

For a character LM (vocabulary 96, embedding 32) budget-matched at each budget (whole model
within 2%) and L = 1, 2, 4, 8 it prints:

* ``train us/tok``: measured wall time of one training step (forward, backward, AdamW) per
  token, batch x seq_len tokens, median of the timed steps;
* ``gen us/tok``: autoregressive sampling, batch 1, one character at a time with the hidden
  state carried (:meth:`rnnlab.core.models.StackedLSTM.step`), per generated token;
* ``fwd FLOP``: the exact forward FLOPs per token (:func:`rnnlab.core.cost.model_forward_flops`),
  beside ``2P`` and ``6P`` (the usual estimates; the embedding is a lookup, so 2P overcounts);
* ``path LT`` and ``L+T-1``: the critical path of the layer-by-layer schedule and of a wavefront
  schedule over the training sequence (:func:`rnnlab.core.cost.critical_path`); generation is always
  ``L`` steps per token.

Prints figures; asserts nothing. Timings on a shared machine are noisy: the median is printed.
With ``--json PATH`` it also writes every row with its provenance (machine, CPU count, load
average before and after, threads, torch version, commit, date, sizes), which the design chapter
reads: no timing is typed into prose.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import time
from pathlib import Path

import torch
import torch.nn.functional as F

from rnnlab.core import cost
from rnnlab.core.models import build_model, count_parameters, matched_config

VOCAB, EMB = 96, 32


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize()


def time_training(model, device, batch: int, seq_len: int, steps: int) -> float:
    """Median seconds per token of a full training step."""
    model.to(device).train()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    x = torch.randint(VOCAB, (batch, seq_len + 1), generator=g).to(device)
    times = []
    for i in range(steps + 1):  # the first step warms up (allocations, kernels)
        _sync(device)
        t0 = time.perf_counter()
        logits = model(x[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), x[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        _sync(device)
        if i:
            times.append(time.perf_counter() - t0)
    return statistics.median(times) / (batch * seq_len)


@torch.no_grad()
def time_generation(model, device, tokens: int) -> float:
    """Seconds per token of sampling one character at a time, state carried."""
    model.to(device).eval()
    g = torch.Generator(device=device).manual_seed(0)
    x = torch.zeros(1, 1, dtype=torch.long, device=device)
    state = None
    for _ in range(3):  # warm-up
        logits, state = model.step(x, state)
    _sync(device)
    t0 = time.perf_counter()
    for _ in range(tokens):
        logits, state = model.step(x, state)
        x = torch.multinomial(torch.softmax(logits[:, -1], -1), 1, generator=g)
    _sync(device)
    return (time.perf_counter() - t0) / tokens


def run(device: torch.device, budgets, depths, batch, seq_len, steps, gen_tokens) -> list[dict]:
    print(f"\n== {device} ({torch.get_num_threads()} thread(s)), char-LM V={VOCAB} e={EMB}, "
          f"batch {batch} x T={seq_len}, {steps} timed steps, "
          f"{gen_tokens} generated tokens ==")  # fmt: skip
    head = (f"{'budget':>7s} {'L':>2s} {'d':>4s} {'params':>8s} {'fwd FLOP':>9s} {'2P':>9s} "
            f"{'6P':>9s} {'train us/tok':>12s} {'GFLOP/s':>7s} {'gen us/tok':>10s} "
            f"{'path LT':>7s} {'L+T-1':>5s}")  # fmt: skip
    print(head)
    rows = []
    for budget in budgets:
        for layers in depths:
            config, _ = matched_config(
                kind="lm", budget=budget, num_layers=layers, num_classes=VOCAB,
                vocab_size=VOCAB, embedding_dim=EMB,
            )  # fmt: skip
            torch.manual_seed(0)
            model = build_model(config)
            p = count_parameters(model)
            fwd = cost.model_forward_flops(EMB, config.hidden_size, layers, VOCAB)
            train_s = time_training(model, device, batch, seq_len, steps)
            gen_s = time_generation(model, device, gen_tokens)
            gflops = cost.train_flops_per_token(fwd) / train_s / 1e9
            print(f"{budget:7,d} {layers:2d} {config.hidden_size:4d} {p:8,d} {fwd:9,d} "
                  f"{2 * p:9,d} {6 * p:9,d} {train_s * 1e6:12.1f} {gflops:7.2f} "
                  f"{gen_s * 1e6:10.1f} {cost.critical_path(layers, seq_len):7d} "
                  f"{cost.critical_path(layers, seq_len, schedule='wavefront'):5d}")  # fmt: skip
            rows.append({
                "device": str(device), "budget": budget, "num_layers": layers,
                "hidden_size": config.hidden_size, "params": p, "forward_flops": fwd,
                "train_flops": cost.train_flops_per_token(fwd),
                "train_s_per_token": train_s, "gen_s_per_token": gen_s,
                "critical_path_layerwise": cost.critical_path(layers, seq_len),
                "critical_path_wavefront": cost.critical_path(
                    layers, seq_len, schedule="wavefront"),
            })  # fmt: skip
    return rows


def provenance(threads: int, sizes: dict, load_before) -> dict:
    """Where and how the numbers were measured."""
    from rnnlab.experiments.unit import git_commit

    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": platform.node(),
        "platform": platform.platform(terse=True),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "threads": threads,
        "load_average_before": list(load_before) if load_before else None,
        "load_average_after": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "torch": torch.__version__,
        "python": platform.python_version(),
        "git_commit": git_commit(),
        "sizes": sizes,
        "vocab": VOCAB,
        "embedding_dim": EMB,
        "cuda_device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--full", action="store_true", help="longer runs (the default is --quick)")
    p.add_argument("--quick", action="store_true", help="the default: short runs")
    p.add_argument("--device", default=None, help="cpu (default), cuda, or 'all'")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--json", type=Path, default=None, help="also write the rows, with provenance")
    p.add_argument("--budgets", default="100000,400000", help="comma-separated budgets")
    p.add_argument("--depths", default="1,2,4,8", help="comma-separated depths")
    args = p.parse_args()
    load_before = os.getloadavg() if hasattr(os, "getloadavg") else None
    torch.set_num_threads(args.threads)
    if args.full:
        sizes = dict(batch=32, seq_len=128, steps=10, gen_tokens=400)
    else:
        sizes = dict(batch=16, seq_len=32, steps=3, gen_tokens=64)
    devices = [torch.device("cpu")]
    if args.device in ("cuda", "all") or (args.device is None and torch.cuda.is_available()):
        if torch.cuda.is_available():
            devices.append(torch.device("cuda"))
        else:
            print("CUDA was asked for but is not available; CPU only.")
    budgets = tuple(int(b) for b in args.budgets.split(","))
    depths = tuple(int(d) for d in args.depths.split(","))
    t0 = time.perf_counter()
    rows = []
    for device in devices:
        rows += run(device, budgets, depths, **sizes)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        doc = {"provenance": provenance(args.threads, sizes, load_before), "rows": rows}
        args.json.write_text(json.dumps(doc, indent=1) + "\n")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
