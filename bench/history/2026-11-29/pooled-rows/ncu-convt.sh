#!/bin/bash
# Where the chain's conv_transpose (sm80 loop, 8 unequal-tap phases) spends its 637 us.
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
[ -d third_party/cutlass ] || tar xJf anchors/s1/tp.tar.xz
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > /tmp/cmake.log 2>&1 &&
  cmake --build build-gpu -j 16 --target solder-run > /tmp/build.log 2>&1 || { tail -30 /tmp/build.log; exit 1; }
export PYTHONPATH=$PWD/python:$PWD/test/models
python3 - <<'PY' 2>/dev/null
import kernelbench, solder.importer as imp
m, x = kernelbench.make("convt3d_sum_layernorm_avgpool_gelu", "full", seed=1)
open("/tmp/chain.mlir", "w").write(imp.import_module(m, x).mlir)
PY
build-static/bin/solder-compile --arch=sm_90a --precision=tf32 /tmp/chain.mlir -o /tmp/b/new > /dev/null
timeout 200 ncu -k regex:'k0_conv$' -c 1 --section SpeedOfLight --section WarpStateStats --section Occupancy --section MemoryWorkloadAnalysis \
  --section SchedulerStats --section LaunchStats --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio \
  build-gpu/bin/solder-run /tmp/b/new --seed=1 2>&1 | grep -vE "^==PROF==|^\s*$" > $OUT/ncu-convt-h200.txt
grep -E "Duration|Throughput|dram__|lts__|hmma|stalled|Occupancy|Registers|Shared Memory Config|Block Limit|Eligible|Issued Warp" $OUT/ncu-convt-h200.txt | head -40
