"""The profiles: how much compute a run of a lab may use (``smoke``, ``cpu``, ``colab``, ``gpu``;
see :mod:`rnnlab.experiments.labs`), and which one applies here (:func:`resolve_profile`)."""

from __future__ import annotations

import os
from dataclasses import dataclass

# ----------------------------------------------------------------------------- profiles


@dataclass(frozen=True)
class Profile:
    """How much compute a lab run may use (see the module docstring)."""

    name: str
    description: str
    evidence: bool  # may its results be shown as evidence?
    seeds: tuple[int, ...]
    target: str  # the time each lab is designed to take


#: The cpu profile's design target: every lab within this many minutes on 2 CPU cores. The one
#: place the number lives (the profile's ``target``, ``benchmarks/time_labs.py`` and the README's
#: profile table use it; ``tests/test_status.py`` checks the README).
CPU_TARGET_MINUTES = 30

PROFILES: dict[str, Profile] = {
    "smoke": Profile(
        "smoke",
        "CI and book-build check of the code paths; tiny models, a few steps. Never evidence.",
        evidence=False,
        seeds=(0, 1),
        target="<= 20 s per lab on 2 CPU cores",
    ),
    "cpu": Profile(
        "cpu",
        "A student without a GPU: small budgets, 5 seeds, fixed-length schedules.",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target=f"<= {CPU_TARGET_MINUTES} min per lab on 2 CPU cores (make results runs two jobs)",
    ),
    "reference": Profile(
        "reference",
        "Hours of CPU compute, run in the background and resumable, committed so that nobody "
        "has to rerun it: what the cpu profile cannot reach on 2 cores in "
        f"{CPU_TARGET_MINUTES} min (Lab D only).",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target="a few core-hours on a CPU (measured wall time in the results)",
    ),
    "colab": Profile(
        "colab",
        "A free Colab GPU, about 15 minutes per lab: the cpu design at the reference results' "
        "tuned learning rates (no tuning), 3 seeds. A replication; the committed cpu results "
        "stay the evidence. Longer: RNNLAB_PROFILE=gpu.",
        evidence=True,
        seeds=(0, 1, 2),
        target="about 15 min per lab on a free Colab T4 (an estimate: see colab_estimate)",
    ),
    "gpu": Profile(
        "gpu",
        "A Colab-class GPU: budgets up to about 1M parameters, longer training, 5 seeds.",
        evidence=True,
        seeds=(0, 1, 2, 3, 4),
        target="budgets up to about 1M parameters on one GPU (GPU time not yet measured)",
    ),
}


def _on_colab() -> bool:
    import sys

    return "google.colab" in sys.modules


def resolve_profile(name: str | None = None) -> Profile:
    """The profile called ``name``, else ``$RNNLAB_PROFILE``, else ``colab`` on Colab with a GPU,
    ``gpu`` with CUDA elsewhere, else ``cpu``."""
    choice = name or os.environ.get("RNNLAB_PROFILE")
    if not choice:
        import torch

        if torch.cuda.is_available():
            choice = "colab" if _on_colab() else "gpu"
        else:
            choice = "cpu"
    if choice not in PROFILES:
        raise ValueError(f"profile must be one of {sorted(PROFILES)}, got {choice!r}")
    return PROFILES[choice]


#: The smoke profile's character-LM runs, shared by the scale map's and the convergence
#: experiment's smoke designs: tiny windows, batches and data, and a two-rate grid with no
#: extension, so the smoke profile stays seconds long.
SMOKE_CHARLM = dict(
    seq_len=32,
    batch_size=8,
    embedding_dim=16,
    n_train=64,
    n_val=16,
    warmup_steps=2,
    lr_grid=(2e-3, 4e-3),
    lr_limits=(2e-3, 4e-3),
)
