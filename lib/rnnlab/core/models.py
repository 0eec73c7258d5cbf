r"""Budget-matched stacked recurrent models: classifiers, sequence taggers and language models.

Every model in the labs has the same three parts, and the *total* count of all three is what the
labs hold equal across depths:

.. math::

    P_\text{total}(d) = \underbrace{V e}_{\text{embedding}}
      + \underbrace{P_\text{stack}(e, d, L)}_{\text{recurrent stack}}
      + \underbrace{r C + C}_{\text{linear head}}

where :math:`V` is the input vocabulary, :math:`e` the embedding size (or the number of input
features when the input is already a vector, as for the digits), :math:`d` the hidden size,
:math:`L` the number of layers, :math:`r` the stack's output width (:math:`d`, or the projection
size) and :math:`C` the number of output classes. The embedding does not depend on :math:`d`, so
:func:`rnnlab.core.params.matched_width` solves for :math:`d` with the embedding as a fixed offset
(``extra_params``) and the head as ``output_size``.

**Design options** (all off by default, so a default configuration builds exactly the plain
``nn.LSTM`` stack of the earlier labs, with the same parameter names and counts):

* ``cell="gru"``: GRU layers instead of LSTM layers;
* ``proj_size=p``: LSTM with projections (LSTMP, Sak et al. 2014): each layer's output
  :math:`h_t = W_{hr}(o_t \odot \tanh c_t)` has width :math:`p < d`;
* ``residual=True``: layers :math:`k \ge 2` add their input to their output,
  :math:`y_k = f_k(y_{k-1}) + y_{k-1}` (equal widths: no parameters);
* ``layer_norm=True``: a LayerNorm on every layer's output, after the residual addition
  (post-norm, :math:`y_k = \operatorname{LN}_k(f_k(y_{k-1}) + y_{k-1})`).

With ``residual`` or ``layer_norm`` the stack is built from :math:`L` one-layer modules (the
fused ``nn.LSTM(num_layers=L)`` has no hook between layers); the count is the same.

Shapes (batch first):

* ``classify``: ``x`` is ``(B, T)`` token ids or ``(B, T, F)`` features; logits ``(B, C)`` are read
  from the last timestep's top-layer state.
* ``tag`` and ``lm``: logits ``(B, T, C)``, one prediction per timestep.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal, TypedDict, Unpack

import torch
from torch import nn

from rnnlab.core import params
from rnnlab.core.text import fmt_signed

Kind = Literal["classify", "tag", "lm"]
KINDS: tuple[str, ...] = ("classify", "tag", "lm")
CELLS: tuple[str, ...] = ("lstm", "gru")
DROPOUT_MODES: tuple[str, ...] = ("between", "all")
"""Where ``dropout`` acts: ``"between"`` layers only (PyTorch's ``dropout`` argument: no effect
on one layer), or on ``"all"`` non-recurrent connections (embedding -> first layer, between
layers, last layer -> head; Zaremba et al. 2014), which regularises every depth alike."""


@dataclass(frozen=True)
class ModelConfig:
    """Everything needed to rebuild a model; stored with every result for provenance.

    The design options ``cell``, ``proj_size``, ``residual`` and ``layer_norm`` default to the
    plain LSTM stack, so configurations written before they existed mean the same model.
    """

    kind: str
    num_layers: int
    hidden_size: int
    num_classes: int
    vocab_size: int | None = None
    embedding_dim: int | None = None
    input_features: int | None = None
    dropout: float = 0.0
    cell: str = "lstm"
    proj_size: int = 0
    residual: bool = False
    layer_norm: bool = False
    dropout_mode: str = "between"

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
        if self.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, got {self.cell!r}")
        if self.dropout_mode not in DROPOUT_MODES:
            raise ValueError(
                f"dropout_mode must be one of {DROPOUT_MODES}, got {self.dropout_mode!r}"
            )
        p = self.proj_size
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p < self.hidden_size:
            raise ValueError(
                f"proj_size must be an integer in [0, {self.hidden_size - 1}] (0: no projection; "
                f"torch requires proj_size < hidden_size={self.hidden_size}), got {p!r}"
            )
        if p and self.cell != "lstm":
            raise ValueError(f"proj_size must be 0 for cell={self.cell!r} (LSTM only), got {p}")
        for name in ("residual", "layer_norm"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}")

    @property
    def lstm_input_size(self) -> int:
        """The input size of the first recurrent layer: the embedding size or the feature count."""
        return self.embedding_dim if self.vocab_size is not None else self.input_features

    @property
    def mode(self) -> str:
        """The :mod:`rnnlab.core.params` mode of the cell: ``"LSTM"`` or ``"GRU"``."""
        return self.cell.upper()

    @property
    def output_width(self) -> int:
        """Width of each layer's output and the head's input: ``proj_size`` or ``hidden_size``."""
        return self.proj_size or self.hidden_size

    @property
    def per_layer(self) -> bool:
        """Whether the stack is built from one-layer modules (needed for residual/LayerNorm)."""
        return self.residual or self.layer_norm

    @property
    def fixed_params(self) -> int:
        """Parameters that do not depend on the hidden size (the embedding table)."""
        if self.vocab_size is None:
            return 0
        return params.embedding_param_count(self.vocab_size, self.embedding_dim)

    def param_count(self) -> int:
        """Exact total count (embedding + stack + head), computed without building the model."""
        return params.total_param_count(
            self.hidden_size,
            self.lstm_input_size,
            self.num_layers,
            mode=self.mode,
            output_size=self.num_classes,
            extra_params=self.fixed_params,
            proj_size=self.proj_size,
            residual=self.residual,
            layer_norm=self.layer_norm,
        )

    def to_dict(self) -> dict:
        d = asdict(self)
        if d["dropout_mode"] == "between":  # the default: configs written before it keep their form
            d.pop("dropout_mode")
        return d


def _check_positive_int(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}")


State = Any  # the recurrent state: a torch (h, c) / h, or a list of them (one per layer)


class StackedLSTM(nn.Module):
    r"""An (optional) embedding, an ``L``-layer recurrent stack and a linear head.

    Args:
        config: the :class:`ModelConfig`. ``config.dropout`` is applied between layers (PyTorch's
            ``dropout`` argument, or the same placement in the per-layer stack; it has no effect
            when ``num_layers == 1``); with ``dropout_mode="all"`` also to the embedding's
            output and to the last layer's output before the head (:data:`DROPOUT_MODES`).

    Attributes:
        embedding: ``nn.Embedding(V, e)`` or ``None`` for feature input.
        lstm / gru: the fused ``nn.LSTM`` / ``nn.GRU(num_layers=L)`` when neither ``residual``
            nor ``layer_norm`` is set (``proj_size`` is passed to ``nn.LSTM``).
        layers, norms: otherwise, ``L`` one-layer modules and ``L`` ``nn.LayerNorm(r)`` (empty
            without ``layer_norm``).
        head: ``nn.Linear(r, C)``.

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
        cls = nn.LSTM if config.cell == "lstm" else nn.GRU
        proj = {"proj_size": config.proj_size} if config.cell == "lstm" else {}
        if not config.per_layer:
            fused = cls(
                input_size=config.lstm_input_size,
                hidden_size=config.hidden_size,
                num_layers=config.num_layers,
                batch_first=True,
                dropout=config.dropout if config.num_layers > 1 else 0.0,
                **proj,
            )
            setattr(self, config.cell, fused)  # self.lstm (as before) or self.gru
        else:
            width = config.output_width
            self.layers = nn.ModuleList(
                cls(config.lstm_input_size if k == 0 else width, config.hidden_size,
                    batch_first=True, **proj)
                for k in range(config.num_layers)
            )  # fmt: skip
            self.norms = nn.ModuleList(
                nn.LayerNorm(width) for _ in range(config.num_layers if config.layer_norm else 0)
            )
            self.drop = nn.Dropout(config.dropout)
        # dropout on the stack's input and output (dropout_mode="all"; no parameters)
        self.io_drop = nn.Dropout(config.dropout if config.dropout_mode == "all" else 0.0)
        self.head = nn.Linear(config.output_width, config.num_classes)

    @property
    def recurrent(self) -> nn.Module:
        """The recurrent part: the fused module, or the ``ModuleList`` of one-layer modules."""
        return self.layers if self.config.per_layer else getattr(self, self.config.cell)

    def _stack(self, h: torch.Tensor, state: State) -> tuple[torch.Tensor, State]:
        if not self.config.per_layer:
            return getattr(self, self.config.cell)(h, state)
        states = state if state is not None else [None] * len(self.layers)
        new_states = []
        for k, layer in enumerate(self.layers):
            y, s = layer(h, states[k])
            if self.config.residual and k > 0:
                y = y + h
            if self.config.layer_norm:
                y = self.norms[k](y)
            if k < len(self.layers) - 1:
                y = self.drop(y)
            new_states.append(s)
            h = y
        return h, new_states

    def step(self, x: torch.Tensor, state: State = None) -> tuple[torch.Tensor, State]:
        """Run ``x`` from ``state`` (``None``: zeros) and return ``(logits, new_state)``.

        For autoregressive generation: feed one token ``(B, 1)`` at a time and pass the returned
        state back in; the logits are those :meth:`forward` gives for the whole sequence.
        """
        h = self.embedding(x) if self.embedding is not None else x
        out, new_state = self._stack(self.io_drop(h), state)  # (B, T, r)
        if self.config.kind == "classify":
            out = out[:, -1]
        return self.head(self.io_drop(out)), new_state

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.step(x)[0]


