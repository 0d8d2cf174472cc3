#!/usr/bin/env bash
# Installs what Solder needs to build and test (Debian packages; PyPI for
# Python tools), then configures and builds it in build/ (or $SOLDER_BUILD_DIR).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}
llvm_prefix=/usr/lib/llvm-22

debian_packages=(
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libzstd-dev cmake ninja-build python3
  python3-torch python3-numpy python3-pytest
)

log() { printf '[bootstrap] %s\n' "$*"; }

missing=()
for package in "${debian_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  log "installing Debian packages: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  log "Debian packages present"
fi

if [[ ! -f $build_dir/build.ninja ]]; then
  log "configuring $build_dir"
  cmake -G Ninja -S "$root" -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=$llvm_prefix/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm_prefix/bin/lit
fi

log "building (ninja, $(nproc) jobs)"
start=$(date +%s)
cmake --build "$build_dir"
log "build done in $(($(date +%s) - start)) s"
