#!/usr/bin/env bash
# Device run: the duration of every kernel of the seed workloads' bundles and
# of the main-loop benchmark's convs (the conv kernel apart from its layout
# conversions) in both precisions, read by Nsight Compute (no clock control,
# one run each).
# Prints CSV: bundle, kernel, nanoseconds.
#   bash bench/scripts/kernel_times.sh .gpu-bundles build-gpu/bin/solder-run > kernel_times.csv
set -u
bundles=$1 run=$2
echo "bundle,kernel,ns"
for precision in ieee tf32; do
  for bundle in "$bundles/$precision"/w* "$bundles/mainloop-$precision"/*; do
    ncu --clock-control none --metrics gpu__time_duration.sum --csv \
      "$run" "$bundle" --seed=1 2>/dev/null |
      awk -v b="$(basename "$(dirname "$bundle")")/$(basename "$bundle")" -F'","' \
        'NR > 1 && $0 ~ /gpu__time_duration/ { gsub(/[",]/, "", $NF); print b "," $5 "," $NF }'
  done
done
