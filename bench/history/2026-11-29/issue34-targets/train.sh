#!/bin/bash
# Issue 34's targets: a training step of MODEL in both precisions, every peer
# in the same call (eager, Inductor default and reduce-overhead, Solder with
# and without CUDA graphs).
set -u
model=$1
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
cp build-static/bin/solder-compile build-gpu/bin/
el built
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python SOLDER_CACHE_DIR=/tmp/sc
timeout 490 python3 bench/scripts/bench_training.py --runs 10 --precisions ieee,tf32 --backwards solder \
  --cudagraphs --json $OUT/training_bench-$model-h200.json $model 2>&1 | tee $OUT/training_bench-$model-h200.log | grep -v "^ *$" | tail -6
el done
