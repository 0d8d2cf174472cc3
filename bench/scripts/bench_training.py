"""A training step of catalog models (test/models/catalog.py) at full size,
in training mode: zero the gradients, forward, backward of a fixed random
output gradient, an SGD step (PyTorch's foreach SGD, momentum 0.9). Eager
PyTorch, torch.compile (Inductor, forward and backward) and
torch.compile(backend="solder") with each of --backwards (the backend's
``backward`` option: "solder", its default, the convs' input gradients by
Solder and the rest by eager PyTorch; "eager"; "inductor") in the same run
and the same precision mode (ieee: TF32 off for every peer; tf32: on).
CUDA events after warm-up, L2 flushed (solder.bench.time_cuda): every
peer compiled first, then timed in three interleaved rounds of --runs each,
the median of the rounds' medians. Per peer it also times the forward alone in grad
mode (its graph dropped), so that the step splits into forward and the
rest (backward and SGD).

    python3 bench/scripts/bench_training.py [--runs 20] [--precisions ieee,tf32]
        [--backwards solder,inductor] [--channels-last] [--cudagraphs]
        [--json out.json] resnet50 unet_down ...

--channels-last trains every peer's model and input in PyTorch's
channels_last memory format, as convnets are trained for speed.
--cudagraphs adds two peers whose steps replay CUDA graphs: Solder with
``cudagraphs=True`` (the first of --backwards) and torch.compile's
mode="reduce-overhead" (Inductor's, graphed the same way, by PyTorch's
CUDA graph trees); the best peer is then the best of eager and both
Inductors. Their forward alone is not timed (a forward without its
backward is not what the graphs record); their compile time includes the
second step, which records the graphs.
"""

import copy
import gc
import statistics
import sys
import time
from pathlib import Path

import torch

import solder.backend as backend
from solder.bench import catalog_bench_main, set_precision, time_cuda

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "test" / "models"))
import catalog  # noqa: E402


ROUNDS = 3


def training_step(model, x, grad_output, optimizer):
    def run():
        optimizer.zero_grad(set_to_none=True)
        model(x).backward(grad_output)
        optimizer.step()
    return run


def compile_peer(model, x, grad_output, steps=1):
    """(seconds the first ``steps`` steps took, the step) of ``model``
    (already wrapped), on a copy of the parameters it was built with."""
    optimizer = torch.optim.SGD(
        getattr(model, "_orig_mod", model).parameters(), lr=1e-4, momentum=0.9, foreach=True)
    run = training_step(model, x, grad_output, optimizer)
    start = time.time()
    for _ in range(steps):
        run()
    torch.cuda.synchronize()
    return time.time() - start, run


