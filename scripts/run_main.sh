#!/usr/bin/env bash
# Sets up, builds and runs the main job on the seed workloads of examples/:
# compile each through the fusion pipeline and print its plan (kernels, the
# ops fused into each, bytes, FLOPs, materialize-or-recompute decisions).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}

"$root/scripts/bootstrap.sh"

for example in "$root"/examples/*.mlir; do
  echo
  echo "=== $(basename "$example") ==="
  "$build_dir/bin/solder-opt" "$example" --solder-pipeline=report=true -o /dev/null
done
echo
echo "Code generation and GPU runs are not built yet: no kernels were run."
