"""GPU time of one training step per peer, split forward / step, by kernel category."""
import sys, collections, copy, re, torch
sys.path.insert(0, "test/models")
import catalog
from solder.bench import set_precision
name, precision = sys.argv[1], sys.argv[2]
set_precision(precision)
model, x = catalog.make(name, "full", seed=1)
model = model.train().cuda(); x = x.cuda()
peers = {"eager": lambda m: m, "inductor": lambda m: torch.compile(m),
         "solder": lambda m: torch.compile(m, backend="solder", options={"precision": precision}),
         "solder_ibw": lambda m: torch.compile(m, backend="solder", options={"precision": precision, "backward": "inductor"})}
from torch.profiler import profile, ProfilerActivity
def category(k):
    k = k.lower()
    for pat, cat in (("solder|_fused_|wgmma_conv|conv_prepare|weight_ktrsc", "solder"), ("triton", "triton"),
                     ("dgrad|wgrad|convolve|conv|cutlass|sm90_xmma|xmma|implicit|nhwc|cudnn|gemm", "cudnn/conv"),
                     ("batch_norm|bn_|batchnorm", "bn"), ("elementwise|vectorized|reduce|foreach|copy|fill", "aten-elementwise")):
        if re.search(pat, k): return cat
    return "other"
for peer, wrap in peers.items():
    torch._dynamo.reset()
    m = wrap(copy.deepcopy(model))
    g = None
    for _ in range(3):
        y = m(x); g = torch.randn_like(y) if g is None else g; y.backward(g)
    torch.cuda.synchronize()
    for phase in ("forward", "step"):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            y = m(x)
            if phase == "step": y.backward(g)
            torch.cuda.synchronize()
        totals = collections.defaultdict(lambda: [0.0, 0]); cats = collections.defaultdict(float)
        for e in prof.events():
            if e.device_type.name == "CUDA":
                totals[e.name][0] += e.device_time_total / 1000; totals[e.name][1] += 1
                cats[category(e.name)] += e.device_time_total / 1000
        print(f"== {peer} {name} {precision} {phase}: {sum(t for t, _ in totals.values()):.2f} ms GPU, {sum(n for _, n in totals.values())} kernels; " +
              ", ".join(f"{c} {t:.2f}" for c, t in sorted(cats.items(), key=lambda kv: -kv[1])))
        if phase == "step":
            for kname, (t, n) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:10]:
                print(f"  {t:7.2f} ms {n:4d}x  {kname[:120]}")
    del m, y
