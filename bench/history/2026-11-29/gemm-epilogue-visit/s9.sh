#!/bin/bash
# The 8192^3 GEMM's bundles before and after the epilogue's visit along the channels, interleaved.
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 --target solder-run > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
for r in 1 2 3; do for p in tf32 ieee; do for t in old new; do
  echo "$t $p $(build-gpu/bin/solder-run anchors/s9/$t-$p --bench=20 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done | tee $OUT/gemm-8192-ab-h200.txt
