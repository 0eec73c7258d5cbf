r"""Interactive explorers for the notebooks, built on :mod:`ipywidgets`.

:func:`parameter_explorer` lets a reader move the input size :math:`m`, the width :math:`d`, the
depth :math:`L` and the budget :math:`B`, and shows, live,

- the parameters of an :math:`L`-layer LSTM at width :math:`d`, textbook (one bias per gate,
  :math:`4(dm + (2L-1)d^2 + Ld)`) and PyTorch (two, :math:`4(dm + (2L-1)d^2 + 2Ld)`);
- the width matched to the budget for :math:`L = 1..4` layers
(:func:`rnnlab.core.params.matched_width`),
  next to the large-:math:`d` rule :math:`d/\sqrt{2L-1}`;
- the figure :func:`rnnlab.course.plots.param_count_vs_width`.

A static website has no kernel, so sliders cannot move there. The explorer therefore also displays
its initial table and figure as ordinary outputs, which the website shows; in a live notebook
(Jupyter, Colab) the sliders appear below them and update their own copy.

:func:`browser_explorer` is the same explorer for pages without a kernel (Chapter 1 uses it): one
HTML output with an inline script that evaluates the closed forms in the browser, so its sliders
work on the static website too (see :func:`explorer_page_html`).

Everything here is import-safe without a frontend: the widgets can be built and driven in a plain
Python process (the tests do), and :func:`explorer_values` / :func:`explorer_html` are pure
functions.

The code is in submodules by job: :mod:`.values` (the numbers and their table), :mod:`.kernel`
(the ipywidgets explorer) and :mod:`.browser` (the explorer without a kernel); this package
re-exports their public names.
"""

from __future__ import annotations

from rnnlab.course.widgets.browser import (
    BROWSER_EXPLORER_CLASS,
    EXPLORER_MATH_JS,
    BrowserExplorer,
    browser_explorer,
    explorer_page_html,
)
from rnnlab.course.widgets.kernel import ParameterExplorer, parameter_explorer
from rnnlab.course.widgets.values import ExplorerValues, explorer_html, explorer_values

__all__ = [
    "BROWSER_EXPLORER_CLASS",
    "EXPLORER_MATH_JS",
    "BrowserExplorer",
    "ExplorerValues",
    "ParameterExplorer",
    "browser_explorer",
    "explorer_html",
    "explorer_page_html",
    "explorer_values",
    "parameter_explorer",
]
