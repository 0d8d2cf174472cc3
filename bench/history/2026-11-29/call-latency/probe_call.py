"""Where solder.compile's call of a catalog model loses time against its bundle
run alone: each layer timed as bench does (flush, events) and with a GPU
sleep between the flush and the start event (the host's launch latency
hidden), plus one call's kernels under torch.profiler."""
import array, statistics, sys, time
from pathlib import Path
import torch
sys.path.insert(0, "bench/scripts"); sys.path.insert(0, "test/models")
import solder
from solder.api import _current_raw_stream
from solder.bench import set_precision
from bench_models import make

def timed(fn, runs=40, sleep=0):
    l2 = torch.cuda.get_device_properties(0).L2_cache_size
    flush = torch.empty(2 * l2 // 4, device="cuda")
    for i in range(10):
        flush.fill_(i); fn(); torch.cuda.synchronize()
    times = []
    for i in range(runs):
        flush.fill_(float(i))
        if sleep:
            torch.cuda._sleep(sleep)
        a = torch.cuda.Event(enable_timing=True); b = torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b) * 1e3)
    return statistics.median(times)

def host_phases(compiled, xs, calls=200):
    """Python time from the call to the bundle's run, and the run's own."""
    loaded = compiled._loaded
    real = loaded.run
    marks = []
    class Wrap:
        def __getattr__(self, k): return getattr(loaded, k)
        def run(self, *a):
            t = time.perf_counter_ns(); r = real(*a); marks.append((t, time.perf_counter_ns())); return r
    compiled._loaded = Wrap()
    pre, run = [], []
    for _ in range(calls):
        t0 = time.perf_counter_ns(); compiled(*xs); t1 = time.perf_counter_ns()
        s, e = marks[-1]; pre.append((s - t0) / 1e3); run.append((e - s) / 1e3)
    torch.cuda.synchronize()
    compiled._loaded = loaded
    return statistics.median(pre), statistics.median(run)

name, precision = sys.argv[1], sys.argv[2]
set_precision(precision)
with torch.no_grad():
    model, xs = make(name)
    model, xs = model.cuda().eval(), tuple(x.cuda() for x in xs)
    compiled = solder.compile(model, xs, precision=precision, quiet=True)
    outputs = [torch.empty(s, device="cuda", memory_format=l)
               for s, l in zip(compiled.output_shapes, compiled._output_formats)]
    arguments = [xs[i] for i, _ in compiled.input_arguments] + compiled.parameters
    versions = array.array("Q", [0] * len(compiled.input_arguments) + [1] * len(compiled.parameters))
    loaded = compiled._loaded
    layers = {
        "call": lambda: compiled(*xs),
        "call_unchecked": lambda: compiled.call_unchecked(*xs),
        "bundle alone": lambda: loaded.run(arguments, outputs, _current_raw_stream(0), versions),
    }
    for round in range(2):
        for layer, fn in layers.items():
            print(f"{name} {precision} {layer:15s} timed {timed(fn):7.1f} us, after a GPU sleep "
                  f"{timed(fn, sleep=400000):7.1f} us", flush=True)
    pre, run = host_phases(compiled, xs)
    print(f"{name} host: {pre:.1f} us from the call to the bundle's run, {run:.1f} us in it")
    from torch.profiler import profile, ProfilerActivity
    for layer, fn in layers.items():
        fn(); torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(); torch.cuda.synchronize()
        ks = [(e.name, e.device_time) for e in prof.events() if e.device_time > 0]
        print(f"{layer}: {len(ks)} kernels, " + ", ".join(f"{n[:40]} {t:.1f}" for n, t in ks))
