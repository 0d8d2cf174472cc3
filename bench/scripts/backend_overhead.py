"""Host time per call of the ways to run a workload or a catalog model:
solder.compile's CompiledModule, torch.compile(backend="solder") and eager,
and, for scale, one replay of a CUDA graph (eager's call captured by
torch.cuda.graph: what launching one graph costs the host). Measured
without synchronizing inside the loop (the GPU queue absorbs the kernels;
each workload's GPU time is longer than its host time only where the host
time is not the bottleneck), so the number is what Python and the launches
cost on the CPU per call. SOLDER_GRAPH=0 in the environment launches the
kernels one by one instead of as the bundle's CUDA graph (for an A/B).

    python3 bench/scripts/backend_overhead.py [--calls 50] [w2_small w3 resnet50 ...]
"""

import argparse
import sys
import time
from pathlib import Path

import torch

import solder
from solder import workloads

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "models"))
import catalog  # noqa: E402


def host_us(fn, calls, rounds=1):
    """Host microseconds a call of ``fn``: the least of ``rounds`` loops
    of ``calls`` calls without a sync, each after five warm-up calls."""
    best = float("inf")
    for _ in range(rounds):
        for _ in range(5):
            fn()
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls * 1e6)
        torch.cuda.synchronize()
    return best


def make(name):
    if name in workloads.WORKLOADS:
        module_class, shape, _ = workloads.WORKLOADS[name]
        return workloads.randomize_norms(module_class()).cuda().eval(), \
            torch.rand(shape, device="cuda")
    model, x = catalog.make(name, "full", seed=1)
    return model.cuda(), x.cuda()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", default=["w2_small", "w3"])
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    for name in args.names:
        module, x = make(name)
        with torch.no_grad():
            row = {}
            if name in workloads.WORKLOADS:
                compiled = solder.compile(module, (x,), quiet=True)
                row["solder.compile"] = host_us(lambda: compiled(x), args.calls)
            torch._dynamo.reset()
            backend = torch.compile(module, backend="solder")
            backend(x)
            row["backend=solder"] = host_us(lambda: backend(x), args.calls)
            row["eager"] = host_us(lambda: module(x), args.calls)
            graph = torch.cuda.CUDAGraph()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                module(x)  # warm-up outside the capture
            torch.cuda.current_stream().wait_stream(stream)
            with torch.cuda.graph(graph):
                module(x)
            row["graph replay"] = host_us(graph.replay, args.calls)
        print(f"{name}: host us per call: " +
              ", ".join(f"{k} {v:.0f}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
