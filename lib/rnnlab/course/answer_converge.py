"""The convergence experiment on the answer pages: its headline bullet and its caveat.

The scale map (:mod:`rnnlab.course.answer`) trains every model for a few thousand steps; the
convergence experiment (:mod:`rnnlab.experiments.converge`) trains each comparison until a
declared rule says whether the models have converged. This module says how far that experiment
has come wherever the answer is shown: :func:`convergence_lead` (a sentence in the headline's
first paragraph) and :func:`convergence_bullet` (its interval, under the headline) state a
verdict only once the design has made it (every seed in, at the length its budget's answer is
made at); :func:`convergence_caveat` says, under the map's caveats, that the map is not at
convergence and what the experiment has so far, interim looks included. Every word is computed
from ``<results_dir>/converge/<profile>.jsonl`` by :mod:`rnnlab.evidence.converge_report`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from rnnlab.experiments.store import load_results


class MapLengths(Protocol):
    """What the caveat reads of the scale map (:class:`rnnlab.course.answer.ScaleMap`): its
    training lengths, shortest first."""

    @property
    def lengths(self) -> Sequence[int]: ...


#: Lab B's page, relative to the book's root: where the caveat sends a reader for the intervals.
LAB_B = "chapters/03_lab_b_generation.ipynb"

#: How the answer page names each profile of the convergence experiment.
CONVERGE_PROFILES = {
    "reference": "the reference profile (CPU)",
    "gpu": (
        "the gpu profile (a lent GPU; its corpus is that machine's standard library, so its "
        "numbers are compared with each other, not with the reference profile's)"
    ),
}


def _converge_records(results_dir: str | Path, profiles: tuple[str, ...]):
    """``(profile, its words on the answer page, its records)`` for each of ``profiles``: the
    first always, the others once they have runs."""
    for i, profile in enumerate(profiles):
        path = Path(results_dir) / "converge" / f"{profile}.jsonl"
        records = load_results(path) if path.exists() else []
        if i and not records:
            continue
        yield profile, CONVERGE_PROFILES.get(profile, f"the {profile} profile"), records


#: How the lead names a variant's depth.
DEPTH_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 8: "eight"}


def stack_words(v) -> str:
    """A variant of the design (:class:`rnnlab.experiments.converge.grid.Variant`) in the
    lead's words: "one layer", "two plain layers", "four residual LayerNorm layers"."""
    if v.num_layers == 1:
        return "one layer"
    kind = " ".join(
        [*(["residual"] if v.residual else []), *(["LayerNorm"] if v.layer_norm else [])]
    )
    n = DEPTH_WORDS.get(v.num_layers, str(v.num_layers))
    return f"{n} {kind or 'plain'} layers"


def verdict_words(verdict: str, stack: str, margin: float) -> str:
    """What a verdict on ``stack`` minus one layer says, and no more: only a decided verdict
    names a winner, an equivalence says "match within the margin", an undecided comparison
    says undecided, and a label not known here is named as it is."""
    return {
        "supported": f"{stack} beat one",
        "contradicted": f"one layer beats {stack}",
        "equivalent": f"{stack} match one within {margin:g} bits/char",
        "inconclusive": f"{stack} against one is undecided",
    }.get(verdict, f"{stack} against one: {verdict}")


