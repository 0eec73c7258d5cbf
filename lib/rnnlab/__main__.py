"""Command line: ``python -m rnnlab [COMMAND]``, the course's sweeps and their results.

Examples::

    python -m rnnlab                  # = status: each design complete or provisional, how to resume
    python -m rnnlab labs
    python -m rnnlab run lab-a --profile cpu --out runs/lab-a-cpu.jsonl --jobs 2
    python -m rnnlab run lab-b --profile gpu --out /content/drive/MyDrive/lab-b.jsonl --shard 1/3
    python -m rnnlab run lab-b --profile gpu --scheduler tcp://head-node:8786   # on a Dask cluster
    python -m rnnlab summarize runs/lab-a-cpu.jsonl
    python -m rnnlab merge part1.jsonl part2.jsonl --out lab-b-gpu.jsonl
    python -m rnnlab reproduce --profile cpu          # every lab into data/results/ (resumes)
    python -m rnnlab reproduce --profile reference    # the labs that define it (hours; resumes)
    python -m rnnlab plan scale --profile reference   # the scale map's runs and core-hours
    python -m rnnlab run-scale --profile reference --jobs 2   # run (or resume) the scale map
    python -m rnnlab run-converge --profile reference --jobs 2  # run (or resume) convergence

A run that is interrupted (Ctrl-C, a Colab disconnect) resumes when the same command is run
again: finished runs are read back from ``--out`` and skipped. Several ``run`` processes may
write the same ``--out`` at once (e.g. ``--shard 1/2`` and ``--shard 2/2``): writes are locked.

Exit status: 0 when every run is in ``--out``; 1 when some runs failed (each is listed, with its
error, in ``<out>.failed``; rerunning retries only those and the missing ones), when a result
could not be written (a full disk: the runs already recorded stay), when the Dask scheduler was
lost mid-sweep, or when ``summarize`` finds no runs or failed ones; 2 for a usage problem (a bad
option, an ``--out`` that is unwritable, a folder or not a results file, a missing file, a text
too short for the design, an unreachable scheduler or one without workers, conflicting records
in ``merge``), always as one line on stderr, before any training; 130 (Ctrl-C, ``kill -INT``) or
143 (``kill``) when stopped: the finished runs are in ``--out`` and the same command resumes the
rest; a run in flight that checkpoints (``run-scale``, ``run-converge``, ``--checkpoint-dir``)
saved the step it was in and resumes from there.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
from pathlib import Path

from rnnlab.evidence import analysis
from rnnlab.experiments.distributed import SchedulerLost, SchedulerUnavailable, scheduler_address
from rnnlab.experiments.labs import LABS, get_lab, run_lab
from rnnlab.experiments.options import RunOptions
from rnnlab.experiments.profiles import resolve_profile
from rnnlab.experiments.store import (
    ResultsFileUnwritable,
    ResultsStore,
    ResultsWriteFailed,
    failed_path,
    load_results,
    merge_results,
)


class UsageError(ValueError):
    """A problem with what the user asked for; reported as one line, exit status 2."""


def cmd_status(args: argparse.Namespace) -> int:
    from rnnlab.course.status import design_progress_text

    print(design_progress_text())
    if args.command is None:
        print("\nEvery command: python -m rnnlab -h")
    return 0


def cmd_labs(args: argparse.Namespace) -> int:
    for lab in LABS.values():
        print(f"{lab.name}\t{lab.description}")
    return 0


def run_options(args: argparse.Namespace, **given: object) -> RunOptions:
    """The run options of a command, built once from its parsed arguments: ``--jobs``,
    ``--device``, ``--threads``, ``--scheduler`` (else ``$DASK_SCHEDULER_ADDRESS``),
    ``--checkpoint-dir``, ``--max-runs`` and ``--until``, as far as the command has them;
    ``given`` adds the ones a command decides itself (a drain file). A bad value is a
    ValueError naming the option (exit status 2)."""
    values = vars(args)
    fields = {
        name: values[name]
        for name in ("jobs", "device", "threads", "checkpoint_dir", "max_runs")
        if values.get(name) is not None
    }
    if "scheduler" in values:  # only the commands that offer --scheduler read the environment
        fields["scheduler"] = scheduler_address(values["scheduler"])
    if values.get("until") is not None:
        from rnnlab.experiments.deadline import parse_until

        fields["until"] = parse_until(values["until"])
    return RunOptions(**fields, **given)


def cmd_run(args: argparse.Namespace) -> int:
    prof = resolve_profile(args.profile)
    if args.text:
        from rnnlab.experiments.owntext import default_out, run_lab_on_text

        out = Path(args.out) if args.out else default_out(args.lab, args.text, prof.name)
        run = functools.partial(run_lab_on_text, args.lab, args.text)
    else:
        out = Path(args.out or f"runs/{args.lab}-{prof.name}.jsonl")
        run = functools.partial(run_lab, args.lab)
    records = run(  # checks --out, --device, --jobs before any training
        profile=prof.name,
        out=out,
        seeds=args.seeds,
        shard_text=args.shard,
        options=run_options(args),
    )
    return _failed_status(records, out)


def _failed_status(records: list, out: Path) -> int:
    """Exit status 1 (with one line on stderr) when runs of this sweep failed, else 0."""
    failures = getattr(records, "failures", [])
    if failures:
        print(
            f"error: {len(failures)} run(s) failed (errors in {failed_path(out)}); "
            "rerun the same command to retry them",
            file=sys.stderr,
        )
        return 1
    return 0


def _existing(paths: list[str]) -> list[str]:
    for path in paths:
        if not Path(path).is_file():
            raise UsageError(
                f"{path} does not exist" if not Path(path).exists() else f"{path} is not a file"
            )
    return paths


def _design_summary(name: str, records: list[dict], others: list[dict]) -> list[str]:
    """``summarize`` of the two designs that are not labs: the scale map (with its transfer
    control, when that file is summarized with it) and the convergence experiment (per
    profile), as the Findings page states them."""
    from rnnlab.evidence import converge_report, scalemap
    from rnnlab.experiments.scale import CONTROL_LAB

    lines = [analysis.format_provenance(analysis.provenance(records))]
    if name == "converge":
        for profile in sorted({r["profile"] for r in records}):
            recs = [r for r in records if r["profile"] == profile]
            lines += [f"-- profile {profile} --", *converge_report.report_lines(profile, recs)]
        return lines
    if name == CONTROL_LAB and not any(r["lab"] == "scale" for r in others):
        return lines + [
            "the transfer control is read against the map: summarize it with the map's file "
            "(e.g. python -m rnnlab summarize data/results/scale/reference.jsonl "
            "data/results/scale/reference-transfer.jsonl)"
        ]
    if name == CONTROL_LAB:
        return lines + scalemap.transfer_lines([r for r in others if r["lab"] == "scale"], records)
    return lines + [f"{scalemap.status(records).text()}:", *scalemap.summary_lines(records)]


def summarize_text(records: list[dict]) -> str:
    """The text ``python -m rnnlab summarize`` prints: a table per lab and every verdict; for
    the scale map and the convergence experiment, their verdicts as Findings states them."""
    from rnnlab.experiments.scale import CONTROL_LAB

    titles = {
        "scale": "The scale map: claim (b) over budget x training length",
        CONTROL_LAB: "The scale map's rate-transfer control",
        "converge": "Claim (b) at convergence",
    }
    lines = []
    for lab_name in sorted({r["lab"] for r in records}):
        if lab_name in titles:
            recs = [r for r in records if r["lab"] == lab_name]
            lines.append(f"== {titles[lab_name]} ==")
            lines += _design_summary(lab_name, recs, records)
            continue
        lab = get_lab(lab_name)
        recs = [r for r in records if r["lab"] == lab_name]
        lines.append(f"== {lab.title} ==")
        lines.append(analysis.format_provenance(analysis.provenance(recs)))
        lines.append(
            f"{'cell':44s} {'L':>2s} {'d':>4s} {'params':>8s} {'mean':>8s} {'std':>7s} "
            f"{'95% CI':>19s} {'n':>2s}"
        )
        for row in analysis.summary_rows(recs):
            lines.append(
                f"{row['cell'][:44]:44s} {row['layers']:2d} {row['hidden_size']:4d} "
                f"{row['params']:8,d} {row['mean']:8.4f} {row['std']:7.4f} "
                f"[{row['ci_low']:8.4f},{row['ci_high']:8.4f}] {row['seeds']:2d}"
            )
        for cv in analysis.claim_verdicts(lab, recs):
            lines.append(
                f"claim ({cv.claim.id}) [{cv.claim.direction} wins]: {cv.verdict.upper()} "
                f"at {cv.scale['text']}"
            )
            for c in cv.cells:
                k = c.comparison
                lines.append(
                    f"   {c.name}: L={c.deep} minus L={c.wide} (positive = depth better) "
                    f"{analysis.fmt_ci(k.effect, k.ci_low, k.ci_high, 4)} -> "
                    f"{analysis.cell_label(c)}"
                )
    return "\n".join(lines)


def cmd_summarize(args: argparse.Namespace) -> int:
    records, failed = [], 0
    for path in _existing(args.paths):
        records += load_results(path)
        failures = ResultsStore(path).failures()
        if failures:
            failed += len(failures)
            print(
                f"warning: {len(failures)} run(s) of {path} failed and are missing from this "
                f"summary (their cells have fewer seeds); errors in {failed_path(path)}",
                file=sys.stderr,
            )
    if not records:
        print(f"{', '.join(args.paths)}: no runs in this file (it is empty)", file=sys.stderr)
        return 1
    print(summarize_text(records))
    if failed:
        print(f"error: {failed} run(s) failed; rerun their sweep to retry them", file=sys.stderr)
        return 1
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    out = Path(args.out)
    records = merge_results(out, _existing(args.paths), prefer=args.prefer)
    print(f"{len(records)} runs in {out}")
    return 0


def cmd_carry(args: argparse.Namespace) -> int:
    from rnnlab.experiments import carry

    if args.action == "pack":
        if not args.to:
            raise ValueError("carry pack needs --to: the tar file to write")
        for run in carry.in_flight(args.path):
            print(
                f"in flight: {run.name} at step {run.step:,} after {run.elapsed_s:.0f} s "
                f"({run.steps_per_s:.1f} steps/s)"
            )
        packed, left = carry.pack(args.path, args.to, int(args.limit_mib * 2**20))
        print(f"packed {len(packed)} checkpoint(s) into {args.to}")
        if left:
            print(f"left out (over {args.limit_mib} MiB): {', '.join(left)}")
    else:
        if not args.into:
            raise ValueError("carry unpack needs --into: the checkpoint folder (<out>.ckpt)")
        names = carry.unpack(args.path, args.into)
        print(f"unpacked {len(names)} checkpoint(s) into {args.into}")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from rnnlab.core.paths import results_dir

    prof = resolve_profile(args.profile)
    labs = args.labs or [n for n, lab in LABS.items() if prof.name in lab.profiles]
    status = 0
    for name in labs:
        out = results_dir() / f"{name}-{prof.name}.jsonl"
        ResultsStore(out).check_writable()
        records = run_lab(name, profile=prof.name, out=out, options=run_options(args))
        status = max(status, _failed_status(records, out))
    return status


def cmd_findings(args: argparse.Namespace) -> int:
    from rnnlab.core.paths import repo_root, results_dir
    from rnnlab.course import answer, findings, guide

    page = Path(args.page) if args.page else repo_root() / "chapters" / "05_findings.md"
    if args.write:
        text = page.read_text(encoding="utf-8")
        page.write_text(findings.splice(text, findings.findings_markdown(results_dir())))
        print(f"wrote {page}")
        if not args.page:  # the "What we found" blocks (intro, Findings) and their figure
            for path in [*answer.write(repo_root(), results_dir()), guide.write(repo_root())]:
                print(f"wrote {path}")
        return 0
    diff = findings.check_page(page, results_dir())
    if not args.page:
        diff += answer.check(repo_root(), results_dir()) + guide.check(repo_root())
    if diff:
        print("\n".join(diff))
        print(f"{page} disagrees with data/results/: run python -m rnnlab findings --write")
        return 1
    print(f"{page} agrees with data/results/")
    return 0


def cmd_plan(args: argparse.Namespace) -> int:
    if args.experiment == "converge":
        from rnnlab.experiments import converge, scale

        out = Path(args.out) if args.out else converge.default_out(args.profile)
        records = load_results(out) if out.exists() else []
        map_records = load_results(scale.default_out("reference"))
        timings = scale.load_timings(args.timings)
        pilot = converge.pilot_out()
        pilot_records = load_results(pilot) if pilot.exists() and args.profile != "smoke" else []
        ckpt = scale.default_checkpoint_dir(out)  # run_converge's: what is left, run by run
        p = converge.plan(args.profile, records, map_records, timings, pilot_records, ckpt)
        print("\n".join(converge.plan_lines(p)))
        print(f"  run or resume: python -m rnnlab run-converge --profile {args.profile} --jobs 2")
        return 0
    from rnnlab.experiments.scale_plan import plan_command

    plan_command(args.profile, args.out, timings=args.timings)
    return 0


def cmd_run_converge(args: argparse.Namespace) -> int:
    from rnnlab.experiments import converge, scale
    from rnnlab.experiments.console import run_console

    out = Path(args.out) if args.out else converge.default_out(args.profile)
    drain = scale.default_drain_file(out)
    options = run_options(args, stop_file=drain)
    until = options.until.isoformat(timespec="minutes") if options.until else None

    def header(total: int, already: int) -> str:
        lines = [
            f"converge {args.profile}: {already} runs already in {out}",
            f"to stop after the runs in progress (nothing lost): touch {drain}",
            f"to stop now (each run in flight saves its step): kill {os.getpid()}",
        ]
        if until:
            lines.append(f"until {until}: a run starts only if it is expected to end by then")
        if args.profile == "smoke":
            lines.append(
                "note: the smoke profile checks code paths only; its numbers are not evidence."
            )
        return "\n".join(lines)

    try:
        records = run_console(
            out,
            name=f"converge {args.profile}",
            header=header,
            planned_runs=functools.partial(converge.planned_runs, converge.design(args.profile)),
            run=functools.partial(converge.run_converge, args.profile),
            options=options,
        )
    finally:
        drain.unlink(missing_ok=True)
    if records.held_back:
        print(
            f"converge {args.profile}: {len(records.held_back)} runs could start but none was "
            f"expected to end by {until}; rerun to go on",
            flush=True,
        )
    return _failed_status(records, out)


def cmd_run_scale(args: argparse.Namespace) -> int:
    from rnnlab.experiments import scale
    from rnnlab.experiments.console import run_console

    seeds = _seed_list(args.seeds)
    if args.results and not args.transfer_control:
        raise ValueError(
            "--results is read only with --transfer-control (the map's own file is --out)"
        )
    if args.transfer_control:  # the check cell at the transferred rates (transfer_control_spec)
        out = Path(args.out) if args.out else scale.default_control_out(args.profile)
        results = Path(args.results) if args.results else scale.default_out(args.profile)
        spec = scale.transfer_control_spec(args.profile, load_results(results), seeds)
        run = functools.partial(scale.run_transfer_control, results=results)
    else:
        out = Path(args.out) if args.out else scale.default_out(args.profile)
        spec = scale.sweep_spec(args.profile, seeds)
        run = scale.run_scale
    options = run_options(args)
    ckpt = options.checkpoint_dir or scale.default_checkpoint_dir(out)  # run_scale's default
    name = f"{spec.lab} {args.profile}"

    def header(total: int, already: int) -> str:
        lines = [
            f"{name}: {len(spec.experiments)} experiments, {len(spec.seeds)} seeds, "
            f"{spec.n_runs()} runs before grid extensions, {total} with the extensions so far; "
            f"{already} already in {out}; checkpoints in {ckpt}",
            f"to stop after the runs in progress (nothing lost): touch "
            f"{scale.default_drain_file(out)}",
            f"to stop now (each run in flight saves its step): kill {os.getpid()}",
        ]
        if args.profile == "smoke":
            lines.append(
                "note: the smoke profile checks code paths only; its numbers are not evidence."
            )
        return "\n".join(lines)

    records = run_console(
        out,
        name=name,
        header=header,
        planned_runs=spec.planned_runs,
        run=functools.partial(run, args.profile, seeds=seeds),
        options=options,
    )
    return _failed_status(records, out)


def _seed_list(text: str | None) -> tuple[int, ...] | None:
    """``--seeds``: a count (``5``: seeds 0..4) or a comma-separated list (``0,3``); the one
    parser every command uses (:func:`rnnlab.experiments.console.parse_seeds`)."""
    from rnnlab.experiments.console import parse_seeds

    return parse_seeds(text, None)


def lower_priority(niceness: int) -> None:
    """``--nice N``: let this process, and the worker processes it starts, yield the CPU to
    other work (tests, a book build) on the same machine.

    ``os.nice`` alone is not enough on Linux: with autogroup scheduling (the default on most
    distributions) the kernel first shares the CPU equally between *sessions* and applies nice
    values only within one, so a niced sweep started with ``setsid`` still takes half of a
    2-core machine from a test run in another terminal. When this process leads its own session
    (``setsid ...``, as the README's background commands do), its autogroup gets the same nice
    value too (``/proc/self/autogroup``); a process inside an interactive session leaves the
    session's autogroup alone. ``N`` must be in 0..19."""
    if isinstance(niceness, bool) or not isinstance(niceness, int) or not 0 <= niceness <= 19:
        raise ValueError(f"--nice must be an integer from 0 to 19, got {niceness!r}")
    if niceness == 0:
        return
    os.nice(niceness)
    autogroup = Path("/proc/self/autogroup")
    if os.getsid(0) == os.getpid() and autogroup.exists():
        try:
            autogroup.write_text(str(niceness))
        except OSError:  # not permitted here: os.nice still applies within the session
            pass


def add_run_arguments(
    parser: argparse.ArgumentParser,
    *,
    jobs: int,
    max_runs: bool = False,
    shared_folder: str | None = None,
) -> None:
    """The options every command that trains shares (read back by :func:`run_options`):
    ``--jobs`` (default ``jobs``), ``--device``, ``--threads``, ``--scheduler``, ``--nice`` and,
    with ``max_runs``, ``--max-runs``. ``shared_folder`` names what the Dask workers write, so
    they must share it."""
    parser.add_argument("--jobs", type=int, default=jobs, help="parallel processes (1 thread each)")
    parser.add_argument("--device", help="auto, cpu, cuda, mps (default: auto / $RNNLAB_DEVICE)")
    parser.add_argument("--threads", type=int, help="torch threads per process")
    if max_runs:
        parser.add_argument("--max-runs", type=int, help="stop after this many new runs")
    parser.add_argument("--nice", type=int, default=0, help="lower this run's CPU priority (0-19)")
    shared = (
        f"; the workers write {shared_folder}, so they must share that folder"
        if shared_folder
        else ""
    )
    parser.add_argument(
        "--scheduler",
        help="run on a Dask cluster: the scheduler's address, e.g. tcp://head:8786 "
        f"(default: $DASK_SCHEDULER_ADDRESS; unset: local processes){shared}",
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m rnnlab", description=__doc__.split("\n")[0])
    p.set_defaults(func=cmd_status)  # no command: the status
    sub = p.add_subparsers(dest="command")
    sub.add_parser(
        "status", help="each design's committed results: complete, provisional or not run"
    ).set_defaults(func=cmd_status)
    sub.add_parser("labs", help="list the labs").set_defaults(func=cmd_labs)
    r = sub.add_parser("run", help="run (or resume) one lab's sweep")
    r.add_argument("lab", choices=sorted(LABS))
    r.add_argument("--profile", help="smoke, cpu or gpu (default: $RNNLAB_PROFILE, else by device)")
    r.add_argument("--out", help="results file (JSON Lines); default runs/LAB-PROFILE.jsonl")
    r.add_argument("--seeds", help="a count (5 = seeds 0..4) or a list (0,1,2)")
    r.add_argument("--shard", help="i/n: run only the i-th of n slices of the experiments")
    add_run_arguments(r, jobs=1)
    r.add_argument("--text", help="lab-b only: run its character-LM design on this UTF-8 file")
    r.set_defaults(func=cmd_run)
    s = sub.add_parser("summarize", help="means, 95%% CIs and verdicts of results files")
    s.add_argument("paths", nargs="+")
    s.set_defaults(func=cmd_summarize)
    m = sub.add_parser("merge", help="merge results files (e.g. shards), dropping duplicates")
    m.add_argument("paths", nargs="+")
    m.add_argument("--out", required=True)
    m.add_argument(
        "--prefer",
        choices=["first", "last"],
        help="which copy wins when one run_id has different metrics in two files "
        "(--out counts first, then the files in order); default: such a conflict is an error",
    )
    m.set_defaults(func=cmd_merge)
    ca = sub.add_parser(
        "carry", help="pack a sweep's checkpoints in flight into a tar, or unpack them"
    )
    ca.add_argument("action", choices=["pack", "unpack"])
    ca.add_argument("path", help="pack: the checkpoint folder (<out>.ckpt); unpack: the tar")
    ca.add_argument("--to", help="pack: the tar file to write")
    ca.add_argument("--limit-mib", type=float, default=15.0, help="pack: the tar's largest size")
    ca.add_argument("--into", help="unpack: the checkpoint folder")
    ca.set_defaults(func=cmd_carry)
    rp = sub.add_parser("reproduce", help="run every lab into data/results/ (resumes)")
    rp.add_argument("--profile", help="default: $RNNLAB_PROFILE, else by device")
    rp.add_argument("--labs", nargs="*", choices=sorted(LABS))
    add_run_arguments(rp, jobs=2)
    rp.set_defaults(func=cmd_reproduce)
    f = sub.add_parser(
        "findings",
        help="check (or --write) the Findings page, the 'What we found' blocks of the intro and "
        "Findings (and their figure) against the data, and the guide's goals against the chapters",
    )
    f.add_argument("--write", action="store_true")
    f.add_argument("--page")
    f.set_defaults(func=cmd_findings)
    pl = sub.add_parser("plan", help="print an experiment's compute plan (runs, core-hours)")
    pl.add_argument("experiment", choices=["scale", "converge"])
    pl.add_argument("--profile", default="reference", help="reference, gpu or smoke")
    pl.add_argument(
        "--out",
        help="results file whose finished runs count as done "
        "(default: data/results/scale/PROFILE.jsonl for reference, runs/scale-PROFILE.jsonl else)",
    )
    pl.add_argument("--timings", help="benchmark file (default data/scale_step_seconds.json)")
    pl.set_defaults(func=cmd_plan)
    rs = sub.add_parser(
        "run-scale", help="run (or resume) the scale map: budget x training length x depth"
    )
    rs.add_argument("--profile", default="reference", help="reference, gpu or smoke")
    rs.add_argument("--out", help="results file (default: as for plan scale)")
    rs.add_argument("--checkpoint-dir", help="per-run checkpoints (default: <out>.ckpt)")
    rs.add_argument("--seeds", help="reporting seeds: a count (5) or a list (0,1,2)")
    add_run_arguments(rs, jobs=2, max_runs=True, shared_folder="<out>.ckpt")
    rs.add_argument(
        "--transfer-control",
        action="store_true",
        help="run the transfer control instead: the check cell at the rates tuned at the "
        "shortest length (default --out: <profile>-transfer.jsonl beside the map's results)",
    )
    rs.add_argument(
        "--results",
        help="with --transfer-control: the map's results file the rates come from "
        "(default: as for plan scale)",
    )
    rs.set_defaults(func=cmd_run_scale)
    rc = sub.add_parser(
        "run-converge",
        help="run (or resume) the convergence experiment (rnnlab.experiments.converge)",
    )
    rc.add_argument("--profile", default="reference", help="reference, gpu or smoke")
    rc.add_argument("--out", help="results file (default data/results/converge/PROFILE.jsonl)")
    add_run_arguments(rc, jobs=2, max_runs=True, shared_folder="<out>.ckpt (checkpoints and forks)")
    rc.add_argument(
        "--until",
        help="start only the runs expected to end by then, so the sweep ends with none in "
        "flight: a clock time (08:30), an ISO date and time, or a duration (2h30m)",
    )
    rc.set_defaults(func=cmd_run_converge)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if argv is None:  # the command itself (not a call from Python): kill stops it cleanly
        from rnnlab.experiments.runner import terminate_as_interrupt

        terminate_as_interrupt()
    try:
        lower_priority(getattr(args, "nice", 0))
        return args.func(args)
    except ResultsWriteFailed as exc:  # mid-sweep (a full disk): not a usage problem
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (ValueError, ResultsFileUnwritable, SchedulerUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SchedulerLost as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C or kill: a stop, not a crash (no traceback)
        import signal

        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"stopped by {signal.Signals(signum).name}", file=sys.stderr)
        return 128 + signum


if __name__ == "__main__":
    raise SystemExit(main())
