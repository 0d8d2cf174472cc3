"""The main-loop microbenchmark's library peers (device run, in the same run
as bench/ceilings.cu and bench/scripts/mainloop.py): each conv of
bench/mainloop alone through PyTorch, in fp32 (TF32 off: the peer of
Solder's ieee) and in TF32:

- cuDNN with input and weights in NC(D)HW, and in channels-last;
- cuBLAS for the GEMM (gemm_8192: a 1-wide conv of one pixel a sample,
  which is Y = X W^T).

cudnn.benchmark lets cuDNN pick its fastest algorithm. Times are
solder.bench.time_cuda's (CUDA events, L2 flushed, median). With
MAINLOOP.json (mainloop.py's rows), it also prints Solder's plan (sm_90 and
sm_90a bundles) against the best peer per conv and precision.

    PYTHONPATH=python python3 bench/scripts/mainloop_peers.py OUT.json [MAINLOOP.json]
"""

import json
import os
import re
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mainloop import conv_flops  # noqa: E402
from solder.bench import set_precision, time_cuda  # noqa: E402

MAINLOOP_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mainloop")

# bench/mainloop's one-op sources: solder.conv or solder.conv_transpose with
# its attributes, then the operand and result types.
OP = re.compile(
    r"solder\.(?P<op>conv_transpose|conv) %\w+, %\w+ strides = \[(?P<strides>[\d, ]*)\] "
    r"padding = \[(?P<padding>[\d, ]*)\]\s*(?:output_padding = \[(?P<output_padding>[\d, ]*)\])?"
    r"\s*dilations = \[(?P<dilations>[\d, ]*)\] groups = (?P<groups>\d+)\s*"
    r": \(tensor<(?P<x>[\dx]+)xf32>, tensor<(?P<w>[\dx]+)xf32>\) -> tensor<(?P<y>[\dx]+)xf32>")


def ints(text):
    return [int(v) for v in re.split(r"[,x]", text) if v.strip()]


def parse(path):
    match = OP.search(open(path).read())
    if not match:
        raise ValueError(f"{path}: no solder.conv or solder.conv_transpose of the expected form")
    spec = {key: ints(match[key] or "") for key in
            ("strides", "padding", "output_padding", "dilations", "x", "w", "y")}
    spec.update(op=match["op"], groups=int(match["groups"]))
    return spec


def is_gemm(spec):
    return spec["op"] == "conv" and len(spec["x"]) == 3 and spec["x"][2] == 1 and \
        spec["w"][2] == 1 and spec["groups"] == 1


def peers(spec):
    """(peer name, callable) for this conv."""
    # U[0, 1), as solder-run draws Solder's inputs: the same data, the same
    # power draw (a GEMM at the power limit runs slower on centered data).
    x = torch.rand(spec["x"], device="cuda")
    w = torch.rand(spec["w"], device="cuda")
    if is_gemm(spec):
        a, b = x.view(spec["x"][:2]), w.view(spec["w"][:2])
        return [("cublas", lambda: torch.mm(a, b.t()))]
    dims = len(spec["x"]) - 2
    if spec["op"] == "conv":
        op = getattr(F, f"conv{dims}d")
        call = lambda x, w: op(x, w, stride=spec["strides"], padding=spec["padding"],
                               dilation=spec["dilations"], groups=spec["groups"])
    else:
        op = getattr(F, f"conv_transpose{dims}d")
        call = lambda x, w: op(x, w, stride=spec["strides"], padding=spec["padding"],
                               output_padding=spec["output_padding"] or 0,
                               groups=spec["groups"], dilation=spec["dilations"])
    found = list(call(x, w).shape)
    if found != spec["y"]:
        raise ValueError(f"PyTorch's result is {found}, the source's {spec['y']}")
    result = [("cudnn-contiguous", lambda: call(x, w))]
    layout = {2: torch.channels_last, 3: torch.channels_last_3d}.get(dims)
    if layout is not None:
        xl, wl = x.to(memory_format=layout), w.to(memory_format=layout)
        result.append(("cudnn-channels-last", lambda: call(xl, wl)))
    return result


def solder_rows(mainloop_json):
    """{(conv, precision): {bundle: row}} of Solder's planned bundles."""
    data = json.load(open(mainloop_json))
    rows = data["rows"] if isinstance(data, dict) else data
    planned = {}
    for row in rows:
        match = re.fullmatch(r"mainloop-(ieee|tf32)(-sm90a)?", row["variant"])
        if match and "ms" in row:
            bundle = "sm_90a" if match[2] else "sm_90"
            planned.setdefault((row["conv"], match[1]), {})[bundle] = row
    return planned


def main(out, mainloop_json=None, runs=20, warmup=5):
    torch.backends.cudnn.benchmark = True
    rows = []
    for name in sorted(f[:-5] for f in os.listdir(MAINLOOP_DIR) if f.endswith(".mlir")):
        spec = parse(os.path.join(MAINLOOP_DIR, name + ".mlir"))
        flops = conv_flops({"entry": name, "inputs": [{"shape": spec["x"]}, {"shape": spec["w"]}],
                            "outputs": [{"shape": spec["y"]}]})
        for precision in ("ieee", "tf32"):
            set_precision(precision)
            for peer, fn in peers(spec):
                ms = time_cuda(fn, runs, warmup)
                row = {"conv": name, "precision": precision, "peer": peer, "ms": ms,
                       "tflops": flops / ms / 1e9}
                rows.append(row)
                print(json.dumps(row), flush=True)
        torch.cuda.empty_cache()
    json.dump({"gpu": torch.cuda.get_device_name(), "torch": torch.__version__,
               "cudnn": torch.backends.cudnn.version(), "rows": rows},
              open(out, "w"), indent=2)
    if not mainloop_json:
        return
    planned = solder_rows(mainloop_json)
    print(f"\n{'conv':<18} {'prec':<5} {'Solder sm_90':>13} {'Solder sm_90a':>14} "
          f"{'best peer':>26} {'Solder/peer':>11}   (TFLOP/s)")
    for (conv, precision), bundles in sorted(planned.items()):
        mine = [r for r in rows if r["conv"] == conv and r["precision"] == precision]
        if not mine:
            continue
        best = max(mine, key=lambda r: r["tflops"])
        solder = max(r["tflops"] for r in bundles.values())
        cell = lambda b: f"{bundles[b]['tflops']:.1f}" if b in bundles else "-"
        print(f"{conv:<18} {precision:<5} {cell('sm_90'):>13} {cell('sm_90a'):>14} "
              f"{best['peer'] + ' ' + format(best['tflops'], '.1f'):>26} "
              f"{solder / best['tflops']:>10.2f}x")


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(*sys.argv[1:])
