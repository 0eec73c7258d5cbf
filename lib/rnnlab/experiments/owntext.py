"""Lab B's character-LM design on a text of your own: ``python -m rnnlab run lab-b --text PATH``.

:func:`lab_b_on_text` turns a list of :class:`~rnnlab.experiments.experiment.Experiment` into the
same
design on
``charlm-text``: every character-LM experiment gets ``task="charlm-text"`` with ``path=`` the
file, its budget re-matched to the file's vocabulary
(:func:`rnnlab.experiments.budgets.fit_budget`),
the label
``corpus="text"`` and the file's sha256 as the label ``text_sha256``; the English and Python
copies of a cell become one; experiments on other tasks (Dyck) are dropped. The sha256 is part of
every experiment's key, so results on one version of the file are never taken for results on an
edited one.

Before any training the text is checked against what the design needs (:func:`check_text`):
enough characters for the validation and test windows and at least one training window of every
experiment (else a ValueError saying how many are needed), the alphabet size, and how much of
the text becomes the ``<rare>`` symbol (a warning above :data:`RARE_WARNING_SHARE`).
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rnnlab.core.paths import shown_path
from rnnlab.experiments.console import run_spec_console
from rnnlab.experiments.experiment import Experiment
from rnnlab.experiments.labs import lab_spec, shard_spec
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.sweep import SweepRecords, SweepSpec

#: Warn when more than this share of the text's characters become the ``<rare>`` symbol.
RARE_WARNING_SHARE = 0.02


@dataclasses.dataclass(frozen=True)
class TextCheck:
    """What a text gives the character-LM design: ``num_chars`` characters, ``alphabet``
    distinct ones of which ``kept`` are seen at least ``min_count`` times (the model's
    vocabulary, plus ``<rare>``), and ``rare_share``, the fraction of the text's characters that
    become ``<rare>``."""

    num_chars: int
    alphabet: int
    kept: int
    min_count: int
    rare_share: float

    def describe(self) -> str:
        """One line: the alphabet and how much of the text is ``<rare>``."""
        return (
            f"{self.num_chars:,} characters, {self.alphabet:,} distinct; {self.kept:,} seen at "
            f"least {self.min_count} times get their own symbol, the other "
            f"{self.alphabet - self.kept:,} ({self.rare_share:.1%} of the text) become <rare>"
        )


def check_text(text: str, experiments: Sequence[Experiment], path: str | Path) -> TextCheck:
    """Check ``text`` against the character-LM ``experiments`` before any run starts.

    Every experiment needs its ``n_val`` and ``n_test`` windows and at least one training
    window of ``seq_len`` characters under the 90/5/5 split
    (:func:`rnnlab.core.tasks.text.charlm_min_chars`); a shorter text is a ValueError naming
    ``path``,
    its length and the length needed. Returns the alphabet report (:class:`TextCheck`) of the
    first experiment's ``min_count``."""
    from rnnlab.core.tasks.text import charlm_min_chars

    need = 0
    for e in experiments:
        options = dict(e.task_options)
        need = max(
            need,
            charlm_min_chars(
                n_train=1, n_val=e.n_val, n_test=e.n_test, seq_len=options.get("seq_len", 64)
            ),
        )
    if len(text) < need:
        e = experiments[0]
        raise ValueError(
            f"--text {shown_path(path)} holds {len(text):,} characters; the design needs at least "
            f"{need:,} (n_val={e.n_val} and n_test={e.n_test} windows of "
            f"seq_len={dict(e.task_options).get('seq_len', 64)}, and one training window, under "
            "the 90/5/5 split): use a longer text"
        )
    min_count = dict(experiments[0].task_options).get("min_count", 20) if experiments else 20
    counts = Counter(text)
    rare = sum(c for c in counts.values() if c < min_count)
    return TextCheck(
        num_chars=len(text),
        alphabet=len(counts),
        kept=sum(1 for c in counts.values() if c >= min_count),
        min_count=min_count,
        rare_share=rare / len(text) if text else 0.0,
    )


def text_windows(num_chars: int, seq_len: int) -> int:
    """How many training windows of ``seq_len`` the train part (first 90%) of a stream holds."""
    from rnnlab.core.tasks.text import split_bounds

    lo, hi = split_bounds(num_chars)["train"]
    return max(hi - lo - 1, 0) // seq_len


