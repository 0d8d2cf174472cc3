#!/bin/bash
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
[ -x build-gpu/bin/solder-run ] || { cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 && cmake --build build-gpu -j 16 > /tmp/build.log 2>&1; }
cp build-static/bin/solder-compile build-gpu/bin/
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
nvidia-smi --query-gpu=name,clocks.sm,power.draw,power.limit --format=csv > $OUT/gemm-interleaved-h200.txt
timeout 400 python3 bench/history/2026-11-29/gemm-interleaved/gemm_interleaved.py >> $OUT/gemm-interleaved-h200.txt 2>&1
echo rc=$?; cat $OUT/gemm-interleaved-h200.txt | grep -v Warning
