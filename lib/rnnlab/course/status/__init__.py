"""What ran where: the tables on the book's *Execution status* page.

The committed reference results live in ``data/results/*.jsonl`` (JSON Lines: one finished run
per line). Each run records its provenance; this module needs these keys:

=================  ==========================================================
``lab``            which lab the run belongs to, e.g. ``"A"``
``profile``        the compute profile, e.g. ``"cpu"``
``seed``           the run's random seed
``device``         where it ran, e.g. ``"cpu"`` or ``"cuda"`` (an optional ``device_name``,
                   e.g. ``"Tesla T4"``, is shown next to it)
``versions``       ``{package: version}``, e.g. ``{"torch": "2.13.0"}``
``wall_time_s``    seconds from start to finish
``git_commit``     the commit of the code that produced the run
``started_at``     ISO 8601 start time, e.g. ``"2026-11-30T14:03:00+00:00"``
=================  ==========================================================

:func:`summarize_runs` groups runs by (file, lab, profile, device, versions) and returns plain
dicts; :func:`results_table_markdown` renders them as one Markdown table (or says there are no
results yet). Nothing here needs pandas.

The code is in submodules by job: :mod:`.runs` (the runs table), :mod:`.walltime` (time per
lab) and :mod:`.progress` (how far each design is); this package re-exports their public names.
"""

from __future__ import annotations

from rnnlab.course.status.progress import (
    design_progress,
    design_progress_markdown,
    design_progress_text,
)
from rnnlab.course.status.runs import (
    COLUMNS,
    REQUIRED_KEYS,
    build_environment_markdown,
    format_duration,
    format_versions,
    load_runs,
    markdown_table,
    results_table_markdown,
    summarize_runs,
)
from rnnlab.course.status.walltime import (
    LabTime,
    lab_time,
    lab_walltime_markdown,
)

__all__ = [
    "REQUIRED_KEYS",
    "COLUMNS",
    "load_runs",
    "format_versions",
    "format_duration",
    "summarize_runs",
    "markdown_table",
    "results_table_markdown",
    "build_environment_markdown",
    "LabTime",
    "lab_time",
    "lab_walltime_markdown",
    "design_progress",
    "design_progress_markdown",
    "design_progress_text",
]
