#!/usr/bin/env bash
# Compiles the GPU suite's bundles (no GPU needed; here, or on the GPU
# machine with the carried build-static solder-compile, where 16 cores make
# it minutes) into .gpu-bundles/, which the device run carries (git ignores
# it):
#   PRECISION/ and PRECISION-sm90a/ (ieee, tf32): every workload of examples/
#     and case of test/gpu/cases/, for sm_90 (sm80's main loops, planned for
#     the H200's limits) and sm_90a (the Hopper main loop where the plan
#     picks it);
#   mainloop-PRECISION[-sm90a]/: the main-loop microbenchmark's convs of
#     bench/mainloop/ the same way; mainloop-fma/: on the FMA main loop;
#     mainloop-alt/: the few-channel convs on the main loops the plan passed
#     over; mainloop-tiles/: the tile sweep (unless SOLDER_NO_TILE_SWEEP).
#   usage: prepare_bundles.sh [--mainloop-only]
# SOLDER_COMPILE: the solder-compile (default build/bin's); SOLDER_JOBS:
# compiles at once (default: the cores).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=$root/.gpu-bundles
compile=${SOLDER_COMPILE:-$root/build/bin/solder-compile}
mainloop_only=${1:-}
[[ -z $mainloop_only || $mainloop_only == --mainloop-only ]] ||
  { echo "usage: prepare_bundles.sh [--mainloop-only]" >&2; exit 2; }
rm -rf "$out" && mkdir -p "$out"

# Each job a line: compile into $out/NAME, and say so; a job that may fail
# (a tile the conv cannot take) gives its note instead.
job() { # NAME SOLDER-COMPILE-ARGS...
  local name=$1; shift
  printf '%q ' "$compile" "$@" -o "$out/$name"
  printf '> /dev/null && echo %q || { echo %q >&2; exit 1; }\n' "compiled $name" \
    "prepare_bundles: $name failed"
}
optional_job() { # NOTE NAME SOLDER-COMPILE-ARGS...
  local note=$1 name=$2; shift 2
  printf '%q ' "$compile" "$@" -o "$out/$name"
  printf '> /dev/null 2>&1 || echo %q\n' "$note"
}
{
  for precision in ieee tf32; do
    if [[ $mainloop_only != --mainloop-only ]]; then
      for source in "$root"/examples/*.mlir "$root"/test/gpu/cases/*.mlir; do
        name=$(basename "$source" .mlir)
        job "$precision/$name" --arch=sm_90 --precision=$precision "$source"
        job "$precision-sm90a/$name" --arch=sm_90a --precision=$precision "$source"
      done
    fi
    for source in "$root"/bench/mainloop/*.mlir; do
      name=$(basename "$source" .mlir)
      job "mainloop-$precision/$name" --arch=sm_90 --precision=$precision "$source"
      job "mainloop-$precision-sm90a/$name" --arch=sm_90a --precision=$precision "$source"
    done
    # The small-channel convs on the main loops the plan passed over:
    # implicit GEMM on tensor cores (channels padded), W1's on the direct
    # conv's FMAs, and the direct conv forced (in tf32: one TF32 product).
    for choice in w1_conv@tensorop w1_conv@direct_fma w1_conv@direct w3_conv@tensorop \
                  w3_conv@direct; do
      conv=${choice%@*} mainloop=${choice#*@}
      job "mainloop-alt/$conv@$precision@$mainloop" --arch=sm_90 --precision=$precision \
        --mainloop=$mainloop "$root/bench/mainloop/$conv.mlir"
    done
  done
  for source in "$root"/bench/mainloop/*.mlir; do
    job "mainloop-fma/$(basename "$source" .mlir)" --arch=sm_90 --mainloop=fma "$source"
  done
  # The tile sweep (bench/scripts/mainloop.py times it): the planner's rate
  # table (bench/mainloop/rates.json; bench/scripts/rates.py update rewrites
  # it from mainloop.py's results) comes from these.
  if [[ -z ${SOLDER_NO_TILE_SWEEP:-} ]]; then
    sweep() {
      local precision=$1; shift
      for tile in "$@"; do
        for conv in big3x3_256 w2_convT w3_conv; do
          optional_job "tile $tile does not compile for $conv ($precision)" \
            "mainloop-tiles/$conv@$precision@${tile//\//-}" --arch=sm_90 \
            --precision=$precision --conv-tile=$tile "$root/bench/mainloop/$conv.mlir"
        done
      done
    }
    sweep tf32 128x128x32/64x64/3 64x128x16/32x64/4 128x128x16/64x64/4 128x64x32/64x32/3 \
      256x128x16/64x64/3 128x256x16/64x64/3 64x64x32/32x32/4
    sweep ieee 64x128x16/32x64/4 128x64x16/64x32/4 64x64x16/32x32/5 128x128x16/64x64/3 \
      64x128x16/32x64/3 128x64x16/32x32/4 64x64x32/32x32/3
  fi
} > "$out.jobs"
trap 'rm -f "$out.jobs"' EXIT
xargs -d '\n' -n 1 -P "${SOLDER_JOBS:-$(nproc)}" bash -c < "$out.jobs"
du -sh "$out"
