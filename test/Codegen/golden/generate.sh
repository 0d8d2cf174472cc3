#!/usr/bin/env bash
# Emits the generated CUDA (kernels.cu) and the launch manifest of every seed
# workload, GPU-suite case and main-loop benchmark conv, in both precisions
# and under every main loop that can be forced, into DIR/CONFIG/NAME.{cu,json}.
# golden.test diffs the result against expected/: a refactor of the code
# generator keeps them byte-identical unless it means to change a kernel
# (then: `test/Codegen/golden/generate.sh build/bin/solder-compile
# test/Codegen/golden/expected` and review the diff).
#   usage: generate.sh SOLDER_COMPILE DIR
set -euo pipefail
compile=$1 out=$2
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
rm -rf "$out" && mkdir -p "$out"
emit() { # CONFIG SOURCE [solder-compile options]
  local config=$1 source=$2 name; shift 2
  name=$(basename "$source" .mlir)
  "$compile" --emit-cuda-only "$@" "$source" -o "$out/tmp" > /dev/null
  mkdir -p "$out/$config"
  mv "$out/tmp/kernels.cu" "$out/$config/$name.cu"
  mv "$out/tmp/manifest.json" "$out/$config/$name.json"
  rm -rf "$out/tmp"
}
for precision in ieee tf32; do
  for source in "$src"/examples/*.mlir "$src"/test/gpu/cases/*.mlir "$src"/bench/mainloop/*.mlir; do
    emit "$precision" "$source" --precision=$precision --arch=sm_90
  done
  # The main loops the plan passes over, forced.
  for choice in w1_conv@tensorop w1_conv@direct_fma w1_conv@direct w1_conv@fma \
                w3_conv@tensorop w3_conv@direct w3_conv@fma w2_convT@fma big3x3_256@fma; do
    conv=${choice%@*} mainloop=${choice#*@}
    emit "$precision-$mainloop" "$src/bench/mainloop/$conv.mlir" \
      --precision=$precision --mainloop=$mainloop --arch=sm_90
  done
  # A tile given by hand.
  emit "$precision-tile" "$src/bench/mainloop/big3x3_256.mlir" \
    --precision=$precision --conv-tile=128x64x16/64x32/4 --arch=sm_90
done
# sm_90a (solder-compile's default without a GPU): the sources whose plan
# takes the Hopper main loop (the others plan as for sm_90).
for precision in ieee tf32; do
  for source in "$src"/examples/*.mlir "$src"/test/gpu/cases/*.mlir "$src"/bench/mainloop/*.mlir; do
    emit $precision-sm90a "$source" --precision=$precision --arch=sm_90a
    name=$(basename "$source" .mlir)
    if ! grep -q "solder::WgmmaConv<" "$out/$precision-sm90a/$name.cu"; then
      rm "$out/$precision-sm90a/$name.cu" "$out/$precision-sm90a/$name.json"
    fi
  done
done
