#!/bin/bash
# Statistics' element indices in 32 bits: old codegen (sc-old) vs new, both on the split-merge headers.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; O=anchors/s20/sc-old; cp $C build-gpu/bin/
cases="conv3d_softmax_layernorm_pool_groupnorm gemm_layernorm_mlp_groupnorm_residual groupnorm_silu_conv_prologues groupnorm_silu_sum_no_conv groupnorm_split_stats_silu reductions_warp_per_row"
for p in tf32 ieee; do for n in $cases; do
  $C --arch=sm_90a --precision=$p test/gpu/cases/$n.mlir -o /tmp/b/suite/$p/$n > /dev/null || echo "compile failed $p $n" &
done
  $C --arch=sm_90a --precision=$p anchors/s20/vae512.mlir -o /tmp/b/new/$p > /dev/null || echo "compile failed new $p" &
  $O --arch=sm_90a --precision=$p anchors/s20/vae512.mlir -o /tmp/b/old/$p > /dev/null || echo "compile failed old $p" &
done; wait; el compiled
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
for round in 1 2 3; do for p in tf32 ieee; do for t in old new; do
  echo "$round $t $p $(build-gpu/bin/solder-run /tmp/b/$t/$p --bench=50 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done > $OUT/ab-h200.txt; el ab; cat $OUT/ab-h200.txt
for t in old new; do
  timeout 120 ncu -k regex:k0_reduction -c 1 --section SpeedOfLight --section WarpStateStats --section LaunchStats build-gpu/bin/solder-run /tmp/b/$t/tf32 > $OUT/ncu-k0-$t-h200.txt 2>&1
  timeout 120 ncu --metrics gpu__time_duration.sum -c 12 build-gpu/bin/solder-run /tmp/b/$t/tf32 > $OUT/ncu-all-$t-h200.txt 2>&1
done; el ncu
grep -E "Duration|DRAM Throughput|Compute \(SM\)" $OUT/ncu-k0-*-h200.txt
grep -E "resnet_block|gpu__time_duration" $OUT/ncu-all-new-h200.txt | paste - - | awk '{print $1, $(NF)}' | head -12
for p in tf32 ieee; do
  timeout 150 python3 test/gpu/gpu_suite.py --bundles /tmp/b/suite/$p --build build-gpu --out /tmp/s/$p --runs 10 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -v "^running\|^   {\|^compute-sanitizer\|^   ===\|^   \(ERROR\|RACECHECK\)" | sed "s/^/$p /"
done > $OUT/gpu-suite-h200.txt 2>&1; el suite; grep -cE " PASS " $OUT/gpu-suite-h200.txt; grep -E "FAIL|error|exit [^0]" $OUT/gpu-suite-h200.txt | cut -c1-200 | tail -12
SOLDER_MODELS=vae_block_512,unet_block_320 timeout 170 python3 -m pytest -q -p no:cacheprovider -rA -s test/gpu/test_models_gpu.py > $OUT/models-gpu-h200.log 2>&1
el models rc=$?; grep -E "rel L2|passed|failed" $OUT/models-gpu-h200.log | tail -8
