"""The planner's rate table (bench/mainloop/rates.json) from a sweep of the
main-loop benchmark.

    python3 bench/scripts/rates.py update RESULTS... [--table TABLE]
    python3 bench/scripts/rates.py show [--table TABLE]

RESULTS are what a sweep on the GPU wrote: bench/scripts/mainloop.py's JSON
(its rows name a tile-sweep bundle `conv@precision@BMxBNxBK-WMxWN-S`, or a
main loop forced on a conv, `conv@precision@choice`) and the Hopper main
loop's harness output (bench/mainloop/wgmma_conv.cu: a JSON line a conv,
`"tile": "BMxBN_sS"`, or `BMxBN_sS_bB` for B CTAs an SM). Each entry of the
table whose `convs` the results all cover, on its main loop and tile, takes
the mean of their TFLOP/s; the others stay as they are. The table is written
back an entry a line; CMake regenerates the planner's MainLoopRates.def from
it (lib/Analysis/CMakeLists.txt), and plan tests that quote a rate change
with it.
"""

import argparse
import json
import os
import re
import sys
from typing import NamedTuple

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TABLE = os.path.join(ROOT, "bench", "mainloop", "rates.json")
SWEEP_TILE = re.compile(r"^(\d+)x(\d+)x(\d+)-(\d+)x(\d+)-(\d+)$")
HARNESS_TILE = re.compile(r"^(\d+)x(\d+)_s(\d+)(?:_b(\d+))?$")


class Result(NamedTuple):
    """One measurement: tile, stages, warp and CTAs an SM None where the row
    names none (a main loop forced on a conv runs the plan's tile)."""
    conv: str
    main_loop: str
    tile: list | None
    stages: int | None
    warp: list | None
    blocks: int | None
    tflops: float
    path: str


def result_rows(path):
    """The measurements (Result) of a result file."""
    text = open(path).read()
    try:
        data = json.loads(text)
        # mainloop.py's file: its rows, alone or beside the ceilings; one
        # row (a single harness line) alone.
        rows = data.get("rows", [data]) if isinstance(data, dict) else data
    except ValueError:  # the harness: a JSON object a line
        rows = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    for row in rows:
        if "error" in row or "tflops" not in row:
            continue
        if "name" in row:  # bench/mainloop/wgmma_conv.cu (TF32 alone before "math")
            match = HARNESS_TILE.match(row["tile"])
            if not match:
                sys.exit(f"rates.py: {path}: tile {row['tile']!r} is not BMxBN_sS[_bB]")
            bm, bn, stages, blocks = (int(group or 1) for group in match.groups())
            yield Result(row["name"], f"wgmma_{row.get('math', 'tf32')}", [bm, bn, 32], stages,
                         None, blocks, row["tflops"], path)
            continue
        conv, *variant = row["conv"].split("@")
        match = SWEEP_TILE.match(variant[-1]) if len(variant) == 2 else None
        if match:
            bm, bn, bk, wm, wn, stages = map(int, match.groups())
            yield Result(conv, row["mainloop"], [bm, bn, bk], stages, [wm, wn], 1, row["tflops"],
                         path)
        elif len(variant) == 2:  # a main loop forced: its tile is the plan's
            yield Result(conv, row["mainloop"], None, None, None, None, row["tflops"], path)


def matches(entry, row):
    if row.conv not in entry["convs"] or row.main_loop != entry["main_loop"]:
        return False
    if not any(entry["tile"]):  # the direct convs and the FMA loop: no tile
        return row.tile is None
    return (row.tile == entry["tile"] and row.stages == entry["stages"]
            and row.blocks == entry.get("blocks_per_sm", 1)
            and (row.warp is None or row.warp == entry["warp"]))


def write_table(table, path):
    """The table as it is checked in: its keys in order, an entry a line."""
    parts = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in table.items()
             if key != "rates"]
    parts.append('  "rates": [\n    ' +
                 ",\n    ".join(json.dumps(entry) for entry in table["rates"]) + "\n  ]")
    with open(path, "w") as out:
        out.write("{\n" + ",\n".join(parts) + "\n}\n")


def update(paths, table_path):
    table = json.load(open(table_path))
    rows = [row for path in paths for row in result_rows(path)]
    changed = 0
    for entry in table["rates"]:
        found = {}
        for row in rows:
            if matches(entry, row):
                found.setdefault(row.conv, []).append(row)
        if not entry["convs"]:
            continue
        missing = [conv for conv in entry["convs"] if conv not in found]
        if missing:
            print(f"{entry['name']}: kept at {entry['tflops']} (no result for "
                  f"{', '.join(missing)})")
            continue
        # A conv measured more than once: its last result.
        used = [found[conv][-1] for conv in entry["convs"]]
        rate = round(sum(row.tflops for row in used) / len(used), 1)
        if rate != entry["tflops"]:
            print(f"{entry['name']}: {entry['tflops']} -> {rate}")
            entry["tflops"] = rate
            entry["source"] = ", ".join(sorted({os.path.relpath(os.path.abspath(row.path), ROOT)
                                                for row in used}))
            changed += 1
    write_table(table, table_path)
    print(f"{changed} rates changed in {table_path}")


def show(table_path):
    for entry in json.load(open(table_path))["rates"]:
        tile = "x".join(map(str, entry["tile"])) if any(entry["tile"]) else "-"
        print(f"{entry['name']:24} {entry['main_loop']:16} {tile:12} {entry['tflops']:7.1f}  "
              f"{', '.join(entry['convs']) or '(' + entry['source'] + ')'}")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["update", "show"])
    parser.add_argument("results", nargs="*")
    parser.add_argument("--table", default=TABLE)
    args = parser.parse_args(argv)
    if args.command == "update":
        if not args.results:
            parser.error("update takes the sweep's result files")
        update(args.results, args.table)
    else:
        show(args.table)


if __name__ == "__main__":
    main(sys.argv[1:])
