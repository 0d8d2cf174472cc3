#!/bin/bash
# The 8192^3 GEMM's 3xTF32 wgmma kernel with each epilogue visit, under Nsight Compute (clocks locked).
export PATH=/usr/local/cuda/bin:$PATH
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 --target solder-run > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
M=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,smsp__inst_executed.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,lts__t_sectors_op_write.sum,dram__bytes_write.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active
for t in old new; do for p in ieee tf32; do
  echo "== $t $p"
  ncu -k regex:gemm_8192_k0_conv$ -c 1 --metrics $M build-gpu/bin/solder-run anchors/s9/$t-$p --bench=1 --warmup=0 2>&1 | grep -E "^\s+(gpu__|sm__|smsp__|l1tex__|lts__|dram__)"
done; done | tee $OUT/ncu-gemm-visit.txt
