#!/bin/bash
# A GEMM's (one pixel a sample) epilogue visits channels fastest: the GPU
# cases whose kernels change (sm_90a and sm_80, both precisions, sanitizer),
# the 15 KernelBench GEMM chains against float64, the 8192^3 GEMM vs cuBLAS.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile
cp $C build-gpu/bin/
cases="conv2d_one_pixel_3x3_across_relu gemm_layernorm_mlp_groupnorm_residual linear_rows_bias_gelu"
for a in sm_90a sm_80; do for p in tf32 ieee; do for n in $cases; do
  $C --arch=$a --precision=$p test/gpu/cases/$n.mlir -o /tmp/b/$a/$p/$n > /dev/null &
done; done; done; wait; el compiled
for a in sm_90a sm_80; do for p in tf32 ieee; do
  timeout 120 python3 test/gpu/gpu_suite.py --bundles /tmp/b/$a/$p --build build-gpu --out /tmp/s/$a-$p --runs 10 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -v "^running\|^   {" | tail -9 | sed "s/^/$a $p /"
done; done > $OUT/suite.txt 2>&1; el suite; grep -E "PASS|FAIL|passed|ERROR|hazard|error" $OUT/suite.txt | cut -c1-160
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python SOLDER_CACHE_DIR=/tmp/sc
SOLDER_MODELS=gemm_subtract_multiply_relu,gemm_multiply_leakyrelu,gemm_divide_sum_scaling,gemm_groupnorm_hardtanh,gemm_scale_batchnorm,gemm_swish_sum_groupnorm,gemm_scaling_residualadd,gemm_logsumexp_leakyrelu_gelu,gemm_batchnorm_scaling_softmax,gemm_subtract_rowmean_gelu,gemm_sigmoid_sum,gemm_add_residual_input,matmul_of_inputs_sigmoid_sum,matmul_by_weight_scale_gelu,bmm_instancenorm_sum_residualadd_multiply \
  timeout 240 python3 -m pytest -q -p no:cacheprovider -rA test/gpu/test_models_gpu.py > $OUT/models_gpu.log 2>&1
el models rc=$?; grep -E "passed|failed|Error" $OUT/models_gpu.log | tail -5
timeout 150 python3 -m solder.bench bench/models/gemm_8192.py --runs 20 --warmup 3 --no-backend \
  --json $OUT/gemm-8192-solder-bench-h200.json 2>&1 | tee $OUT/gemm-8192-solder-bench-h200.log | grep -A2 "^case"
el gemm
