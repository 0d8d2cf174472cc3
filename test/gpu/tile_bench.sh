#!/usr/bin/env bash
# Device run: each bundle under DIR timed by solder-run (CUDA events, L2
# flushed, median), one line a bundle (a tile sweep of one chain).
#   bash test/gpu/tile_bench.sh DIR build-gpu/bin/solder-run
set -u
for bundle in "$1"/*/; do
  printf '%s ' "$(basename "$bundle")"
  "$2" "$bundle" --seed=1 --bench=200 --warmup=20 2>&1 | tail -1
done
