"""The benchmark harness: PyTorch eager, torch.compile and Solder on the same
inputs, in one process, against a float64 reference.

    python -m solder.bench                      # the seed workloads
    python -m solder.bench model.py other.py    # files with Model, get_inputs,
                                                # get_init_inputs (KernelBench form)
    python -m solder.bench --workloads w3 --runs 100 --json out.json --png out.png

Each precision mode compares like with like: 'ieee' is Solder's fp32-accurate
main loops (3xTF32 tensor cores or FMAs) against the peers with TF32 off for
cuDNN and matmul; 'tf32' is Solder's one-product TF32 main loop against the
peers with TF32 on. --max-autotune adds
torch.compile(mode='max-autotune-no-cudagraphs'). The 'backend' column is
torch.compile(module, backend="solder"): Solder through dynamo. Times are medians of
CUDA-event timings after warm-up, with the L2 cache flushed before each run.
Errors are max |out - ref| and ||out - ref|| / ||ref|| against the module run
in float64 on the same inputs.
"""

import argparse
import copy
import importlib.util
import json
import math
import os
import statistics
import sys
import time

import torch

from . import api, workloads
from .errors import SolderError

MODES = ("ieee", "tf32")


def set_precision(mode):
    enabled = mode == "tf32"
    torch.backends.cudnn.allow_tf32 = enabled
    torch.backends.cuda.matmul.allow_tf32 = enabled


def catalog_bench_main(default_models, run, line, add_arguments=None):
    """The command line of a benchmark over catalog models
    (bench/scripts/bench_models.py, bench_training.py): models, --runs,
    --precisions, --channels-last, --json, and what ``add_arguments(parser)``
    adds. Each model in each precision gives one row, ``run(name, precision,
    args)``, printed as ``line(row, args)`` and written to --json as the rows
    so far."""
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="*", default=default_models)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--precisions", default="ieee,tf32")
    parser.add_argument("--channels-last", action="store_true")
    parser.add_argument("--json")
    if add_arguments:
        add_arguments(parser)
    args = parser.parse_args()
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}", flush=True)
    rows = []
    for name in args.models:
        for precision in args.precisions.split(","):
            rows.append(run(name, precision, args))
            print(line(rows[-1], args), flush=True)
            if args.json:
                with open(args.json, "w") as out:
                    json.dump(rows, out, indent=1)
    return rows


