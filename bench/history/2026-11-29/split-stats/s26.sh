#!/bin/bash
# Reduction regions told r >= 0 (__builtin_assume): old codegen (sc-old, same reduction emitter but the assume) vs new.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
C=build-static/bin/solder-compile; O=anchors/s26/sc-old; cp $C build-gpu/bin/
cases="channels_last_layernorm_mlp conv2d_bn_relu_maxpool_avgpool_chain conv2d_ragged_rows_groupnorm_mean conv2d_tanh_logsumexp_13_channels conv3d_softmax_layernorm_pool_groupnorm conv3d_w1_rows_ragged_groupnorm_mean convtranspose2d_stride_outpad_groups_sigmoid_max depthwise3d_dilated_groupnorm_mean gemm_layernorm_mlp_groupnorm_residual groupnorm_silu_conv_prologues groupnorm_silu_sum_no_conv groupnorm_split_stats_silu reduce_apply_rows reductions_warp_per_row small_w1 small_w3 w1_conv3d_groupnorm_mean w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp"
for p in tf32 ieee; do for n in $cases; do
  f=test/gpu/cases/$n.mlir; [ -f $f ] || f=examples/$n.mlir
  $C --arch=sm_90a --precision=$p $f -o /tmp/b/suite/$p/$n > /dev/null || echo "compile failed $p $n" &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done
  for t in new old; do X=$([ $t = old ] && echo $O || echo $C)
    $X --arch=sm_90a --precision=$p anchors/s26/vae512.mlir -o /tmp/b/$t/vae-$p > /dev/null || echo "compile failed $t vae $p" &
    $X --arch=sm_90a --precision=$p examples/w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp.mlir -o /tmp/b/$t/w3-$p > /dev/null || echo "compile failed $t w3 $p" &
  done
done; wait; el compiled
for round in 1 2 3; do for b in vae-tf32 w3-tf32 w3-ieee; do for t in old new; do
  echo "$round $t $b $(build-gpu/bin/solder-run /tmp/b/$t/$b --bench=50 2>&1 | grep -o 'median [0-9.]* ms')"
done; done; done > $OUT/ab-h200.txt; el ab; cat $OUT/ab-h200.txt
for t in old new; do
  timeout 100 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:reduction -c 4 build-gpu/bin/solder-run /tmp/b/$t/vae-tf32 > $OUT/ncu-vae-$t-h200.txt 2>&1
  timeout 100 ncu --metrics gpu__time_duration.sum,smsp__inst_executed.sum -k regex:reduction -c 4 build-gpu/bin/solder-run /tmp/b/$t/w3-tf32 > $OUT/ncu-w3-$t-h200.txt 2>&1
done; el ncu
grep -E "reduction|duration|inst_executed" $OUT/ncu-*-h200.txt | awk '{print $1, $2, $NF}'
for p in tf32 ieee; do
  timeout 150 python3 test/gpu/gpu_suite.py --bundles /tmp/b/suite/$p --build build-gpu --out /tmp/s/$p --runs 10 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -v "^running\|^   {\|^compute-sanitizer\|^   ===\|^   \(ERROR\|RACECHECK\)" | sed "s/^/$p /"
done > $OUT/gpu-suite-h200.txt 2>&1; el suite; grep -cE " PASS " $OUT/gpu-suite-h200.txt; grep -E "FAIL|error|exit [^0]" $OUT/gpu-suite-h200.txt | cut -c1-200 | tail -12
