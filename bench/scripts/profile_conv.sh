#!/usr/bin/env bash
# Device run: Nsight Compute's view of each bundle's conv kernel (speed of
# light, occupancy, launch, warp stalls, memory), one launch each, and the
# bundle's time from solder-run --bench (CUDA events, L2 flushed, median).
#   bash bench/scripts/profile_conv.sh build-gpu/bin/solder-run OUTDIR BUNDLE...
set -u
run=$1 out=$2
shift 2
mkdir -p "$out"
for bundle in "$@"; do
  name=$(basename "$bundle" | tr '@' '_')
  "$run" "$bundle" --seed=1 --bench=20 --warmup=5 --json="$out/$name.bench.json" > /dev/null 2>&1
  echo "$name: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['median_ms'])" "$out/$name.bench.json") ms"
  ncu --kernel-name regex:'k0_conv$' --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats \
    --section WarpStateStats --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section InstructionStats --section SourceCounters \
    "$run" "$bundle" --seed=1 > "$out/$name.ncu.txt" 2>&1
done
