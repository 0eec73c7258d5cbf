"""Shared test settings: the smoke profile, no progress bars, one torch thread."""

import os

os.environ.setdefault("RNNLAB_PROFILE", "smoke")
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import torch  # noqa: E402

torch.set_num_threads(1)
