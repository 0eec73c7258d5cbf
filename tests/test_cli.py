"""The command line, as a student would use it."""

import subprocess
import sys

from rnnlab.__main__ import main
from rnnlab.labs import LABS, PROFILES, get_lab, resolve_profile


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
    assert any(v in text for v in ("SUPPORTED", "CONTRADICTED", "INCONCLUSIVE"))


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
    assert all(len(p.seeds) >= 5 for p in PROFILES.values() if p.evidence)
