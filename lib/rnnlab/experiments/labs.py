"""The labs and the profiles, as data.

A **profile** says how much compute a run of a lab may use:

* ``smoke``: CI and the book build. Every lab in seconds on 2 CPU cores. It checks that the code
  paths work and is **never** shown as evidence.
* ``cpu``: a student without a GPU. Each lab in at most about 30 minutes on 2 CPU cores, with at
  least 5 seeds; the reference results committed in ``data/results/`` come from this profile.
* ``colab``: the default on a Colab GPU, bounded to about 15 minutes per lab on a free T4: the
  ``cpu`` design at the learning rates the committed reference results tuned (no tuning runs),
  with 3 reporting seeds. :func:`colab_estimate` says how long it should take, and from what.
* ``gpu``: a Colab-class GPU. Larger budgets (up to about 1M parameters for the character LM)
  and longer training; one explicit argument away (``RNNLAB_PROFILE=gpu``).

``RNNLAB_PROFILE`` picks the profile; when unset, ``colab`` on Colab with a GPU, ``gpu`` with CUDA
elsewhere, else ``cpu``.

A **lab** is a claim of the seed text turned into a pre-declared test: the experiments (tasks ×
budgets × depths), the reporting seeds, and the claims, each with the side it says wins and the
cells of the design it is judged on. :mod:`rnnlab.evidence.analysis` computes the verdicts.

Where they are declared: the profiles in :mod:`rnnlab.experiments.profiles`; what a lab is in
:mod:`rnnlab.experiments.lab`; the four labs in :mod:`~rnnlab.experiments.lab_a`,
:mod:`~rnnlab.experiments.lab_b`, :mod:`~rnnlab.experiments.lab_c` and
:mod:`~rnnlab.experiments.lab_d`. Here: the registry (:data:`LABS`, :func:`get_lab`) and running a
lab (:func:`run_lab`), at the reference results' rates on Colab (:func:`colab_estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rnnlab.core.paths import shown_path
from rnnlab.experiments.console import parse_seeds, run_spec_console
from rnnlab.experiments.lab import Lab
from rnnlab.experiments.lab_a import LAB_A
from rnnlab.experiments.lab_b import LAB_B
from rnnlab.experiments.lab_c import LAB_C
from rnnlab.experiments.lab_d import LAB_D
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.profiles import PROFILES, resolve_profile
from rnnlab.experiments.store import eval_records, load_results
from rnnlab.experiments.sweep import SweepRecords, SweepSpec, shard

#: How many times as fast as one CPU core a free Colab T4 is assumed to train the cpu design's
#: small LSTMs (batch 32, at most a few hundred thousand parameters: launch-bound on a GPU).
#: An ASSUMPTION, not a measurement: :func:`colab_estimate` prints it with every estimate.
COLAB_T4_SPEEDUP = 2.0
#: The time the ``colab`` profile is sized for, per lab.
COLAB_TARGET_MINUTES = 15.0


LABS: dict[str, Lab] = {lab.name: lab for lab in (LAB_A, LAB_B, LAB_C, LAB_D)}


def get_lab(name: str) -> Lab:
    """The lab called ``name`` (see ``python -m rnnlab labs``)."""
    if name not in LABS:
        raise ValueError(f"lab must be one of {sorted(LABS)}, got {name!r}")
    return LABS[name]


# ----------------------------------------------------------------------------- running


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"2/3"`` is the second of three shards (1-based on the command line)."""
    if text is None:
        return None
    try:
        i, n = (int(p) for p in text.split("/"))
    except ValueError:
        raise ValueError(f"--shard must look like i/n (e.g. 1/2), got {text!r}") from None
    if not (n >= 1 and 1 <= i <= n):
        raise ValueError(f"--shard i/n needs 1 <= i <= n, got {text!r}")
    return i - 1, n


def shard_spec(spec: SweepSpec, shard_text: str | None) -> SweepSpec:
    """``spec`` cut to the ``--shard`` slice ``shard_text`` (``"i/n"``: the i-th of n slices of
    its experiments; ``None``: all of them)."""
    part = parse_shard(shard_text)
    if part is None:
        return spec
    return SweepSpec(spec.lab, spec.profile, tuple(shard(spec.experiments, *part)), spec.seeds)


def lab_spec(
    name: str, profile: str | None, seeds: str | None = None, shard_text: str | None = None
) -> SweepSpec:
    """The runs of lab ``name`` in ``profile`` (``None``: :func:`resolve_profile`'s choice): its
    sweep at ``seeds`` (``--seeds``: a count or a list; ``None``: the profile's seeds), cut to
    the ``--shard`` slice ``shard_text`` (:func:`shard_spec`)."""
    lab = get_lab(name)
    prof = resolve_profile(profile)
    return shard_spec(lab.sweep(prof.name, parse_seeds(seeds, prof.seeds)), shard_text)


