#!/usr/bin/env bash
# Install a CPU build of PyTorch into the active environment, never a multi-GB CUDA build.
#  - If torch is already importable (Colab, or a re-run), do nothing.
#  - If a CPU wheel lies in pip's find-links folder (this course's CI machines keep one in
#    /opt/wheels), install exactly that version.
#  - Otherwise use PyTorch's official CPU wheel index.
# Override with TORCH_SPEC="torch==X.Y.Z" (plus PIP_INDEX_URL etc.) if you need something else.
set -euo pipefail
PY=${PYTHON:-python}
if "$PY" -c "import torch" 2>/dev/null; then
  echo "torch $("$PY" -c 'import torch; print(torch.__version__)') already installed"
  exit 0
fi
if [ -n "${TORCH_SPEC:-}" ]; then
  exec "$PY" -m pip install -q "$TORCH_SPEC"
fi
wheel=$(ls /opt/wheels/torch-*+cpu-*.whl 2>/dev/null | sort -V | tail -n 1 || true)
if [ -n "$wheel" ]; then
  version=$(basename "$wheel" | cut -d- -f2 | cut -d+ -f1)
  echo "installing the local CPU wheel torch==$version"
  exec "$PY" -m pip install -q "torch==$version"
fi
echo "installing torch from PyTorch's CPU wheel index"
exec "$PY" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
