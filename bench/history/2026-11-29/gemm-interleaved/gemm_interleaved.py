"""The 8192^3 GEMM (a bias-free Linear, input torch.rand) in tf32: Solder's
bundle through solder.compile and cuBLAS (eager F.linear) called in turn,
each call after an L2 flush, so that both meet the same clocks at the power
limit (python -m solder.bench times all of one peer's runs, then the
other's). Median of each round; three rounds."""

import statistics
import sys

import torch

import solder
from solder.bench import set_precision

sys.path.insert(0, "bench/models")
import gemm_8192  # noqa: E402

set_precision("tf32")
torch.manual_seed(0)
model = gemm_8192.Model().cuda()
x = gemm_8192.get_inputs()[0].cuda()
compiled = solder.compile(model, (x,), precision="tf32", quiet=True)
l2 = torch.cuda.get_device_properties(0).L2_cache_size
flush = torch.empty(2 * l2 // 4, device="cuda")
peers = {"solder": lambda: compiled(x), "cublas": lambda: model(x)}
with torch.no_grad():
    reference = torch.nn.functional.linear(x.double(), model.linear.weight.double())
    for name, fn in peers.items():
        out = fn().double()
        error = ((out - reference).norm() / reference.norm()).item()
        print(f"{name}: rel L2 {error:.2e}")
    for _ in range(5):  # warm-up
        for fn in peers.values():
            fn()
    torch.cuda.synchronize()
    for round_ in range(3):
        times = {name: [] for name in peers}
        for i in range(20):
            for name, fn in (peers.items() if i % 2 == 0 else reversed(peers.items())):
                flush.fill_(float(i))
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                stop.record()
                stop.synchronize()
                times[name].append(start.elapsed_time(stop))
        medians = {name: statistics.median(t) for name, t in times.items()}
        print(f"round {round_ + 1}: " + ", ".join(f"{n} {m:.3f} ms" for n, m in medians.items())
              + f"; solder {medians['cublas'] / medians['solder']:.3f}x cuBLAS")
