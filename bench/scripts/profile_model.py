"""Where a catalog model's or KernelBench-style chain's time goes under torch.compile(backend="solder"):
the GPU time of one call (torch.profiler, after warm-up) summed by kind of
kernel: conv main loops, input layout conversions (NCDHW -> NDHWC), weight
conversions (KTRSC), finalize kernels, pooling, other pointwise or reduction
kernels, and whatever ran eagerly.

    python3 bench/scripts/profile_model.py [--precision tf32] [--kernels] resnet50 ...

--kernels also lists each kernel's own time.
"""

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile

from solder.bench import set_precision

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_models import make  # noqa: E402  (catalog models and KernelBench chains)

KINDS = [("input layout", r"_input_ndhwc$"), ("weight layout", r"_weight_(ktrsc|prepare)"),
         ("finalize", r"_finalize$"), ("conv", r"_conv$"), ("pool", r"_pool$"),
         ("pointwise", r"_pointwise$"), ("reduction", r"_reduction$")]


def kind_of(name):
    for kind, pattern in KINDS:
        if re.search(pattern, name):
            return kind
    return "eager or other: " + name[:60]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*", default=["resnet50"])
    parser.add_argument("--precision", default="tf32")
    parser.add_argument("--kernels", action="store_true", help="list each kernel too")
    args = parser.parse_args()
    for name in args.models:
        set_precision(args.precision)
        model, xs = make(name)
        model, xs = model.cuda(), tuple(x.cuda() for x in xs)
        torch._dynamo.reset()
        compiled = torch.compile(model, backend="solder", options={"precision": args.precision})
        with torch.no_grad():
            for _ in range(3):
                compiled(*xs)
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as prof:
                compiled(*xs)
                torch.cuda.synchronize()
        totals, counts = defaultdict(float), defaultdict(int)
        kernels = []
        for event in prof.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                kind = kind_of(event.name)
                totals[kind] += event.device_time_total / 1e3
                counts[kind] += 1
                kernels.append((event.name, event.device_time_total / 1e3))
        total = sum(totals.values())
        print(f"{name} {args.precision}: {total:.3f} ms of GPU time in "
              f"{sum(counts.values())} kernels")
        for kind, ms in sorted(totals.items(), key=lambda item: -item[1]):
            print(f"  {kind:40} {ms:8.3f} ms {100 * ms / total:5.1f}%  ({counts[kind]} kernels)")
        if args.kernels:
            for kernel, ms in kernels:
                print(f"    {kernel[:60]:60} {ms:8.3f} ms")


if __name__ == "__main__":
    main()
