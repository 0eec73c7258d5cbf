"""What the course found: the answer first, computed from the committed results.

The intro and the Findings page open with a short "What we found" block: the answer in plain
words with its scale, one figure (the scale map at a glance,
:func:`rnnlab.course.plots.scale_map_overview`) and one line per claim, then a few short caveats
with links. The repository's README carries the same headline and figure
(:func:`readme_markdown`). The block sits between two markers (:data:`BEGIN`, :data:`END`) and
is written, with the figure, by ``python -m rnnlab findings --write``;
``python -m rnnlab findings`` (and ``tests/test_answer.py``) fails when a page or the figure
disagrees with ``data/results/``.
Nothing in the block is typed by hand: every number comes from the same analysis outputs as the
Findings table (:func:`rnnlab.course.findings.verdict_rows`) and the scale map
(:mod:`rnnlab.evidence.scalemap`).

The convergence experiment's bullet and caveat come from :mod:`rnnlab.course.answer_converge`.
Each lab's summary states its own result with :func:`lab_summary_markdown` (Lab B's includes its
scale map), so the notebooks print what the data say instead of typing it.

Verdict labels are read as data: a label this module does not know is printed as it is and
counted like any other (never dropped, never mapped to a side).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from rnnlab.course import findings
from rnnlab.course.answer_converge import (
    LAB_B,
    convergence_bullet,
    convergence_caveat,
    convergence_lead,
)
from rnnlab.experiments.store import load_results

BEGIN = "<!-- BEGIN GENERATED: what we found, python -m rnnlab findings --write -->"
END = "<!-- END GENERATED: what we found -->"
#: The figure, beside the site's CSS (``_theme/`` is a static folder of both editions, so the
#: page reaches it at ``_static/figures/``).
FIGURE = Path("_theme") / "figures" / "what-we-found.svg"
FIGURE_URL = "_static/figures/what-we-found.svg"
#: The pages that open with the block, and each one's path back to the book's root.
PAGES = {"intro.md": "", "chapters/05_findings.md": "../"}
#: The repository's front page (GitHub shows it; the book leaves it out): it carries the
#: headline and the figure (:func:`readme_markdown`), and sends the reader on for the rest.
README = "README.md"
#: Which profile's verdict a claim's line quotes when several judged it: the largest scale first.
EVIDENCE_ORDER = ("gpu", "reference", "cpu")
#: The verdicts that decide a side (any other label, known or new, decides none).
DECIDED = ("supported", "contradicted")
#: Where the caveats link to, relative to the book's root.
LINKS = {
    "findings": "chapters/05_findings.md",
    "lab-b": LAB_B,
    "design": "chapters/05_design_depth.ipynb",
}


@dataclass(frozen=True)
class ScaleMap:
    """Claim (b) over budget x training length, as the answer reads it.

    ``cells[deep]``: the map's cells of L=``deep`` against L=1
    (:func:`rnnlab.evidence.scalemap.map_cells`); ``crossovers[deep]``:
    :func:`rnnlab.evidence.scalemap.crossovers`
    (the shallowest deep depth only); ``transfer_holds``: the declared rate-transfer rule's
    outcome (``None`` before the check ran); ``source``: the figure's source line."""

    records: tuple[dict, ...]
    cells: dict[int, list] = field(default_factory=dict)
    crossovers: dict[int, list] = field(default_factory=dict)
    transfer_holds: bool | None = None
    short_steps: int | None = None
    complete: bool = False
    source: str = ""

    @property
    def budgets(self) -> list[int]:
        return sorted({int(dict(c.cell)["budget_target"]) for v in self.cells.values() for c in v})

    @property
    def lengths(self) -> list[int]:
        return sorted({int(dict(c.cell)["steps"]) for v in self.cells.values() for c in v})

    @property
    def seeds(self) -> int:
        return min((c.comparison.n for v in self.cells.values() for c in v), default=0)

    @property
    def plain(self) -> bool:
        """Every stack of the map is plain (no residual connections, LayerNorm or projection),
        read from its runs' models: then the words say "plain layers", since what a plain
        deep stack loses may be trainability (claims d1, d2), not depth itself."""
        models = [r.get("model", {}) for r in self.records if r.get("role") == "eval"]
        return bool(models) and not any(
            m.get("residual") or m.get("layer_norm") or m.get("proj_size") for m in models
        )

    def layers(self, deep: int) -> str:
        """``"four plain layers"`` (``"four layers"`` where the map is not all plain)."""
        return f"{NUMBER_WORDS.get(deep, str(deep))} {'plain ' * self.plain}layers"


