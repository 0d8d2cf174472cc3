"""W1 at x + 1000 over several draws: Solder's and eager fp32's error against
float64. The output (a mean of group-normalized values) is close to the mean
of the GroupNorm bias, so it can be near zero and its relative error large;
this compares Solder with PyTorch on the same draws."""

import copy
import sys

import torch

import solder
from solder import workloads

torch.backends.cudnn.allow_tf32 = False
module_class, shape, _ = workloads.WORKLOADS["w1"]
compiled = None
print(f"{'draw':>4} {'|ref| rms':>10} {'solder max abs':>15} {'solder rel L2':>14} "
      f"{'eager max abs':>14} {'eager rel L2':>13}")
for draw in range(int(sys.argv[1]) if len(sys.argv) > 1 else 6):
    torch.manual_seed(1000 + draw)
    model = workloads.randomize_norms(module_class()).cuda()
    x = torch.rand(shape, device="cuda") + 1000
    compiled = solder.compile(model, (x,), quiet=True)
    with torch.no_grad():
        got, eager = compiled(x), model(x)
        ref = copy.deepcopy(model).double()(x.double())
    row = [ref.norm().item() / ref.numel() ** 0.5]
    for out in (got, eager):
        diff = out.double() - ref
        row += [diff.abs().max().item(), (diff.norm() / ref.norm()).item()]
    print(f"{draw:4} {row[0]:10.3g} {row[1]:15.3g} {row[2]:14.3g} {row[3]:14.3g} {row[4]:13.3g}",
          flush=True)
