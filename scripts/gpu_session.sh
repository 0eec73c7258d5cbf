#!/usr/bin/env bash
# One GPU session, as one command: the CUDA checks, the depth-cost benchmark on the GPU, then as
# many runs of an experiment's gpu profile as fit in the time left, many runs packed onto the one
# GPU at once. Everything it produces goes to $OUT. The experiment is EXPERIMENT=converge (the
# default: the convergence experiment, rnnlab.experiments.converge, whose design asks that a lent
# GPU run its gpu profile first) or EXPERIMENT=scale (the scale map, rnnlab.experiments.scale).
#
#   OUT=/tmp/gpu bash scripts/gpu_session.sh            # on a machine with a CUDA GPU
#   OUT=/tmp/gpu SECONDS_BUDGET=3600 JOBS=16 bash scripts/gpu_session.sh   # a longer session
#
# It installs nothing: it runs the course library from lib/ with the machine's own python3, which
# must hold torch (with CUDA), numpy, scipy, sympy, tqdm, pyyaml, filelock and pytest. Then:
#
#   1. $OUT/env.txt            the GPU, driver, torch and CUDA versions, the commit
#   2. $OUT/cuda-tests.log     pytest tests/test_cuda.py: CUDA equals the CPU in fp32, training
#                              learns (fp32, bf16, fp16), a killed run resumes, no per-step syncs
#   3. $OUT/depth-cost-$DEVICE.json  benchmarks/bench_depth_cost.py on the GPU (time per token by depth)
#   4. $OUT/EXPERIMENT-gpu.jsonl  the experiment's runs, in its run order, JOBS processes at once,
#                              stopped cleanly SECONDS_BUDGET seconds after the script started;
#                              finished runs are whole records with their provenance, so a
#                              partial file is a valid partial result. JOBS=auto (the default)
#                              takes as many as could each finish a run of the experiment's
#                              longest length in the time left even if the GPU ran their steps
#                              one after another (from the benchmark's time per step), at most
#                              MAX_JOBS; with PACKING="1 2 4 8" it first measures how runs
#                              share the device (benchmarks/bench_packing.py, into
#                              $OUT/packing-$DEVICE.json, its table in depth-cost.log) and takes
#                              the number that trains the most steps per second in all with
#                              every run still finishing (runner.jobs_from_packing). MPS=1
#                              starts NVIDIA's MPS daemon first, so that the packed processes'
#                              kernels overlap instead of taking turns; if it cannot start, or
#                              CUDA fails under it, the session goes on without it.
#   5. $OUT/checkpoints.tar    the runs still in flight at the stop, each saved at the step it
#                              was in (the sweep is stopped with SIGINT, on which a run saves),
#                              and the forks waiting for their shorter runs: at most 15 MiB,
#                              runs in flight first (python -m rnnlab carry). Absent if none.
#
# Back here: python -m rnnlab merge FILES_AT/converge-gpu.jsonl --out data/results/converge/gpu.jsonl
# (or scale-gpu.jsonl into data/results/scale/gpu.jsonl: it adds the new runs to the committed
# ones), commit it; a later session resumes with RESUME=<that file> (its finished runs are skipped).
# Keep FILES_AT/checkpoints.tar too (git ignores data/results/**/*.tar): a later session given
# RESUME_CKPT=<that tar> (and carry=[<that tar>] in the device call) resumes the runs in flight
# from their steps instead of from the start. On the same warm machine a second call resumes them
# without it (the checkpoints stay in $SCRATCH, /tmp by default, there).
#
# For a check of the plumbing without a GPU (the tests do this): DEVICE=cpu PROFILE=smoke.
set -uo pipefail
case "${EXPERIMENT:-converge}" in
  converge|scale) ;;
  *) echo "EXPERIMENT must be converge or scale, got ${EXPERIMENT}" >&2; exit 2 ;;
esac