def scale_map(results_dir: str | Path) -> ScaleMap:
    """Read ``<results_dir>/scale/reference.jsonl`` into a :class:`ScaleMap` (empty if absent)."""
    from rnnlab.evidence import scalemap
    from rnnlab.experiments import scale

    path = Path(results_dir) / "scale" / "reference.jsonl"
    records = load_results(path) if path.exists() else []
    if not records:
        return ScaleMap(records=())
    cells = {d: scalemap.map_cells(records, deep=d) for d in scalemap.DEEP_DEPTHS}
    cells = {d: v for d, v in cells.items() if v}
    rows = scale.transfer_check(scale.sweep_spec("reference"), records)
    return ScaleMap(
        records=tuple(records),
        cells=cells,
        crossovers={d: scalemap.crossovers(records, deep=d) for d in cells if d == min(cells)},
        transfer_holds=scale.transfer_holds(rows),
        short_steps=rows[0]["short_steps"] if rows else None,
        complete=scalemap.status(records).complete,
        source=_short_source(records),
    )


#: Short names of the claims for the answer's one-line bullets (a new claim falls back to its
#: statement). They say what each claim's test judges: a gap-closure claim (d1, d3, d4) is
#: *supported* when the fix narrows the gap, so its name says "narrow"; whether it also closes
#: the gap comes from the data (:func:`rnnlab.evidence.analysis.verdict_words`). (d2) is a
#: trainability claim (how fast the depths memorise), not a capacity one.
SHORT = {
    "a": "width wins on classification",
    "b": "depth wins on generation and transduction",
    "c1": "depth wins when structure is strongly compositional",
    "c2": "width wins when data is limited",
    "d1": "residual connections with LayerNorm narrow the deep plain stacks' gap to one layer",
    "d2": "plain stacks of every depth memorise random labels equally fast (a trainability claim)",
    "d3": "dropout between layers narrows the gap further",
    "d4": "a projected (LSTMP) stack narrows the deep plain stacks' gap",
}
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 8: "eight"}


def _short_source(records) -> str:
    """The figure's source line: the file, its runs and seeds, the dates (the full provenance,
    hardware and commits included, is printed under Lab B's map)."""
    from rnnlab.evidence import analysis

    p = analysis.provenance(records)
    return (
        f"data/results/scale/reference.jsonl, profile {', '.join(p['profile'])}, "
        f"{p['eval_runs']} reporting runs (+{p['runs'] - p['eval_runs']} tuning), "
        f"{len(p['seeds'])} seeds, {p['first_run'][:10]} to {p['last_run'][:10]}"
    )


def _tally(verdicts: list[str]) -> str:
    """``"8 contradicted, 4 inconclusive"``: every label present, known labels in the plan's
    order, any other label after them."""
    from rnnlab.evidence.stats import VERDICTS_V2

    counts = Counter(verdicts)
    order = [v for v in VERDICTS_V2 if v in counts] + sorted(set(counts) - set(VERDICTS_V2))
    return ", ".join(f"{counts[v]} {v}" for v in order)


def _crossing_words(m: ScaleMap, deep: int) -> str:
    """Where L=``deep``'s mean turns ahead along training (finite crossovers only), or ``""``."""
    found = [x for x in m.crossovers.get(deep, []) if 0 < x.estimate < float("inf")]
    if not found:
        return ""
    budgets = " and ".join(f"{x.budget:,}" for x in found)
    steps = sorted(round(x.estimate, -2) for x in found)
    at = f"{steps[0]:,.0f}" if steps[0] == steps[-1] else f"{steps[0]:,.0f}-{steps[-1]:,.0f}"
    where = {x.budget for x in found}
    leads = [
        c
        for c in m.cells[deep]
        if int(dict(c.cell)["budget_target"]) in where and c.comparison.effect > 0
    ]
    decided = sum(c.comparison.verdict == "supported" for c in leads)
    sure = (
        "none of those leads is decided"
        if not decided
        else f"{decided} of those {len(leads)} leads supported"
    )
    return f"depth's mean turns ahead only after about {at} steps, at {budgets} parameters; {sure}"


