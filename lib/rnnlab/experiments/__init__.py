"""Experiments as data and how they run: experiments and sweeps, the results store, the
executors (inline, process pool, Dask), the labs and their profiles, the scale map's and the
convergence experiment's designs, labs on a student's own text.

Imports only :mod:`rnnlab.core`.
"""
