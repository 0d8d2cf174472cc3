"""Checks each conv kernel of the bundles given against the main loop its
manifest names: a tensor-core kernel's PTX (implicit GEMM, or the direct conv
on tensor cores) issues TF32 mma.sync; the direct conv on FMAs and the FMA
fallback issue none; the implicit GEMM reads CUTLASS's parameters (the
bundle's constants) with constant-space loads (by the symbol, or through a
register holding its address where it picks a phase's), never shared or
generic ones (cvta.const). The Hopper main loop (wgmma_tf32, sm_90a) issues
TF32 wgmma and no mma.sync, fed by im2col and tiled bulk tensor copies; its
3xTF32 form (wgmma_3xtf32) three wgmmas a product, each operand copied as
its big and its small TF32 parts. On sm_90a the direct conv on tensor cores
issues TF32 wgmma with A from registers and no mma.sync (three a product in
3xTF32).
Prints one line per conv kernel.

    python3 check-mainloop-ptx.py BUNDLE...
"""

import json
import re
import sys

MMA = "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"


def entries(ptx):
    """PTX text of each .entry, by name."""
    parts = re.split(r"^\.visible \.entry (\w+)\(", ptx, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def main(bundles):
    failures = 0
    for bundle in bundles:
        manifest = json.load(open(f"{bundle}/manifest.json"))
        kernels = entries(open(f"{bundle}/kernels.ptx").read())
        for launch in manifest["launches"]:
            mainloop = launch.get("mainloop")
            if mainloop is None:
                continue
            mmas = kernels[launch["kernel"]].count(MMA)
            tensor_cores = mainloop.startswith("tensorop") or mainloop in (
                "direct_3xtf32", "direct_tf32")
            ok = mmas > 0 if tensor_cores else mmas == 0
            text = kernels[launch["kernel"]]
            context = launch["kernel"] + "_context"
            constant_loads = len(re.findall(rf"ld\.const\S*\s+\S+,\s*\[{context}", text))
            # A conv_transpose in output phases indexes its Context a phase:
            # the context's address in a register, loads through it.
            if re.search(rf"mov\.u64\s+%rd\d+,\s*{context};", text):
                constant_loads += len(re.findall(r"ld\.const\S*\s+\S+,\s*\[%rd", text))
            if mainloop.startswith("tensorop"):
                ok = ok and constant_loads > 0 and "cvta.const" not in text
            wgmma_pattern = r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32"
            if mainloop.startswith("direct_") and manifest.get("target") == "sm_90a":
                # A from registers: a brace-enclosed list of four before B's descriptor.
                wgmmas = len(re.findall(wgmma_pattern + r"\s+\{[^}]*\},\s*\{[^}]*\}", text))
                ok = (mmas == 0 and wgmmas > 0
                      and wgmmas % (3 if mainloop == "direct_3xtf32" else 1) == 0)
                failures += not ok
                print(f"{'ok' if ok else 'FAIL'} {manifest['precision']} {manifest['target']} "
                      f"{launch['kernel']} {mainloop}: {mmas} tf32 mma.sync, "
                      f"{wgmmas} wgmma with A from registers")
                continue
            if mainloop.startswith("wgmma"):
                wgmmas = len(re.findall(wgmma_pattern, text))
                im2col = len(re.findall(r"cp\.async\.bulk\.tensor\.[45]d\.\S*\.im2col\.", text))
                tiled = len(re.findall(r"cp\.async\.bulk\.tensor\.2d\.", text))
                parts = 2 if mainloop == "wgmma_3xtf32" else 1
                ok = (mmas == 0 and wgmmas > 0 and wgmmas % (3 if parts == 2 else 1) == 0
                      and im2col >= parts and tiled >= parts)
                failures += not ok
                print(f"{'ok' if ok else 'FAIL'} {manifest['precision']} {manifest['target']} "
                      f"{launch['kernel']} {mainloop}: {mmas} tf32 mma.sync, {wgmmas} wgmma, "
                      f"{im2col} im2col and {tiled} tiled tensor copies")
                continue
            failures += not ok
            print(f"{'ok' if ok else 'FAIL'} {manifest['precision']} "
                  f"{launch['kernel']} {mainloop}: {mmas} tf32 mma.sync, "
                  f"{constant_loads} constant loads of {context}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