OUT=${OUT:?set OUT to the folder for the results}
SECONDS_BUDGET=${SECONDS_BUDGET:-500}  # the whole script, start to finish
JOBS=${JOBS:-auto}                     # training processes sharing the GPU (auto: see above)
MAX_JOBS=${MAX_JOBS:-12}
EXPERIMENT=${EXPERIMENT:-converge}
DEVICE=${DEVICE:-cuda}
PROFILE=${PROFILE:-gpu}
BENCH_ARGS=${BENCH_ARGS:-}
PYTHON=${PYTHON:-python3}
RESUME=${RESUME:-}
RESUME_CKPT=${RESUME_CKPT:-}           # a checkpoints.tar from an earlier session
MPS=${MPS:-0}                          # 1: start NVIDIA's MPS daemon (if there is one)
PACKING=${PACKING:-}                   # e.g. "1 2 4 8": measure packing, size JOBS=auto by it
PACKING_SECONDS=${PACKING_SECONDS:-8}  # timed seconds per number of processes
SCRATCH=${SCRATCH:-/tmp}               # the machine's own folder for the sweep's working files

start=$(date +%s)
mkdir -p "$OUT" "$SCRATCH"
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH="$PWD/lib${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 TQDM_DISABLE=1
export OMP_NUM_THREADS=1 MPLBACKEND=Agg

left() { echo $((SECONDS_BUDGET - ($(date +%s) - start))); }

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: ${RNNLAB_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null
  "$PYTHON" -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__,
"cuda", torch.version.cuda, "available", torch.cuda.is_available(),
torch.cuda.get_device_name() if torch.cuda.is_available() else "")'
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

echo "== 1. CUDA checks ($(left) s left)"
"$PYTHON" -m pytest -q -p no:cacheprovider -o addopts="" -rs tests/test_cuda.py \
  > "$OUT/cuda-tests.log" 2>&1
tests_rc=$?
tail -n 15 "$OUT/cuda-tests.log"
if [ "$DEVICE" = cuda ] && [ $tests_rc -ne 0 ]; then
  echo "the CUDA checks failed (rc=$tests_rc): no results are produced on this device"
  exit $tests_rc
fi

echo "== 2. depth-cost benchmark ($(left) s left)"
# shellcheck disable=SC2086  # BENCH_ARGS is a list of options
"$PYTHON" benchmarks/bench_depth_cost.py --device "$DEVICE" --json "$OUT/depth-cost-$DEVICE.json" \
  $BENCH_ARGS > "$OUT/depth-cost.log" 2>&1 || echo "benchmark failed (see depth-cost.log)"
tail -n 12 "$OUT/depth-cost.log"

mps_on=0
if [ "$MPS" = 1 ]; then  # NVIDIA's Multi-Process Service: packed processes' kernels overlap
  if [ "$DEVICE" != cuda ] || ! command -v nvidia-cuda-mps-control > /dev/null; then
    echo "MPS: not on this machine (DEVICE=$DEVICE, no nvidia-cuda-mps-control or no CUDA)"
  else
    export CUDA_MPS_PIPE_DIRECTORY="$SCRATCH/mps-pipe" CUDA_MPS_LOG_DIRECTORY="$SCRATCH/mps-log"
    mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
    if nvidia-cuda-mps-control -d \
      && timeout 60 "$PYTHON" -c 'import torch; torch.ones(1, device="cuda").sum().item()'; then
      mps_on=1
      echo "MPS: on"
    else  # never leave a daemon that CUDA cannot use: the runs go on without it
      echo quit | nvidia-cuda-mps-control > /dev/null 2>&1
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      echo "MPS: could not start; without it"
    fi
  fi
fi
trap '[ "$mps_on" = 1 ] && echo quit | nvidia-cuda-mps-control > /dev/null 2>&1' EXIT

packing="$OUT/packing-$DEVICE.json"
if [ -n "$PACKING" ] && [ "$JOBS" = auto ]; then
  echo "== 2b. packing: steps per second of ${PACKING// /, } processes at once ($(left) s left)"
  if ! "$PYTHON" benchmarks/bench_packing.py --device "$DEVICE" --jobs "${PACKING// /,}" \
    --seconds "$PACKING_SECONDS" --json "$packing" >> "$OUT/depth-cost.log" 2>&1; then
    echo "packing benchmark failed (see depth-cost.log)"
    rm -f "$packing"
    if [ "$mps_on" = 1 ]; then  # packed processes failed under MPS: the runs go without it
      echo quit | nvidia-cuda-mps-control > /dev/null 2>&1
      unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
      mps_on=0
      echo "MPS: stopped; without it"
    fi
  fi
  tail -n 8 "$OUT/depth-cost.log"
fi

