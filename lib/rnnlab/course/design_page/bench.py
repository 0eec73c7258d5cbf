"""The design chapter's benchmark tables and sentences, read from ``data/bench/*.json``."""

from __future__ import annotations

import json
from collections.abc import Sequence

from rnnlab.core.paths import repo_root
from rnnlab.course import book

# --- benchmarks ----------------------------------------------------------------------------------


def load_bench(name: str) -> dict:
    """``data/bench/<name>``, a benchmark's JSON (``rows`` and ``provenance``)."""
    return json.loads((repo_root() / "data" / "bench" / name).read_text())


def bench_source(bench: dict) -> str:
    """The source line of the depth-cost benchmark: command, date, machine and its load, torch
    and commit (a load average above half the cores reads "busy with other work")."""
    bp = bench["provenance"]
    load = bp["load_average_before"][0]
    return (
        f"benchmarks/bench_depth_cost.py --full, measured {bp['date'][:10]} on {bp['machine']} "
        f"({bp['cpu_count']} cores, {bp['threads']} thread, load average {load:.1f} before the "
        f"run: {'busy with other work' if load > 0.5 * bp['cpu_count'] else 'quiet'}), "
        f"torch {bp['torch']}, commit {bp['git_commit'][:10]}"
        + (f", GPU {bp['cuda_device']}" if bp.get("cuda_device") else "")
    )


def step_plan_table(plan: dict):
    """Per task of a step-time plan (``lab-d-cpu-steps.json``): the measured milliseconds per
    step (range over models), the runs and the planned core-minutes."""
    by_task: dict[str, list[dict]] = {}
    for row in plan["rows"]:
        by_task.setdefault(row["task"], []).append(row)
    rows = [
        [
            task,
            f"{min(r['step_s'] for r in rs) * 1e3:.0f}-{max(r['step_s'] for r in rs) * 1e3:.0f}",
            f"{sum(r['runs'] for r in rs)}",
            f"{sum(r['core_s'] for r in rs) / 60:.1f}",
        ]
        for task, rs in by_task.items()
    ]
    return book.html_table(
        ["task", "ms per step (measured)", "runs", "core-minutes (planned)"], rows
    )


def step_plan_sentence(plan: dict) -> str:
    """The plan's total in core-minutes and on 2 cores, with where and how it was measured."""
    prov = plan["provenance"]
    return (
        f"In all **{plan['core_minutes']:.0f} core-minutes, about "
        f"{plan['minutes_on_2_cores']:.0f} minutes on 2 cores** with two jobs. Measured "
        f"{prov['date'][:10]} on {prov['machine']} ({prov['cpu_count']} cores, load average "
        f"{prov['load_average_before'][0]:.1f} while measuring), torch {prov['torch']}, commit "
        f"{prov['git_commit'][:10]}, median of {prov['timed_steps']} steps."
    )


def _us(seconds: float) -> str:
    """Microseconds, with one decimal below 10 (a GPU's times per token)."""
    us = seconds * 1e6
    return f"{us:.1f}" if us < 10 else f"{us:.0f}"


def depth_cost_summary(rows: Sequence[dict]) -> str:
    """Per budget of the depth-cost benchmark: the deepest stack's FLOPs, training time and
    generation time per token against one layer's, as Markdown bullets."""

    def per_depth(key: str, budget: int) -> dict[int, float]:
        return {r["num_layers"]: r[key] for r in rows if r["budget"] == budget}

    lines = []
    for budget in sorted({r["budget"] for r in rows}):
        train, gen = per_depth("train_s_per_token", budget), per_depth("gen_s_per_token", budget)
        flops = per_depth("forward_flops", budget)
        deepest = max(gen)
        lines.append(
            f"- **{budget:,} parameters:** forward FLOPs per token at L={deepest} are "
            f"{flops[deepest] / flops[1]:.2f}x those at L=1; a training step per token took "
            f"{_us(train[1])} us at L=1 and {_us(train[deepest])} us at L={deepest} "
            f"({train[deepest] / train[1]:.1f}x); generating a token took {gen[1] * 1e6:.0f} us "
            f"and {gen[deepest] * 1e6:.0f} us ({gen[deepest] / gen[1]:.1f}x)."
        )
    if rows and str(rows[0].get("device", "")).startswith("cuda"):
        return "\n".join(lines) + (
            "\n\nOne measurement, one process alone on the GPU: the ratios, not the "
            "microseconds, are the point, and another GPU will give other numbers."
        )
    return "\n".join(lines) + (
        "\n\nOne measurement on a shared machine: the ratios, not the microseconds, are the "
        "point, and a quiet machine or a GPU will give other numbers (`--device cuda` runs the "
        "same benchmark on a GPU)."
    )


def ms_per_step_by_stack(plan: dict) -> dict[str, list[float]]:
    """Milliseconds per training step of every model of a plan, by stack (memorisation probe
    left out)."""
    by_stack: dict[str, list[float]] = {}
    for row in plan["rows"]:
        if row["task"] != "memorize":
            by_stack.setdefault(row["stack"], []).append(row["step_s"] * 1e3)
    return by_stack


def reference_plan_sentence(plan: dict, took: str) -> str:
    """**The compute plan.** of the reference profile: its core-hours and step times by stack
    from ``plan`` (``lab-d-reference-steps.json``), and ``took``, what its results took
    (:meth:`rnnlab.course.status.LabTime.text`)."""
    prov = plan["provenance"]
    by_stack = ms_per_step_by_stack(plan)
    return (
        "**The compute plan.** The profile was first planned from the cpu profile's measured "
        "wall times. Step times re-measured per model while its first runs were under way "
        "(`python benchmarks/bench_lab_steps.py lab-d --profile reference`, load average "
        f"{prov['load_average_before'][0]:.1f} on {prov['cpu_count']} cores, so upper bounds) "
        f"put it at **{plan['core_minutes'] / 60:.1f} core-hours**. Milliseconds per training "
        "step, by stack (character LM and ListOps, every depth): "
        + ", ".join(f"{s} {min(v):.0f}-{max(v):.0f}" for s, v in by_stack.items())
        + ". The projected stacks are the slow ones: PyTorch's fast CPU LSTM (oneDNN) has no "
        "projections, so an LSTM with `proj_size` falls back to a slower implementation: about "
        "the same parameters and FLOPs, several times the time. What it took, from the "
        f"provenance of its committed results: {took}."
    )
