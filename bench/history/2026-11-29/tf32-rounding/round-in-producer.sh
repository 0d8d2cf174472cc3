#!/bin/bash
# GEMM 8192^3 main loop: input rounded by the producer's warps vs pre-rounded vs truncated.
set -u
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
nvidia-smi --query-gpu=name,clocks.sm,power.draw,power.limit --format=csv | tee $OUT/gpu.txt
F="-O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Iruntime/device -Ithird_party/cutlass/include -DTILE_M=128 -DTILE_N=256 -DSTAGES=4 -DACROSS=1 -DPOSITIVE=1"
nvcc $F bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/base > $OUT/build-base.txt 2>&1 &
nvcc $F -DROUND_IN_PRODUCER=1 bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/prod > $OUT/build-prod.txt 2>&1 &
nvcc $F -DRAW_TF32=1 bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/raw > $OUT/build-raw.txt 2>&1 &
nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr -Iruntime/device -Ithird_party/cutlass/include -DTILE_M=128 -DTILE_N=128 -DSTAGES=4 -DROUND_IN_PRODUCER=1 -lineinfo bench/mainloop/wgmma_conv.cu -lcuda -o /tmp/prod_small > $OUT/build-small.txt 2>&1 &
wait
ls -la /tmp/base /tmp/prod /tmp/raw /tmp/prod_small
for r in 1 2 3; do
  for v in base prod raw; do
    echo "round $r $v" >> $OUT/gemm.jsonl
    timeout 120 /tmp/$v gemm_8192 >> $OUT/gemm.jsonl 2>&1
  done
done
for v in base prod; do timeout 120 /tmp/$v big3x3_256 >> $OUT/conv.jsonl 2>&1; done
timeout 200 compute-sanitizer --tool racecheck /tmp/prod_small strided_dilated_40to72 > $OUT/racecheck.txt 2>&1
timeout 200 compute-sanitizer --tool memcheck /tmp/prod_small strided_dilated_40to72 > $OUT/memcheck.txt 2>&1
cat $OUT/gemm.jsonl $OUT/conv.jsonl; tail -3 $OUT/racecheck.txt $OUT/memcheck.txt