def deep_bullet(m: ScaleMap, deep: int) -> str:
    """One depth of the map in plain words: who leads, how decided, and any crossover."""
    cells = m.cells[deep]
    n = len(cells)
    won = sum(c.comparison.verdict == "supported" for c in cells)
    lost = sum(c.comparison.verdict == "contradicted" for c in cells)
    ahead = sum(c.comparison.effect > 0 for c in cells)
    name = m.layers(deep).capitalize()
    tally = _tally([c.comparison.verdict for c in cells])
    if not won and lost * 2 >= n:
        text = (
            f"{name} lose clearly: width's lead is decided in {lost} of {n} cells, "
            f"depth's in none ({tally})"
        )
    elif not won and not lost:
        text = f"{name} against one: no cell is decided ({tally})"
    else:
        text = (
            f"{name} against one: decided for depth in {won} and for width in {lost} "
            f"of {n} cells ({tally})"
        )
    if ahead == 0:
        text += f"; width's mean is ahead in all {n}"
    cross = _crossing_words(m, deep)
    return text + (f"; {cross}" if cross else "") + "."


#: How the lead sentence says each verdict of a depth's cells against one layer: no stronger
#: than the verdict ("lose" needs a decided lead for width, "match" an equivalence; an
#: undecided cell is not "as good as").
DEPTH_VERDICT_WORDS = {
    "contradicted": "lose to one",
    "equivalent": "match one",
    "inconclusive": "are undecided",
    "not informative": "are not informative",
}


def _depth_words(m: ScaleMap, deep: int) -> str:
    """What one depth's cells decided against one layer, in :data:`DEPTH_VERDICT_WORDS`
    (a verdict without words there is named as it is)."""
    verdicts = [c.comparison.verdict for c in m.cells[deep]]
    n = len(verdicts)
    parts = []
    for verdict in dict.fromkeys([*DEPTH_VERDICT_WORDS, *verdicts]):
        k = verdicts.count(verdict)
        if k:
            words = DEPTH_VERDICT_WORDS.get(verdict, f"are {verdict}")
            parts.append(f"{words} in {f'all {n}' if k == n else f'{k} of {n}'}")
    return f"{m.layers(deep)} {' and '.join(parts)}"


def map_scale(m: ScaleMap) -> str:
    """The map's scale in words."""
    b, s = m.budgets, m.lengths
    state = "" if m.complete else ", provisional: the map is incomplete"
    return (
        f"character LMs on Python source, {'plain stacks, ' * m.plain}{b[0]:,}-{b[-1]:,} "
        f"parameters, {s[0]:,}-{s[-1]:,} training steps, {m.seeds} seeds per cell{state}"
    )


def map_sentence(m: ScaleMap) -> str:
    """The scale map's result in one sentence, with its scale."""
    if not m.cells:
        return "The scale map has no results yet."
    sides = "; ".join(
        f"L={d}: {_tally([c.comparison.verdict for c in v])}" for d, v in sorted(m.cells.items())
    )
    won = sum(c.comparison.verdict == "supported" for v in m.cells.values() for c in v)
    return (
        f"Over the scale map ({map_scale(m)}), depth's advantage is supported in "
        f"{won or 'no'} cell{'s' if won != 1 else ''} ({sides})."
    )


def _map_side(m: ScaleMap, deep: int) -> str:
    """One deep depth's map for the alt text: cells, where the means lean, what is decided."""
    cells = m.cells[deep]
    ahead = sum(c.comparison.effect > 0 for c in cells)
    return (
        f"depth's mean ahead in {ahead} of {len(cells)} cells, "
        f"{_tally([c.comparison.verdict for c in cells])}"
    )


def best_rows(results_dir: str | Path) -> dict[str, dict]:
    """Per claim, the Findings row (:func:`rnnlab.course.findings.verdict_rows`) of the
    largest-scale
    profile that judged it (:data:`EVIDENCE_ORDER`), in the claims' order."""
    out: dict[str, dict] = {}
    rank = {p: i for i, p in enumerate(EVIDENCE_ORDER)}
    for r in findings.verdict_rows(results_dir):
        if not r["evidence"] or not r["cells"]:
            continue
        old = out.get(r["claim"])
        if old is None or rank.get(r["profile"], 99) < rank.get(old["profile"], 99):
            out[r["claim"]] = r
    return out


