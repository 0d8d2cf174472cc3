#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .gpu-bundles/ (see
# prepare_bundles.sh), third_party/ (the CUTLASS and nlohmann/json headers
# bootstrap puts there) and
# build-static/bin/solder-compile (a self-contained solder-compile: cmake
# -DSOLDER_STATIC_LLVM=ON, see docs/BUILDING.md) carried: builds
# libsolder_runtime and solder-run without MLIR, runs the bundle suite in both
# precisions (ieee, tf32; tf32 planned for sm_90a too on a 9.0 GPU), the
# main-loop microbenchmark, then the Python front
# end's GPU tests (solder.compile on the device), writing tables, logs and
# JSON to $OUT. SOLDER_GPU_STAGES picks some of them (default: all):
# templates (the device templates' unit test), suite (the bundles in both
# precisions), mainloop (the GPU's ceilings, the main-loop benchmark and its
# cuDNN/cuBLAS peers),
# frontend (the Python front end), chains (the KernelBench-style catalog and
# the random chain generator's draws: run_chains.sh).
set -euo pipefail
OUT=${OUT:-/tmp/solder-gpu}
mkdir -p "$OUT"
stages=" ${SOLDER_GPU_STAGES:-templates suite mainloop frontend chains} "
stage() { [[ $stages == *" $1 "* ]]; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
# A 9.0 GPU runs the sm_90a bundles and the Hopper main loop's harness.
hopper=0 && [[ $(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1) == 9.0 ]] &&
  hopper=1
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 ||
  { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build build-gpu -j 16 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
# The device templates on their own, then the bundles.
templates=0
if stage templates; then
  nvcc -std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -I runtime/device \
    -I third_party/cutlass/include test/gpu/device_templates_test.cu \
    -o build-gpu/device_templates_test || templates=1
  build-gpu/device_templates_test | tee "$OUT/device_templates.log" || templates=1
fi
export PYTHONUNBUFFERED=1
suite=0
if [[ ! -d .gpu-bundles ]]; then  # a front-end change: the bundles of examples/ are what they were
  echo "no .gpu-bundles carried: bundle suite and main-loop benchmark not run"
fi
if [[ -d .gpu-bundles ]] && stage suite; then
  # PRECISION-sm90a: the same cases planned for sm_90a (the Hopper main
  # loop), on a 9.0 GPU.
  variants="ieee tf32"
  if [[ -d .gpu-bundles/tf32-sm90a ]] && ((hopper)); then
    variants="$variants ieee-sm90a tf32-sm90a"
  fi
  for variant in $variants; do
    mkdir -p "$OUT/$variant"
    python3 test/gpu/gpu_suite.py --bundles .gpu-bundles/$variant --build build-gpu \
      --out "$OUT/$variant" "$@" || suite=1
  done
fi
if [[ -d .gpu-bundles ]] && stage mainloop; then
  # The GPU's ceilings first, in the same run: the main loops' TFLOP/s read
  # against them.
  ceilings=()
  if nvcc -std=c++17 -O3 -gencode=arch=compute_80,code=compute_80 \
      -gencode=arch=compute_90a,code=sm_90a -I third_party/cutlass/include -I runtime/device \
      bench/ceilings.cu -o build-gpu/ceilings && build-gpu/ceilings > "$OUT/ceilings.json"; then
    cat "$OUT/ceilings.json"
    ceilings=("$OUT/ceilings.json")
  else
    echo "ceilings: failed; the main-loop benchmark runs without them"
    suite=1
  fi
  python3 bench/scripts/mainloop.py .gpu-bundles build-gpu/bin/solder-run "$OUT/mainloop.json" \
    "${ceilings[@]}" || suite=1
  # The Hopper main loop alone at each wgmma tile of the rate table (9.0
  # GPU): `rates.py update mainloop.json wgmma_tiles.jsonl` reads both.
  if ((hopper)); then
    tiles=$(python3 -c 'import json
for r in json.load(open("bench/mainloop/rates.json"))["rates"]:
    if r["main_loop"].startswith("wgmma"):
        print("%dx%dx%dx%s" % (r["tile"][0], r["tile"][1], r["stages"], r["main_loop"]))')
    builds=()
    for tile in $tiles; do
      IFS=x read -r bm bn stages math <<< "$tile"
      three=0 && [[ $math == wgmma_3xtf32 ]] && three=1
      rm -f "build-gpu/wgmma_conv_$tile" # never time a binary of an earlier run
      nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a --expt-relaxed-constexpr \
        -Iruntime/device -Ithird_party/cutlass/include -DTILE_M=$bm -DTILE_N=$bn \
        -DSTAGES=$stages -DTHREE_TF32=$three bench/mainloop/wgmma_conv.cu -lcuda \
        -o "build-gpu/wgmma_conv_$tile" &
      builds+=($!)
    done
    for build in "${builds[@]}"; do
      wait "$build" || suite=1
    done
    : > "$OUT/wgmma_tiles.jsonl"
    for tile in $tiles; do
      [[ -x build-gpu/wgmma_conv_$tile ]] || { echo "wgmma_conv $tile: did not build"; continue; }
      "build-gpu/wgmma_conv_$tile" big3x3_256 >> "$OUT/wgmma_tiles.jsonl" || suite=1
    done
    cat "$OUT/wgmma_tiles.jsonl"
  fi
  # cuDNN (both layouts) and cuBLAS on the same convs, same run.
  PYTHONPATH=python python3 bench/scripts/mainloop_peers.py "$OUT/mainloop_peers.json" \
    "$OUT/mainloop.json" || suite=1
fi
# The Python front end compiles on the device: the carried solder-compile goes
# beside the runtime, where the package looks (SOLDER_BIN_DIR).
frontend=0
if ! stage frontend; then
  :
elif [[ -x build-static/bin/solder-compile ]]; then
  cp build-static/bin/solder-compile build-gpu/bin/
  export SOLDER_BIN_DIR=$PWD/build-gpu/bin SOLDER_CACHE_DIR=/tmp/solder-cache
  set +e
  PYTHONPATH=$PWD/python python3 -m pytest -q -p no:cacheprovider -rA \
    test/gpu/test_frontend_gpu.py test/gpu/test_multi_gpu.py 2>&1 | tee "$OUT/frontend_pytest.log"
  frontend=${PIPESTATUS[0]}
  set -e
else
  echo "build-static/bin/solder-compile not carried: Python front-end tests skipped"
  frontend=1
fi
chains=0
if ! stage chains; then
  :
elif [[ -x build-static/bin/solder-compile ]]; then
  cp build-static/bin/solder-compile build-gpu/bin/
  SOLDER_BIN_DIR=$PWD/build-gpu/bin OUT=$OUT test/gpu/run_chains.sh || chains=1
else
  echo "build-static/bin/solder-compile not carried: the chains stage skipped"
  chains=1
fi
exit $((templates | suite | frontend | chains))
