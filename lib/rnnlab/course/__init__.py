"""What the book shows and how it is built: figures, widgets, exercise self-checks, the
Findings page and answer blocks, the instructor guide, execution status, student copies, the
Colab bootstrap and the Sphinx extension.

Imports :mod:`rnnlab.evidence`, :mod:`rnnlab.experiments` and :mod:`rnnlab.core`.
"""