echo "== 3. $EXPERIMENT, profile $PROFILE ($(left) s left)"
results="$OUT/$EXPERIMENT-$PROFILE.jsonl"
work="$SCRATCH/rnnlab-$EXPERIMENT-$PROFILE.jsonl"  # <work>.ckpt: checkpoints and forks
rm -f "$work" "$work.lock"
if [ -f "$results" ]; then
  cp "$results" "$work"  # a second run into the same OUT resumes its own runs
elif [ -n "$RESUME" ] && [ -f "$RESUME" ]; then
  cp "$RESUME" "$work"  # finished runs are skipped by run_id
fi
if [ -n "$RESUME_CKPT" ]; then  # runs in flight when an earlier session stopped
  "$PYTHON" -m rnnlab carry unpack "$RESUME_CKPT" --into "$work.ckpt" \
    || echo "could not unpack $RESUME_CKPT: those runs start from the beginning"
fi
if [ "$JOBS" = auto ]; then
  window=$(( $(left) > 30 ? $(left) - 30 : 0 ))  # the sweep's time, less a margin to stop
  JOBS=$("$PYTHON" - "$OUT/depth-cost-$DEVICE.json" "$window" "$EXPERIMENT" "$PROFILE" \
    "$MAX_JOBS" "$DEVICE" "$packing" <<'PY'
import json, os, sys
bench, window, experiment, profile = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
most, device, packing = int(sys.argv[5]), sys.argv[6], sys.argv[7]
if experiment == "converge":  # the longest declared length (an extension comes later)
    from rnnlab.experiments.converge import design
    steps = max(design(profile).lengths)
else:
    from rnnlab.evidence.scalemap import design_grid
    steps = max(design_grid(profile)[1])
from rnnlab.experiments.runner import jobs_from_packing, jobs_that_fit
if os.path.exists(packing):  # measured: the most steps per second in all, runs still finishing
    try:
        jobs = jobs_from_packing(json.load(open(packing)), steps, window, most)
    except ValueError as e:
        print(f"the packing measurement cannot size JOBS ({e}): the benchmark's rule",
              file=sys.stderr)
    else:
        print(f"{jobs} processes train the most steps per second in all, each finishing a "
              f"{steps:,}-step run in {window:.0f} s (measured: jobs_from_packing)",
              file=sys.stderr)
        print(jobs)
        raise SystemExit
try:
    jobs = jobs_that_fit(json.load(open(bench)), device, steps, window, most)
except (OSError, ValueError) as e:  # no benchmark, or no row of this device
    print(f"no benchmark to size JOBS ({e}): 1", file=sys.stderr)
    print(1)
    raise SystemExit
print(f"{jobs} processes fit {window:.0f} s with {steps:,}-step runs even run one after "
      "another (rnnlab.experiments.runner.jobs_that_fit)", file=sys.stderr)
print(jobs)
PY
  )
  case "$JOBS" in ''|*[!0-9]*) echo "JOBS=auto gave no number: 1 process"; JOBS=1 ;; esac
fi
echo "$JOBS processes"
budget=$(($(left) - 15))  # leave time to stop cleanly
if [ "$budget" -le 30 ]; then
  echo "no time left for training runs"
else
  if [ "$EXPERIMENT" = converge ]; then
    timeout -s INT -k 20 "$budget" "$PYTHON" -m rnnlab run-converge --profile "$PROFILE" \
      --device "$DEVICE" --jobs "$JOBS" --threads 1 --out "$work" > "$OUT/$EXPERIMENT.log" 2>&1
  else
    timeout -s INT -k 20 "$budget" "$PYTHON" -m rnnlab run-scale --profile "$PROFILE" \
      --device "$DEVICE" --jobs "$JOBS" --threads 1 --out "$work" \
      --checkpoint-dir "$work.ckpt" > "$OUT/$EXPERIMENT.log" 2>&1
  fi
  rc=$?
  [ $rc -eq 124 ] && echo "stopped at the time budget (finished runs are kept)"
  tail -n 5 "$OUT/$EXPERIMENT.log"
fi
[ -f "$work" ] && cp "$work" "$results"
rm -f "$work.lock"
# the runs in flight saved their step on SIGINT: bring them back (one file, within the limits)
"$PYTHON" -m rnnlab carry pack "$work.ckpt" --to "$OUT/checkpoints.tar" --limit-mib 15 \
  || echo "could not pack the checkpoints in flight (see above)"
n=$(grep -c . "$results" 2>/dev/null || echo 0)
echo "== done in $(($(date +%s) - start)) s: $n runs in $results"
