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
# The same for sm_90a (.gpu-bundles/PRECISION-sm90a/, mainloop-PRECISION-sm90a/):
# the Hopper main loop (TF32, or 3xTF32 for ieee) where the plan picks it.
for precision in ieee tf32; do
  for source in "$root"/examples/*.mlir "$root"/test/gpu/cases/*.mlir; do
    name=$(basename "$source" .mlir)
    "$compile" --precision=$precision --arch=sm_90a "$source" \
      -o "$out/$precision-sm90a/$name" > /dev/null
    echo "compiled $precision-sm90a/$name"
  done
  for source in "$root"/bench/mainloop/*.mlir; do
    name=$(basename "$source" .mlir)
    "$compile" --precision=$precision --arch=sm_90a "$source" \
      -o "$out/mainloop-$precision-sm90a/$name" > /dev/null
    echo "compiled mainloop-$precision-sm90a/$name"
  done
done
for source in "$root"/bench/mainloop/*.mlir; do
  name=$(basename "$source" .mlir)
  "$compile" --mainloop=fma "$source" -o "$out/mainloop-fma/$name" > /dev/null
  echo "compiled mainloop-fma/$name"
done
# The small-channel convs on the main loops the plan passed over: implicit
# GEMM on tensor cores (channels padded), W1's on the direct conv's FMAs,
# and the direct conv forced (in tf32: one TF32 product).
for precision in ieee tf32; do
  for choice in w1_conv@tensorop w1_conv@direct_fma w1_conv@direct w3_conv@tensorop w3_conv@direct; do
    conv=${choice%@*} mainloop=${choice#*@}
    "$compile" --precision=$precision --mainloop=$mainloop "$root/bench/mainloop/$conv.mlir" \
      -o "$out/mainloop-alt/$conv@$precision@$mainloop" > /dev/null
    echo "compiled mainloop-alt/$conv@$precision@$mainloop"
  done
done
# Tile sweep of the main loop (bench/scripts/mainloop.py times it): the
# planner's rate table (bench/mainloop/rates.json; bench/scripts/rates.py
# update rewrites it from mainloop.py's results) comes from these.
if [[ -z ${SOLDER_NO_TILE_SWEEP:-} ]]; then
  sweep() {
    local precision=$1; shift
    for tile in "$@"; do
      for conv in big3x3_256 w2_convT w3_conv; do
        name="$conv@$precision@${tile//\//-}"
        "$compile" --precision=$precision --conv-tile=$tile \
          "$root/bench/mainloop/$conv.mlir" -o "$out/mainloop-tiles/$name" > /dev/null 2>&1 ||
          echo "tile $tile does not compile for $conv ($precision)"
      done
    done
  }
  sweep tf32 128x128x32/64x64/3 64x128x16/32x64/4 128x128x16/64x64/4 128x64x32/64x32/3 \
    256x128x16/64x64/3 128x256x16/64x64/3 64x64x32/32x32/4
  sweep ieee 64x128x16/32x64/4 128x64x16/64x32/4 64x64x16/32x32/5 128x128x16/64x64/3 \
    64x128x16/32x64/3 128x64x16/32x32/4 64x64x32/32x32/3
fi
du -sh "$out"
