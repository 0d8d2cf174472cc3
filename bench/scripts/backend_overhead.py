"""Host time per call of the ways to run a workload: solder.compile's
CompiledModule, torch.compile(backend="solder") and eager. Measured without
synchronizing inside the loop (the GPU queue absorbs the kernels), so the
number is what Python and the launches cost on the CPU per call.

    python3 bench/scripts/backend_overhead.py [--calls 50] [w2_small w3 ...]
"""

import argparse
import time

import torch

import solder
from solder import workloads


def host_us(fn, calls):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    host = (time.perf_counter() - start) / calls * 1e6
    torch.cuda.synchronize()
    return host


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="*", default=["w2_small", "w3"])
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    for name in args.names:
        module_class, shape, _ = workloads.WORKLOADS[name]
        module = workloads.randomize_norms(module_class()).cuda().eval()
        x = torch.rand(shape, device="cuda")
        with torch.no_grad():
            compiled = solder.compile(module, (x,), quiet=True)
            torch._dynamo.reset()
            backend = torch.compile(module, backend="solder")
            backend(x)
            row = {"solder.compile": host_us(lambda: compiled(x), args.calls),
                   "backend=solder": host_us(lambda: backend(x), args.calls),
                   "eager": host_us(lambda: module(x), args.calls)}
        print(f"{name}: host us per call: " +
              ", ".join(f"{k} {v:.0f}" for k, v in row.items()), flush=True)


if __name__ == "__main__":
    main()
