"""A/B of two bundle trees on one GPU: every bundle CONFIG/NAME present in
both (e.g. .gpu-bundles-old and .gpu-bundles, each from prepare_bundles.sh
of its own commit) runs with solder-run --bench, old then new, for several
rounds, so that both meet the same clocks and neighbours. Prints every run,
then a table of the median over rounds of each tree's median (ms) and
new / old, and writes it as JSON.

    python3 bench/scripts/ab_bundles.py SOLDER_RUN OLD_TREE NEW_TREE [--rounds 2]
        [--bench 40] [--warmup 10] [--configs ieee,tf32,...] [--json FILE]
"""

import argparse
import json
import pathlib
import re
import statistics
import subprocess
import sys


def run(solder_run, bundle, bench, warmup):
    result = subprocess.run([solder_run, str(bundle), "--seed=1", f"--bench={bench}",
                             f"--warmup={warmup}"], capture_output=True, text=True)
    line = next((l for l in result.stdout.splitlines() if "median" in l), "")
    match = re.search(r"median ([0-9.]+) ms", line)
    if result.returncode or not match:
        return None, (result.stdout + result.stderr).strip().splitlines()[-1:]
    return float(match.group(1)), line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("solder_run")
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--bench", type=int, default=40)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--configs", default="")
    parser.add_argument("--json")
    args = parser.parse_args()
    old, new = pathlib.Path(args.old), pathlib.Path(args.new)
    configs = args.configs.split(",") if args.configs else None
    bundles = sorted(str(p.parent.relative_to(new)) for p in new.glob("*/*/manifest.json")
                     if (old / p.parent.relative_to(new) / "manifest.json").exists()
                     and (configs is None or p.parent.parent.name in configs))
    if not bundles:
        sys.exit("ab_bundles: no bundle in both trees")
    times = {b: {"old": [], "new": []} for b in bundles}
    failed = 0
    for round_ in range(1, args.rounds + 1):
        for bundle in bundles:
            for side, tree in (("old", old), ("new", new)):
                ms, line = run(args.solder_run, tree / bundle, args.bench, args.warmup)
                print(f"round {round_} {bundle} {side}: {line}", flush=True)
                if ms is None:
                    failed += 1
                else:
                    times[bundle][side].append(ms)
    rows = []
    print(f"\n{'bundle':<70} {'old ms':>9} {'new ms':>9} {'new/old':>8}")
    for bundle in bundles:
        if not times[bundle]["old"] or not times[bundle]["new"]:
            continue
        a, b = statistics.median(times[bundle]["old"]), statistics.median(times[bundle]["new"])
        rows.append({"bundle": bundle, "old_ms": a, "new_ms": b, "ratio": b / a,
                     "old_runs": times[bundle]["old"], "new_runs": times[bundle]["new"]})
        print(f"{bundle:<70} {a:9.4f} {b:9.4f} {b / a:8.3f}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
