"""The Findings page agrees with the committed data, verdict by verdict."""

import re

import pytest

from rnnlab.core.paths import repo_root, results_dir
from rnnlab.course import findings
from rnnlab.evidence import analysis
from rnnlab.experiments.labs import LABS
from rnnlab.experiments.store import load_results

PAGE = repo_root() / "chapters" / "05_findings.md"


def test_generated_block_is_in_sync_with_data():
    diff = findings.check_page(PAGE, results_dir())
    assert not diff, "run `python -m rnnlab findings --write`:\n" + "\n".join(diff[:40])


def test_every_verdict_on_the_page_is_recomputed_from_the_data():
    text = PAGE.read_text()
    row = r"^\| \((\w+)\) \|.*?\| (\w+) \| [^|]*?vs L=\d+ \| \*\*([\w ]+)\*\*"
    rows = re.findall(row, text, re.M)
    expected = {}
    for lab_name, profile, path in findings.result_files(results_dir()):
        if profile == "smoke":
            continue
        for cv in analysis.claim_verdicts(LABS[lab_name], load_results(path)):
            if not analysis.judged_in(LABS[lab_name], profile, cv.claim):
                continue
            expected[(cv.claim.id, profile)] = cv.verdict if cv.cells else "not judged yet"
    assert {(c, p): v for c, p, v in rows} == expected
    assert "smoke" not in {p for _, p, _ in rows}


def test_splice_needs_markers():
    with pytest.raises(ValueError, match="markers"):
        findings.splice("no markers here", "x")
    page = f"head\n{findings.BEGIN}\nold\n{findings.END}\ntail"
    assert findings.splice(page, "NEW") == "head\nNEW\ntail"


def test_claims_a_profile_cannot_judge_are_left_out():
    """Lab D's cpu design has no dropout or projected stacks: (d3) and (d4) are judged in the
    reference profile only, and every other lab's claims everywhere."""
    lab = LABS["lab-d"]
    judged = {p: [c.id for c in lab.claims if analysis.judged_in(lab, p, c)] for p in lab.profiles}
    assert judged["cpu"] == judged["smoke"] == ["d1", "d2"]
    assert judged["reference"] == judged["gpu"] == ["d1", "d2", "d3", "d4"]
    assert all(analysis.judged_in(LABS["lab-b"], "cpu", c) for c in LABS["lab-b"].claims)