def run(name, precision, runs, backwards, channels_last=False, cudagraphs=False):
    set_precision(precision)
    model, x = catalog.make(name, "full", seed=1)
    model, x = model.cuda().train(), x.cuda()
    if channels_last:
        model = model.to(memory_format=torch.channels_last)
        x = x.contiguous(memory_format=torch.channels_last)
    with torch.no_grad():
        shape = copy.deepcopy(model)(x).shape
    grad_output = torch.randn(shape, device="cuda",
                              generator=torch.Generator("cuda").manual_seed(2))
    row = {"model": name, "precision": precision, "shape": list(x.shape),
           "layout": "channels_last" if channels_last else "contiguous",
           "backwards": backwards}
    peers = {"eager": lambda m: m, "inductor": lambda m: torch.compile(m)}
    for backward in backwards:
        peers[solder_peer(backward)] = lambda m, backward=backward: torch.compile(
            m, backend="solder", options={"precision": precision, "backward": backward})
    if cudagraphs:
        peers[GRAPHED_SOLDER] = lambda m: torch.compile(m, backend="solder", options={
            "precision": precision, "backward": backwards[0], "cudagraphs": True})
        peers[GRAPHED_INDUCTOR] = lambda m: torch.compile(m, mode="reduce-overhead")
    # Every peer is compiled first and kept (dynamo's cache tells their
    # backends apart), then timed in ROUNDS interleaved rounds, the heap
    # collected before each: a host-bound step's time drifts with the host
    # over a run, and with the garbage the compiles left, which timing one
    # peer after another's compile charged to the later peers.
    torch._dynamo.reset()
    steps = {}
    for peer, wrap in peers.items():
        backend.reports.clear()
        compiled = wrap(copy.deepcopy(model))
        # Under CUDA graphs the second step records them.
        graphed = peer in GRAPHED
        compile_s, step = compile_peer(compiled, x, grad_output, steps=1 + graphed)
        steps[peer] = (step, compiled)
        if peer != "eager":
            row[f"{peer}_compile_s"] = compile_s
        if peer.startswith("solder"):
            row[f"{peer}_summary"] = summary = backend.reports_summary()
            # Peers share dynamo's cache (one forward code object, told
            # apart by backend): past its recompile limit a peer runs eagerly.
            if not summary["solder_ops"]:
                raise RuntimeError(f"{peer}: Solder compiled nothing ({summary['eager_ops']})")
            if peer == solder_peer(backwards[0]):
                row.update(summary)
    times = {peer: ([], []) for peer in steps}
    for _ in range(ROUNDS):
        for peer, (step, compiled) in steps.items():
            gc.collect()
            times[peer][0].append(time_cuda(step, runs, 3))
            if peer not in GRAPHED:
                times[peer][1].append(time_cuda(lambda: compiled(x), runs, 3))
    for peer, (step_ms, forward_ms) in times.items():
        row[f"{peer}_step_ms"] = statistics.median(step_ms)
        row[f"{peer}_forward_ms"] = statistics.median(forward_ms) if forward_ms else None
        row[f"{peer}_step_ms_rounds"] = step_ms
    row["best_peer_step_ms"] = best = min(
        row[f"{peer}_step_ms"] for peer in ("eager", "inductor", GRAPHED_INDUCTOR)
        if peer in steps)
    for peer in solder_peers(row):
        row[f"speedup_{peer}_vs_best"] = best / row[f"{peer}_step_ms"]
    return row


# The peers --cudagraphs adds.
GRAPHED_SOLDER, GRAPHED_INDUCTOR = GRAPHED = "solder_cudagraphs", "inductor_cudagraphs"


def solder_peers(row):
    return [solder_peer(backward) for backward in row["backwards"]] + \
        [GRAPHED_SOLDER] * (f"{GRAPHED_SOLDER}_step_ms" in row)


def solder_peer(backward):
    """The row's name for Solder with ``backward``: "solder" for the default."""
    return "solder" if backward == backend.BACKWARDS[0] else f"solder_{backward}_backward"


def line(row, args):
    solders = solder_peers(row)
    others = ["eager", "inductor"] + [GRAPHED_INDUCTOR] * (GRAPHED_SOLDER in solders)

    def timed(peer):
        forward = row[peer + "_forward_ms"]
        return f"{peer} {row[peer + '_step_ms']:.2f}" + \
            (f" (forward {forward:.2f})" if forward is not None else "")

    peers = "; ".join(timed(peer) for peer in solders + others)
    speedups = ", ".join(f"{peer} {row[f'speedup_{peer}_vs_best']:.2f}x" for peer in solders)
    compiles = ", ".join(f"{peer} {row[peer + '_compile_s']:.0f} s"
                         for peer in solders + others[1:])
    layout = " channels-last" if args.channels_last else ""
    return (f"{row['model']}{layout} {row['precision']} step ms: {peers}; against the "
            f"best: {speedups} -- {solders[0]}: {row['solder_ops']} ops in "
            f"{row['solder_kernels']} kernels, eager: {sorted(row['eager_ops']) or 'none'}; "
            f"compile {compiles}")


def main():
    catalog_bench_main(
        ["resnet50", "unet_down"],
        lambda name, precision, args: run(name, precision, args.runs,
                                          args.backwards.split(","), args.channels_last,
                                          args.cudagraphs),
        line, add_arguments)


def add_arguments(parser):
    parser.add_argument("--backwards", default=",".join(backend.BACKWARDS),
                        help="the Solder backend's backward options to time, comma-separated")
    parser.add_argument("--cudagraphs", action="store_true",
                        help="also time Solder and Inductor with their steps replayed "
                        "from CUDA graphs")


if __name__ == "__main__":
    main()
