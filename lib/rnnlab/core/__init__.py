"""The bottom layer: what a model and its data are, and how one is trained.

Parameter counts and budget matching, the tasks, the models, the training loop, the cost model,
the repository's paths, and how a signed number is printed (:mod:`~rnnlab.core.text`). Imports
nothing else of :mod:`rnnlab`.
"""
