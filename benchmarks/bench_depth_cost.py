"""What depth costs at an equal parameter budget: time and FLOPs per token, and critical paths.

    python benchmarks/bench_depth_cost.py                 # --quick (default): well under 2 min
    python benchmarks/bench_depth_cost.py --full          # longer sequences, more repeats
    python benchmarks/bench_depth_cost.py --device cuda   # also on a GPU (if there is one)

For a character LM (vocabulary 96, embedding 32) budget-matched at each budget (whole model
within 2%) and L = 1, 2, 4, 8 it prints:

* ``train us/tok``: measured wall time of one training step (forward, backward, AdamW) per
  token, batch x seq_len tokens, median of the timed steps;
* ``gen us/tok``: autoregressive sampling, batch 1, one character at a time with the hidden
  state carried (:meth:`rnnlab.models.StackedLSTM.step`), per generated token;
* ``fwd FLOP``: the exact forward FLOPs per token (:func:`rnnlab.cost.model_forward_flops`),
  beside ``2P`` and ``6P`` (the usual estimates; the embedding is a lookup, so 2P overcounts);
* ``path LT`` and ``L+T-1``: the critical path of the layer-by-layer schedule and of a wavefront
  schedule over the training sequence (:func:`rnnlab.cost.critical_path`); generation is always
  ``L`` steps per token.

Prints figures; asserts nothing. Timings on a shared machine are noisy: the median is printed.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch
import torch.nn.functional as F

from rnnlab import cost
from rnnlab.models import build_model, count_parameters, matched_config

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


def run(device: torch.device, budgets, depths, batch, seq_len, steps, gen_tokens) -> None:
    print(f"\n== {device} ({torch.get_num_threads()} thread(s)), char-LM V={VOCAB} e={EMB}, "
          f"batch {batch} x T={seq_len}, {steps} timed steps, "
          f"{gen_tokens} generated tokens ==")  # fmt: skip
    head = (f"{'budget':>7s} {'L':>2s} {'d':>4s} {'params':>8s} {'fwd FLOP':>9s} {'2P':>9s} "
            f"{'6P':>9s} {'train us/tok':>12s} {'GFLOP/s':>7s} {'gen us/tok':>10s} "
            f"{'path LT':>7s} {'L+T-1':>5s}")  # fmt: skip
    print(head)
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--full", action="store_true", help="longer runs (the default is --quick)")
    p.add_argument("--quick", action="store_true", help="the default: short runs")
    p.add_argument("--device", default=None, help="cpu (default), cuda, or 'all'")
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args()
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
    t0 = time.perf_counter()
    for device in devices:
        run(device, (100_000, 400_000), (1, 2, 4, 8), **sizes)
    print(f"\ntotal {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