def _cells_words(row: dict) -> str:
    return _tally([c["verdict"] for c in row["cells"]]) + " cells"


def claim_line(row: dict, m: ScaleMap | None = None) -> str:
    """One Markdown bullet: the claim, its verdict at its scale and its cells (and, for (b),
    the scale map's result)."""
    line = (
        f"- **({row['claim']})** {SHORT.get(row['claim'], row['statement'])}: "
        f"{findings.verdict_sentence(row)} ({row['profile']} profile; cells: "
        f"{_tally([c['verdict'] for c in row['cells']])})."
    )
    if row["claim"] == "b" and m is not None and m.cells:
        line += " " + map_sentence(m)
    return line


def headline(
    rows: dict[str, dict], m: ScaleMap, longer: str | None = None, lead: str | None = None
) -> list[str]:
    """The answer in plain words, with its scale: a bold sentence and a few bullets. Where the
    convergence experiment has made a verdict, ``lead`` (:func:`convergence_lead`) follows the
    map's sentence in the first paragraph and ``longer`` (:func:`convergence_bullet`, its
    interval) the map's bullets, since it answers the same question with longer training."""
    if not m.cells:
        return [
            "**The scale map has no committed results yet**, so the lines below rest on the "
            "labs' small budgets only." + (f" {lead}" if lead else "")
        ]
    won = [c for v in m.cells.values() for c in v if c.comparison.verdict == "supported"]
    b, s = m.budgets, m.lengths
    if won:
        w = min(won, key=lambda c: (dict(c.cell)["budget_target"], dict(c.cell)["steps"]))
        first = (
            f"**Depth's advantage is supported from {dict(w.cell)['budget_target']:,} "
            f"parameters at {dict(w.cell)['steps']:,} training steps (L={w.deep} against "
            "L=1).**"
        )
    else:
        n = sum(len(v) for v in m.cells.values())
        words = "; ".join(_depth_words(m, d) for d in sorted(m.cells))
        first = (
            f"**Up to {b[-1]:,} parameters and {s[-1]:,} training steps, a stack of narrow "
            f"{'plain ' * m.plain}LSTM layers beats one wide layer with the same number of "
            f"parameters in none of the scale map's {n} cells:** {words}."
        )
    also = f" {lead}" if lead else ""
    both = " and the convergence experiment" if lead else ""
    out = [f"{first}{also} Measured on the scale map ({map_scale(m)}){both}:", ""]
    out += [f"- {deep_bullet(m, d)}" for d in sorted(m.cells)]
    out += [longer] if longer else []
    d1 = rows.get("d1")
    if d1 is not None:
        said = f": {d1['words']}" if d1.get("words") else ""
        out.append(
            f"- Residual connections with LayerNorm against the gap that deep plain stacks show "
            f"to one layer, claim (d1): **{d1['verdict']}**{said} ({d1['scale']['text']})."
        )
    return out


def caveats(rows: dict[str, dict], m: ScaleMap, prefix: str = "") -> list[str]:
    """Short caveats, each with a link (``prefix``: the page's path back to the book's root)."""
    link = {k: prefix + v for k, v in LINKS.items()}
    verdicts = [c["verdict"] for r in rows.values() for c in r["cells"]]
    verdicts += [c.comparison.verdict for v in m.cells.values() for c in v]
    undecided = sum(v not in DECIDED and v != "equivalent" for v in verdicts)
    budgets = sorted({b for r in rows.values() for b in r["scale"].get("budgets", [])})
    out = []
    if budgets:
        out.append(
            f"- *Small models, short training.* The labs judge each claim at {budgets[0]:,}-"
            f"{budgets[-1]:,} parameters; a verdict holds at its stated scale, no further "
            f"([Findings]({link['findings']}))."
        )
    seeds = sorted({c["seeds"] for r in rows.values() for c in r["cells"]} | {m.seeds} - {0})
    few = f"{seeds[0]}" if len(seeds) == 1 else f"{seeds[0]}-{seeds[-1]}"
    out.append(
        f"- *{few} seeds per cell.* {undecided} of the {len(verdicts)} cells behind these lines "
        'are undecided, not equal; each table\'s "seeds for 80% power" column says how many '
        f"seeds would decide them ([Findings]({link['findings']}))."
    )
    if m.transfer_holds is False:
        out.append(
            f"- *Learning rates.* The map's longer lengths reuse rates tuned at "
            f"{m.short_steps:,} steps; the declared check of that transfer failed, and its "
            f"control bounds the bias ([Lab B]({link['lab-b']}))."
        )
    return out


