#!/usr/bin/env bash
# A check on the device tool's GPU machine, one call a stage (a call runs at
# most 10 minutes; the machine stays warm between calls and keeps build-gpu).
# Carry .gpu-bundles, build-static and third_party (see prepare_bundles.sh
# and docs/BUILDING.md), and for an A/B .gpu-bundles-old (the same script's
# bundles from the commit to compare with). Everything a stage writes goes
# into $OUT/results-STAGE.tgz (the tool returns only a few files).
#   bash test/gpu/run_device_session.sh suite     # device templates' unit test; the
#                                                 # bundle suite, both precisions, sanitizers
#   bash test/gpu/run_device_session.sh bench     # ceilings, main-loop benchmark, A/B of
#                                                 # .gpu-bundles-old vs .gpu-bundles, every
#                                                 # seed kernel's duration, the harness
#   bash test/gpu/run_device_session.sh frontend  # the Python front end on the device
# [WORKLOADS] after `bench`: the harness's workloads (default w1,w3,w2).
set -uo pipefail
OUT=${OUT:-/tmp/solder-gpu}
stage=${1:?usage: run_device_session.sh suite|bench|frontend [WORKLOADS]}
workloads=${2:-w1,w3,w2}
mkdir -p "$OUT/session"
export PYTHONUNBUFFERED=1
status=0
case $stage in
suite)
  SOLDER_GPU_STAGES="templates suite" bash test/gpu/run_gpu_suite.sh --runs 10 \
    > "$OUT/session/suite.log" 2>&1 || status=1
  tail -3 "$OUT/session/suite.log"
  ;;
bench)
  # The harness compiles its workloads on the device: the carried
  # solder-compile beside the runtime, where the package looks.
  mkdir -p build-gpu/bin && cp build-static/bin/solder-compile build-gpu/bin/
  SOLDER_GPU_STAGES="mainloop" bash test/gpu/run_gpu_suite.sh \
    > "$OUT/session/mainloop.log" 2>&1 || status=1
  if [[ -d .gpu-bundles-old ]]; then
    python3 bench/scripts/ab_bundles.py build-gpu/bin/solder-run .gpu-bundles-old .gpu-bundles \
      --configs ieee,tf32,mainloop-ieee,mainloop-tf32,mainloop-fma,mainloop-alt \
      --json "$OUT/session/ab.json" > "$OUT/session/ab.log" 2>&1 || status=1
    sed -n '/^bundle/,$p' "$OUT/session/ab.log"
  fi
  bash bench/scripts/kernel_times.sh .gpu-bundles build-gpu/bin/solder-run \
    > "$OUT/session/kernel_times.csv" 2> "$OUT/session/kernel_times.err"
  SOLDER_BIN_DIR=$PWD/build-gpu/bin PYTHONPATH=$PWD/python timeout 300 \
    python3 -m solder.bench --workloads "$workloads" --runs 20 --warmup 5 --no-backend \
    --json "$OUT/session/bench.json" --png "$OUT/session/bench.png" \
    > "$OUT/session/bench.log" 2>&1 || status=1
  tail -25 "$OUT/session/bench.log"
  ;;
frontend)
  SOLDER_GPU_STAGES="frontend" bash test/gpu/run_gpu_suite.sh \
    > "$OUT/session/frontend.log" 2>&1 || status=1
  tail -5 "$OUT/session/frontend.log"
  ;;
*)
  echo "run_device_session.sh: unknown stage '$stage' (suite, bench or frontend)"
  exit 2
  ;;
esac
echo "$stage exit $status"
# Pack what the stage wrote and leave only the archive.
(cd "$OUT" && tar czf "/tmp/results-$stage.tgz" --exclude='results-*.tgz' . &&
  find . -mindepth 1 -maxdepth 1 ! -name 'results-*.tgz' -exec rm -rf {} + &&
  mv "/tmp/results-$stage.tgz" .)
exit $status
