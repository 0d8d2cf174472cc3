#!/bin/bash
set -u
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
[ -x build-gpu/bin/solder-run ] || { cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 && cmake --build build-gpu -j 16 > /tmp/build.log 2>&1; }
C=build-static/bin/solder-compile
for p in tf32 ieee; do
  $C --arch=sm_90a --precision=$p anchors/s19/vae512.mlir -o /tmp/c/new/$p > /dev/null || echo "compile failed new $p" &
  $C --arch=sm_90a --precision=$p --device-include=anchors/s19/old/runtime/device --cutlass-include=third_party/cutlass/include anchors/s19/vae512.mlir -o /tmp/c/old/$p > /dev/null || echo "compile failed old $p" &
done; wait
for round in 1 2 3; do for p in tf32 ieee; do for t in old new; do
  echo "$round $t $p $(build-gpu/bin/solder-run /tmp/c/$t/$p --bench=50 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done > $OUT/ab-h200.txt; cat $OUT/ab-h200.txt
for t in old new; do
  timeout 120 ncu -k regex:k0_reduction -c 1 --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy build-gpu/bin/solder-run /tmp/c/$t/tf32 > $OUT/ncu-k0-$t-h200.txt 2>&1
done
grep -E "Duration|DRAM Throughput" $OUT/ncu-k0-*-h200.txt
