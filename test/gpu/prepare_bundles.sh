#!/usr/bin/env bash
# On the development machine (no GPU needed): compiles every workload of
# examples/ and every case of test/gpu/cases/ into bundles under
# .gpu-bundles/, which the device run carries along (git ignores it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/.gpu-bundles
rm -rf "$out" && mkdir -p "$out"
for source in "$root"/examples/*.mlir "$root"/test/gpu/cases/*.mlir; do
  name=$(basename "$source" .mlir)
  "$root/build/bin/solder-compile" "$source" -o "$out/$name" > /dev/null
  echo "compiled $name"
done
du -sh "$out"
