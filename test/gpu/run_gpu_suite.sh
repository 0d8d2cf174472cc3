#!/usr/bin/env bash
# On the GPU machine, from the repository root, with .gpu-bundles/ carried
# (see prepare_bundles.sh): builds libsolder_runtime and solder-run without
# MLIR, then runs the GPU suite, writing its table and JSON to $OUT.
set -euo pipefail
OUT=${OUT:-/tmp/solder-gpu}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
cmake -S . -B build-gpu -DSOLDER_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release > "$OUT/cmake.log" 2>&1 ||
  { tail -30 "$OUT/cmake.log"; exit 1; }
cmake --build build-gpu -j 16 > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
# The device templates on their own, then the bundles.
nvcc -std=c++17 -O3 -arch=sm_90 -I runtime/device test/gpu/device_templates_test.cu \
  -o build-gpu/device_templates_test
templates=0
build-gpu/device_templates_test | tee "$OUT/device_templates.log" || templates=1
export PYTHONUNBUFFERED=1
python3 test/gpu/gpu_suite.py --bundles .gpu-bundles --build build-gpu --out "$OUT" "$@"
exit $templates
