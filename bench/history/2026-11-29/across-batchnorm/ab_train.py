"""One catalog model's training step (bench_training.py's: zero grads,
forward, backward, foreach SGD), eager and torch.compile(backend="solder")
(default backward), timed as bench_training times it; run once per
solder-compile (SOLDER_BIN_DIR) to compare two compilers' plans."""
import copy, statistics, sys
from pathlib import Path
import torch
sys.path.insert(0, "bench/scripts"); sys.path.insert(0, "test/models")
import catalog
from solder.bench import set_precision, time_cuda
from bench_training import compile_peer

name, precisions, tag = sys.argv[1], sys.argv[2].split(","), sys.argv[3]
for precision in precisions:
    set_precision(precision)
    model, x = catalog.make(name, "full", seed=1)
    model, x = model.cuda().train(), x.cuda()
    with torch.no_grad():
        shape = copy.deepcopy(model)(x).shape
    g = torch.randn(shape, device="cuda", generator=torch.Generator("cuda").manual_seed(2))
    torch._dynamo.reset()
    peers = {"eager": copy.deepcopy(model),
             "solder": torch.compile(copy.deepcopy(model), backend="solder",
                                     options={"precision": precision})}
    steps = {p: compile_peer(m, x, g)[1] for p, m in peers.items()}
    times = {p: [] for p in steps}
    for _ in range(3):
        for p, step in steps.items():
            times[p].append(time_cuda(step, 10, 3))
    print(f"{tag} {name} {precision}: " + ", ".join(
        f"{p} {statistics.median(t):.2f} ms {['%.2f' % v for v in t]}" for p, t in times.items()),
        flush=True)
