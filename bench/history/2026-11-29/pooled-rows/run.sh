#!/bin/bash
# A pool of a reduce-and-apply row's values in the row's kernel: the GPU
# suite's reduce-and-apply and pool cases (both precisions, sanitizer), the
# KernelBench chain against float64, old/new bundle A/B and the peers.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
# OLD: a static solder-compile of 94c4d36 (before the pooled rows).
C=build-static/bin/solder-compile; O=${OLD:-anchors/s10/sc-old}
cp $C build-gpu/bin/
el built
cases="layernorm_lastdim_pool_gelu reduce_apply_rows conv3d_softmax_layernorm_pool_groupnorm pools_float4_rows conv2d_bn_relu_maxpool_avgpool_chain"
for a in sm_90a sm_80; do for p in tf32 ieee; do for n in $cases; do
  $C --arch=$a --precision=$p test/gpu/cases/$n.mlir -o /tmp/b/suite/$a-$p/$n > /dev/null || echo "compile failed $a $p $n" &
done; done; done
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
python3 - <<'PY'
import kernelbench, solder.importer as imp
for name in ["convt3d_sum_layernorm_avgpool_gelu"]:
    m, x = kernelbench.make(name, "full", seed=1)
    open(f"/tmp/{name}.mlir", "w").write(imp.import_module(m, x).mlir)
PY
for t in old new; do X=$([ $t = old ] && echo $O || echo $C); for p in tf32 ieee; do
  $X --arch=sm_90a --precision=$p /tmp/convt3d_sum_layernorm_avgpool_gelu.mlir -o /tmp/b/$t/$p > /dev/null 2>&1 || echo "compile failed $t $p" &
done; done; wait; el compiled
for ap in sm_90a-tf32 sm_90a-ieee sm_80-tf32 sm_80-ieee; do
  timeout 200 python3 test/gpu/gpu_suite.py --bundles /tmp/b/suite/$ap --build build-gpu --out /tmp/s/$ap --runs 10 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -v "^running\|^   {\|^compute-sanitizer\|^   ===\|^   \(ERROR\|RACECHECK\)" | sed "s/^/$ap /"
done > $OUT/gpu-suite-h200.txt 2>&1; el suite; grep -cE " PASS " $OUT/gpu-suite-h200.txt; grep -E "FAIL|error|exit [^0]" $OUT/gpu-suite-h200.txt | cut -c1-200 | tail -12
for round in 1 2; do for p in tf32 ieee; do for t in old new; do
  echo "$round $t $p $(build-gpu/bin/solder-run /tmp/b/$t/$p --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done > $OUT/ab-h200.txt; el ab; cat $OUT/ab-h200.txt
SOLDER_CHAINS=convt3d_sum_layernorm_avgpool_gelu,convt3d_layernorm_gelu_scaling timeout 200 python3 -m pytest -q -p no:cacheprovider -rA \
  test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench-gpu-h200.log 2>&1
el chains rc=$?; grep -E "rel L2|passed|failed" $OUT/kernelbench-gpu-h200.log | tail -6
timeout 240 python3 bench/scripts/bench_models.py --runs 10 --precisions ieee,tf32 --peers eager,inductor,solder.compile \
  --json $OUT/kernelbench-h200.json convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling \
  > $OUT/kernelbench-h200.log 2>&1; el bench rc=$?; grep -E "solder [0-9]|vs" $OUT/kernelbench-h200.log | tail -8
timeout 100 python3 bench/history/2026-11-29/two-ctas-128x64/profile_chains.py convt3d_sum_layernorm_avgpool_gelu > $OUT/profile-chain-h200.txt 2>&1
el profiled rc=$?; grep -E "solder.compile [0-9]" $OUT/profile-chain-h200.txt
