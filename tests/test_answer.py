"""The "What we found" blocks of the intro and the Findings page agree with the committed data,
and each part of them is computed (a changed result changes the text)."""

from dataclasses import replace
from typing import Any

import pytest

from rnnlab.core.paths import repo_root, results_dir
from rnnlab.course import answer


@pytest.fixture(scope="module")
def scale_map():
    return answer.scale_map(results_dir())


def test_blocks_and_figure_are_in_sync_with_data():
    problems = answer.check(repo_root(), results_dir())
    assert not problems, "run `python -m rnnlab findings --write`:\n" + "\n".join(problems[:40])


def test_the_readme_opens_with_the_books_headline_and_sends_the_reader_on():
    """The repository's front page: the same headline as the intro (so the two cannot drift),
    the figure by a path that exists in the repository, and links that resolve, before the
    chapter list."""
    import re

    readme = (repo_root() / answer.README).read_text()
    block = readme.split(answer.BEGIN)[1].split(answer.END)[0]
    intro = (repo_root() / "intro.md").read_text().split(answer.BEGIN)[1].split(answer.END)[0]
    head = intro.split("## What we found\n\n")[1].split("\n\n<img")[0]
    assert head in block and "## What we found" in block
    assert readme.index(answer.END) < readme.index("## Chapters")
    (src,) = re.findall(r'<img src="([^"]+)"', block)
    assert src == answer.FIGURE.as_posix() and (repo_root() / src).is_file()
    links = re.findall(r"\]\(([^)]+)\)", block)
    assert links and all((repo_root() / link).is_file() for link in links)
    assert "**Caveats:**" not in block and "[Findings](chapters/05_findings.md)" in block


def test_the_answer_comes_first_on_both_pages():
    for page in answer.PAGES:
        text = (repo_root() / page).read_text()
        title, rest = text.split("\n", 1)
        assert title.startswith("# ")
        # nothing but one short paragraph between the title and the answer
        before = rest.split(answer.BEGIN)[0].strip()
        assert len(before) < 200, (page, before)
        assert "## What we found" in rest.split(answer.END)[0]


def test_every_claim_has_one_line_with_its_verdict_and_scale(scale_map):
    rows = answer.best_rows(results_dir())
    block = answer.answer_markdown(results_dir(), "", scale_map)
    for claim, row in rows.items():
        lines = [x for x in block.splitlines() if x.startswith(f"- **({claim})**")]
        assert len(lines) == 1, claim
        assert f"**{row['verdict']}**" in lines[0] and row["scale"]["text"] in lines[0]


def test_map_sentences_follow_the_cells(scale_map):
    """Flip every L=4 cell to supported: the headline and the bullets must say depth wins."""
    assert scale_map.cells, "the committed scale map has results"
    flipped = {
        d: [replace(c, comparison=replace(c.comparison, verdict="supported")) for c in cells]
        for d, cells in scale_map.cells.items()
    }
    m = replace(scale_map, cells=flipped)
    head = "\n".join(answer.headline({}, m))
    assert head.startswith("**Depth's advantage is supported from")
    assert "lose clearly" not in head
    lead = answer.headline({}, scale_map)[0]
    n = sum(len(v) for v in scale_map.cells.values())
    assert (
        f"beats one wide layer with the same number of parameters in none of the scale map's {n}"
        in lead
    )