def convergence_lead(
    results_dir: str | Path, profiles: tuple[str, ...] = ("reference", "gpu")
) -> str | None:
    """The convergence experiment's answers in one sentence for the headline's first paragraph,
    or ``None`` while the design has made none: for each comparison that answers its budget
    (:func:`rnnlab.evidence.converge_report.answers`), its verdict in words
    (:func:`verdict_words`), bold, with its length, seeds, verdict, profile, whether the
    result is final, and the convergence rule's reading. The interval is in
    :func:`convergence_bullet`."""
    from rnnlab.evidence import converge_report
    from rnnlab.experiments import converge

    parts = []
    for profile, _, records in _converge_records(results_dir, profiles):
        made = converge_report.answers(profile, records)
        if not made:
            continue
        d = converge.design_for(profile, records)
        final = "final" if converge_report.progress(profile, records).final else "provisional"
        variants = {v.name: v for v in d.variants}
        for c in made:
            said = verdict_words(c.effect.verdict, stack_words(variants[c.deep]), d.margin)
            reading = converge_report.rule_reading(c.converged, d.margin, why=False)
            if not reading.startswith("convergence"):
                reading += f" by {c.steps:,} steps"
            first = "" if parts else "Trained longer, "
            parts.append(
                f"**{first}{said} at {c.budget:,} parameters** ({c.steps:,} steps, "
                f"{c.effect.n_seeds} seeds: {c.effect.verdict}; {profile} profile, {final}; "
                f"{reading})"
            )
    return "; ".join(parts) + "." if parts else None


def convergence_bullet(
    results_dir: str | Path, profiles: tuple[str, ...] = ("reference", "gpu")
) -> str | None:
    """The convergence experiment's answers so far, as a bullet under the headline, or ``None``
    while it has none: each comparison made at the length its budget's answer is made at, with
    every seed the design gives it
    (:func:`rnnlab.evidence.converge_report.answer_clause` with ``decided=True``), marked final
    or provisional. Interim looks stay in the caveat (:func:`convergence_caveat`), never here:
    a verdict reaches the headline only once the design has made it."""
    from rnnlab.evidence import converge_report

    parts = []
    for profile, words, records in _converge_records(results_dir, profiles):
        clause = converge_report.answer_clause(profile, records, decided=True)
        if clause is not None:
            p = converge_report.progress(profile, records)
            state = "final" if p.final else f"provisional with {p.text()} in"
            parts.append(f"on {words}, {state}: {clause}")
    if not parts:
        return None
    return (
        "- Trained longer (the convergence experiment: each depth's learning rate and dropout "
        "tuned at that length, whole files held out for the test; > 0: the deeper stack is "
        "better), " + "; and ".join(parts) + "."
    )


def convergence_caveat(
    results_dir: str | Path,
    m: MapLengths,
    prefix: str = "",
    profiles: tuple[str, ...] = ("reference", "gpu"),
    link: bool = True,
) -> str:
    """The caveat that the map's verdicts are not at convergence, with how far the convergence
    experiment (``<results_dir>/converge/<profile>.jsonl``) has come in each of ``profiles``
    (the first always; the others once they have runs): its runs so far and its reporting runs
    (the only ones a verdict reads), and, once a comparison has two paired seeds, its verdicts
    (:func:`rnnlab.evidence.converge_report.answer_clause`), marked final or provisional. The
    first profile to reach a verdict may be either: a lent GPU runs the same design much
    faster than the reference machine's two cores. ``link=False`` leaves out the link to Lab B
    (for Lab B's own page)."""
    from rnnlab.evidence import converge_report

    lengths = (
        f"{m.lengths[0]:,}-{m.lengths[-1]:,} training steps" if m.lengths else "short training"
    )
    parts = []
    for profile, words, records in _converge_records(results_dir, profiles):
        reporting = sum(r.get("role") == "eval" for r in records)
        clause = converge_report.answer_clause(profile, records) if reporting else None
        if clause is None:
            state = "no verdict yet" if not reporting else "provisional"
            parts.append(
                f"{len(records)} runs so far on {words}, {reporting} of them reporting runs: "
                f"{state}"
            )
        else:
            p = converge_report.progress(profile, records)
            parts.append(
                f"on {words}, {'final' if p.final else 'provisional'}, {p.text()} in: {clause}"
            )
    return (
        f"- *Not trained to convergence.* The map's verdicts hold at {lengths}. The convergence "
        f"experiment, which trains until a declared rule says the models have converged and "
        f"tests on held-out files, has "
        + "; and ".join(parts)
        + (f" ([Lab B]({prefix}{LAB_B}))." if link else ".")
    )