def lab_b_on_text(experiments: Sequence[Experiment], path: str | Path) -> tuple[Experiment, ...]:
    """Lab B's character-LM experiments moved onto the UTF-8 text file ``path`` (see the module
    docstring). ``n_train`` is lowered to what the file's first 90% holds when the design asks for
    more; the validation and test sizes are kept (a file too short for them raises the task's
    ValueError saying how many characters are needed)."""
    from rnnlab.core.tasks.text import read_text_file
    from rnnlab.experiments.budgets import fit_budget

    text, info = read_text_file(path)
    resolved, sha = info["path"], info["sha256"]
    lm = [e for e in experiments if e.task.startswith("charlm-")]
    if not lm:
        raise ValueError("the design has no character-LM experiment to run on --text")
    depths: dict[tuple, set[int]] = {}
    for e in lm:
        depths.setdefault((e.budget, e.task_options, e.embedding_dim), set()).add(e.num_layers)
    out: dict[str, Experiment] = {}
    for e in lm:
        options = {**dict(e.task_options), "path": resolved}
        options = tuple(sorted(options.items()))
        seq_len = dict(options).get("seq_len", 64)
        target = e.label("budget_target", e.budget)
        budget = fit_budget(
            target,
            tuple(sorted(depths[(e.budget, e.task_options, e.embedding_dim)])),
            task="charlm-text",
            options=options,
            embedding_dim=e.embedding_dim,
        )
        labels = {**dict(e.labels), "task": "charlm-text", "corpus": "text", "text_sha256": sha}
        new = dataclasses.replace(
            e,
            task="charlm-text",
            budget=budget,
            n_train=max(1, min(e.n_train, text_windows(len(text), seq_len))),
            task_options=options,
            labels=tuple(labels.items()),
        )
        out.setdefault(new.key, new)
    return tuple(out.values())


def default_out(lab: str, path: str | Path, profile: str) -> Path:
    """``runs/LAB-text-<first 8 hex of the file's sha256>-PROFILE.jsonl``: never the lab's own
    results file, and one file per version of the text."""
    from rnnlab.core.tasks.text import read_text_file

    digest = read_text_file(path)[1]["sha256"][:8]  # a ValueError for a missing or bad file
    return Path("runs") / f"{lab}-text-{digest}-{profile}.jsonl"


def run_lab_on_text(
    name: str,
    path: str | Path,
    *,
    profile: str | None,
    out: str | Path | None = None,
    seeds: str | None = None,
    shard_text: str | None = None,
    options: RunOptions | None = None,
    progress: bool | None = None,
) -> SweepRecords:
    """Run (or resume) lab ``name``'s character-LM design on the text file ``path``; like
    :func:`rnnlab.experiments.labs.run_lab` (the same run list, options and console runner,
    :func:`rnnlab.experiments.console.run_console`), with checkpoints in ``<out>.ckpt/`` unless
    ``options.checkpoint_dir`` says otherwise. Only ``lab-b`` has one. The text is checked first
    (:func:`check_text`); the returned list's ``.failures`` lists the runs that raised."""
    from rnnlab.core.tasks.text import read_text_file

    if name != "lab-b":
        raise ValueError(f"--text runs Lab B's character-LM design; use lab-b, got {name!r}")
    base = lab_spec(name, profile, seeds)
    text, info = read_text_file(path)
    lm = [e for e in base.experiments if e.task.startswith("charlm-")]
    report = check_text(text, lm, path)  # before any run (and before fitting budgets)
    print(f"text: {report.describe()}", flush=True)
    if report.rare_share > RARE_WARNING_SHARE:
        print(
            f"warning: {report.rare_share:.1%} of the text becomes <rare> (more than "
            f"{RARE_WARNING_SHARE:.0%}); the model cannot tell those characters apart",
            file=sys.stderr,
            flush=True,
        )
    moved = SweepSpec(base.lab, base.profile, lab_b_on_text(base.experiments, path), base.seeds)
    spec = shard_spec(moved, shard_text)
    out = Path(out) if out is not None else default_out(name, path, base.profile)
    cut = {e.n_train for e in spec.experiments} - {e.n_train for e in base.experiments}

    def header(total: int, already: int) -> str:
        lines = [
            f"{spec.lab} on {shown_path(info['path'])} ({info['size_bytes']:,} bytes, sha256 "
            f"{info['sha256'][:16]}...): profile {spec.profile}; {len(spec.experiments)} "
            f"experiments, {len(spec.seeds)} seeds, {total} runs; {already} already in "
            f"{shown_path(out)}",
        ]
        if cut:
            lines.append(f"note: the text is short, so n_train is lowered to {sorted(cut)} windows")
        return "\n".join(lines)

    options = options if options is not None else RunOptions()
    if options.checkpoint_dir is None:
        options = dataclasses.replace(options, checkpoint_dir=out.parent / f"{out.name}.ckpt")
    return run_spec_console(spec, out, header=header, options=options, progress=progress)
