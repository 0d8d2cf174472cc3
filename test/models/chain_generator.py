"""A random chain generator: a differential fuzzer of Solder's importer, planner
and code generator against PyTorch in float64.

``draw(seed, directory)`` writes one KernelBench-style module as Python source
(``chain_<seed>.py``) and loads it: a head (conv or conv_transpose 1-3D with a
random kernel, stride, padding, dilation and groups, or a Linear), then one to
six ops drawn from the grammar of what Solder claims: norms (BatchNorm in eval
mode, GroupNorm, InstanceNorm, LayerNorm over trailing dims), activations,
scalar and per-channel arithmetic, residuals from any earlier value or from a
second input, pools (max, avg, adaptive avg and max to any size), views, reductions (sum, mean,
amax, amin, max/min over a dim, logsumexp) and softmax. Each op is kept only
if eager PyTorch runs it on the shapes at hand, so every draw is a valid
module. Norm parameters and running statistics are random.

``check(draw, ...)`` compiles the draw and compares it with PyTorch in
float64. A draw must either compile and match, or be refused with a
``SolderError`` whose first line names the op and ends with the draw's own
source line (``(chain_<seed>.py:N)``); anything else (a wrong answer, a crash,
another exception, a refusal that does not point at the user's code) fails.
``python chain_generator.py --draws N`` runs many draws and tallies them.
"""

import argparse
import collections
import copy
import importlib.util
import json
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from catalog import randomize
from compare import error_bound, rel_l2, through_cuda_codegen

ACTIVATIONS = [
    "torch.relu({x})", "F.gelu({x})", "F.gelu({x}, approximate='tanh')", "torch.sigmoid({x})",
    "torch.tanh({x})", "F.silu({x})", "F.mish({x})", "F.hardswish({x})",
    "F.hardsigmoid({x})", "F.leaky_relu({x}, {slope})", "F.elu({x}, alpha={alpha})",
    "F.softplus({x})", "F.relu6({x})", "F.hardtanh({x}, {low}, {high})",
    "torch.clamp({x}, min={low}, max={high})", "torch.clamp({x}, min={low})",
    "torch.abs({x})", "torch.exp({x})", "torch.square({x})",
]
SCALAR_OPS = ["{x} * {c}", "{x} + {c}", "{x} - {c}", "{x} / {c}", "{c} - {x}"]
PER_CHANNEL_OPS = ["{x} + self.{p}", "{x} * self.{p}", "{x} - self.{p}", "{x} / self.{p}"]


# What Solder refuses of the grammar, each with why (the first line of the
# refusal, before the user's line, must match one of these; a new kind of
# refusal fails the tests until it is fixed or listed here). None today: every
# draw must compile and match.
KNOWN_REFUSALS = []


@dataclass
class Draw:
    seed: int
    path: Path
    source: str
    module: torch.nn.Module
    inputs: list
    ops: list = field(default_factory=list)  # the op kinds drawn, for tallies


