"""Whole models of the catalog (test/models/catalog.py) and KernelBench-style
chains (test/models/kernelbench.py) at full size: eager
PyTorch, torch.compile (inductor) and torch.compile(backend="solder") in the
same run and the same precision mode (ieee: TF32 off for the peers; tf32:
TF32 on). CUDA events after warm-up, L2 flushed, median of --runs
(solder.bench.time_cuda). Per model it also prints what Solder compiled:
ops, kernels (launches) and the ops left to eager.

    python3 bench/scripts/bench_models.py [--runs 20] [--precisions ieee,tf32]
        [--channels-last] [--json out.json] resnet18 resnet50 ...

--channels-last runs every peer on the model and input in PyTorch's
channels_last memory format (module.to(memory_format=...)), as convnets
are run for speed.
"""

import sys
import time
from pathlib import Path

import torch

import solder
import solder.backend as backend
from solder.bench import catalog_bench_main, set_precision, time_cuda

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "models"))
import catalog  # noqa: E402
import kernelbench  # noqa: E402


def make(name):
    """(model, inputs) of a catalog model or a KernelBench-style chain."""
    if name in kernelbench.CHAINS:
        return kernelbench.make(name, "full", seed=1)
    model, x = catalog.make(name, "full", seed=1)
    return model, (x,)


def run(name, precision, runs, peers, channels_last=False):
    set_precision(precision)
    model, xs = make(name)
    model, xs = model.cuda(), tuple(x.cuda() for x in xs)
    if channels_last:
        layout = torch.channels_last if xs[0].dim() == 4 else torch.channels_last_3d
        model = model.to(memory_format=layout)
        xs = tuple(x.contiguous(memory_format=layout) if x.dim() == xs[0].dim() else x
                   for x in xs)
    row = {"model": name, "precision": precision, "shape": list(xs[0].shape),
           "layout": "channels_last" if channels_last else "contiguous"}
    with torch.no_grad():
        if "eager" in peers:
            row["eager_ms"] = time_cuda(lambda: model(*xs), runs, 3)
        if "inductor" in peers:
            torch._dynamo.reset()
            inductor = torch.compile(model)
            start = time.time()
            inductor(*xs)
            row["inductor_compile_s"] = time.time() - start
            row["inductor_ms"] = time_cuda(lambda: inductor(*xs), runs, 3)
        torch._dynamo.reset()
        backend.reports.clear()
        solder_model = torch.compile(model, backend="solder", options={"precision": precision})
        start = time.time()
        solder_model(*xs)
        row["solder_compile_s"] = time.time() - start
        row["solder_ms"] = time_cuda(lambda: solder_model(*xs), runs, 3)
        if "solder.compile" in peers:
            # The same chain compiled ahead of time and called as the
            # module it replaces (what a hand-fused kernel's caller does):
            # no dynamo frame or guards around the call.
            try:
                compiled = solder.compile(model, xs, precision=precision, quiet=True)
                compiled(*xs)
                row["solder_compile_ms"] = time_cuda(lambda: compiled(*xs), runs, 3)
            except solder.SolderError as error:
                row["solder_compile_refused"] = str(error).splitlines()[0]
    row.update(backend.reports_summary())
    best = min(row.get("eager_ms", float("inf")), row.get("inductor_ms", float("inf")))
    row["speedup_vs_best"] = best / row["solder_ms"]
    if "solder_compile_ms" in row:
        row["solder_compile_speedup_vs_best"] = best / row["solder_compile_ms"]
    return row


def line(row, args):
    peers = ", ".join(f"{peer} {row[peer + '_ms']:.3f}" for peer in ("eager", "inductor")
                      if peer + "_ms" in row)
    if "solder_compile_ms" in row:
        peers += (f"; solder.compile {row['solder_compile_ms']:.3f}, "
                  f"{row['solder_compile_speedup_vs_best']:.2f}x")
    layout = " channels-last" if args.channels_last else ""
    return (f"{row['model']}{layout} {row['precision']}: solder {row['solder_ms']:.3f} ms "
            f"({peers}; {row['speedup_vs_best']:.2f}x the best) -- {row['solder_ops']} ops in "
            f"{row['solder_kernels']} kernels, eager: {sorted(row['eager_ops']) or 'none'}"
            f"; compile solder {row['solder_compile_s']:.0f} s"
            + (f", inductor {row['inductor_compile_s']:.0f} s"
               if "inductor_compile_s" in row else ""))


def main():
    catalog_bench_main(
        ["resnet18", "resnet50"],
        lambda name, precision, args: run(name, precision, args.runs, args.peers.split(","),
                                          args.channels_last),
        line,
        lambda parser: parser.add_argument(
            "--peers", default="eager,inductor",
            help="eager, inductor, and solder.compile (the chain compiled ahead of time, "
            "called without torch.compile)"))


if __name__ == "__main__":
    main()
