#!/bin/bash
# Final checks of the two-CTA 128 x 64 tiles; a short chain's call profiled.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
cp build-static/bin/solder-compile build-gpu/bin/
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python SOLDER_CACHE_DIR=/tmp/sc
timeout 120 python3 anchors/s3/profile_chains.py matmul_by_weight_scale_gelu convt3d_sum_layernorm_avgpool_gelu > $OUT/profile-chains-h200.txt 2>&1
el profiled rc=$?; grep -E "solder.compile [0-9]" $OUT/profile-chains-h200.txt
SOLDER_CHAINS=convt3d_layernorm_gelu_scaling,convt3d_sum_layernorm_avgpool_gelu timeout 200 python3 -m pytest -q -p no:cacheprovider -rA \
  test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench-gpu-h200.log 2>&1
el chains rc=$?; grep -E "rel L2|passed|failed" $OUT/kernelbench-gpu-h200.log | tail -6
SOLDER_MODELS=resnet18,resnet50 timeout 300 python3 -m pytest -q -p no:cacheprovider -rA test/gpu/test_models_gpu.py > $OUT/models-gpu-h200.log 2>&1
el models rc=$?; grep -E "rel L2|passed|failed" $OUT/models-gpu-h200.log | tail -8
timeout 200 python3 bench/scripts/bench_models.py --runs 10 --precisions tf32 --peers eager,inductor,solder.compile \
  --json $OUT/models-bench-tf32-h200.json resnet18 resnet50 > $OUT/models-bench-tf32-h200.log 2>&1
el bench rc=$?; grep -E "solder [0-9]" $OUT/models-bench-tf32-h200.log
