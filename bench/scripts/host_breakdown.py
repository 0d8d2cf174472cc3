"""Where a call goes, layer by layer, for KernelBench-style chains
(test/models/kernelbench.py) and the model catalog's entries
(test/models/catalog.py, at their full size): for each way to run it, the host time
per call (a loop without synchronizing: what Python and the launches cost
the CPU) and the timed call (solder.bench.time_cuda: CUDA events, L2
flushed, as bench_models.py times it).

Layers: eager; torch.compile (inductor); torch.compile(backend="eager")
(dynamo's own cost: its frame and guards around the eager graph);
torch.compile(backend="solder"); solder.compile's CompiledModule called
(checked) and through call_unchecked; the bundle's run alone
(LoadedBundle.run into outputs allocated once).

    python3 bench/scripts/host_breakdown.py [--precision ieee] [--calls 2000] NAMES...
"""

import argparse
import array
import sys
from pathlib import Path

import torch

import solder
from solder.api import _current_raw_stream
from solder.bench import set_precision, time_cuda

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "models"))
from backend_overhead import host_us  # noqa: E402
from bench_models import make  # noqa: E402


def layers(name, precision):
    model, xs = make(name)
    model, xs = model.cuda().eval(), tuple(x.cuda() for x in xs)
    yield "eager", lambda: model(*xs)
    torch._dynamo.reset()
    inductor = torch.compile(model)
    inductor(*xs)
    yield "inductor", lambda: inductor(*xs)
    torch._dynamo.reset()
    dynamo_only = torch.compile(model, backend="eager")
    dynamo_only(*xs)
    yield "dynamo+eager graph", lambda: dynamo_only(*xs)
    torch._dynamo.reset()
    backend = torch.compile(model, backend="solder", options={"precision": precision})
    backend(*xs)
    yield "backend=solder", lambda: backend(*xs)
    compiled = solder.compile(model, xs, precision=precision, quiet=True)
    yield "solder.compile call", lambda: compiled(*xs)
    yield "call_unchecked", lambda: compiled.call_unchecked(*xs)
    # What _launch passes: the function's arguments (the inputs as the
    # bundle views them), outputs in the layouts the bundle stores.
    outputs = [torch.empty(shape, device="cuda", memory_format=layout)
               for shape, layout in zip(compiled.output_shapes, compiled._output_formats)]
    arguments = [xs[i] for i, _ in compiled.input_arguments] + compiled.parameters
    versions = array.array("Q", [0] * len(compiled.input_arguments) +
                           [1] * len(compiled.parameters))
    loaded = compiled._loaded
    yield "bundle run alone", lambda: loaded.run(arguments, outputs, _current_raw_stream(0),
                                                 versions)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("names", nargs="+")
    parser.add_argument("--precision", default="ieee")
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    set_precision(args.precision)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, {args.precision}",
          flush=True)
    with torch.no_grad():
        for name in args.names:
            for layer, fn in layers(name, args.precision):
                host = host_us(fn, args.calls, rounds=5)
                timed = time_cuda(fn, args.runs, 3) * 1e3
                print(f"{name} {layer:22s} host {host:6.1f} us a call, "
                      f"timed {timed:6.1f} us", flush=True)


if __name__ == "__main__":
    main()
