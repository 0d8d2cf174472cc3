"""torch.compile(model, backend="solder") on CPU tensors: Solder's subgraphs
run on the reference interpreter, the rest on eager PyTorch. Checked against
PyTorch in float64 (relative L2 <= 1e-5), with the partitioning, the log
lines, shape changes, gradients and training-mode BatchNorm.
"""

import copy
import logging
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import solder
from solder import workloads

from test_frontend import assert_matches, randomize

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture
def solder_log(caplog):
    caplog.set_level(logging.INFO, logger="solder")
    return lambda: [r.getMessage() for r in caplog.records if r.name == "solder"]


def line_of(snippet):
    """The number of this file's line that holds ``snippet``."""
    return next(i for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
                if snippet in text)


def solder_warnings(call):
    """``call()`` under no_grad: its result and the SolderWarnings it gave."""
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, solder.SolderWarning)]


def float64_reference(module, *inputs):
    twin = copy.deepcopy(module).double()
    with torch.no_grad():
        return twin(*[x.double() if isinstance(x, torch.Tensor) else x for x in inputs])


class CumsumInTheMiddle(nn.Module):
    """conv -> GroupNorm -> tanh | cumsum (not in the dialect) | sigmoid * 2 + 1."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.GroupNorm(2, 8)

    def forward(self, x):
        y = torch.tanh(self.norm(self.conv(x)))
        y = torch.cumsum(y, dim=3)
        return torch.sigmoid(y) * 2 + 1


def test_backend_name_is_registered():
    assert "solder" in torch._dynamo.list_backends()


@pytest.mark.parametrize("name", ["w1", "w2", "w3"])
def test_workloads_through_the_backend(name, solder_log):
    module, inputs = workloads.make(name, small=True, seed=5)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        out = compiled(*inputs)
    assert_matches(out, float64_reference(module, *inputs))
    log = solder_log()
    assert len(log) == 1, log  # one subgraph, nothing eager
    assert "subgraph solder_0: fused" in log[0] and "(reference interpreter)" in log[0]


def test_unsupported_op_splits_the_graph(solder_log):
    torch.manual_seed(0)
    module = randomize(CumsumInTheMiddle(), __import__("numpy").random.default_rng(1))
    x = torch.randn(2, 3, 8, 8)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        out = compiled(x)
    assert_matches(out, float64_reference(module, x))
    log = solder_log()
    assert len(log) == 3, log
    assert log[0].endswith("subgraph solder_0: fused 3 ops (sigmoid, mul, add) into 1 kernel "
                           "(reference interpreter)"), log[0]
    assert log[1].endswith("subgraph solder_1: fused 3 ops (conv2d, group_norm, tanh) "
                           "into 2 kernels (reference interpreter)"), log[1]
    this_file = Path(__file__).name
    line = line_of("y = torch.cumsum(y, dim=3)")
    assert log[2].endswith(f"1 ops run eagerly: aten.cumsum at {this_file}:{line} "
                           "(not supported)"), log[2]


def test_log_lines_under_solder_log_info():
    """SOLDER_LOG=info prints the lines on stderr, each prefixed 'solder:'."""
    script = (
        "import sys, torch; sys.path.insert(0, 'test/python');"
        "import solder; from test_backend import CumsumInTheMiddle;"
        "m = CumsumInTheMiddle().eval();"
        "f = torch.compile(m, backend='solder');"
        "torch.set_grad_enabled(False); f(torch.randn(1, 3, 8, 8))")
    env = dict(os.environ, SOLDER_LOG="info", PYTHONPATH=str(ROOT / "python"))
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("solder: ")]
    assert len(lines) == 3, result.stderr
    assert "fused 3 ops (conv2d, group_norm, tanh) into 2 kernels" in lines[1]
    assert "1 ops run eagerly: aten.cumsum" in lines[2]


@pytest.mark.parametrize("dynamic", [None, False])
def test_shape_changes_compile_again(dynamic, solder_log):
    module, _ = workloads.make("w3", small=True, seed=2)
    compiled = torch.compile(module, backend="solder", dynamic=dynamic)
    with torch.no_grad():
        for shape in [(2, 8, 10, 10), (1, 8, 7, 9), (2, 8, 10, 10)]:
            x = torch.rand(shape)
            assert_matches(compiled(x), float64_reference(module, x))
    assert len(solder_log()) == 2  # two shapes, two compilations


def test_a_graph_that_needs_gradients_trains_through_solder(solder_log):
    """Grad mode on and an input requiring grad: the forward is compiled
    by Solder (test_training.py checks the numbers), with no warning, and
    the backward reaches the parameters."""
    module, inputs = workloads.make("w3", small=True, seed=4)
    compiled = torch.compile(module, backend="solder")
    with warnings.catch_warnings(record=True) as caught, torch.enable_grad():
        warnings.simplefilter("always")
        x = inputs[0].clone().requires_grad_()
        compiled(x).sum().backward()
    assert [str(w.message) for w in caught if "solder" in str(w.message)] == []
    assert module.conv.weight.grad is not None and x.grad is not None
    log = solder_log()
    assert len(log) == 1 and "graph (forward): subgraph solder_0: fused 6 ops" in log[0], log


def test_training_batch_norm_updates_running_stats_exactly(solder_log):
    """A training BatchNorm under no_grad: Solder computes it and its batch
    statistics, PyTorch the running statistics' update from them; the
    module's buffers end as eager's."""
    module = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.SiLU()).train()
    twin = copy.deepcopy(module)
    x = torch.randn(4, 3, 6, 6)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        out = compiled(x)
        expected = twin(x)
    torch.testing.assert_close(out, expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(module[1].running_mean, twin[1].running_mean)
    torch.testing.assert_close(module[1].running_var, twin[1].running_var)
    assert module[1].num_batches_tracked.item() == 1
    log = solder_log()
    assert len(log) == 1 and "fused 3 ops (conv2d, _native_batch_norm_legit_functional, " \
        "silu)" in log[0], log


def test_options_precision_and_force():
    module, inputs = workloads.make("w1", small=True, seed=1)
    compiled = torch.compile(module, backend="solder",
                             options={"precision": "tf32", "force": "materialize"})
    with torch.no_grad():
        assert_matches(compiled(*inputs), float64_reference(module, *inputs))
    with pytest.raises(Exception, match="unknown solder backend options \\['fast'\\]"):
        with torch.no_grad():
            torch._dynamo.reset()
            torch.compile(module, backend="solder", options={"fast": True})(*inputs)


def recorded_results(monkeypatch, name):
    """What solder.backend's function ``name`` returns from here on, in
    order (the function still runs)."""
    import solder.backend as backend
    results, function = [], getattr(backend, name)

    def recording(*args, **kwargs):
        results.append(function(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(backend, name, recording)
    return results


@pytest.mark.parametrize("prepare_once", [True, False])
def test_parameters_and_buffers_are_solder_parameters(monkeypatch, prepare_once):
    """The module's parameters and buffers (dynamo's static inputs) are the
    subgraph's solder.parameter arguments, whose weight conversions the
    runtime prepares once; the input is not. prepare_once=False marks none."""
    imported = recorded_results(monkeypatch, "import_graph")
    module = randomize(nn.Sequential(nn.Conv2d(4, 8, 3), nn.BatchNorm2d(8), nn.ReLU()).eval(),
                       np.random.default_rng(5))
    x = torch.randn(2, 4, 7, 6)
    compiled = torch.compile(module, backend="solder", options={"prepare_once": prepare_once})
    with torch.no_grad():
        assert_matches(compiled(x), float64_reference(module, x))
    header = next(line for line in imported[0].mlir.splitlines() if line.startswith("func.func"))
    arguments = header[header.index("(") + 1:header.index(") ->")].split(", %")
    marked = [a.split(":")[0].lstrip("%") for a in arguments if "{solder.parameter}" in a]
    inputs = [a.split(":")[0].lstrip("%") for a in arguments if "tensor<2x4x7x6xf32>" in a]
    assert len(inputs) == 1 and inputs[0] not in marked
    # The conv's weight and bias, BatchNorm's weight, bias, mean and variance.
    assert len(marked) == (6 if prepare_once else 0), header
    assert len(imported[0].parameter_inputs) == len(marked)


def test_a_graph_fused_whole_is_called_straight(monkeypatch):
    """A graph that is one compiled subgraph returning the one output is
    called without the partitioned module around it (host time); a graph
    split around an eager op keeps it. Both give the right numbers."""
    import solder.backend as backend
    runners = recorded_results(monkeypatch, "compile_graph")
    whole = randomize(nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU()).eval(),
                      np.random.default_rng(2))
    split = randomize(CumsumInTheMiddle(), np.random.default_rng(3))
    x = torch.randn(2, 3, 8, 8)
    for module in (whole, split):
        with torch.no_grad():
            compiled = torch.compile(module, backend="solder")
            for _ in range(2):  # the first call compiles, the second runs it
                assert_matches(compiled(x), float64_reference(module, x))
    assert len(runners) == 2
    assert isinstance(runners[0].subgraph, backend._CompiledSubgraph)
    assert isinstance(runners[1], backend._FlatRunner)
    assert runners[1].direct_call(1) is None


class ScaledByAnInteger(nn.Module):
    def forward(self, x, n):
        return torch.relu(x) * n


def test_a_graph_with_integer_arguments_after_its_tensors(monkeypatch):
    """From the second value of n, dynamo passes it as a size after the
    tensor: the graph (its ints folded in) is not called straight."""
    import solder.backend as backend
    runners = recorded_results(monkeypatch, "compile_graph")
    module, x = ScaledByAnInteger(), torch.randn(2, 3, 4, 4)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        for n in (2, 3, 4):
            assert_matches(compiled(x, n), float64_reference(module, x, n))
    assert any(isinstance(r, backend._FlatRunner) for r in runners), runners


def test_what_ran_eagerly_is_one_warning_per_graph():
    """The first compile of a graph warns once (SolderWarning, at the user's
    line): ops and kernels Solder compiled, each op left to eager with its
    reason and line. A later call or a graph with nothing eager says nothing."""
    torch.manual_seed(0)
    module = randomize(CumsumInTheMiddle(), __import__("numpy").random.default_rng(2))
    compiled = torch.compile(module, backend="solder")
    line = line_of("y = torch.cumsum(y, dim=3)")
    _, ours = solder_warnings(lambda: [compiled(torch.randn(2, 3, 8, 8)) for _ in range(2)])
    assert len(ours) == 1, [str(w.message) for w in ours]
    text = str(ours[0].message)
    assert text.startswith("solder: graph at test_backend.py:"), text
    assert "6 ops compiled into 3 kernels; 1 ran eagerly: " in text, text
    assert f"aten.cumsum at {Path(__file__).name}:{line} (not supported)" in text
    assert Path(ours[0].filename).name == Path(__file__).name
    torch._dynamo.reset()
    module, inputs = workloads.make("w3", small=True, seed=3)
    _, ours = solder_warnings(lambda: torch.compile(module, backend="solder")(*inputs))
    assert not ours


class HugeBatchConv(nn.Module):
    """x / 2 -> conv -> tanh on 70000 samples: the code generator refuses the
    conv (its grid's z dim, the samples, holds at most 65535)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        y = self.conv(x / 2)
        return torch.tanh(y)


def test_code_generator_refusal_sends_one_op_to_eager(codegen_on_cpu, solder_log):
    """A refusal of the CUDA code generator names its ATen nodes: only those
    run eagerly, and the graph is partitioned again around them."""
    torch.manual_seed(0)
    module = HugeBatchConv()
    x = torch.randn(70000, 8, 2, 2)
    out, ours = solder_warnings(lambda: torch.compile(module, backend="solder")(x))
    assert_matches(out, float64_reference(module, x))
    line = line_of("y = self.conv(x / 2)")
    text = str(ours[0].message)
    assert f"2 ops compiled into 2 kernels; 1 ran eagerly: aten.conv2d at " \
        f"{Path(__file__).name}:{line} (the CUDA code generator launches a conv's channel " \
        "tiles and samples on grid y and z, at most 65535 each; this one needs 1 x 70000)" \
        in text, text
    log = solder_log()
    assert any("fused 1 ops (div)" in line for line in log), log
    assert any("fused 1 ops (tanh)" in line for line in log), log


class ThreeRefusals(nn.Module):
    """Three conv -> tanh blocks on 70000 samples (the code generator refuses
    each conv), cut apart by an op Solder lacks (cumsum): three subgraphs."""

    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(8, 8, 3, padding=1), nn.Tanh()) for _ in range(3))

    def forward(self, x):
        for block in self.blocks:
            x = block(x).cumsum(dim=1)
        return x