def run_lab(
    name: str,
    *,
    profile: str | None,
    out: str | Path,
    seeds: str | None = None,
    shard_text: str | None = None,
    options: RunOptions | None = None,
    progress: bool | None = None,
) -> SweepRecords:
    """Run (or resume) lab ``name`` in ``profile``, writing every finished run to ``out``.

    ``seeds`` is a count (``"5"``: seeds 0..4) or a list (``"0,3"``); ``shard_text`` is
    ``"i/n"`` to run the i-th of n slices of the experiments (merge the files afterwards with
    ``python -m rnnlab merge``, or point every shard at the same ``out``: writes are locked).
    ``options`` (:class:`rnnlab.experiments.options.RunOptions`; default: one run at a time in
    this process) say where the runs train: ``RunOptions(jobs=2)`` in two processes,
    ``RunOptions(scheduler="tcp://host:8786")`` on a Dask cluster (see
    :mod:`rnnlab.experiments.distributed`). ``progress`` shows a progress bar per run. Prints one
    line per finished run and one per failed run; returns every record in ``out`` (a list) whose
    ``.failures`` lists the runs that raised (also in ``<out>.failed``; a rerun retries them).
    """
    spec = lab_spec(name, profile, seeds, shard_text)
    prof = resolve_profile(spec.profile)
    out = Path(out)

    def header(total: int, already: int) -> str:
        text = (
            f"{spec.lab}: profile {prof.name} ({prof.target}); {len(spec.experiments)} "
            f"experiments, {len(spec.seeds)} seeds, {total} runs; {already} already in "
            f"{shown_path(out)}"
        )
        if not prof.evidence:
            text += "\nnote: the smoke profile checks code paths only; its numbers are not evidence"
        if prof.name == "colab":
            text += "\n" + colab_estimate(spec.lab).describe()
        return text

    return run_spec_console(spec, out, header=header, options=options, progress=progress)


@dataclass(frozen=True)
class ColabEstimate:
    """How long the ``colab`` profile of one lab should take on a free Colab T4, and from what.

    ``cpu_seconds`` is measured: the summed ``wall_time_s`` of the same runs (same experiments,
    same seeds, one thread each) in the committed ``cpu`` reference results. ``speedup`` is the
    assumed T4 speed-up over one CPU core (:data:`COLAB_T4_SPEEDUP`); ``minutes`` is
    ``cpu_seconds / speedup / 60``: an estimate, never a measurement.
    """

    lab: str
    runs: int
    matched_runs: int  # runs whose CPU wall time the reference results hold
    cpu_seconds: float
    speedup: float
    source: str

    @property
    def minutes(self) -> float:
        """The estimated minutes on a T4 (scaled up for runs without a measured time)."""
        per_run = self.cpu_seconds / max(self.matched_runs, 1)
        return per_run * self.runs / self.speedup / 60

    def describe(self) -> str:
        """The plan, the estimate and its derivation, in two sentences."""
        return (
            f"{self.lab}, profile colab: {self.runs} runs (the cpu design at its tuned rates, "
            f"seeds {', '.join(map(str, PROFILES['colab'].seeds))}), no tuning. Estimated time "
            f"on a free Colab T4: about {self.minutes:.0f} min = {self.cpu_seconds / 60:.1f} "
            f"CPU core-minutes measured for {self.matched_runs} of these runs ({self.source}) / "
            f"{self.speedup:g}, the speed-up assumed for a T4 over one core (not measured). "
            "Longer: RNNLAB_PROFILE=gpu."
        )


def colab_estimate(
    lab: str, *, speedup: float = COLAB_T4_SPEEDUP, records: list[dict] | None = None
) -> ColabEstimate:
    """The :class:`ColabEstimate` of ``lab``'s ``colab`` profile (``records`` replaces the
    committed ``cpu`` results, for tests). ``speedup`` must be a number > 0."""
    if not speedup > 0:
        raise ValueError(f"speedup must be > 0 (T4 steps per CPU-core step), got {speedup!r}")
    spec = get_lab(lab)
    records = load_reference(lab, "cpu") if records is None else records
    keys = {e.key for e in spec.experiments("cpu")}
    seeds = set(PROFILES["colab"].seeds)
    timed = [
        r["wall_time_s"]
        for r in eval_records(records)
        if r.get("experiment_key") in keys and r.get("seed") in seeds and "wall_time_s" in r
    ]
    return ColabEstimate(
        lab=lab,
        runs=len(keys) * len(seeds),
        matched_runs=len(timed),
        cpu_seconds=float(sum(timed)),
        speedup=float(speedup),
        source=f"wall_time_s in data/results/{lab}-cpu.jsonl",
    )


def load_reference(lab: str, profile: str = "cpu") -> list[dict]:
    """The committed reference results of ``lab`` in ``profile`` (``data/results/``), or ``[]``."""
    from rnnlab.core.paths import results_dir

    return load_results(results_dir() / f"{get_lab(lab).name}-{profile}.jsonl")