def test_the_lead_says_no_more_than_each_depth_s_verdicts(scale_map):
    """An undecided cell is not "as good as": the lead names each depth's verdicts as counted,
    and only an equivalence lets it say that a stack matches one layer."""
    lead = answer.headline({}, scale_map)[0]
    assert "as good as" not in lead
    for deep, cells in scale_map.cells.items():
        lost = sum(c.comparison.verdict == "contradicted" for c in cells)
        n = len(cells)
        if lost:
            said = f"all {n}" if lost == n else f"{lost} of {n}"
            assert f"{answer.NUMBER_WORDS[deep]} plain layers lose to one in {said}" in lead
    deep = min(scale_map.cells)
    cells = scale_map.cells[deep]
    same = [replace(c, comparison=replace(c.comparison, verdict="equivalent")) for c in cells]
    m = replace(scale_map, cells={**scale_map.cells, deep: same})
    assert (
        f"{answer.NUMBER_WORDS[deep]} plain layers match one in all {len(cells)}"
        in (answer.headline({}, m)[0])
    )
    half = same[: len(cells) // 2] + cells[len(cells) // 2 :]
    m = replace(scale_map, cells={**scale_map.cells, deep: half})
    assert f"match one in {len(cells) // 2} of {len(cells)}" in answer.headline({}, m)[0]


def test_the_words_say_plain_stacks_only_where_every_stack_of_the_map_is_plain(scale_map):
    # what a plain deep stack loses may be trainability (claims d1, d2), so the answer names it
    assert scale_map.plain
    lead = answer.headline({}, scale_map)[0]
    assert "a stack of narrow plain LSTM layers beats one wide layer" in lead
    assert "Python source, plain stacks, " in answer.map_scale(scale_map)
    assert answer.deep_bullet(scale_map, 4).startswith("Four plain layers ")
    one = next(r for r in scale_map.records if r.get("role") == "eval")
    residual = {**one, "model": {**one["model"], "residual": True, "layer_norm": True}}
    mixed = replace(scale_map, records=(*scale_map.records, residual))
    assert not mixed.plain and mixed.layers(4) == "four layers"
    assert "plain" not in answer.headline({}, mixed)[0]
    assert not replace(scale_map, records=()).plain


def test_a_new_verdict_label_is_counted_not_dropped(scale_map):
    cells = scale_map.cells[min(scale_map.cells)]
    odd = [replace(c, comparison=replace(c.comparison, verdict="not informative")) for c in cells]
    m = replace(scale_map, cells={**scale_map.cells, min(scale_map.cells): odd})
    bullet = answer.deep_bullet(m, min(scale_map.cells))
    assert f"{len(cells)} not informative" in bullet
    assert answer._tally(["supported", "not informative", "inconclusive"]) == (
        "1 supported, 1 inconclusive, 1 not informative"
    )


def test_figure_digest_changes_with_the_data(scale_map, tmp_path):
    path = answer.write_figure(scale_map, tmp_path / "f.svg")
    assert answer.stored_digest(path) == answer.figure_digest(scale_map)
    c = scale_map.cells[min(scale_map.cells)]
    moved = [replace(c[0], comparison=replace(c[0].comparison, effect=c[0].comparison.effect + 1))]
    m = replace(scale_map, cells={**scale_map.cells, min(scale_map.cells): moved + c[1:]})
    assert answer.figure_digest(m) != answer.stored_digest(path)
    assert answer.stored_digest(tmp_path / "missing.svg") is None


def test_lab_summaries_state_their_own_result():
    b = answer.lab_summary_markdown("lab-b")
    assert "**(b)**" in b and "scale map" in b
    a = answer.lab_summary_markdown("lab-a")
    assert "**(a)**" in a and "**(b)**" not in a


def test_splice_needs_markers():
    with pytest.raises(ValueError, match="markers"):
        answer.splice("no markers", "x")


def test_closes_appears_only_with_an_equivalence(scale_map):
    """The answer says a fix *closes* the deep stacks' gap only when the verdict's words say
    the fixed stack is equivalent to one layer; a fix that only narrows it is said to narrow."""
    import re

    rows = answer.best_rows(results_dir())
    block = answer.answer_markdown(results_dir(), "", scale_map)
    closed = {
        claim: any("closes the gap" in c["label"] for c in row["cells"])
        for claim, row in rows.items()
    }
    overstated = re.compile(r"\bclos(e|es|ing) (the|its|their)\b")
    for claim in rows:
        (line,) = [x for x in block.splitlines() if x.startswith(f"- **({claim})**")]
        if not closed[claim]:
            assert not overstated.search(line), line
    # the headline's (d1) bullet carries the verdict's own words, whichever they are
    scale = {"text": "25,000 parameters"}
    narrows = {"verdict": "supported", "words": "the fix narrows the gap", "scale": scale}
    closes = {**narrows, "words": "the fix closes the gap: equivalent to one layer"}
    head = "\n".join(answer.headline({"d1": narrows}, scale_map))
    assert "narrows the gap" in head and not overstated.search(head)
    assert "the fix closes the gap" in "\n".join(answer.headline({"d1": closes}, scale_map))


def test_the_answer_says_the_map_is_not_at_convergence_and_how_far_that_experiment_is(tmp_path):
    import json
    from types import SimpleNamespace

    from rnnlab.course.answer import convergence_caveat

    m = SimpleNamespace(lengths=[1_500, 3_000, 6_000])
    none = convergence_caveat(tmp_path, m)
    assert "hold at 1,500-6,000 training steps" in none
    assert "has 0 runs so far on the reference profile (CPU), 0 of them reporting runs: " \
        "no verdict yet" in none  # fmt: skip
    assert "gpu profile" not in none  # a profile without runs is not mentioned
    (tmp_path / "converge").mkdir()
    from rnnlab.core.paths import repo_root

    real = (repo_root() / "data" / "results" / "converge" / "gpu.jsonl").read_text()
    runs = [json.loads(line) for line in real.splitlines()[:3]]  # whole records (tuning runs)
    runs[2] = {**runs[2], "role": "eval", "run_id": "an-eval"}
    (tmp_path / "converge" / "reference.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in runs)
    )
    (tmp_path / "converge" / "gpu.jsonl").write_text(real)
    some = convergence_caveat(tmp_path, m, prefix="../")
    assert "has 3 runs so far on the reference profile (CPU), 1 of them reporting runs: " \
        "provisional" in some  # fmt: skip
    n_gpu = len(real.splitlines())
    assert f"; and {n_gpu} runs so far on the gpu profile (a lent GPU;" in some
    assert "](../chapters/03_lab_b_generation.ipynb)" in some


def test_a_convergence_verdict_reaches_the_headline_only_once_the_design_has_made_it(tmp_path):
    """The headline's convergence bullet states each comparison made at its budget's answer
    length with every seed the design gives it, and nothing else: take one seed away from such a
    comparison and it leaves the bullet (its interim look stays in the caveat)."""
    import json

    from rnnlab.course import answer_converge
    from rnnlab.evidence import converge_report
    from rnnlab.experiments import converge
    from rnnlab.experiments.store import load_results

    records = load_results(results_dir() / "converge" / "reference.jsonl")
    d = converge.design_for("reference", records)
    decided = [c for c in converge_report.results("reference", records)
               if c.wide == "L1" and c.judged
               and c.steps == converge.longest_length(d, c.budget, records)]  # fmt: skip
    assert decided, "the committed runs hold a decided comparison (160,000 parameters)"

    def named(c: Any) -> str:  # how the bullet names a comparison
        return f"{c.deep} - L1 at {c.budget:,} parameters and {c.steps:,} steps: "

    def in_words(c: Any) -> str:  # how the lead says its verdict
        (v,) = [v for v in d.variants if v.name == c.deep]
        said = answer_converge.verdict_words(
            c.effect.verdict, answer_converge.stack_words(v), d.margin
        )
        return f"{said} at {c.budget:,} parameters** ({c.steps:,} steps"

    bullet = answer.convergence_bullet(results_dir())
    assert bullet.startswith("- Trained longer (the convergence experiment")
    for c in decided:
        assert named(c) in bullet
        assert f"**{c.effect.verdict}** ({c.effect.n_seeds} seeds; " in bullet.split(named(c))[1]
    # the answer page carries it under the map's bullets, and the caveat keeps its own account
    block = answer.answer_markdown(results_dir())
    assert bullet in block and block.index(bullet) < block.index("**Caveats:**")
    # and its verdict in words in the first paragraph, before any bullet
    lead = answer.convergence_lead(results_dir())
    first = block.split("## What we found\n\n")[1].split("\n\n")[0]
    assert lead in first and lead.startswith("**Trained longer, ")
    final = "final" if converge_report.progress("reference", records).final else "provisional"
    for c in decided:
        assert (
            f"{in_words(c)}, {c.effect.n_seeds} seeds: {c.effect.verdict}; reference profile, "
            f"{final}; "
        ) in lead
    # one seed fewer: an interim look, which the caveat shows and the headline does not
    c = decided[0]
    (deep,) = [v for v in d.variants if v.name == c.deep]
    e = converge.chosen(d, c.budget, deep, c.steps, records)
    runs = [r for r in records if r.get("role") == "eval" and r["experiment_key"] == e.key]
    last = max(runs, key=lambda r: r["seed"])
    fewer = [r for r in records if r is not last]
    (tmp_path / "converge").mkdir()
    (tmp_path / "converge" / "reference.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in fewer)
    )
    after = answer.convergence_bullet(tmp_path) or ""
    assert named(c) not in after
    assert in_words(c) not in (answer.convergence_lead(tmp_path) or "")
    # the other comparisons decided at that length keep their place: one look held back
    # withdraws only the comparison it belongs to
    for other in decided[1:]:
        assert named(other) in after
    caveat = answer.convergence_caveat(tmp_path, answer.scale_map(results_dir()))
    assert f"**no verdict yet** ({c.effect.n_seeds - 1} of {c.effect.n_seeds} seeds" in caveat


def test_the_convergence_lead_says_what_each_verdict_says_and_no_more(monkeypatch):
    """The lead's words follow the verdict, not the data's direction: only a decided verdict
    names a winner; flip the committed answer's verdict and the sentence flips with it."""
    from rnnlab.course import answer_converge as ac
    from rnnlab.evidence import converge_report
    from rnnlab.experiments.converge import VARIANTS

    names = {v.name: ac.stack_words(v) for v in VARIANTS}
    assert names == {
        "L1": "one layer",
        "L2": "two plain layers",
        "L4-res-LN": "four residual LayerNorm layers",
        "L4-plain": "four plain layers",
    }
    two = names["L2"]
    assert ac.verdict_words("supported", two, 0.01) == "two plain layers beat one"
    assert ac.verdict_words("contradicted", two, 0.01) == "one layer beats two plain layers"
    assert ac.verdict_words("equivalent", two, 0.01) == (
        "two plain layers match one within 0.01 bits/char"
    )
    undecided = ac.verdict_words("inconclusive", two, 0.01)
    assert undecided == "two plain layers against one is undecided"
    assert ac.verdict_words("odd", two, 0.01) == "two plain layers against one: odd"
    made = converge_report.answers
    lead = ac.convergence_lead(results_dir())
    assert lead is not None and "two plain layers beat one at 160,000 parameters" in lead
    for verdict in ("contradicted", "equivalent", "inconclusive"):

        def flipped(profile, records, verdict=verdict):
            return [replace(c, effect=replace(c.effect, verdict=verdict))
                    for c in made(profile, records)]  # fmt: skip

        monkeypatch.setattr(converge_report, "answers", flipped)
        got = ac.convergence_lead(results_dir())
        assert ac.verdict_words(verdict, two, 0.01) + " at 160,000 parameters" in got
        assert "beat one" not in got
    monkeypatch.setattr(converge_report, "answers", lambda profile, records: [])
    assert ac.convergence_lead(results_dir()) is None
    assert "Trained longer" not in answer.headline({}, answer.scale_map(results_dir()))[0]


LAB_PAGES = {
    "lab-a": "02_lab_a_classification",
    "lab-b": "03_lab_b_generation",
    "lab-c": "04_lab_c_composition",
    "lab-d": "05_design_depth",
}


def test_each_lab_page_opens_with_its_answer():
    """The answer first: right under the title, each lab shows its verdicts at their scale
    (computed, never typed), and Lab B how far the convergence experiment has come."""
    import json

    for lab, page in LAB_PAGES.items():
        text = answer.in_short(lab, results_dir())
        assert text.startswith("**In short**")
        assert answer.lab_summary_markdown(lab, results_dir()) in text
        assert ("Not trained to convergence" in text) == (lab == "lab-b")
        assert "](" not in text.split("Not trained to convergence")[-1]  # no link to itself
        cells = json.loads((repo_root() / "chapters" / f"{page}.ipynb").read_text())["cells"]
        first_code = [c for c in cells[:4] if c["cell_type"] == "code"
                      and "bootstrap" not in c["metadata"].get("tags", [])]  # fmt: skip
        assert f'answer.in_short("{lab}")' in "".join(first_code[0]["source"]), page
    # the caveat keeps its link on other pages
    m = answer.scale_map(results_dir())
    assert "([Lab B](" in answer.convergence_caveat(results_dir(), m)