def count_partitionings(monkeypatch):
    import solder.backend as backend
    calls = []
    partition = backend._partition

    def counting(*args):
        calls.append(1)
        return partition(*args)

    monkeypatch.setattr(backend, "_partition", counting)
    return calls


def test_refusals_of_one_pass_are_collected(monkeypatch, codegen_on_cpu):
    """Every subgraph's refusal is collected before the graph is partitioned
    again: three refused convs in three subgraphs cost one more
    partitioning, not three."""
    calls = count_partitionings(monkeypatch)
    torch.manual_seed(0)
    module = ThreeRefusals()
    x = torch.randn(70000, 8, 2, 2)
    out, ours = solder_warnings(lambda: torch.compile(module, backend="solder")(x))
    assert_matches(out, float64_reference(module, x))
    assert len(calls) == 2, len(calls)
    text = str(ours[0].message)
    assert text.count("aten.conv2d at") == 3 and text.count("aten.cumsum at") == 3, text


class LinearOverTransposedInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        return torch.relu(self.fc(x.transpose(2, 3)))


def test_a_linear_over_a_permuted_dim_is_left_out_at_once(monkeypatch, solder_log):
    """A Linear the importer can tell it refuses from the permute it reads
    is left out by the partitioner: no second partitioning, the same reason
    (the transpose alone is no subgraph: it computes nothing)."""
    calls = count_partitionings(monkeypatch)
    torch.manual_seed(0)
    module = LinearOverTransposedInput()
    x = torch.randn(2, 3, 8, 6)
    with torch.no_grad():
        out = torch.compile(module, backend="solder")(x)
    assert_matches(out, float64_reference(module, x))
    assert len(calls) == 1, len(calls)
    assert any("aten.linear at" in line and "over dim 2 of a tensor permuted by [0, 1, 3, 2]"
               in line for line in solder_log()), solder_log()


class ProductByTransposedWeight(nn.Module):
    """x @ W.t(): through dynamo W is a graph input, transposed."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(5, 6) / 3)

    def forward(self, x):
        return torch.sigmoid(x @ self.w.t()) * 3.0


def test_a_matmul_by_a_transposed_weight_is_fused(solder_log):
    module, x = ProductByTransposedWeight(), torch.randn(7, 6)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        out = compiled(x)
    assert_matches(out, float64_reference(module, x))
    log = solder_log()
    assert len(log) == 1 and "fused 4 ops" in log[0] and "eager" not in log[0], log
