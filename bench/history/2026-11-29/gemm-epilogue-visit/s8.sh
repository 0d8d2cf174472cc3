#!/bin/bash
# A/B of the GEMM epilogue's visit (channels fastest for one pixel a sample)
# on KernelBench's 15 GEMM chains: bundles of the compiler before (old) and
# after (new), solder-run --bench, interleaved; the chains against float64.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
cp build-static/bin/solder-compile build-gpu/bin/
for t in old new; do C=$([ $t = old ] && echo anchors/s8/sc-old || echo build-static/bin/solder-compile)
  for p in tf32 ieee; do for f in anchors/s8/mlir/*.mlir; do n=$(basename $f .mlir)
    $C --arch=sm_90a --precision=$p $f -o anchors/s8/$t/$p/$n > /dev/null 2>&1 || echo "compile failed $t $p $n" &
    while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
  done; done; done; wait; el compiled
for round in 1 2; do for d in anchors/s8/new/*/*/; do
  p=$(basename $(dirname $d)); n=$(basename $d)
  for t in old new; do
    echo "$t $p $n $(build-gpu/bin/solder-run anchors/s8/$t/$p/$n --bench=20 2>&1 | grep -o 'median [0-9.]* ms')"
  done
done; done | tee $OUT/ab.txt | tail -4; el timed
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python SOLDER_CACHE_DIR=/tmp/sc
SOLDER_CHAINS=$(ls anchors/s8/new/tf32 | tr '\n' ',' | sed 's/,$//') timeout 300 python3 -m pytest -q -p no:cacheprovider -rA \
  test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench_gpu.log 2>&1
el chains rc=$?; grep -E "passed|failed" $OUT/kernelbench_gpu.log | tail -3
