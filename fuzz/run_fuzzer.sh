#!/usr/bin/env bash
# run_fuzzer.sh FUZZER SECONDS SEED_DIR... : fuzzes for SECONDS from the seeds
# (read only: new inputs go to a temporary corpus) and fails on any finding.
# A crashing input is kept in $SOLDER_FUZZ_ARTIFACTS (default ./fuzz-artifacts):
# add it to the seeds and write a regression test for it.
set -euo pipefail
fuzzer=$1 seconds=$2
shift 2
artifacts=${SOLDER_FUZZ_ARTIFACTS:-$PWD/fuzz-artifacts}
mkdir -p "$artifacts"
corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
# -timeout: an input that takes 20 s is a stall, a finding too.
"$fuzzer" "$corpus" "$@" -max_total_time="$seconds" -timeout=20 \
  -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/$(basename "$fuzzer")-"
