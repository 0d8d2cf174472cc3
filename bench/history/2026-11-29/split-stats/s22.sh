#!/bin/bash
# The whole GPU suite on HEAD (split statistics), sm_90a, both precisions; the VAE block against its peers again.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; cp $C build-gpu/bin/; el built
for p in tf32 ieee; do for f in test/gpu/cases/*.mlir examples/*.mlir; do n=$(basename $f .mlir)
  $C --arch=sm_90a --precision=$p $f -o /tmp/b/$p/$n > /dev/null 2>&1 || echo "compile failed $p $n" &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done; done; wait; el compiled
for p in tf32 ieee; do
  timeout 220 python3 test/gpu/gpu_suite.py --bundles /tmp/b/$p --build build-gpu --out /tmp/s/$p --runs 10 --no-bench --no-sanitizer \
    2>&1 | grep -v "^running\|^   {" | sed "s/^/$p /"
done > $OUT/gpu-suite-all-h200.txt 2>&1; el suite
grep -cE " PASS " $OUT/gpu-suite-all-h200.txt; grep -E "FAIL|error" $OUT/gpu-suite-all-h200.txt | cut -c1-220 | head -20
export SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python:$PWD/test/models SOLDER_CACHE_DIR=/tmp/sc
timeout 110 python3 bench/scripts/bench_models.py --runs 20 --precisions tf32 --peers eager,inductor,solder.compile \
  --json $OUT/models-vae-h200.json vae_block_512 > $OUT/models-vae-h200.log 2>&1
el bench rc=$?; grep -E "solder [0-9]" $OUT/models-vae-h200.log
