#!/usr/bin/env bash
# On the GPU machine, from the repository root, once run_gpu_suite.sh has
# built build-gpu/ and put solder-compile beside the runtime: the
# KernelBench-style catalog (test_kernelbench_gpu.py) and the random chain
# generator's draws (test_chain_generator_gpu.py), both precisions, spread
# over SOLDER_CHAIN_PROCS processes (8: the compiles are CPU-bound, the GPU
# runs are short). SOLDER_CHAINS picks catalog chains (comma-separated;
# default all), SOLDER_DRAWS=FIRST:COUNT the draws (default 1000:160).
# Logs and a summary to $OUT/chains; exits non-zero if any case failed.
set -uo pipefail
OUT=${OUT:-/tmp/solder-gpu}/chains
mkdir -p "$OUT"
rm -f "$OUT"/*.log "$OUT"/summary.txt "$OUT"/draws.txt  # an earlier run's
procs=${SOLDER_CHAIN_PROCS:-8}
draws=${SOLDER_DRAWS:-1000:160}
[[ $draws =~ ^[0-9]+:[0-9]+$ ]] || { echo "SOLDER_DRAWS must be FIRST:COUNT, got '$draws'"; exit 2; }
first=${draws%:*} count=${draws#*:}
per=$(((count + procs - 1) / procs))
if [[ -z ${SOLDER_CHAINS:-} ]]; then
  SOLDER_CHAINS=$(PYTHONPATH=test/models python3 -c \
    "import kernelbench; print(','.join(kernelbench.CHAINS))") ||
    { echo "cannot list the KernelBench-style chains"; exit 1; }
fi
IFS=, read -ra chains <<< "$SOLDER_CHAINS"
unknown=$(PYTHONPATH=test/models python3 -c "import kernelbench, sys
print(' '.join(n for n in sys.argv[1:] if n not in kernelbench.CHAINS))" "${chains[@]}") ||
  { echo "cannot list the KernelBench-style chains"; exit 1; }
[[ -z $unknown ]] || { echo "SOLDER_CHAINS names no catalog chain: $unknown"; exit 2; }
export PYTHONPATH=$PWD/python PYTHONUNBUFFERED=1
start=$(date +%s)
for ((i = 0; i < procs; i++)); do
  mine=()
  for ((j = i; j < ${#chains[@]}; j += procs)); do mine+=("${chains[j]}"); done
  (
    export SOLDER_CACHE_DIR=/tmp/solder-chains-$i
    status=0
    if ((${#mine[@]})); then
      SOLDER_CHAINS=$(IFS=,; echo "${mine[*]}") python3 -m pytest -q -rA -s -p no:cacheprovider \
        test/gpu/test_kernelbench_gpu.py > "$OUT/kernelbench-$i.log" 2>&1 || status=1
    fi
    lo=$((first + i * per)) n=$((first + count - lo < per ? first + count - lo : per))
    if ((n > 0)); then
      SOLDER_DRAWS=$lo:$n python3 -m pytest -q -rA -s -p no:cacheprovider \
        test/gpu/test_chain_generator_gpu.py > "$OUT/draws-$i.log" 2>&1 || status=1
    fi
    exit $status
  ) &
done
failed=0
for job in $(jobs -p); do wait "$job" || failed=1; done
{
  echo "chains and draws took $(($(date +%s) - start)) s in $procs processes"
  grep -aho "^[a-z0-9_]* \(ieee\|tf32\): rel L2 .*" "$OUT"/kernelbench-*.log | sort
  grep -aho "seed [0-9]* [a-z0-9]*: [a-z]* .*" "$OUT"/draws-*.log | sort -n -k2 > "$OUT/draws.txt"
  echo "draws: $(awk '{print $3, $4}' "$OUT/draws.txt" | sort | uniq -c | tr '\n' ';')"
  grep -ah "^FAILED\|^E  .*Error" "$OUT"/*.log | head -40
  grep -ahE "[0-9]+ (passed|failed).* in [0-9.]+s" "$OUT"/*.log
} | tee "$OUT/summary.txt"
exit $failed