StackedRNN = StackedLSTM
"""The same class under a name that fits ``cell="gru"`` too."""


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
    cell: str = "lstm",
    proj_size: int = 0,
    proj_ratio: float | None = None,
    residual: bool = False,
    layer_norm: bool = False,
    dropout_mode: str = "between",
) -> tuple[ModelConfig, params.WidthMatch]:
    """The model configuration of depth ``num_layers`` whose total count is nearest ``budget``.

    The design options are those of :class:`ModelConfig`; a projection is given either as a fixed
    ``proj_size`` or as ``proj_ratio`` :math:`p/d` (:func:`rnnlab.core.params.proj_size_for_ratio`),
    which keeps the shape of the layers the same across depths. The whole model (embedding +
    stack + head) is matched.

    Raises ``ValueError`` when the nearest reachable count is more than ``tolerance`` (relative)
    away from the budget, naming the counts reachable at the neighbouring widths, so the caller can
    pick a budget that can be matched (small budgets make width coarse: one unit of width can be
    several per cent of the budget).
    """
    if not (0.0 < tolerance < 1.0):
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance}")
    if proj_ratio is not None and cell != "lstm":
        raise ValueError(f"proj_ratio must be None for cell={cell!r} (LSTM only), got {proj_ratio}")
    probe_proj = 1 if proj_ratio is not None else proj_size
    probe = ModelConfig(
        kind=kind,
        num_layers=num_layers,
        hidden_size=probe_proj + 1 if _is_count(probe_proj) else 1,  # proj_size < hidden_size
        num_classes=num_classes,
        vocab_size=vocab_size,
        embedding_dim=embedding_dim,
        input_features=input_features,
        dropout=dropout,
        cell=cell,
        proj_size=probe_proj,
        residual=residual,
        layer_norm=layer_norm,
        dropout_mode=dropout_mode,
    )
    options = dict(
        mode=probe.mode,
        output_size=num_classes,
        extra_params=probe.fixed_params,
        proj_size=proj_size,
        proj_ratio=proj_ratio,
        residual=residual,
        layer_norm=layer_norm,
    )
    match = params.matched_width(budget, probe.lstm_input_size, num_layers, **options)
    if abs(match.relative_error) > tolerance:
        d = match.hidden_size
        near = {
            w: _count_at(w, probe, proj_ratio)
            for w in (d - 1, d, d + 1)
            if w >= (2 if proj_ratio is not None else proj_size + 1)
        }
        raise ValueError(
            f"budget={budget} cannot be matched within {tolerance:.0%} at num_layers={num_layers}: "
            f"the nearest width {d} gives {match.param_count} parameters "
            f"({fmt_signed(match.relative_error, 1, percent=True)}); "
            f"reachable counts near it: {near}"
        )
    config = ModelConfig(
        **{**probe.to_dict(), "hidden_size": match.hidden_size, "proj_size": match.proj_size}
    )
    return config, match


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _count_at(width: int, probe: ModelConfig, proj_ratio: float | None) -> int:
    proj = probe.proj_size
    if proj_ratio is not None:
        proj = params.proj_size_for_ratio(width, proj_ratio)
    return ModelConfig(**{**probe.to_dict(), "hidden_size": width, "proj_size": proj}).param_count()


