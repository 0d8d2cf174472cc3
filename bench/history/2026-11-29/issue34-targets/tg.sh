#!/bin/bash
# Issue 34's GPU tests: one training step of ResNet-18 and the UNet stack against float64, both precisions, the default backward with and without CUDA graphs.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
cp build-static/bin/solder-compile build-gpu/bin/
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python SOLDER_CACHE_DIR=/tmp/sc
SOLDER_TRAINING_MODELS=resnet18,unet_down SOLDER_TRAINING_BACKWARDS=solder timeout 190 python3 -m pytest -q -p no:cacheprovider -rA -s \
  test/gpu/test_training_gpu.py > $OUT/training-gpu-h200.log 2>&1
el rc=$?; grep -E "worst|passed|failed|Error" $OUT/training-gpu-h200.log | cut -c1-220 | tail -12
