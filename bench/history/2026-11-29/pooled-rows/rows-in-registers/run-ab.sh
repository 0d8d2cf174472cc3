#!/bin/bash
# The A/B of s14 with the old device templates found (CUTLASS given).
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 --target solder-run > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; el built
export PYTHONPATH=$PWD/python:$PWD/test/models
python3 - <<'PY' 2>/dev/null
import kernelbench, solder.importer as imp
for name in ["convt3d_sum_layernorm_avgpool_gelu", "convt3d_layernorm_gelu_scaling"]:
    m, x = kernelbench.make(name, "full", seed=1)
    open(f"/tmp/{name}.mlir", "w").write(imp.import_module(m, x).mlir)
PY
for t in old new; do D=$([ $t = old ] && echo "--device-include=${OLD_DEVICE:-anchors/s10/old-device/runtime/device} --cutlass-include=third_party/cutlass/include" || echo ""); for p in tf32 ieee; do
  for n in convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling; do
    $C $D --arch=sm_90a --precision=$p /tmp/$n.mlir -o /tmp/b/$t/$p/$n > /dev/null 2>&1 || echo "compile failed $t $p $n" &
  done
  $C $D --arch=sm_90a --precision=$p test/gpu/cases/gemm_layernorm_mlp_groupnorm_residual.mlir -o /tmp/b/$t/$p/gemm_ln > /dev/null 2>&1 || echo "compile failed $t $p gemm_ln" &
done; done; wait; el compiled
for round in 1 2; do for p in tf32 ieee; do for n in convt3d_sum_layernorm_avgpool_gelu convt3d_layernorm_gelu_scaling gemm_ln; do for t in old new; do
  echo "$round $t $p $n $(build-gpu/bin/solder-run /tmp/b/$t/$p/$n --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done; done > $OUT/ab2-h200.txt; el ab; cat $OUT/ab2-h200.txt
for t in old new; do echo "== $t"; timeout 100 ncu -k regex:'k1_' -c 1 --section SpeedOfLight build-gpu/bin/solder-run /tmp/b/$t/tf32/convt3d_sum_layernorm_avgpool_gelu --seed=1 2>&1 | grep -E "Duration|L1/TEX Cache|DRAM Through"; done > $OUT/ncu2-h200.txt 2>&1; cat $OUT/ncu2-h200.txt
