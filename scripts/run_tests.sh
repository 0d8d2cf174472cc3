#!/usr/bin/env bash
# Sets up, builds and runs every test (lit suites and unit tests through ctest).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir=${SOLDER_BUILD_DIR:-$root/build}

"$root/scripts/bootstrap.sh"
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)"
