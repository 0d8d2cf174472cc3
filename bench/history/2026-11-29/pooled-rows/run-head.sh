#!/bin/bash
# The whole GPU suite on HEAD, sm_90a, both precisions (sanitizer on the
# reduce-and-apply cases only): every case against float64.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; cp $C build-gpu/bin/; el built  # a static solder-compile of HEAD
for p in tf32 ieee; do for f in test/gpu/cases/*.mlir examples/*.mlir; do n=$(basename $f .mlir)
  $C --arch=sm_90a --precision=$p $f -o /tmp/b/$p/$n > /dev/null 2>&1 || echo "compile failed $p $n" &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done; done; wait; el compiled
for p in tf32 ieee; do
  timeout 260 python3 test/gpu/gpu_suite.py --bundles /tmp/b/$p --build build-gpu --out /tmp/s/$p --runs 10 --no-bench --no-sanitizer \
    2>&1 | grep -v "^running\|^   {" | sed "s/^/$p /"
done > $OUT/gpu-suite-all-h200.txt 2>&1; el suite
grep -cE " PASS " $OUT/gpu-suite-all-h200.txt; grep -E "FAIL|error" $OUT/gpu-suite-all-h200.txt | cut -c1-220 | head -20
# The pooled-row cases under compute-sanitizer, both precisions.
for p in tf32 ieee; do
  timeout 120 python3 test/gpu/gpu_suite.py --bundles /tmp/b/$p --build build-gpu --out /tmp/s2/$p --runs 10 --no-bench \
    --cases layernorm_lastdim_pool_gelu,reduce_apply_rows 2>&1 | grep -E "sanitizer|PASS|FAIL" | sed "s/^/$p /"
done > $OUT/sanitizer-h200.txt 2>&1; el sanitized; grep -c "exit 0" $OUT/sanitizer-h200.txt; grep -E "FAIL|exit [^0]" $OUT/sanitizer-h200.txt | head
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
SOLDER_CHAINS=convt3d_sum_layernorm_avgpool_gelu timeout 120 python3 -m pytest -q -p no:cacheprovider -rA \
  test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench-gpu-h200.log 2>&1
el chains rc=$?; grep -E "rel L2|passed|failed" $OUT/kernelbench-gpu-h200.log | tail -3
timeout 150 python3 bench/scripts/bench_models.py --runs 10 --precisions ieee,tf32 --peers eager,inductor,solder.compile \
  --json $OUT/kernelbench-h200.json convt3d_sum_layernorm_avgpool_gelu > $OUT/kernelbench-h200.log 2>&1
el bench rc=$?; grep -E "solder [0-9]" $OUT/kernelbench-h200.log
