#!/bin/bash
# forEachInRow in accumulateStrided's chunks (the row kept in registers across walks): old/new
# device templates on the reduce-and-apply kernels; GPU suite's row cases; the two LayerNorm chains vs peers.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; cp $C build-gpu/bin/; el built
export PYTHONPATH=$PWD/python:$PWD/test/models
python3 - <<'PY'
import kernelbench, solder.importer as imp
for name in ["convt3d_sum_layernorm_avgpool_gelu", "convt3d_layernorm_gelu_scaling"]:
    m, x = kernelbench.make(name, "full", seed=1)
    open(f"/tmp/{name}.mlir", "w").write(imp.import_module(m, x).mlir)
PY
cases="layernorm_lastdim_pool_gelu reduce_apply_rows gemm_layernorm_mlp_groupnorm_residual conv3d_softmax_layernorm_pool_groupnorm channels_last_layernorm_mlp"
for t in old new; do D=$([ $t = old ] && echo --device-include=${OLD_DEVICE:-anchors/s10/old-device/runtime/device} || echo ""); for p in tf32 ieee; do
  for n in convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling; do
    $C $D --arch=sm_90a --precision=$p /tmp/$n.mlir -o /tmp/b/$t/$p/$n > /dev/null 2>&1 || echo "compile failed $t $p $n" &
  done
  for n in $cases; do $C $D --arch=sm_90a --precision=$p test/gpu/cases/$n.mlir -o /tmp/b/$t/$p/$n > /dev/null 2>&1 || echo "compile failed $t $p $n" & done
done; done; wait; el compiled
for round in 1 2; do for p in tf32 ieee; do for n in convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling $cases; do for t in old new; do
  echo "$round $t $p $n $(build-gpu/bin/solder-run /tmp/b/$t/$p/$n --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done; done > $OUT/ab-h200.txt; el ab; cat $OUT/ab-h200.txt | grep convt3d
for p in tf32 ieee; do mkdir -p /tmp/suite/$p; for n in $cases; do ln -sf /tmp/b/new/$p/$n /tmp/suite/$p/$n; done
  timeout 150 python3 test/gpu/gpu_suite.py --bundles /tmp/suite/$p --build build-gpu --out /tmp/s/$p --runs 10 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -E " PASS | FAIL |sanitizer .*exit" | sed "s/^/$p /"
done > $OUT/gpu-suite-h200.txt 2>&1; el suite; grep -c " PASS " $OUT/gpu-suite-h200.txt; grep -c "exit 0" $OUT/gpu-suite-h200.txt; grep -E "FAIL|exit [^0]" $OUT/gpu-suite-h200.txt | head
export SOLDER_BIN_DIR=$PWD/build-gpu/bin SOLDER_CACHE_DIR=/tmp/sc
SOLDER_CHAINS=convt3d_sum_layernorm_avgpool_gelu,convt3d_layernorm_gelu_scaling timeout 150 python3 -m pytest -q -p no:cacheprovider -rA \
  test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench-gpu-h200.log 2>&1
el chains rc=$?; grep -E "rel L2|passed|failed" $OUT/kernelbench-gpu-h200.log | tail -5
timeout 200 python3 bench/scripts/bench_models.py --runs 10 --precisions ieee,tf32 --peers eager,inductor,solder.compile \
  --json $OUT/kernelbench-h200.json convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling > $OUT/kernelbench-h200.log 2>&1
el bench rc=$?; grep -E "solder [0-9]" $OUT/kernelbench-h200.log