class MatchDesign(TypedDict, total=False):
    """The design options :func:`matched_config_for_task` passes on to :func:`matched_config`
    (see there for their meaning and defaults)."""

    dropout: float
    tolerance: float
    cell: str
    proj_size: int
    proj_ratio: float | None
    residual: bool
    layer_norm: bool
    dropout_mode: str


def matched_config_for_task(
    task,
    *,
    budget: int,
    num_layers: int,
    embedding_dim: int | None = 16,
    **design: Unpack[MatchDesign],
) -> tuple[ModelConfig, params.WidthMatch]:
    """:func:`matched_config` for a :class:`rnnlab.core.tasks.TaskData`: its kind, vocabulary (or
    feature count) and number of classes; ``embedding_dim`` is used only for token inputs. The
    other keywords (``dropout``, ``tolerance``, ``cell``, ``proj_size``, ``proj_ratio``,
    ``residual``, ``layer_norm``, ``dropout_mode``) are :func:`matched_config`'s, with its
    defaults."""
    return matched_config(
        kind=task.kind,
        budget=budget,
        num_layers=num_layers,
        num_classes=task.num_classes,
        vocab_size=task.vocab_size,
        embedding_dim=embedding_dim if task.vocab_size is not None else None,
        input_features=task.input_features,
        **design,
    )


def build_model(config: ModelConfig) -> StackedLSTM:
    """Build the model; its real count is checked against the formula (a cheap, permanent test)."""
    model = StackedLSTM(config)
    real = count_parameters(model)
    if real != config.param_count():  # pragma: no cover - would mean params.py is wrong
        raise RuntimeError(f"formula says {config.param_count()} parameters, torch has {real}")
    return model
