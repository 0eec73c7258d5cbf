"""rnnlab: the library behind the course "Stacked RNNs: depth vs width".

Modules, one job each:

- :mod:`rnnlab.params`    exact parameter counts and budget matching (pure Python; sympy algebra)
- :mod:`rnnlab.tasks`     deterministic, offline data generators and corpus loaders
- :mod:`rnnlab.models`    budget-matched stacked LSTM classifiers, taggers and language models
- :mod:`rnnlab.train`     device, seeds, the training loop, learning-rate search, progress
- :mod:`rnnlab.sweep`     experiments as data, results on disk with provenance, resume
- :mod:`rnnlab.labs`      the labs and the profiles (smoke, cpu, gpu)
- :mod:`rnnlab.stats`     means, confidence intervals, the verdict rule
- :mod:`rnnlab.analysis`  from result records to tables, effects and verdicts
- :mod:`rnnlab.plots`, :mod:`rnnlab.widgets`  pictures
- :mod:`rnnlab.exercises` self-checks for the exercises
- :mod:`rnnlab.colab`, :mod:`rnnlab.student`, :mod:`rnnlab.status`, :mod:`rnnlab.sphinxext`
  course tooling
"""

__version__ = "0.2.0"
