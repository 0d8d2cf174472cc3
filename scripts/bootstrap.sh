#!/usr/bin/env bash
# Installs what Solder needs to build and test (Debian packages; PyPI for
# Python tools), then configures and builds it in build/ (or $SOLDER_BUILD_DIR,
# configured with $SOLDER_CMAKE_ARGS added: the sanitizer build passes
# -DSOLDER_SANITIZE=ON).
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}
llvm_prefix=/usr/lib/llvm-22

debian_packages=(
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22 lld-22
  libzstd-dev cmake ninja-build python3 python3-venv python3-pip
  libclang-rt-22-dev nlohmann-json3-dev ccache
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

# The Python environment (.venv): PyTorch, numpy, pytest and scikit-build-core
# from PyPI, pinned in python/requirements-dev.txt; reinstalled only when that
# file changes. PyTorch's CUDA wheels are large (about 5 GB), so pip's cache
# is kept.
venv=$root/.venv
requirements=$root/python/requirements-dev.txt
stamp=$venv/.solder-requirements
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
  log "installing the Python environment $venv ($(grep -v '^#' "$requirements" | tr '\n' ' '))"
  [[ -x $venv/bin/python ]] || /usr/bin/python3 -m venv "$venv"
  start=$(date +%s)
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -r "$requirements"
  cp "$requirements" "$stamp"
  log "Python environment ready in $(($(date +%s) - start)) s"
else
  log "Python environment $venv present"
fi

# CUTLASS 4.2's headers (CUTLASS 2.x/3.x and CuTe) for the tensor-core conv
# main loop: the pinned PyPI wheel, sha256-checked; only its headers are
# unpacked (none of the wheel's Python dependencies is needed).
cutlass_version=4.2.0.0
cutlass_sha256=f9599ada45c7bcb6bf53f7d3f0a7d154183e53451c01bfa59eecd37dd4a693f6
cutlass_dir=$root/third_party/cutlass
if [[ $(cat "$cutlass_dir/VERSION" 2>/dev/null) != "$cutlass_version" ]]; then
  log "fetching the CUTLASS $cutlass_version headers (PyPI wheel nvidia-cutlass)"
  download=$(mktemp -d)
  trap 'rm -rf "$download"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: \
    "nvidia-cutlass==$cutlass_version" -d "$download"
  wheel=$(ls "$download"/nvidia_cutlass-"$cutlass_version"-*.whl)
  echo "$cutlass_sha256  $wheel" | sha256sum --check --quiet ||
    { log "error: $wheel does not have the pinned sha256"; exit 1; }
  rm -rf "$cutlass_dir" && mkdir -p "$cutlass_dir"
  python3 - "$wheel" "$cutlass_dir" <<'PY'
import os, sys, zipfile
prefix = "cutlass_library/source/include/"
with zipfile.ZipFile(sys.argv[1]) as wheel:
    for name in wheel.namelist():
        if name.startswith(prefix) and not name.endswith("/"):
            target = os.path.join(sys.argv[2], "include", name[len(prefix):])
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with wheel.open(name) as source, open(target, "wb") as out:
                out.write(source.read())
PY
  echo "$cutlass_version" > "$cutlass_dir/VERSION"
else
  log "CUTLASS $cutlass_version headers present"
fi

# nlohmann/json's headers beside CUTLASS's, for the GPU machine's runtime build
# (it has no Debian package; test/gpu/run_gpu_suite.sh carries third_party).
if [[ ! -f $root/third_party/nlohmann/include/nlohmann/json.hpp ]]; then
  mkdir -p "$root/third_party/nlohmann/include"
  cp -r /usr/include/nlohmann "$root/third_party/nlohmann/include/"
fi

if [[ ! -f $build_dir/build.ninja ]]; then
  log "configuring $build_dir"
  cmake -G Ninja -S "$root" -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=$llvm_prefix/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm_prefix/bin/lit \
    -DSOLDER_PYTHON="$venv/bin/python" ${SOLDER_CMAKE_ARGS:-}
fi

log "building (ninja, $(nproc) jobs)"
start=$(date +%s)
cmake --build "$build_dir"
log "build done in $(($(date +%s) - start)) s"
