r"""Budget-matched stacked LSTMs: classifiers, sequence taggers and language models.

Every model in the labs has the same three parts, and the *total* count of all three is what the
labs hold equal across depths:

.. math::

    P_\text{total}(d) = \underbrace{V e}_{\text{embedding}}
      + \underbrace{P_\text{LSTM}(e, d, L)}_{\text{recurrent stack}}
      + \underbrace{d C + C}_{\text{linear head}}

where :math:`V` is the input vocabulary, :math:`e` the embedding size (or the number of input
features when the input is already a vector, as for the digits), :math:`d` the hidden size,
:math:`L` the number of layers and :math:`C` the number of output classes. The embedding does not
depend on :math:`d`, so :func:`rnnlab.params.matched_width` solves the quadratic in :math:`d` with
the embedding as a fixed offset (``extra_params``) and the head as ``output_size``.

Shapes (batch first):

* ``classify``: ``x`` is ``(B, T)`` token ids or ``(B, T, F)`` features; logits ``(B, C)`` are read
  from the last timestep's top-layer state.
* ``tag`` and ``lm``: logits ``(B, T, C)``, one prediction per timestep.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

import torch
from torch import nn

from rnnlab import params

Kind = Literal["classify", "tag", "lm"]
KINDS: tuple[str, ...] = ("classify", "tag", "lm")


@dataclass(frozen=True)
class ModelConfig:
    """Everything needed to rebuild a model; stored with every result for provenance."""

    kind: str
    num_layers: int
    hidden_size: int
    num_classes: int
    vocab_size: int | None = None
    embedding_dim: int | None = None
    input_features: int | None = None
    dropout: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        for name in ("num_layers", "hidden_size", "num_classes"):
            _check_positive_int(name, getattr(self, name))
        if (self.vocab_size is None) == (self.input_features is None):
            raise ValueError(
                "exactly one of vocab_size (token input) and input_features (vector input) "
                f"must be set, got vocab_size={self.vocab_size}, "
                f"input_features={self.input_features}"
            )
        if self.vocab_size is not None:
            _check_positive_int("vocab_size", self.vocab_size)
            _check_positive_int("embedding_dim", self.embedding_dim)
        else:
            _check_positive_int("input_features", self.input_features)
            if self.embedding_dim is not None:
                raise ValueError(
                    "embedding_dim must be None when the input is features "
                    f"(input_features={self.input_features}), got {self.embedding_dim}"
                )
        if not (0.0 <= self.dropout < 1.0):
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")

    @property
    def lstm_input_size(self) -> int:
        """The input size of the first LSTM layer: the embedding size or the feature count."""
        return self.embedding_dim if self.vocab_size is not None else self.input_features

    @property
    def fixed_params(self) -> int:
        """Parameters that do not depend on the hidden size (the embedding table)."""
        if self.vocab_size is None:
            return 0
        return params.embedding_param_count(self.vocab_size, self.embedding_dim)

    def param_count(self) -> int:
        """Exact total count (embedding + LSTM + head), computed without building the model."""
        return params.total_param_count(
            self.hidden_size,
            self.lstm_input_size,
            self.num_layers,
            mode="LSTM",
            output_size=self.num_classes,
            extra_params=self.fixed_params,
        )

    def to_dict(self) -> dict:
        return asdict(self)


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


class StackedLSTM(nn.Module):
    r"""An (optional) embedding, an ``L``-layer ``torch.nn.LSTM`` and a linear head.

    Args:
        config: the :class:`ModelConfig`. ``config.dropout`` is applied between LSTM layers
            (PyTorch's ``dropout`` argument; it has no effect when ``num_layers == 1``).

    Inputs: ``x`` of shape ``(B, T)`` (int64 token ids) or ``(B, T, F)`` (float features).

    Outputs: logits of shape ``(B, C)`` for ``kind="classify"`` (read at the last timestep) and
    ``(B, T, C)`` for ``"tag"`` and ``"lm"``.
    """

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.embedding = (
            nn.Embedding(config.vocab_size, config.embedding_dim)
            if config.vocab_size is not None
            else None
        )
        self.lstm = nn.LSTM(
            input_size=config.lstm_input_size,
            hidden_size=config.hidden_size,
            num_layers=config.num_layers,
            batch_first=True,
            dropout=config.dropout if config.num_layers > 1 else 0.0,
        )
        self.head = nn.Linear(config.hidden_size, config.num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.embedding(x) if self.embedding is not None else x
        out, _ = self.lstm(h)  # (B, T, d)
        if self.config.kind == "classify":
            out = out[:, -1]
        return self.head(out)


def count_parameters(model: nn.Module) -> int:
    """``sum(p.numel())`` over the module's parameters: the ground truth every formula is checked
    against."""
    return sum(p.numel() for p in model.parameters())


def matched_config(
    *,
    kind: str,
    budget: int,
    num_layers: int,
    num_classes: int,
    vocab_size: int | None = None,
    embedding_dim: int | None = None,
    input_features: int | None = None,
    dropout: float = 0.0,
    tolerance: float = 0.02,
) -> tuple[ModelConfig, params.WidthMatch]:
    """The model configuration of depth ``num_layers`` whose total count is nearest ``budget``.

    Raises ``ValueError`` when the nearest reachable count is more than ``tolerance`` (relative)
    away from the budget, naming the counts reachable at the neighbouring widths, so the caller can
    pick a budget that can be matched (small budgets make width coarse: one unit of width can be
    several per cent of the budget).
    """
    if not (0.0 < tolerance < 1.0):
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance}")
    probe = ModelConfig(
        kind=kind,
        num_layers=num_layers,
        hidden_size=1,
        num_classes=num_classes,
        vocab_size=vocab_size,
        embedding_dim=embedding_dim,
        input_features=input_features,
        dropout=dropout,
    )
    match = params.matched_width(
        budget,
        probe.lstm_input_size,
        num_layers,
        mode="LSTM",
        output_size=num_classes,
        extra_params=probe.fixed_params,
    )
    if abs(match.relative_error) > tolerance:
        d = match.hidden_size
        near = {
            w: ModelConfig(**{**probe.to_dict(), "hidden_size": w}).param_count()
            for w in (d - 1, d, d + 1)
            if w >= 1
        }
        raise ValueError(
            f"budget={budget} cannot be matched within {tolerance:.0%} at num_layers={num_layers}: "
            f"the nearest width {d} gives {match.param_count} parameters "
            f"({match.relative_error:+.1%}); reachable counts near it: {near}"
        )
    config = ModelConfig(**{**probe.to_dict(), "hidden_size": match.hidden_size})
    return config, match


def matched_config_for_task(
    task,
    *,
    budget: int,
    num_layers: int,
    embedding_dim: int | None = 16,
    dropout: float = 0.0,
    tolerance: float = 0.02,
) -> tuple[ModelConfig, params.WidthMatch]:
    """:func:`matched_config` for a :class:`rnnlab.tasks.TaskData`: its kind, vocabulary (or
    feature count) and number of classes; ``embedding_dim`` is used only for token inputs."""
    return matched_config(
        kind=task.kind,
        budget=budget,
        num_layers=num_layers,
        num_classes=task.num_classes,
        vocab_size=task.vocab_size,
        embedding_dim=embedding_dim if task.vocab_size is not None else None,
        input_features=task.input_features,
        dropout=dropout,
        tolerance=tolerance,
    )


def build_model(config: ModelConfig) -> StackedLSTM:
    """Build the model; its real count is checked against the formula (a cheap, permanent test)."""
    model = StackedLSTM(config)
    real = count_parameters(model)
    if real != config.param_count():  # pragma: no cover - would mean params.py is wrong
        raise RuntimeError(f"formula says {config.param_count()} parameters, torch has {real}")
    return model
