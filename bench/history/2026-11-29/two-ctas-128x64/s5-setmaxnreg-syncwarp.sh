#!/bin/bash
# Two CTAs an SM with registers moved to the consumers (setmaxnreg, the copying
# warp converged first): harness, the 13 GPU cases (sanitizer), old/new A/B.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 ))s] $*"; }
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
C=build-static/bin/solder-compile; O=anchors/s5/sc-old
for v in "0 4 2" "1 2 2"; do set -- $v
  nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Iruntime/device \
    -Ithird_party/cutlass/include -DTHREE_TF32=$1 -DTILE_M=128 -DTILE_N=64 -DSTAGES=$2 -DMIN_BLOCKS=$3 \
    bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/h_$1_$2_$3 > /tmp/h_$1_$2_$3.log 2>&1 || echo "harness $v failed" &
done
(cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 8 > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }) &
cases="basic_block_channels_last_io bottleneck_channels_last channels_last_layernorm_mlp conv2d_across_batchnorm_relu conv2d_grouped_tensorop_groupnorm_silu conv2d_one_pixel_3x3_across_relu conv2d_split_k_groupnorm_silu convtranspose3d_phases_wgmma_groupnorm_silu depthwise2d_split_rows_channels_last_project groupnorm_silu_conv_prologues inverted_residual_channels_last layer4_split_across_residual squeeze_excitation_rows_head"
for p in tf32 ieee; do for n in $cases; do
  $C --arch=sm_90a --precision=$p test/gpu/cases/$n.mlir -o /tmp/b/suite/$p/$n > /dev/null 2>&1 || echo "compile failed $p $n" &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done; done
for t in old new; do X=$([ $t = old ] && echo $O || echo $C); for p in tf32 ieee; do for f in anchors/s5/mlir/*.mlir; do n=$(basename $f .mlir)
  $X --arch=sm_90a --precision=$p $f -o /tmp/b/$t/$p/$n > /dev/null 2>&1 || echo "compile failed $t $p $n" &
  while [ $(jobs -r | wc -l) -ge 16 ]; do sleep 0.2; done
done; done; done; wait; el compiled
cp $C build-gpu/bin/
for v in "0 4 2" "1 2 2"; do set -- $v; timeout 30 /tmp/h_$1_$2_$3 big3x3_256 || echo "harness $v rc=$?"; done > $OUT/harness-moved-h200.jsonl 2>&1
el harness; cat $OUT/harness-moved-h200.jsonl; grep -q '"tflops"' $OUT/harness-moved-h200.jsonl || exit 1
for p in tf32 ieee; do
  timeout 100 python3 test/gpu/gpu_suite.py --bundles /tmp/b/suite/$p --build build-gpu --out /tmp/s/$p --runs 5 --no-bench \
    --cases $(echo $cases | tr ' ' ',') 2>&1 | grep -v "^running\|^   {" | sed "s/^/$p /"
done > $OUT/gpu-suite-moved-h200.txt 2>&1; el suite; grep -E "FAIL|passed|ERROR|hazard|rror" $OUT/gpu-suite-moved-h200.txt | cut -c1-200 | tail -6
grep "sanitizer" $OUT/gpu-suite-moved-h200.txt | grep -c "exit 0"
for round in 1 2; do for d in /tmp/b/new/*/*; do p=$(basename $(dirname $d)); n=$(basename $d)
  for t in old new; do echo "$round $t $p $n $(timeout 20 build-gpu/bin/solder-run /tmp/b/$t/$p/$n --bench=30 2>&1 | grep -o 'median [0-9.]* ms')"; done
done; done > $OUT/ab-moved-h200.txt; el ab; cat $OUT/ab-moved-h200.txt
