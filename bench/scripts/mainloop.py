"""Main-loop microbenchmark (device run): each conv of bench/mainloop alone,
compiled with the plan's main loop in ieee (3xTF32) and tf32, with the FMA
main loop, in tf32 planned for sm_90a (the Hopper main loop, on a 9.0 GPU),
the few-channel convs on the main loops the plan passed over, and
with each tile of the sweep (test/gpu/prepare_bundles.sh),
timed by solder-run --bench (CUDA events, L2 flushed,
median). The time is the whole bundle: the layout conversions (NCDHW ->
NDHWC, weights -> KTRSC) and the conv kernel with its NCDHW stores. With
CEILINGS.json (bench/ceilings.cu, run just before on the same GPU), each row
also gives its share of the ceiling of its main loop's instruction: fp32
FMA for the FMA main loops, TF32 mma.sync for sm80's tensor-core ones and
TF32 wgmma for the Hopper one (3xTF32 issues three per product, so its
ceiling is a third).

    python3 bench/scripts/mainloop.py .gpu-bundles build-gpu/bin/solder-run OUT.json [CEILINGS.json]
"""

import json
import math
import os
import subprocess
import sys


def conv_flops(manifest):
    x, w = manifest["inputs"][0]["shape"], manifest["inputs"][1]["shape"]
    y = manifest["outputs"][0]["shape"]
    transposed = "convT" in manifest["entry"]  # bench/mainloop's names
    if "strided" in manifest["entry"]:
        # Its output phases multiply each input element by each of its
        # output channels' taps once: no product with the zeros between
        # strided inputs.
        return 2.0 * math.prod(x) * w[1] * math.prod(w[2:])
    in_channels = w[0] if transposed else w[1]
    return 2.0 * math.prod(y) * in_channels * math.prod(w[2:])


def ceiling_tflops(ceilings, mainloop):
    """The TFLOP/s the main loop's instruction allows on this GPU."""
    if "tf32" not in mainloop:
        return ceilings["fp32_fma_tflops"]
    # wgmma's on a 9.0 GPU alone (null elsewhere).
    peak = ceilings.get("tf32_wgmma_tflops") if mainloop.startswith("wgmma") \
        else ceilings["tf32_mma_sync_tflops"]
    return peak and (peak / 3 if mainloop.endswith("3xtf32") else peak)


def main(bundles, solder_run, out, ceilings_path=None):
    ceilings = None
    if ceilings_path:
        try:
            ceilings = json.load(open(ceilings_path))
        except (OSError, ValueError) as error:
            print(f"mainloop: no ceilings ({error}); rows without them", flush=True)
    rows = []
    # mainloop-*-sm90a: the Hopper main loop's bundles (a 9.0 GPU only).
    for variant in ("mainloop-ieee", "mainloop-tf32", "mainloop-ieee-sm90a",
                    "mainloop-tf32-sm90a", "mainloop-fma",
                    "mainloop-alt", "mainloop-tiles"):
        folder = os.path.join(bundles, variant)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            path = os.path.join(folder, name)
            manifest = json.load(open(os.path.join(path, "manifest.json")))
            result_file = f"/tmp/mainloop-{variant}-{name}.json"
            run = subprocess.run([solder_run, path, "--seed=1", "--bench=20",
                                  "--warmup=5", f"--json={result_file}"],
                                 capture_output=True, text=True)
            row = {"conv": name, "variant": variant,
                   "mainloop": [l.get("mainloop") for l in manifest["launches"]
                                if l.get("mainloop")][0]}
            if run.returncode != 0:
                row["error"] = (run.stderr or run.stdout).strip()[-300:]
            else:
                ms = json.load(open(result_file))["median_ms"]
                row.update(ms=ms, tflops=conv_flops(manifest) / ms / 1e9)
                ceiling = ceilings and ceiling_tflops(ceilings, row["mainloop"])
                if ceiling:
                    row["ceiling_tflops"] = ceiling
                    row["of_ceiling"] = row["tflops"] / ceiling
            rows.append(row)
            print(json.dumps(row), flush=True)
    json.dump({"ceilings": ceilings, "rows": rows} if ceilings else rows,
              open(out, "w"), indent=2)


if __name__ == "__main__":
    main(*sys.argv[1:5])
