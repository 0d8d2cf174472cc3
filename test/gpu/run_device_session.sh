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
#   bash test/gpu/run_device_session.sh chains    # the KernelBench-style catalog and the
#                                                 # random chain generator's draws (run_chains.sh)
#   bash test/gpu/run_device_session.sh models [MODELS]        # the model catalog through
#                                                 # the backend, both precisions, vs float64
#   bash test/gpu/run_device_session.sh models-bench [MODELS]  # its timings against eager
#                                                 # and torch.compile (bench_models.py)
#   bash test/gpu/run_device_session.sh training [MODELS]      # one training step through
#                                                 # the backend, both precisions, vs float64
#   bash test/gpu/run_device_session.sh training-bench [MODELS]  # training steps against
#                                                 # eager and torch.compile (bench_training.py)
# [WORKLOADS] after `bench`: the harness's workloads (default w1,w3,w2); after
# models, models-bench, training and training-bench: catalog names,
# comma-separated (default all; resnet18,unet_down; resnet50,unet_down).
set -uo pipefail
OUT=${OUT:-/tmp/solder-gpu}
stage=${1:?usage: run_device_session.sh suite|bench|frontend|chains|models|models-bench|training|training-bench [NAMES]}
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
frontend|chains)
  SOLDER_GPU_STAGES=$stage bash test/gpu/run_gpu_suite.sh \
    > "$OUT/session/$stage.log" 2>&1 || status=1
  tail -5 "$OUT/session/$stage.log"
  ;;
models|models-bench|training|training-bench)
  # The backend compiles on the device: the carried solder-compile beside the
  # runtime (built by an earlier stage, or here), bundles cached across calls.
  if [[ ! -x build-gpu/bin/solder-run ]]; then
    cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
      > "$OUT/session/cmake.log" 2>&1 && cmake --build build-gpu -j 16 \
      > "$OUT/session/build.log" 2>&1 || { tail -20 "$OUT/session/build.log"; status=1; }
  fi
  cp build-static/bin/solder-compile build-gpu/bin/
  export SOLDER_BIN_DIR=$PWD/build-gpu/bin SOLDER_CACHE_DIR=/tmp/solder-cache PYTHONPATH=$PWD/python
  if [[ $stage == models ]]; then
    [[ -n ${2:-} ]] && export SOLDER_MODELS=$2
    python3 -m pytest -q -p no:cacheprovider -rA -s test/gpu/test_models_gpu.py \
      > "$OUT/session/models.log" 2>&1 || status=1
    grep -E "rel L2|passed|failed|Error" "$OUT/session/models.log" | tail -30
  elif [[ $stage == models-bench ]]; then
    python3 bench/scripts/bench_models.py --json "$OUT/session/models.json" \
      $(tr ',' ' ' <<< "${2:-resnet18,resnet50}") > "$OUT/session/models_bench.log" 2>&1 || status=1
    tail -20 "$OUT/session/models_bench.log"
  elif [[ $stage == training ]]; then
    [[ -n ${2:-} ]] && export SOLDER_TRAINING_MODELS=$2
    python3 -m pytest -q -p no:cacheprovider -p no:logging -rA -s test/gpu/test_training_gpu.py \
      > "$OUT/session/training.log" 2>&1 || status=1
    grep -E "within bounds|passed|failed|Error" "$OUT/session/training.log" | tail -30
  else
    # A call runs at most 10 minutes: ResNet-50 in both precisions with every
    # backward option (compiles included) takes longer, so the default times
    # Solder's default backward; SOLDER_TRAINING_BACKWARDS=solder,eager,inductor
    # with one model a call for the others.
    # SOLDER_TRAINING_CUDAGRAPHS=1: also Solder and Inductor under CUDA graphs.
    python3 bench/scripts/bench_training.py --json "$OUT/session/training.json" \
      --backwards "${SOLDER_TRAINING_BACKWARDS:-solder}" \
      ${SOLDER_TRAINING_CUDAGRAPHS:+--cudagraphs} \
      $(tr ',' ' ' <<< "${2:-resnet50,unet_down}") > "$OUT/session/training_bench.log" 2>&1 ||
      status=1
    tail -20 "$OUT/session/training_bench.log"
  fi
  ;;
*)
  echo "run_device_session.sh: unknown stage '$stage' (suite, bench, frontend, chains, models, models-bench, training or training-bench)"
  exit 2
  ;;
esac
echo "$stage exit $status"
# Pack what the stage wrote and leave only the archive.
(cd "$OUT" && tar czf "/tmp/results-$stage.tgz" --exclude='results-*.tgz' . &&
  find . -mindepth 1 -maxdepth 1 ! -name 'results-*.tgz' -exec rm -rf {} + &&
  mv "/tmp/results-$stage.tgz" .)
exit $status
