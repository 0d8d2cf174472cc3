#!/bin/bash
# The norm chains of the KernelBench catalog and two training steps on the split-statistics kernels.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
[ -x build-gpu/bin/solder-run ] || { cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 && cmake --build build-gpu -j 16 > /tmp/build.log 2>&1; }
cp build-static/bin/solder-compile build-gpu/bin/
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
el built

SOLDER_CHAINS=gemm_groupnorm_hardtanh,gemm_scale_batchnorm,gemm_swish_sum_groupnorm,gemm_batchnorm_scaling_softmax,bmm_instancenorm_sum_residualadd_multiply,conv3d_groupnorm_mean,convt3d_relu_groupnorm,conv2d_instancenorm_divide timeout 330 python3 -m pytest -q -p no:cacheprovider -rA test/gpu/test_kernelbench_gpu.py > $OUT/kernelbench-norms-gpu-h200.log 2>&1
el chains rc=$?; grep -E "passed|failed" $OUT/kernelbench-norms-gpu-h200.log | tail -3; grep -E "FAILED" $OUT/kernelbench-norms-gpu-h200.log | head
SOLDER_TRAINING_MODELS=resnet18 timeout 200 python3 -m pytest -q -p no:cacheprovider -rA test/gpu/test_training_gpu.py > $OUT/training-gpu-h200.log 2>&1
el training rc=$?; grep -E "passed|failed" $OUT/training-gpu-h200.log | tail -3
