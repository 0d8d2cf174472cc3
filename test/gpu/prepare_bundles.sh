#!/usr/bin/env bash
# On the development machine (no GPU needed): compiles every workload of
# examples/ and every case of test/gpu/cases/ into bundles under
# .gpu-bundles/PRECISION/ (ieee and tf32), the main-loop microbenchmark convs
# of bench/mainloop/ under .gpu-bundles/mainloop-PRECISION/, and the same
# convs on the FMA main loop under .gpu-bundles/mainloop-fma/ for comparison.
# The device run carries .gpu-bundles along (git ignores it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/.gpu-bundles
compile=$root/build/bin/solder-compile
rm -rf "$out" && mkdir -p "$out"
for precision in ieee tf32; do
  for source in "$root"/examples/*.mlir "$root"/test/gpu/cases/*.mlir; do
    name=$(basename "$source" .mlir)
    "$compile" --precision=$precision "$source" -o "$out/$precision/$name" > /dev/null
    echo "compiled $precision/$name"
  done
  for source in "$root"/bench/mainloop/*.mlir; do
    name=$(basename "$source" .mlir)
    "$compile" --precision=$precision "$source" -o "$out/mainloop-$precision/$name" > /dev/null
    echo "compiled mainloop-$precision/$name"
  done
done
for source in "$root"/bench/mainloop/*.mlir; do
  name=$(basename "$source" .mlir)
  "$compile" --mainloop=fma "$source" -o "$out/mainloop-fma/$name" > /dev/null
  echo "compiled mainloop-fma/$name"
done
du -sh "$out"
