"""The design chapter (Lab D) on the page: its tables and paragraphs, from the results.

The chapter (``chapters/05_design_depth.ipynb``) calls these functions and asserts what its
text says; the functions read the benchmark files, the result records and the claim verdicts
and return HTML tables (:func:`rnnlab.course.book.html_table`, each at most 8 columns, narrow
enough for
the text column) or Markdown strings. Nothing here prints.

- Benchmarks (``data/bench/*.json``): :func:`load_bench`, :func:`bench_source`,
  :func:`step_plan_table`, :func:`step_plan_sentence`, :func:`depth_cost_summary`,
  :func:`ms_per_step_by_stack`, :func:`reference_plan_sentence`.
- Designs: :func:`profiles_table`, :func:`design_table`.
- What a budget buys: :func:`match_designs` (:class:`MatchedDesign`), :func:`width_matching_table`,
  :func:`depth_eight_sentence`, :func:`memorization_table`, :func:`probe_ceiling_sentence`,
  :func:`flops_table`.
- Results: :func:`cell_mean`, :func:`claim_line`, :func:`verdict_tables`,
  :func:`cpu_findings`, :func:`reference_table`, :func:`reference_findings`,
  :func:`committed_sentence`.

The code is in submodules by job: :mod:`.bench`, :mod:`.designs`, :mod:`.budget` and
:mod:`.results`; this package re-exports their public names.
"""

from __future__ import annotations

from rnnlab.course.design_page.bench import (
    bench_source,
    depth_cost_summary,
    load_bench,
    ms_per_step_by_stack,
    reference_plan_sentence,
    step_plan_sentence,
    step_plan_table,
)
from rnnlab.course.design_page.budget import (
    MatchedDesign,
    depth_eight_sentence,
    flops_table,
    match_designs,
    memorization_table,
    probe_ceiling_sentence,
    width_matching_table,
)
from rnnlab.course.design_page.designs import (
    TASKS,
    design_table,
    profiles_table,
)
from rnnlab.course.design_page.results import (
    CellMean,
    cell_mean,
    claim_line,
    committed_sentence,
    cpu_findings,
    reference_findings,
    reference_table,
    verdict_tables,
)

__all__ = [
    "load_bench",
    "bench_source",
    "step_plan_table",
    "step_plan_sentence",
    "depth_cost_summary",
    "ms_per_step_by_stack",
    "reference_plan_sentence",
    "TASKS",
    "profiles_table",
    "design_table",
    "MatchedDesign",
    "match_designs",
    "width_matching_table",
    "depth_eight_sentence",
    "memorization_table",
    "probe_ceiling_sentence",
    "flops_table",
    "CellMean",
    "cell_mean",
    "claim_line",
    "verdict_tables",
    "cpu_findings",
    "committed_sentence",
    "reference_table",
    "reference_findings",
]
