#!/usr/bin/env bash
# One device call for a whole check (the device tool returns at most a few
# files: everything goes into $OUT/results.tgz). Carry .gpu-bundles,
# build-static and third_party (see prepare_bundles.sh and docs/BUILDING.md):
#   bash test/gpu/run_device_session.sh [WORKLOADS]
# runs the GPU suite (both precisions, sanitizers, ceilings, main-loop
# benchmark, front end), every seed-workload kernel's duration (Nsight
# Compute) and the harness against eager and torch.compile (default
# w1,w3,w2).
set -uo pipefail
OUT=${OUT:-/tmp/solder-gpu}
workloads=${1:-w1,w3,w2}
mkdir -p "$OUT/session"
bash test/gpu/run_gpu_suite.sh --runs 10 > "$OUT/session/suite.log" 2>&1
echo "suite exit $?" | tee -a "$OUT/session/suite.log"
bash bench/scripts/kernel_times.sh .gpu-bundles build-gpu/bin/solder-run \
  > "$OUT/session/kernel_times.csv" 2> "$OUT/session/kernel_times.err"
SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python timeout 300 \
  python3 -m solder.bench --workloads "$workloads" --runs 20 --warmup 5 --no-backend \
  --json "$OUT/session/bench.json" --png "$OUT/session/bench.png" > "$OUT/session/bench.log" 2>&1
echo "bench exit $?" | tee -a "$OUT/session/bench.log"
tail -3 "$OUT/session/suite.log"
tail -25 "$OUT/session/bench.log"
# The suite wrote its own files beside session/: pack them all, and leave
# only the archive (the device tool returns a few files: loose ones beside
# it crowded results.tgz out).
(cd "$OUT" && tar czf /tmp/results.tgz --exclude=results.tgz . &&
  find . -mindepth 1 -delete && mv /tmp/results.tgz .)