def figure_alt(m: ScaleMap) -> str:
    """The figure's alt text, from the same cells as the figure."""
    if not m.cells:
        return "The scale map: no results yet."
    sides = "; ".join(f"L={d} against L=1, {_map_side(m, d)}" for d in sorted(m.cells))
    return (
        f"The scale map of claim (b), {len(m.budgets)} budgets ({m.budgets[0]:,} to "
        f"{m.budgets[-1]:,} parameters) by {len(m.lengths)} training lengths ({m.lengths[0]:,} to "
        f"{m.lengths[-1]:,} steps): {sides}."
    )


def figure_digest(m: ScaleMap) -> str:
    """A digest of what the figure draws (every cell's depth, budget, length, effect to 3
    digits and verdict, and the title): the sync check compares it with the one stored in the
    figure, so a stale figure fails without comparing pixels."""
    data = [
        [d, dict(c.cell)["budget_target"], dict(c.cell)["steps"], round(c.comparison.effect, 3),
         c.comparison.verdict]
        for d, v in sorted(m.cells.items()) for c in v
    ]  # fmt: skip
    text = json.dumps({"cells": data, "title": figure_title(m)}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def figure_title(m: ScaleMap) -> str:
    state = "complete" if m.complete else "provisional"
    return (
        f"Where each side leads on the scale map of claim (b) ({state}): "
        "depth advantage in bits per character"
    )


def make_figure(m: ScaleMap):
    """The answer's figure (:func:`rnnlab.course.plots.scale_map_overview`) of the map ``m``."""
    from rnnlab.course import plots

    return plots.scale_map_overview(
        m.cells, rows=m.budgets, cols=m.lengths, title=figure_title(m), source=m.source
    )


def write_figure(m: ScaleMap, path: str | Path) -> Path:
    """Save the figure as SVG (text kept as text), its digest in the SVG's metadata."""
    import matplotlib

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "rnnlab"}):
        make_figure(m).savefig(
            path, format="svg", metadata={"Date": None, "Description": figure_digest(m)}
        )
    return path


def stored_digest(path: str | Path) -> str | None:
    """The digest stored in a figure written by :func:`write_figure` (``None`` if absent)."""
    import re

    path = Path(path)
    if not path.is_file():
        return None
    found = re.search(r"<dc:description>([0-9a-f]+)</dc:description>", path.read_text())
    return found.group(1) if found else None


def answer_markdown(
    results_dir: str | Path,
    prefix: str = "",
    m: ScaleMap | None = None,
    rows: dict[str, dict] | None = None,
) -> str:
    """The generated block for a page whose path back to the book's root is ``prefix`` (``m``
    and ``rows``: :func:`scale_map` and :func:`best_rows` of ``results_dir``, if already read)."""
    m = scale_map(results_dir) if m is None else m
    rows = best_rows(results_dir) if rows is None else rows
    longer, lead = convergence_bullet(results_dir), convergence_lead(results_dir)
    lines = [BEGIN, "", "## What we found", "", *headline(rows, m, longer, lead), ""]
    if m.cells:
        lines += [
            f'<img src="{prefix}{FIGURE_URL}" alt="{figure_alt(m)}" class="rnnlab-answer-figure">',
            "",
            f"*Figure: where each side leads on the scale map; strong colour: decided, pale and "
            f"hatched: not decided. Every interval is in [Lab B]({prefix}{LINKS['lab-b']}).*",
            "",
        ]
    lines += ["**Each claim, at the scale it was measured:**", ""]
    lines += [claim_line(r, m) for r in rows.values()]
    lines += ["", "**Caveats:**", "", *caveats(rows, m, prefix)]
    lines += [convergence_caveat(results_dir, m, prefix), "", END]
    return "\n".join(lines)


