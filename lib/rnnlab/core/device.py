"""Devices, seeds and mixed precision: where a run trains, what it is called, how it is made
reproducible."""

from __future__ import annotations

import os
import random

import numpy as np
import torch

# ----------------------------------------------------------------------------- device and seeds


def select_device(preference: str | None = None) -> torch.device:
    """The device to train on: ``preference`` or ``$RNNLAB_DEVICE`` if given, else CUDA, then
    Apple's MPS, then the CPU."""
    choice = preference or os.environ.get("RNNLAB_DEVICE") or "auto"
    if choice != "auto":
        try:
            device = torch.device(choice)
        except RuntimeError as exc:
            raise ValueError(
                f"device must be 'auto', 'cpu', 'cuda[:i]' or 'mps', got {choice!r}"
            ) from exc
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device={choice!r} was asked for but CUDA is not available")
        return device
    if torch.cuda.is_available():
        return torch.device("cuda")
    if getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def device_name(device: torch.device) -> str:
    """A human-readable name of the hardware: the GPU model, or for the CPU its architecture,
    model and the vector instructions torch's kernels use, e.g.
    ``"x86_64: Intel(R) Xeon(R) Processor (AVX512)"``.

    The CPU's model is part of a run's provenance because it can change the numbers: on
    another CPU model torch's and oneDNN's kernels may use other instructions and block sizes,
    so sums are taken in another order and the same seed gives slightly different results. The
    same seed on the same CPU model gives the same numbers, to the last bit."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    if device.type == "mps":
        return "Apple MPS"
    import platform

    arch = platform.machine() or "cpu"
    return f"{arch}: {cpu_model()} ({torch.backends.cpu.get_cpu_capability()})"


def cpu_model() -> str:
    """The CPU's model name (``model name`` in ``/proc/cpuinfo`` on Linux), else what
    :func:`platform.processor` says, else ``"unknown CPU"``."""
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and torch's global generators (initial weights, dropout)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def amp_dtype(device: torch.device, amp: str) -> torch.dtype | None:
    """The autocast dtype for ``amp`` on ``device`` (``None``: full precision)."""
    if amp == "off" or device.type != "cuda":
        return None
    if amp == "bf16" or (amp == "auto" and torch.cuda.is_bf16_supported()):
        return torch.bfloat16
    return torch.float16