class _Builder:
    """The module's source, grown one op at a time: each op is tried in eager
    PyTorch on the inputs and kept only if it runs."""

    def __init__(self, rng, seed, directory):
        self.rng, self.seed = rng, seed
        self.path = Path(directory) / f"chain_{seed}.py"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.members, self.lines, self.inputs = [], [], []
        self.input_names = ["x"]
        self.values = {}  # name -> shape of every value computed so far
        self.last = "x"
        self.ops = []

    # -- the source -----------------------------------------------------

    def source(self):
        members = "".join(f"        self.{n} = {e}\n" for n, e in self.members) or \
            "        pass\n"
        body = "".join(f"        {line}\n" for line in self.lines)
        return ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
                f"class Chain(nn.Module):  # seed {self.seed}\n"
                "    def __init__(self):\n        super().__init__()\n" + members +
                f"\n    def forward(self, {', '.join(self.input_names)}):\n" + body +
                f"        return {self.last}\n")

    def load(self):
        self.path.write_text(self.source())
        spec = importlib.util.spec_from_file_location(self.path.stem, self.path)
        loaded = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(loaded)
        torch.manual_seed(self.seed)
        return randomize(loaded.Chain(), self.seed)

    def shape(self, name=None):
        return self.values[name or self.last]

    def attempt(self, kind, expression, members=(), new_input=None):
        """Appends ``v = expression`` (with its members and, maybe, a new
        input of the given shape) if eager PyTorch runs it; returns whether."""
        saved = (list(self.members), list(self.lines), list(self.input_names),
                 list(self.inputs))
        name = f"v{len(self.values)}"
        self.members += list(members)
        if new_input is not None:
            self.input_names.append(f"y{len(self.input_names)}")
            self.inputs.append(torch.randn(new_input, generator=self._generator()))
            expression = expression.replace("{y}", self.input_names[-1])
        self.lines.append(f"{name} = {expression}")
        previous = self.last
        self.last = name
        try:
            with torch.no_grad():
                out = self.load()(*self.inputs)
            ok = isinstance(out, torch.Tensor) and out.numel() > 0 and out.dim() >= 1 \
                and bool(torch.isfinite(out).all())
        except Exception:  # noqa: BLE001 - an op eager refuses is not drawn
            ok = False
        if not ok:
            self.members, self.lines, self.input_names, self.inputs = saved
            self.last = previous
            return False
        self.values[name] = tuple(out.shape)
        self.ops.append(kind)
        return True

    def _generator(self):
        return torch.Generator().manual_seed(int(self.rng.integers(1 << 30)))

    # -- choices ------------------------------------------------------------

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def number(self, low, high, digits=2):
        return round(float(self.rng.uniform(low, high)), digits)

    def member(self, expression):
        name = f"m{len(self.members)}"
        return name, expression

    # -- heads ----------------------------------------------------------------

    def head(self):
        kind = self.pick(["conv", "conv", "conv", "conv_transpose", "linear"])
        for _ in range(50):
            if getattr(self, f"_{kind}")():
                return
        raise RuntimeError(f"seed {self.seed}: no valid {kind} head in 50 tries")

    def _spatial(self, rank):
        low, high = {1: (6, 20), 2: (4, 11), 3: (3, 6)}[rank]
        return tuple(int(self.rng.integers(low, high + 1)) for _ in range(rank))

    def _channels(self):
        groups = self.pick([1, 1, 1, 2, 3, 4, "depthwise"])
        if groups == "depthwise":
            c = self.pick([2, 3, 4, 6, 8])
            return c, c * self.pick([1, 1, 2]), c
        return (groups * self.pick([1, 2, 3]), groups * self.pick([1, 2, 3, 4]), groups)

    def _window(self, rank, transposed):
        def per_dim(draw_one):
            values = [draw_one() for _ in range(rank)]
            return values[0] if rank == 1 or self.rng.random() < 0.6 else tuple(values)
        kernel = per_dim(lambda: int(self.rng.integers(1, 6)))
        stride = per_dim(lambda: self.pick([1, 1, 2, 3]))
        dilation = per_dim(lambda: self.pick([1, 1, 1, 2]))
        arguments = {"stride": stride, "dilation": dilation}
        if transposed:
            arguments["padding"] = per_dim(lambda: int(self.rng.integers(0, 3)))
            if self.rng.random() < 0.4:
                arguments["output_padding"] = per_dim(lambda: int(self.rng.integers(0, 2)))
        else:
            arguments["padding"] = self.pick(
                [per_dim(lambda: int(self.rng.integers(0, 3))), 0, "'same'", "'valid'"])
            if arguments["padding"] == "'same'":
                arguments["stride"] = 1
        return kernel, arguments

    def _conv_layer(self, transposed):
        rank = self.pick([1, 2, 2, 3])
        c_in, c_out, groups = self._channels()
        kernel, arguments = self._window(rank, transposed)
        if groups > 1:
            arguments["groups"] = groups
        if self.rng.random() < 0.25:
            arguments["bias"] = False
        layer = "ConvTranspose" if transposed else "Conv"
        text = ", ".join(f"{k}={v}" for k, v in arguments.items())
        # One draw in eight is unbatched: (C, spatial...), a batch of one.
        batch = self.pick([(1,), (2,), (2,), (3,), (1,), (2,), (3,), ()])
        self.inputs = [torch.randn(batch + (c_in,) + self._spatial(rank),
                                   generator=self._generator())]
        self.values = {"x": tuple(self.inputs[0].shape)}
        name, expression = self.member(f"nn.{layer}{rank}d({c_in}, {c_out}, {kernel}, {text})")
        return self.attempt(f"{layer.lower()}{rank}d", f"self.{name}(x)", [(name, expression)])

    def _conv(self):
        return self._conv_layer(False)

    def _conv_transpose(self):
        return self._conv_layer(True)

    def _linear(self):
        rows, f_in, f_out = self.pick([1, 2, 4, 8]), int(self.rng.integers(2, 33)), \
            int(self.rng.integers(2, 33))
        self.inputs = [torch.randn(rows, f_in, generator=self._generator())]
        self.values = {"x": (rows, f_in)}
        bias = "" if self.rng.random() < 0.75 else ", bias=False"
        name, expression = self.member(f"nn.Linear({f_in}, {f_out}{bias})")
        return self.attempt("linear", f"self.{name}(x)", [(name, expression)])

    # -- the tail ---------------------------------------------------------------

    def tail(self):
        for _ in range(int(self.rng.integers(1, 7))):
            for _ in range(10):
                kind = self.pick(["activation", "activation", "scalar", "per_channel",
                                  "norm", "norm", "residual", "second_input", "pool",
                                  "view", "reduce", "softmax"])
                if getattr(self, f"_{kind}")():
                    break
            if len(self.shape()) < 2:
                return

    def _activation(self):
        text = self.pick(ACTIVATIONS)
        low = self.number(-1.0, 0.0)
        return self.attempt("activation", text.format(
            x=self.last, slope=self.number(0.01, 0.3), alpha=self.number(0.5, 1.5),
            low=low, high=self.number(low + 0.2, 2.0)))

    def _scalar(self):
        return self.attempt("scalar", self.pick(SCALAR_OPS).format(
            x=self.last, c=self.pick([self.number(0.5, 2.0), self.number(-2.0, -0.5)])))

    def _per_channel(self):
        shape = self.shape()
        channels = shape[1]
        param_shape = (channels,) + (1,) * (len(shape) - 2) if len(shape) > 2 else (channels,)
        name, expression = self.member(f"nn.Parameter(0.5 + torch.rand{param_shape})")
        return self.attempt("per_channel", self.pick(PER_CHANNEL_OPS).format(
            x=self.last, p=name), [(name, expression)])

    def _norm(self):
        shape = self.shape()
        rank, channels = len(shape), shape[1]
        kind = self.pick(["batch", "group", "instance", "layer"])
        spatial = max(rank - 2, 1)
        if kind == "batch":
            layer = f"nn.BatchNorm{spatial}d({channels})"
        elif kind == "group":
            groups = self.pick([g for g in (1, 2, 3, 4, 8) if channels % g == 0])
            layer = f"nn.GroupNorm({groups}, {channels})"
        elif kind == "instance":
            if rank < 3:  # InstanceNorm1d reads a 2-D tensor as one unbatched sample
                return False
            affine = self.pick(["True", "False"])
            layer = f"nn.InstanceNorm{spatial}d({channels}, affine={affine})"
        else:
            trailing = int(self.rng.integers(1, rank))
            layer = f"nn.LayerNorm({list(shape[rank - trailing:])})"
        # A norm over one element returns its bias: x - mean(x) is zero, and
        # fp32 rounding where x is recomputed for the statistics and for the
        # normalization comes out 1/sqrt(eps) larger (RELIABILITY.md).
        per_sample = int(np.prod(shape[1:]))
        elements = {"batch": 2, "group": per_sample // groups if kind == "group" else 0,
                    "instance": per_sample // channels,
                    "layer": int(np.prod(shape[rank - trailing:])) if kind == "layer" else 0}
        if elements[kind] == 1:
            return False
        name, expression = self.member(layer)
        return self.attempt(f"{kind}_norm", f"self.{name}({self.last})", [(name, expression)])

    def _residual(self):
        same = [n for n, s in self.values.items() if s == self.shape() and n != self.last]
        if not same:
            return False
        other = self.pick(same)
        text = self.pick(["{x} + {o}", "{x} * torch.sigmoid({o})", "{x} - {o}",
                          "torch.maximum({x}, {o})"])
        return self.attempt("residual", text.format(x=self.last, o=other))

    def _second_input(self):
        shape = self.shape()
        if self.rng.random() < 0.5 and len(shape) > 2:
            shape = (1, shape[1]) + (1,) * (len(shape) - 2)
        text = self.pick(["{x} + {{y}}", "{x} * {{y}}", "{x} - {{y}}"])
        return self.attempt("second_input", text.format(x=self.last), new_input=shape)

    def _pool(self):
        shape = self.shape()
        rank = len(shape) - 2
        if rank < 1:
            return False
        kind = self.pick(["max", "avg", "adaptive_avg", "adaptive_max"])
        if kind.startswith("adaptive"):
            # Global, halving, or any size up to the input's plus one (windows
            # of varying size that overlap where it does not divide).
            size = self.pick([1, tuple(max(1, s // 2) for s in shape[2:]),
                              tuple(int(self.rng.integers(1, s + 2)) for s in shape[2:])])
            text = f"F.{kind}_pool{rank}d({self.last}, {size})"
        else:
            kernel = int(self.rng.integers(1, 4))
            stride = self.pick([None, 1, 2])
            padding = int(self.rng.integers(0, kernel // 2 + 1))
            text = f"F.{kind}_pool{rank}d({self.last}, {kernel}"
            text += f", stride={stride}" if stride else ""
            text += f", padding={padding}" if padding else ""
            if kind == "avg" and padding and self.rng.random() < 0.5:
                text += ", count_include_pad=False"
            text += ")"
        return self.attempt(f"{kind}_pool", text)

    def _view(self):
        shape = self.shape()
        if len(shape) < 3:
            return False
        choices = [
            "{x}.flatten(1)",
            "{x}.view({x}.shape[0], {x}.shape[1], -1).softmax(-1).view({x}.shape)",
            "{x}.unsqueeze(1).squeeze(1)",
        ]
        if len(shape) >= 4 and shape[2] % 2 == 0:
            # Each channel's rows split in two channels (a solder.reshape
            # where a conv, pool or norm takes it).
            choices.append("{x}.view({x}.shape[0], {x}.shape[1] * 2, {x}.shape[2] // 2, "
                           "*{x}.shape[3:])")
        text = self.pick(choices)
        return self.attempt("view", text.format(x=self.last))

    def _reduce(self):
        shape = self.shape()
        rank = len(shape)
        dims = sorted(set(int(d) for d in self.rng.integers(1, rank, size=2)))
        dim = tuple(dims) if len(dims) > 1 else dims[0]
        keepdim = self.pick([True, True, False])
        x = self.last
        text = self.pick([
            f"torch.sum({x}, dim={dim}, keepdim={keepdim})",
            f"torch.mean({x}, dim={dim}, keepdim={keepdim})",
            f"torch.amax({x}, dim={dim}, keepdim={keepdim})",
            f"torch.amin({x}, dim={dim}, keepdim={keepdim})",
            f"torch.max({x}, dim={dims[0]}, keepdim={keepdim})[0]",
            f"torch.min({x}, dim={dims[0]}, keepdim={keepdim}).values",
            f"torch.logsumexp({x}, dim={dims[0]}, keepdim={keepdim})",
            f"{x} - torch.mean({x}, dim={dim}, keepdim=True)",
            f"{x} / torch.sum(torch.abs({x}), dim={dim}, keepdim=True).clamp(min=1e-3)",
        ])
        return self.attempt("reduce", text)

    def _softmax(self):
        dim = int(self.rng.integers(1, len(self.shape())))
        function = self.pick(["torch.softmax", "torch.log_softmax"])
        return self.attempt("softmax", f"{function}({self.last}, dim={dim})")


def draw(seed, directory):
    """The module of ``seed`` (its source written to DIRECTORY/chain_<seed>.py)
    and its inputs."""
    builder = _Builder(np.random.default_rng(seed), seed, directory)
    builder.head()
    builder.tail()
    return Draw(seed, builder.path, builder.source(), builder.load(), builder.inputs,
                builder.ops)


# -- checking a draw ------------------------------------------------------------

def check_refusal(error, drawn):
    """A refusal's first line names the op and ends with the draw's line."""
    import solder
    assert isinstance(error, solder.SolderError), f"{type(error).__name__}: {error}"
    first = str(error).splitlines()[0]
    located = re.search(rf" \({re.escape(drawn.path.name)}:(\d+)\)$", first)
    assert located, f"a refusal that does not end with the user's line: {first!r}"
    line = int(located.group(1))
    assert drawn.source.splitlines()[line - 1].lstrip().startswith("v"), (
        f"line {line} is not one of the forward's ops: {first!r}")
    return first[:located.start()]


def check(drawn, device="cpu", precision="ieee", bound=None):
    """Compiles ``drawn`` and runs it against float64: returns ('correct',
    error) or ('refused', first line). On the CPU the imported IR first goes
    through the CUDA code generator (solder-compile --emit-cuda-only) in both
    precisions, then runs on the reference interpreter; on a GPU it runs as a
    bundle, into a NaN-poisoned output, twice (bitwise equal). Raises
    AssertionError on a wrong answer or a refusal not pinned to the user's
    line; any other exception is a finding too."""
    import solder
    from solder.api import compile_imported
    from solder.importer import import_module

    module, inputs = drawn.module, [x.to(device) for x in drawn.inputs]
    module = module.to(device)
    with torch.no_grad():
        reference = copy.deepcopy(module).double()(*(x.double() for x in inputs)).cpu()
        eager = module(*inputs)
    try:
        imported = import_module(module, inputs)
        if device == "cpu":
            through_cuda_codegen(imported.mlir, ("ieee", "tf32"))
            compiled = compile_imported(imported, precision, "cpu", "auto", True, None)
        else:
            compiled = compile_imported(imported, precision, "cuda", "auto", True,
                                        inputs[0].device)
        with torch.no_grad():
            if device == "cpu":
                got = compiled(*inputs)
            else:  # into NaN-poisoned output, twice: bitwise equal
                poisoned = torch.full(compiled.output_shapes[0], float("nan"), device=device)
                got = compiled(*inputs, out=poisoned.contiguous(
                    memory_format=compiled._output_formats[0])).clone()
                assert torch.equal(got, compiled(*inputs)), "two runs differ"
    except solder.SolderError as error:
        return "refused", check_refusal(error, drawn)
    assert tuple(got.shape) == tuple(reference.shape), (tuple(got.shape), reference.shape)
    error = rel_l2(got, reference)
    limit = bound if bound is not None else error_bound(
        1e-5 if precision == "ieee" else 1e-3, rel_l2(eager, reference))
    assert error <= limit, f"rel L2 {error:.3g} > {limit:.3g}"
    return "correct", error


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=100)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", default="ieee", choices=["ieee", "tf32"])
    parser.add_argument("--directory", default=None, help="where the draws' sources go")
    parser.add_argument("--json", default=None, help="write every outcome here")
    args = parser.parse_args()
    directory = Path(args.directory or tempfile.mkdtemp(prefix="solder-chains-"))
    directory.mkdir(parents=True, exist_ok=True)
    tally, records = collections.Counter(), []
    reasons = collections.Counter()
    for seed in range(args.first_seed, args.first_seed + args.draws):
        start = time.time()
        drawn = draw(seed, directory)
        try:
            outcome, detail = check(drawn, args.device, args.precision)
        except Exception as error:  # noqa: BLE001 - a finding, recorded
            outcome, detail = "FAILED", f"{type(error).__name__}: {error}"
        tally[outcome] += 1
        if outcome == "refused":
            reasons[re.sub(r"\d+", "N", detail.split(" (chain_")[0])] += 1
        records.append({"seed": seed, "ops": drawn.ops, "outcome": outcome,
                        "detail": detail if isinstance(detail, str) else float(detail),
                        "seconds": round(time.time() - start, 2)})
        print(f"seed {seed}: {outcome} {detail}", flush=True)
    print(f"\n{sum(tally.values())} draws: " + ", ".join(f"{v} {k}" for k, v in tally.items()))
    for reason, count in reasons.most_common():
        print(f"  {count:4d} refused: {reason}")
    if args.json:
        Path(args.json).write_text(json.dumps({"tally": tally, "records": records}, indent=1))
    return 1 if tally["FAILED"] else 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))
    sys.exit(main())
