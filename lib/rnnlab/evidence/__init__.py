"""From result records to evidence: statistics, effects, verdicts, the scale map, the
convergence experiment's analysis.

Imports only :mod:`rnnlab.experiments` and :mod:`rnnlab.core`.
"""
