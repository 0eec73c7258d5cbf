#!/usr/bin/env bash
# One GPU session, as one command: the CUDA checks, the depth-cost benchmark on the GPU, then as
# much of the gpu scale map (rnnlab.experiments.scale, profile "gpu": budgets 25K to 1M) as fits in the time
# left, many runs packed onto the one GPU at once. Everything it produces goes to $OUT.
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
#   3. $OUT/depth-cost-gpu.json  benchmarks/bench_depth_cost.py on the GPU (time per token by depth)
#   4. $OUT/scale-gpu.jsonl    the scale map's runs, in its run order (shortest training first),
#                              JOBS processes at once, stopped cleanly SECONDS_BUDGET seconds
#                              after the script started; finished runs are whole records with
#                              their provenance, so a partial file is a valid partial map
#
# Back here: python -m rnnlab merge FILES_AT/scale-gpu.jsonl --out data/results/scale/gpu.jsonl
# (it adds the new runs to the committed ones), commit it; a later session resumes the map with
# RESUME=data/results/scale/gpu.jsonl (its finished runs are skipped).
#
# For a check of the plumbing without a GPU (the tests do this): DEVICE=cpu PROFILE=smoke.
set -uo pipefail

OUT=${OUT:?set OUT to the folder for the results}
SECONDS_BUDGET=${SECONDS_BUDGET:-500}  # the whole script, start to finish
JOBS=${JOBS:-12}                       # training processes sharing the GPU
DEVICE=${DEVICE:-cuda}
PROFILE=${PROFILE:-gpu}
BENCH_ARGS=${BENCH_ARGS:-}
PYTHON=${PYTHON:-python3}
RESUME=${RESUME:-}

start=$(date +%s)
mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 1
export PYTHONPATH="$PWD/lib${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 TQDM_DISABLE=1
export OMP_NUM_THREADS=1 MPLBACKEND=Agg

left() { echo $((SECONDS_BUDGET - ($(date +%s) - start))); }

{
  echo "date: $(date -u +%FT%TZ)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
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

echo "== 3. scale map, profile $PROFILE, $JOBS processes ($(left) s left)"
results="$OUT/scale-$PROFILE.jsonl"
if [ -n "$RESUME" ] && [ -f "$RESUME" ] && [ ! -f "$results" ]; then
  cp "$RESUME" "$results"  # finished runs are skipped by run_id
fi
budget=$(($(left) - 15))  # leave time to stop cleanly
if [ "$budget" -le 30 ]; then
  echo "no time left for training runs"
else
  timeout -s INT -k 20 "$budget" "$PYTHON" -m rnnlab run-scale --profile "$PROFILE" \
    --device "$DEVICE" --jobs "$JOBS" --threads 1 --out "$results" \
    --checkpoint-dir "/tmp/scale-$PROFILE.ckpt" > "$OUT/scale.log" 2>&1
  rc=$?
  [ $rc -eq 124 ] && echo "stopped at the time budget (finished runs are kept)"
  tail -n 5 "$OUT/scale.log"
fi
rm -f "$results.lock"
n=$(grep -c . "$results" 2>/dev/null || echo 0)
echo "== done in $(($(date +%s) - start)) s: $n runs in $results"
