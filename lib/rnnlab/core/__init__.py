"""The bottom layer: what a model and its data are, and how one is trained.

Parameter counts and budget matching, the tasks, the models, the training loop, the cost model
and the repository's paths. Imports nothing else of :mod:`rnnlab`.
"""
