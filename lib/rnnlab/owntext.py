"""Lab B's character-LM design on a text of your own: ``python -m rnnlab run lab-b --text PATH``.

:func:`lab_b_on_text` turns a list of :class:`~rnnlab.sweep.Experiment` into the same design on
``charlm-text``: every character-LM experiment gets ``task="charlm-text"`` with ``path=`` the
file, its budget re-matched to the file's vocabulary (:func:`rnnlab.labs.fit_budget`), the label
``corpus="text"`` and the file's sha256 as the label ``text_sha256``; the English and Python
copies of a cell become one; experiments on other tasks (Dyck) are dropped. The sha256 is part of
every experiment's key, so results on one version of the file are never taken for results on an
edited one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Sequence
from pathlib import Path

from rnnlab.paths import shown_path
from rnnlab.sweep import Experiment, SweepSpec, console_log, load_results, run_sweep, shard


def text_windows(num_chars: int, seq_len: int) -> int:
    """How many training windows of ``seq_len`` the train part (first 90%) of a stream holds."""
    from rnnlab.tasks.text import _split_bounds

    lo, hi = _split_bounds(num_chars)["train"]
    return max(hi - lo - 1, 0) // seq_len


def lab_b_on_text(experiments: Sequence[Experiment], path: str | Path) -> tuple[Experiment, ...]:
    """Lab B's character-LM experiments moved onto the UTF-8 text file ``path`` (see the module
    docstring). ``n_train`` is lowered to what the file's first 90% holds when the design asks for
    more; the validation and test sizes are kept (a file too short for them raises the task's
    ValueError saying how many characters are needed)."""
    from rnnlab.labs import fit_budget
    from rnnlab.tasks.text import read_text_file

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
    digest = hashlib.sha256(Path(path).expanduser().read_bytes()).hexdigest()[:8]
    return Path("runs") / f"{lab}-text-{digest}-{profile}.jsonl"


def run_lab_on_text(
    name: str,
    path: str | Path,
    *,
    profile: str | None,
    out: Path | None = None,
    seeds: str | None = None,
    shard_text: str | None = None,
    jobs: int = 1,
    device: str | None = None,
    threads: int | None = None,
    progress: bool | None = None,
) -> list[dict]:
    """Run (or resume) lab ``name``'s character-LM design on the text file ``path``; like
    :func:`rnnlab.labs.run_lab`, with checkpoints in ``<out>.ckpt/``. Only ``lab-b`` has one."""
    from rnnlab.labs import _parse_seeds, _parse_shard, get_lab, resolve_profile
    from rnnlab.tasks.text import read_text_file

    if name != "lab-b":
        raise ValueError(f"--text runs Lab B's character-LM design; use lab-b, got {name!r}")
    lab = get_lab(name)
    prof = resolve_profile(profile)
    base = lab.sweep(prof.name, _parse_seeds(seeds, prof.seeds))
    experiments = lab_b_on_text(base.experiments, path)
    part = _parse_shard(shard_text)
    if part is not None:
        experiments = tuple(shard(experiments, *part))
    spec = SweepSpec(base.lab, base.profile, experiments, base.seeds)
    out = Path(out) if out is not None else default_out(name, path, prof.name)
    _, info = read_text_file(path)
    cut = {e.n_train for e in experiments} - {e.n_train for e in base.experiments}
    print(
        f"{lab.name} on {shown_path(info['path'])} ({info['size_bytes']:,} bytes, sha256 "
        f"{info['sha256'][:16]}...): profile {prof.name}; {len(experiments)} experiments, "
        f"{len(spec.seeds)} seeds, {spec.n_runs()} runs; {len(load_results(out))} already in "
        f"{shown_path(out)}",
        flush=True,
    )
    if cut:
        print(f"note: the text is short, so n_train is lowered to {sorted(cut)} windows")
    t0 = time.perf_counter()
    done = load_results(out)
    log, log_failure = console_log(spec.planned_runs(done), already=len(done))

    records = run_sweep(
        spec,
        out,
        jobs=jobs,
        device=device,
        threads=threads,
        on_record=log,
        on_failure=log_failure,
        progress=progress,
        checkpoint_dir=out.parent / f"{out.name}.ckpt",
    )
    elapsed = time.perf_counter() - t0
    print(f"{lab.name}: {len(records)} runs in {shown_path(out)} ({elapsed:.0f} s)")
    return records