def lab_summary_markdown(lab_name: str, results_dir: str | Path | None = None) -> str:
    """A lab's result for its summary: each of its claims' verdicts at their scale, in every
    profile with committed evidence, and for Lab B the scale map's result."""
    from rnnlab.core.paths import results_dir as default_dir

    results_dir = default_dir() if results_dir is None else results_dir
    rows = [
        r
        for r in findings.verdict_rows(results_dir)
        if r["lab"] == lab_name and r["evidence"] and r["cells"]
    ]
    if not rows:
        return "- No committed reference results for this lab yet: `make results` produces them."
    lines = [
        f"- **({r['claim']})**, {r['profile']} profile: {findings.verdict_sentence(r)} "
        f"({_cells_words(r)})." + ("" if r["complete"] else " Provisional: incomplete results.")
        for r in rows
    ]
    if lab_name == "lab-b":
        lines.append(f"- {map_sentence(scale_map(results_dir))}")
    return "\n".join(lines)


def in_short(lab_name: str, results_dir: str | Path | None = None) -> str:
    """A lab's answer first, for the top of its page: :func:`lab_summary_markdown` under a bold
    "In short", and for Lab B how far the convergence experiment has come
    (:func:`convergence_caveat`). Computed from the committed results when the page is built."""
    from rnnlab.core.paths import results_dir as default_dir

    results_dir = default_dir() if results_dir is None else results_dir
    body = lab_summary_markdown(lab_name, results_dir)
    if lab_name == "lab-b":
        body += "\n" + convergence_caveat(results_dir, scale_map(results_dir), link=False)
    return (
        "**In short** (computed from the committed results when this page was built; the "
        "evidence, its intervals and its caveats follow below):\n\n" + body
    )


def splice(page: str, block: str) -> str:
    """Replace ``page``'s answer block (markers included) with ``block``."""
    return findings.splice_between(page, block, BEGIN, END)


def readme_markdown(
    results_dir: str | Path, m: ScaleMap | None = None, rows: dict[str, dict] | None = None
) -> str:
    """The block for :data:`README`: the same headline as the book's pages (:func:`headline`),
    the figure by its path in the repository, and where each claim, the caveats and every
    interval are. Shorter than :func:`answer_markdown`, since the repository's visitor is on
    the way to the book."""
    m = scale_map(results_dir) if m is None else m
    rows = best_rows(results_dir) if rows is None else rows
    longer, lead = convergence_bullet(results_dir), convergence_lead(results_dir)
    lines = [BEGIN, "", "## What we found", "", *headline(rows, m, longer, lead), ""]
    if m.cells:
        lines += [f'<img src="{FIGURE.as_posix()}" alt="{figure_alt(m)}" width="720">', ""]
    lines += [
        f"Each claim at the scale it was measured, the caveats and every interval: "
        f"[Findings]({LINKS['findings']}); the scale map and the convergence experiment: "
        f"[Lab B]({LINKS['lab-b']}). Computed from `data/results/` by "
        "`python -m rnnlab findings --write`.",
        "",
        END,
    ]
    return "\n".join(lines)


def blocks(results_dir: str | Path) -> dict[str, str]:
    """Each page that carries the answer (:data:`PAGES`, then :data:`README`) -> its block."""
    m, rows = scale_map(results_dir), best_rows(results_dir)
    out = {page: answer_markdown(results_dir, prefix, m, rows) for page, prefix in PAGES.items()}
    out[README] = readme_markdown(results_dir, m, rows)
    return out


def write(root: str | Path, results_dir: str | Path) -> list[Path]:
    """Write the block into every page of :func:`blocks` and the figure; return what was
    written."""
    root, m = Path(root), scale_map(results_dir)
    written = []
    for page, block in blocks(results_dir).items():
        path = root / page
        path.write_text(splice(path.read_text(encoding="utf-8"), block))
        written.append(path)
    if m.cells:
        written.append(write_figure(m, root / FIGURE))
    return written


def check(root: str | Path, results_dir: str | Path) -> list[str]:
    """What disagrees with the data (empty list: every page and the figure are in sync)."""
    import difflib

    root, m = Path(root), scale_map(results_dir)
    problems = []
    for page, block in blocks(results_dir).items():
        text = (root / page).read_text(encoding="utf-8")
        expected = splice(text, block)
        if expected != text:
            problems += [f"{page}: the 'What we found' block differs from the data"]
            problems += list(
                difflib.unified_diff(
                    text.splitlines(), expected.splitlines(), page, "from data", lineterm="", n=0
                )
            )
    if m.cells and stored_digest(root / FIGURE) != figure_digest(m):
        problems.append(f"{FIGURE}: the figure is missing or was drawn from other data")
    return problems
