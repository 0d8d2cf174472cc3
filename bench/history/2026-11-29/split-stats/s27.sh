#!/bin/bash
# The diffusion blocks against their peers after the split statistics' merge.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
cp build-static/bin/solder-compile build-gpu/bin/
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
el built
timeout 520 python3 bench/scripts/bench_models.py --runs 20 --precisions tf32,ieee --peers eager,inductor,solder.compile \
  --json $OUT/models-final-h200.json vae_block_512 unet_block_320 > $OUT/models-final-h200.log 2>&1
el bench rc=$?; grep -vE "^\[|Warning|warn" $OUT/models-final-h200.log | tail -30
