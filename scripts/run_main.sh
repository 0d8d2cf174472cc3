#!/usr/bin/env bash
# Sets up, builds and runs the main job on the seed workloads of examples/:
# compile each to a bundle (fusion pipeline, plan report, CUDA, nvcc), and
# where a GPU is present run it on random inputs, check it against the CPU
# reference interpreter on the same inputs and time it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}
bundles=$build_dir/bundles

"$root/scripts/bootstrap.sh"

for example in "$root"/examples/*.mlir; do
  name=$(basename "$example" .mlir)
  echo
  echo "=== $name ==="
  "$build_dir/bin/solder-compile" "$example" -o "$bundles/$name" --report
done

echo
if ! nvidia-smi > /dev/null 2>&1; then
  echo "No GPU here: bundles are in $bundles; run them on a GPU machine with"
  echo "  solder-run BUNDLE --seed=1 --bench=20     (or test/gpu/run_gpu_suite.sh)"
  exit 0
fi
for bundle in "$bundles"/*/; do
  name=$(basename "$bundle")
  echo "=== run $name ==="
  "$build_dir/bin/solder-run" "$bundle" --seed=1 --output-dir="$bundle/out" --bench=20
done

# With a CUDA-enabled PyTorch, the same workloads as PyTorch modules through
# the Python front end, against eager and torch.compile (docs/USER_GUIDE.md).
python=$root/.venv/bin/python
if "$python" -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
  echo "=== python -m solder.bench ==="
  SOLDER_BIN_DIR=$build_dir/bin PYTHONPATH=$root/python \
    "$python" -m solder.bench --json "$build_dir/solder_bench.json" --png "$build_dir/solder_bench.png"
else
  echo "(no CUDA-enabled PyTorch: skipping python -m solder.bench)"
fi
