#!/usr/bin/env bash
# Sets up, builds and runs the main job on the seed workloads of examples/:
# parse and verify each one and print it as the compiler sees it.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}

"$root/scripts/bootstrap.sh"

for example in "$root"/examples/*.mlir; do
  echo
  echo "=== $(basename "$example") ==="
  "$build_dir/bin/solder-opt" "$example"
done
