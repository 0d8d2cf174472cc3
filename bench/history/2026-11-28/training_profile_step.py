"""Kernel breakdown of one training step, Solder backend and eager: model, precision from argv."""
import sys, collections, copy, torch
sys.path.insert(0, "test/models")
import catalog, solder.backend
from solder.bench import set_precision
name, precision = sys.argv[1], sys.argv[2]
set_precision(precision)
model, x = catalog.make(name, "full", seed=1)
model = model.train().cuda(); x = x.cuda()
peers = {"solder": torch.compile(copy.deepcopy(model), backend="solder", options={"precision": precision}),
         "eager": copy.deepcopy(model)}
from torch.profiler import profile, ProfilerActivity
for peer, m in peers.items():
    g = None
    for _ in range(3):
        y = m(x); g = torch.randn_like(y) if g is None else g; y.backward(g)
    torch.cuda.synchronize()
    import time, statistics
    host, wall = [], []
    for _ in range(10):
        t0 = time.perf_counter(); y = m(x); y.backward(g); t1 = time.perf_counter()
        torch.cuda.synchronize(); t2 = time.perf_counter()
        host.append((t1 - t0) * 1e3); wall.append((t2 - t0) * 1e3)
    print(f"== {peer} {name} {precision} step (forward + backward): host {statistics.median(host):.2f} ms, wall {statistics.median(wall):.2f} ms")
    for phase in ("forward", "step"):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            y = m(x)
            if phase == "step": y.backward(g)
            torch.cuda.synchronize()
        totals = collections.defaultdict(lambda: [0.0, 0])
        for e in prof.events():
            if e.device_type.name == "CUDA":
                totals[e.name][0] += e.device_time_total / 1000; totals[e.name][1] += 1
        print(f"== {peer} {name} {precision} {phase}: {sum(t for t, _ in totals.values()):.2f} ms GPU, {sum(n for _, n in totals.values())} kernels")
        for kname, (t, n) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:12]:
            print(f"  {t:7.2f} ms {n:4d}x  {kname[:110]}")
