#!/bin/bash
# The LayerNorm chain's conv_transpose under sm80 tiles given by hand: bundle times and the conv kernel's.
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 --target solder-run > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
for round in 1 2; do for b in anchors/s17/*_*/; do
  echo "$round $(basename $b) $(build-gpu/bin/solder-run $b --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"
done; done | tee $OUT/tiles-h200.txt
for b in anchors/s17/*_*/; do echo "== $(basename $b)"; timeout 60 ncu -k regex:'k0_conv$' -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy build-gpu/bin/solder-run $b --seed=1 2>&1 | grep -E "Duration|Registers Per|Achieved Occupancy"; done | tee $OUT/tiles-ncu-h200.txt
