"""What a parameter budget buys in the design chapter: the width each design gets at each depth,
the bits a memorisation probe can measure, and the FLOPs per token a forward and a training pass
cost. Every number is computed here from the library's counts
(:func:`rnnlab.core.models.matched_config`, :mod:`rnnlab.core.tasks.capacity`,
:mod:`rnnlab.core.cost`); the chapter asserts what its text says about them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rnnlab.core import cost, params
from rnnlab.core.models import ModelConfig, matched_config
from rnnlab.core.tasks.capacity import (
    bits_per_parameter,
    memorized_bits,
    symmetric_information_bits,
)
from rnnlab.core.text import fmt_signed
from rnnlab.course import book
from rnnlab.experiments.lab import Lab
from rnnlab.experiments.lab_d import CAPACITY_FLOOR

# --- widths --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchedDesign:
    """One design (a set of stack options) at one depth, matched to a parameter budget.

    Attributes:
        design: the design's name, e.g. ``"residual-ln"``.
        config: the matched model (:func:`rnnlab.core.models.matched_config`); its
            ``num_layers`` is the depth and its ``hidden_size`` the width the budget bought.
        match: how close the whole model's count came to the budget
            (:class:`rnnlab.core.params.WidthMatch`: ``param_count``, ``budget``,
            ``relative_error``).
    """

    design: str
    config: ModelConfig
    match: params.WidthMatch

    @property
    def forward_flops(self) -> int:
        """Forward FLOPs per token of the whole model (:func:`rnnlab.core.cost.model_forward_flops`:
        the embedding is a lookup, every other weight is one multiply-add, two FLOPs)."""
        c = self.config
        design = {k: getattr(c, k) for k in ("mode", "proj_size", "residual", "layer_norm")}
        return cost.model_forward_flops(
            c.lstm_input_size, c.hidden_size, c.num_layers, c.num_classes, **design
        )


def match_designs(
    designs: Mapping[str, Mapping[str, Any]],
    *,
    budget: int,
    vocab_size: int,
    embedding_dim: int,
    depths: Sequence[int] = (1, 2, 4),
) -> list[MatchedDesign]:
    """Every design at every depth, as a whole character LM (embedding, stack and head) matched
    to ``budget`` parameters: design by design, depth by depth.

    ``designs`` maps a name to the stack options of :func:`rnnlab.core.models.matched_config`
    (``{"cell": "gru"}``, ``{"residual": True, "layer_norm": True}``, ``{}`` for the plain LSTM
    stack). A deeper stack, or one whose options cost parameters, gets a narrower width from the
    same budget; a model more than 2% off the budget raises ``ValueError``.
    """
    return [
        MatchedDesign(
            name,
            *matched_config(
                kind="lm",
                budget=budget,
                num_layers=depth,
                num_classes=vocab_size,
                vocab_size=vocab_size,
                embedding_dim=embedding_dim,
                **options,
            ),
        )
        for name, options in designs.items()
        for depth in depths
    ]


def width_matching_table(matched: Sequence[MatchedDesign]):
    """The widths a budget buys (:func:`match_designs`): per design and depth, the hidden size
    :math:`h`, the projection :math:`p` (``-`` without one), the whole model's parameters and how
    far they are from the budget. The caption names the model and the budget."""
    if not matched:
        raise ValueError("matched must hold at least one matched design, got none")
    rows = [
        [
            m.design,
            m.config.num_layers,
            m.config.hidden_size,
            m.config.proj_size or "-",
            f"{m.config.param_count():,}",
            fmt_signed(m.match.relative_error, 2, percent=True),
        ]
        for m in matched
    ]
    first = matched[0]
    caption = (
        f"Character LM (vocabulary {first.config.vocab_size}, embedding "
        f"{first.config.embedding_dim}), budget {first.match.budget:,}"
    )
    header = [
        "design",
        "layers L",
        "hidden size h",
        "projection p",
        "parameters (whole model)",
        "vs budget",
    ]
    return book.html_table(header, rows, caption=caption)


def depth_eight_sentence(lab: Lab, task: str = "charlm-english") -> str:
    """Why depth 8 is not in the cpu design, and the budgets at which the reference and gpu
    profiles of ``lab`` judge it (those of ``task``'s eight-layer experiments)."""
    eight = {
        p: next(e.budget for e in lab.sweep(p).experiments if e.task == task and e.num_layers == 8)
        for p in ("reference", "gpu")
    }
    return (
        "Depth 8 is not in the cpu design: at a budget this small one unit of width moves an "
        "eight-layer model by more than 2%, so each design fits its budget "
        "(`rnnlab.experiments.budgets.fit_budget`) to one where every depth it uses lands within "
        "2%. The reference profile judges depth 8 at the cpu budget targets "
        f"({eight['reference']:,} parameters for the character LM), the gpu profile at "
        f"{eight['gpu']:,}."
    )


# --- the memorisation probe ----------------------------------------------------------------------


def memorization_table(
    *,
    n_train: int,
    num_classes: int,
    budget: int,
    accuracies: Sequence[float] = (0.5, 0.6, 0.75, 0.9, 1.0),
):
    """What a training accuracy on ``n_train`` random labels of ``num_classes`` classes means, for
    a model of ``budget`` parameters: the bits per example
    (:func:`~rnnlab.core.tasks.capacity.symmetric_information_bits`), the bits stored
    (:func:`~rnnlab.core.tasks.capacity.memorized_bits`) and the bits per parameter
    (:func:`~rnnlab.core.tasks.capacity.bits_per_parameter`). Chance stores nothing; accuracy 1
    stores every label, the most the probe can measure."""
    rows = [
        [
            f"{a:.2f}",
            f"{symmetric_information_bits(a, num_classes):.3f}",
            f"{memorized_bits(a, n_train, num_classes):,.0f}",
            f"{bits_per_parameter(a, n_train, num_classes, budget):.2f}",
        ]
        for a in accuracies
    ]
    header = [
        "training accuracy",
        "bits per example",
        f"bits stored (n = {n_train:,})",
        f"bits per parameter ({budget:,} parameters)",
    ]
    return book.html_table(header, rows)


def probe_ceiling_sentence(
    *, n_train: int, num_classes: int, budget: int, steps: int, floor: float = CAPACITY_FLOOR
) -> str:
    """What the cpu probe can measure: its ceiling in bits per parameter (every label stored,
    :func:`~rnnlab.core.tasks.capacity.bits_per_parameter` at accuracy 1), why a short run
    measures the capacity *reached in* ``steps`` steps, and the ``floor`` (Lab D's declared
    :data:`~rnnlab.experiments.lab_d.CAPACITY_FLOOR`) below which a depth's cells are not
    informative."""
    ceiling = bits_per_parameter(1.0, n_train, num_classes, budget)
    labels = "binary labels" if num_classes == 2 else f"labels of {num_classes} classes"
    return (
        f"The cpu probe asks {budget:,}-parameter models to store {n_train:,} {labels}: at "
        f"most **{ceiling:.1f} bits per parameter** can be measured, just above the ~5 of Collins "
        "et al. A model that stores everything would hit this ceiling and say nothing about its "
        "capacity; a short cpu training run will stay below it, and then measures the capacity "
        f"*reached in {steps:,} steps*: a lower bound, which itself depends on how well each "
        "depth trains. That is why (d2) is a *trainability* claim: it compares the bits each depth "
        f"stores in {steps:,} steps, not capacity in the limit, and why a depth where both models "
        f"store under its floor of {floor:g} bit per parameter is *not informative*."
    )


# --- FLOPs per token -----------------------------------------------------------------------------


def flops_table(matched: Sequence[MatchedDesign]):
    """FLOPs per token against depth at equal parameters, one row per matched model of one design
    (from :func:`match_designs`, which must include its one-layer model): the parameters
    :math:`P`, the exact forward FLOPs per token (:attr:`MatchedDesign.forward_flops`) beside
    :math:`2P`, the training FLOPs (:func:`rnnlab.core.cost.train_flops_per_token`, forward plus
    a backward twice as costly) beside :math:`6P`, and the forward FLOPs as a share of one
    layer's."""
    designs = {m.design for m in matched}
    if len(designs) != 1:
        raise ValueError(f"matched must hold the models of one design, got {sorted(designs)}")
    one = [m.forward_flops for m in matched if m.config.num_layers == 1]
    if not one:
        raise ValueError(
            "matched must include the one-layer model (the FLOPs are shown against it)"
        )
    rows = []
    for m in matched:
        p, fwd = m.config.param_count(), m.forward_flops
        rows.append(
            [
                m.config.num_layers,
                m.config.hidden_size,
                f"{p:,}",
                f"{fwd:,}",
                f"{2 * p:,}",
                f"{cost.train_flops_per_token(fwd):,}",
                f"{6 * p:,}",
                f"{fwd / one[0]:.3f}",
            ]
        )
    header = [
        "layers L",
        "width d",
        "parameters P",
        "forward FLOPs / token",
        "2P",
        "training FLOPs / token",
        "6P",
        "forward FLOPs vs L=1",
    ]
    caption = f"Character LM at {matched[0].match.budget:,} parameters ({designs.pop()} stacks)"
    return book.html_table(header, rows, caption=caption)