def time_cuda(fn, runs, warmup, min_warmup_s=0.2):
    """Median milliseconds of ``fn`` by CUDA events, L2 flushed before each
    run (a buffer twice the L2 size is rewritten between runs). Warm-up runs
    ``warmup`` calls and at least ``min_warmup_s`` seconds of them: the first
    case timed after a compile (CPU-bound, seconds) otherwise meets the GPU
    at idle clocks (W3 measured 0.80 ms where its kernels take 0.70)."""
    l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
    flush = torch.empty(max(2 * l2, 1 << 20) // 4, device="cuda")
    began = time.perf_counter()
    calls = 0
    while calls < warmup or time.perf_counter() - began < min_warmup_s:
        flush.fill_(float(calls))
        fn()
        torch.cuda.synchronize()
        calls += 1
    times = []
    for i in range(runs):
        flush.fill_(float(i))
        start = torch.cuda.Event(enable_timing=True)
        stop = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return statistics.median(times)


def errors(out, ref):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    refs = ref if isinstance(ref, (tuple, list)) else (ref,)
    max_abs, num, den = 0.0, 0.0, 0.0
    for o, r in zip(outs, refs):
        diff = o.double() - r
        if not torch.isfinite(o).all() and torch.isfinite(r).all():
            return {"max_abs_err": math.inf, "rel_l2_err": math.inf}
        max_abs = max(max_abs, diff.abs().max().item())
        num += diff.norm().item() ** 2
        den += r.norm().item() ** 2
    return {"max_abs_err": max_abs,
            "rel_l2_err": math.sqrt(num) / max(math.sqrt(den), 1e-300)}


class Case:
    """A module to measure: ``build()`` returns it and its inputs, on the GPU."""

    def __init__(self, name, build):
        self.name, self.build = name, build


def workload_case(name):
    def build():
        module_class, shape, _ = workloads.WORKLOADS[name]
        module = workloads.randomize_norms(module_class()).cuda()
        return module, (torch.rand(shape, device="cuda"),)
    return Case(name, build)


def file_case(path):
    """A KernelBench-style file: Model, get_inputs(), get_init_inputs()."""
    spec = importlib.util.spec_from_file_location(
        "solder_bench_" + os.path.splitext(os.path.basename(path))[0], path)
    if spec is None:
        raise SolderError(f"cannot import {path}")
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    for name in ("Model", "get_inputs"):
        if not hasattr(source, name):
            raise SolderError(f"{path} defines no {name} (expected Model, "
                              "get_inputs and optionally get_init_inputs)")
    init = getattr(source, "get_init_inputs", lambda: [])

    def build():
        module = workloads.randomize_norms(source.Model(*init())).cuda()
        inputs = tuple(t.cuda().float() if isinstance(t, torch.Tensor) else t
                       for t in source.get_inputs())
        return module, inputs
    return Case(os.path.splitext(os.path.basename(path))[0], build)


def run_case(case, args, progress):
    row = {"case": case.name}
    progress("building the module and inputs")
    torch.manual_seed(args.seed)
    module, inputs = case.build()
    if args.eval:
        module.eval()
    row["input_shapes"] = [list(t.shape) for t in inputs if isinstance(t, torch.Tensor)]

    progress("float64 reference")
    with torch.no_grad():
        reference = copy.deepcopy(module).double()(*[t.double() for t in inputs])

    for mode in args.modes:
        set_precision(mode)
        progress(f"solder.compile (precision={mode})")
        start = time.time()
        compiled = api.compile(module, inputs, precision=mode, force=args.force,
                               quiet=True)
        row[f"solder_{mode}_compile_s"] = round(time.time() - start, 2)
        with torch.no_grad():
            out = compiled(*inputs)
            torch.cuda.synchronize()
            row[f"solder_{mode}"] = errors(out, reference)
            row[f"solder_{mode}"]["bundle"] = str(compiled.bundle)
            progress(f"timing solder ({mode})")
            row[f"solder_{mode}"]["ms"] = time_cuda(lambda: compiled(*inputs),
                                                    args.runs, args.warmup)
            progress(f"eager ({mode})")
            out = module(*inputs)
            row[f"eager_{mode}"] = errors(out, reference)
            row[f"eager_{mode}"]["ms"] = time_cuda(lambda: module(*inputs),
                                                   args.runs, args.warmup)
            # Through torch.compile: Solder's backend (what dynamo's guards
            # and the partitioned graph's glue add), then Inductor's modes.
            compile_modes = []
            if not args.no_backend:
                compile_modes.append(("backend", {"backend": "solder", "options": {
                    "precision": mode, "force": args.force}}))
            if not args.no_compile:
                compile_modes.append(("compile", {}))
                if args.max_autotune:
                    compile_modes.append(
                        ("autotune", {"mode": "max-autotune-no-cudagraphs"}))
            for peer_name, options in compile_modes:
                label = options.get("backend") or options.get("mode", "default")
                progress(f"torch.compile {label} ({mode})")
                try:
                    torch._dynamo.reset()
                    peer = torch.compile(module, **options)
                    out = peer(*inputs)
                    row[f"{peer_name}_{mode}"] = errors(out, reference)
                    row[f"{peer_name}_{mode}"]["ms"] = time_cuda(
                        lambda: peer(*inputs), args.runs, args.warmup)
                except Exception as error:  # reported in the table, not hidden
                    row[f"{peer_name}_{mode}"] = {
                        "error": str(error).splitlines()[0][:200]}
    set_precision("ieee")
    del module, inputs, reference, compiled, out
    torch.cuda.empty_cache()
    return row


def peers(args, mode=None):
    """The peer columns, of one precision mode or of all."""
    names = []
    for m in ([mode] if mode else args.modes):
        if not args.no_backend:
            names.append(f"backend_{m}")
        names.append(f"eager_{m}")
        if not args.no_compile:
            names.append(f"compile_{m}")
            if args.max_autotune:
                names.append(f"autotune_{m}")
    return names


def print_table(rows, args, file=sys.stdout):
    """One table per precision mode: Solder in that mode against the peers
    in the same mode."""
    for mode in args.modes:
        columns = [f"solder_{mode}"] + peers(args, mode)
        print(f"precision {mode}:", file=file)
        header = f"{'case':12}" + "".join(f"{c + ' ms':>18}" for c in columns) + \
            "".join(f"{'x vs ' + c:>20}" for c in columns[1:]) + \
            f"{'solder rel L2':>15}{'solder max abs':>16}"
        print(header, file=file)
        for row in rows:
            if "error" in row:
                print(f"{row['case']:12} error: {row['error']}", file=file)
                continue
            solder = row[f"solder_{mode}"]
            line = f"{row['case']:12}"
            for c in columns:
                ms = row.get(c, {}).get("ms")
                line += f"{ms:18.3f}" if ms is not None else f"{'-':>18}"
            for c in columns[1:]:
                ms = row.get(c, {}).get("ms")
                line += f"{ms / solder['ms']:20.2f}" if ms else f"{'-':>20}"
            line += f"{solder['rel_l2_err']:15.2e}{solder['max_abs_err']:16.2e}"
            print(line, file=file)
        print("peer errors (rel L2 vs float64): " + "; ".join(
            f"{row['case']}: " + ", ".join(
                f"{c} {row[c]['rel_l2_err']:.1e}" for c in columns[1:]
                if c in row and "rel_l2_err" in row[c])
            for row in rows if "error" not in row), file=file)
        print(file=file)


def draw_chart(rows, args, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"matplotlib is not installed: no chart written to {path}")
        return False
    good = [r for r in rows if "error" not in r]
    names = peers(args)
    figure, axes = plt.subplots(figsize=(2 + 2.2 * len(good), 4.5))
    width = 0.8 / max(len(names), 1)
    for index, peer in enumerate(names):
        solder = "solder_" + peer.rsplit("_", 1)[1]  # the same precision mode
        speedups = [r[peer]["ms"] / r[solder]["ms"] if r.get(peer, {}).get("ms")
                    else 0.0 for r in good]
        positions = [i + (index - (len(names) - 1) / 2) * width for i in range(len(good))]
        bars = axes.bar(positions, speedups, width, label=f"vs {peer.replace('_', ' ')}")
        axes.bar_label(bars, fmt="%.2f", fontsize=7)
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_xticks(range(len(good)), [r["case"] for r in good])
    axes.set_ylabel("Solder speedup (peer time / Solder time)")
    axes.set_title(f"Solder vs PyTorch on {torch.cuda.get_device_name(0)} "
                   f"(torch {torch.__version__})")
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    return True


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m solder.bench",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*",
                        help="Python files defining Model, get_inputs, get_init_inputs")
    parser.add_argument("--workloads", default=None,
                        help="comma-separated built-in workloads "
                             f"({','.join(workloads.WORKLOADS)}); default: all, "
                             "unless files are given")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--modes", default="ieee,tf32",
                        help="precision modes: Solder compiled with precision=MODE "
                             "against the peers with TF32 off (ieee) or on (tf32)")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--no-backend", action="store_true",
                        help="skip torch.compile(backend='solder')")
    parser.add_argument("--max-autotune", action="store_true",
                        help="also time torch.compile(mode='max-autotune-no-cudagraphs')")
    parser.add_argument("--force", default="auto", choices=api.FORCE)
    parser.add_argument("--eval", action="store_true", help="call module.eval() first")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the inputs and weights (default: fresh each run)")
    parser.add_argument("--json", default="solder_bench.json")
    parser.add_argument("--png", default="solder_bench.png")
    args = parser.parse_args(argv)
    args.modes = [m for m in args.modes.split(",") if m]
    if args.seed is None:
        args.seed = int.from_bytes(os.urandom(4), "little")
    if any(m not in MODES for m in args.modes):
        parser.error(f"--modes takes {', '.join(MODES)}")
    if not torch.cuda.is_available():
        print("solder.bench: no CUDA GPU visible to torch; nothing to measure",
              file=sys.stderr)
        return 2

    names = args.workloads.split(",") if args.workloads else \
        ([] if args.files else list(workloads.WORKLOADS))
    unknown = [n for n in names if n not in workloads.WORKLOADS]
    if unknown:
        parser.error(f"unknown workload {unknown[0]} (one of {', '.join(workloads.WORKLOADS)})")
    cases = [workload_case(n) for n in names] + [file_case(f) for f in args.files]

    print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}, "
          f"{args.runs} timed runs after {args.warmup} warm-up", flush=True)
    rows = []
    for index, case in enumerate(cases):
        label = f"[{index + 1}/{len(cases)}] {case.name}"

        def progress(step, label=label):
            print(f"{label}: {step} ...", flush=True)
        try:
            rows.append(run_case(case, args, progress))
        except Exception as error:
            rows.append({"case": case.name, "error": f"{type(error).__name__}: "
                         f"{str(error).strip().splitlines()[0][:300] if str(error) else ''}"})
            torch.cuda.empty_cache()
        done = rows[-1]
        print(f"{label}: " + (f"error: {done['error']}" if "error" in done else
                              ", ".join(f"solder {m} {done['solder_' + m]['ms']:.3f} ms "
                                        f"(rel L2 {done['solder_' + m]['rel_l2_err']:.1e})"
                                        for m in args.modes)), flush=True)

    print()
    print_table(rows, args)
    with open(args.json, "w") as f:
        json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                   "runs": args.runs, "warmup": args.warmup, "modes": args.modes,
                   "seed": args.seed,
                   "cases": rows}, f, indent=2)
    print(f"wrote {args.json}")
    if args.png and draw_chart(rows, args, args.png):
        print(f"wrote {args.png}")
    return 1 if any("error" in r for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
