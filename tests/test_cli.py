"""The command line, as a student would use it."""

import subprocess
import sys

import pytest

from rnnlab.__main__ import main
from rnnlab.experiments.labs import LABS, get_lab
from rnnlab.experiments.profiles import PROFILES, resolve_profile


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "rnnlab", *args], capture_output=True, text=True, timeout=300
    )


def test_labs_lists_one_per_line_name_first():
    out = run("labs")
    assert out.returncode == 0
    lines = out.stdout.strip().splitlines()
    assert [ln.split("\t")[0] for ln in lines] == list(LABS)
    assert all(len(ln.split("\t")[1]) > 20 for ln in lines)


def test_run_then_summarize(tmp_path, capsys):
    out = tmp_path / "a.jsonl"
    assert main(["run", "lab-a", "--profile", "smoke", "--out", str(out), "--seeds", "2"]) == 0
    assert main(["summarize", str(out)]) == 0
    text = capsys.readouterr().out
    assert "claim (a)" in text and "profile smoke" in text
    verdicts = ("SUPPORTED", "CONTRADICTED", "EQUIVALENT", "INCONCLUSIVE", "NOT INFORMATIVE")
    assert any(f"]: {v} at" in text for v in verdicts)


def test_summarize_reads_every_results_file_the_course_commits(capsys):
    """The scale map, its transfer control and the convergence experiment are not labs; their
    files summarize as the Findings page states them, not as an error about lab names."""
    from rnnlab.core.paths import results_dir
    from rnnlab.evidence import converge_report, scalemap
    from rnnlab.experiments.store import load_results

    scale, control = (
        results_dir() / "scale" / "reference.jsonl",
        (results_dir() / "scale" / "reference-transfer.jsonl"),
    )
    converge = results_dir() / "converge" / "reference.jsonl"
    assert main(["summarize", str(scale)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("== The scale map: claim (b) over budget x training length ==")
    for line in scalemap.summary_lines(load_results(scale)):
        assert line in text
    assert main(["summarize", str(control)]) == 0  # alone: it says what to read it with
    assert "summarize it with the map's file" in capsys.readouterr().out
    assert main(["summarize", str(scale), str(control)]) == 0
    text = capsys.readouterr().out
    for line in scalemap.transfer_lines(load_results(scale), load_results(control)):
        assert line in text
    assert main(["summarize", str(converge)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("== Claim (b) at convergence ==")
    for line in converge_report.report_lines("reference", load_results(converge)):
        assert line in text


def test_shard_and_merge(tmp_path, capsys):
    parts = [tmp_path / f"p{i}.jsonl" for i in (1, 2)]
    for i, p in enumerate(parts, start=1):
        assert (
            main(["run", "lab-c", "--profile", "smoke", "--out", str(p), "--shard", f"{i}/2"]) == 0
        )
    merged = tmp_path / "all.jsonl"
    assert main(["merge", *map(str, parts), "--out", str(merged)]) == 0
    n = get_lab("lab-c").sweep("smoke").n_runs()
    assert len(merged.read_text().splitlines()) == n


def test_bad_arguments_get_clear_errors(tmp_path):
    out = run("run", "lab-a", "--profile", "huge", "--out", str(tmp_path / "x.jsonl"))
    assert out.returncode == 2 and "profile must be one of" in out.stderr
    out = run("run", "lab-a", "--profile", "smoke", "--shard", "3/2", "--out", str(tmp_path / "x"))
    assert out.returncode == 2 and "--shard" in out.stderr
    out = run("run", "lab-a", "--profile", "smoke", "--seeds", "a,b", "--out", str(tmp_path / "x"))
    assert out.returncode == 2 and "--seeds" in out.stderr


def test_profiles(monkeypatch):
    monkeypatch.setenv("RNNLAB_PROFILE", "cpu")
    assert resolve_profile().name == "cpu"
    assert resolve_profile("smoke").evidence is False
    # Designs that are evidence have at least 5 seeds. ``colab`` is not a design: it replicates
    # the cpu design's reporting runs at its committed tuned rates, with 3 seeds, to fit ~15 min.
    assert all(len(p.seeds) >= 5 for p in PROFILES.values() if p.evidence and p.name != "colab")


def test_failed_runs_give_a_nonzero_exit_and_a_rerun_retries_them(tmp_path, capsys, monkeypatch):
    import rnnlab.experiments.sweep as sweep

    out = tmp_path / "c.jsonl"
    args = ["run", "lab-c", "--profile", "smoke", "--out", str(out), "--seeds", "1"]
    real = sweep.run_unit
    calls = []

    def flaky(exp, **kw):
        calls.append(exp.key)
        if len(calls) == 2:
            raise RuntimeError("simulated crash")
        return real(exp, **kw)

    monkeypatch.setattr(sweep, "run_unit", flaky)
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "error: 1 run(s) failed" in captured.err and "c.jsonl.failed" in captured.err
    assert "FAILED eval" in captured.out and "simulated crash" in captured.out
    n = get_lab("lab-c").sweep("smoke", (0,)).n_runs()
    assert len(out.read_text().splitlines()) == n - 1
    monkeypatch.setattr(sweep, "run_unit", real)
    assert main(args) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("[")]
    assert len(lines) == 1  # only the failed run ran again
    assert len(out.read_text().splitlines()) == n


def test_unwritable_out_is_one_clear_line_and_exit_2(tmp_path):
    (tmp_path / "afile").write_text("")
    for bad in ("/proc/x.jsonl", str(tmp_path / "afile" / "x.jsonl")):
        out = run("run", "lab-c", "--profile", "smoke", "--out", bad)
        assert out.returncode == 2, out.stderr
        assert "Traceback" not in out.stderr
        (line,) = out.stderr.strip().splitlines()
        assert line.startswith("error: cannot") and bad.split("/")[-1] in line


def test_summarize_missing_or_empty_file(tmp_path, capsys):
    missing = tmp_path / "nope.jsonl"
    assert main(["summarize", str(missing)]) == 2
    assert f"{missing} does not exist" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["summarize", str(empty)]) == 1
    assert "no runs" in capsys.readouterr().err


def test_nice_lowers_the_priority_of_its_own_session(tmp_path) -> None:
    """--nice N: os.nice, and the autogroup's nice when the process leads its session (so that
    a background sweep started with setsid yields to other sessions' work)."""
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "from rnnlab.__main__ import lower_priority; import os, pathlib; lower_priority(7); "
        "g = pathlib.Path('/proc/self/autogroup'); "
        "print(os.nice(0), g.read_text().split()[-1] if g.exists() else 'none')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True,
        start_new_session=True,
    ).stdout.split()  # fmt: skip
    import os

    assert out[0] == str(min(os.nice(0) + 7, 19))  # os.nice is relative to this process's
    if Path("/proc/self/autogroup").exists():
        assert out[1] == "7"


@pytest.mark.parametrize("bad", [-1, 20, True])
def test_nice_rejects_values_outside_0_to_19(bad) -> None:
    from rnnlab.__main__ import lower_priority

    with pytest.raises(ValueError, match="--nice must be an integer from 0 to 19"):
        lower_priority(bad)


def test_no_command_prints_the_status_and_points_to_the_commands(capsys):
    assert main([]) == 0
    bare = capsys.readouterr().out
    assert "reporting runs" in bare and "scale reference" in bare
    assert "python -m rnnlab plan scale --profile reference" in bare
    assert bare.rstrip().endswith("Every command: python -m rnnlab -h")
    assert main(["status"]) == 0
    assert (
        capsys.readouterr().out.strip()
        == bare.rstrip().removesuffix("Every command: python -m rnnlab -h").strip()
    )
