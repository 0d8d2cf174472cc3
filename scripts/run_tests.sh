#!/usr/bin/env bash
# Sets up, builds and runs every test (lit suites and unit tests through ctest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}

"$root/scripts/bootstrap.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"

# The sanitizer build (ASan + UBSan, fatal on any report, leaks included)
# runs the lit and pytest suites again (all but pip-install, which builds its
# own wheel, the OpInfo samples and random chains, which take the tools
# through the same paths as the front-end and model tests, many times over,
# and ResNet-50's cases, whose paths ResNet-18's and the blocks' take:
# test/python/conftest.py's PLAIN_BUILD_ONLY)
# and fuzzes each input surface for SOLDER_FUZZ_SECONDS (fuzz/README.md).
# SOLDER_SKIP_SANITIZERS=1 skips it.
if [[ -z ${SOLDER_SKIP_SANITIZERS:-} ]]; then
  asan_dir=${SOLDER_ASAN_BUILD_DIR:-$root/build-asan}
  SOLDER_BUILD_DIR=$asan_dir SOLDER_CMAKE_ARGS="-DSOLDER_SANITIZE=ON" "$root/scripts/bootstrap.sh"
  ctest --test-dir "$asan_dir" --output-on-failure -j "$(nproc)" \
    -E '^(pip-install|pytest-opinfo|pytest-chain-generator)$'
fi
