"""solder.import_module (the ATen importer over torch.export): the exact IR it emits for the
seed workloads and for scalars, broadcasting, eval-mode norms, in-place ops
and tuple outputs; that solder-opt parses and verifies what it emits; and the
errors it raises for what the dialect cannot express, each naming the op and
the line of the module's forward that called it.

Import only runs torch (shape propagation on the CPU) and solder-opt, so the
inputs are the reduced shapes of the workloads.
"""

import copy
import inspect
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import solder
from solder import workloads

from conftest import solder_tool

THIS_FILE = Path(__file__).resolve()


@pytest.fixture(autouse=True)
def hermetic_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLDER_CACHE_DIR", str(tmp_path / "cache"))


def body(imported):
    """The lines of the function body (without the return), stripped, without
    their locations (test_locations_are_the_user_lines checks those)."""
    lines = imported.mlir.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("func.func"))
    end = next(i for i, line in enumerate(lines) if line.strip().startswith("return "))
    return [re.sub(r' loc\("[^"]*"(\("[^"]*":\d+:\d+\))?\)$', "", line.strip())
            for line in lines[start + 1:end]]


def header(imported):
    return next(line for line in imported.mlir.splitlines()
                if line.startswith("func.func"))


def return_line(imported):
    return next(line.strip() for line in imported.mlir.splitlines()
                if line.strip().startswith("return "))


def solder_opt(tmp_path, text, *args):
    path = tmp_path / f"imported{len(list(tmp_path.glob('imported*')))}.mlir"
    path.write_text(text)
    return subprocess.run([str(solder_tool("solder-opt")), str(path), *args],
                          capture_output=True, text=True, timeout=120)


def assert_parses(tmp_path, imported):
    result = solder_opt(tmp_path, imported.mlir)
    assert result.returncode == 0, (
        f"solder-opt rejects the imported IR:\n{result.stderr}\n{imported.mlir}")
    # The round trip keeps the function and its op sequence.
    assert f"func.func @{imported.function}(" in result.stdout
    ops = [re.search(r"= (\S+)", line).group(1) for line in body(imported)]
    printed = [re.search(r"= (\S+)", line).group(1)
               for line in result.stdout.splitlines() if re.search(r"%\S+ = ", line)]
    assert printed == ops


# ---------------------------------------------------------------------------
# The seed workloads, line by line
# ---------------------------------------------------------------------------

def test_w1_structure(tmp_path):
    module, inputs = workloads.make("w1", small=True)
    imported = solder.import_module(module, inputs)
    assert imported.function == "w1"
    assert imported.input_names == ["x"]
    assert imported.input_shapes == [(2, 3, 6, 8, 8)]
    assert imported.parameter_names == ["conv_weight", "conv_bias",
                                        "group_norm_weight", "group_norm_bias"]
    assert imported.output_shapes == [(2,)]
    assert imported.output_is_sequence is False
    assert header(imported) == (
        "func.func @w1(%x: tensor<2x3x6x8x8xf32>, "
        "%conv_weight: tensor<24x3x3x3x3xf32> {solder.parameter}, "
        "%conv_bias: tensor<24xf32> {solder.parameter}, "
        "%group_norm_weight: tensor<24xf32> {solder.parameter}, "
        "%group_norm_bias: tensor<24xf32> {solder.parameter}) -> (tensor<2xf32>) {")
    assert body(imported) == [
        "%conv = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1, 1] "
        "padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1 : "
        "(tensor<2x3x6x8x8xf32>, tensor<24x3x3x3x3xf32>, tensor<24xf32>) -> "
        "tensor<2x24x4x6x6xf32>",
        "%group_norm = solder.group_norm %conv weight = %group_norm_weight "
        "bias = %group_norm_bias num_groups = 8 epsilon = 1.0e-05 : "
        "(tensor<2x24x4x6x6xf32>, tensor<24xf32>, tensor<24xf32>) -> "
        "tensor<2x24x4x6x6xf32>",
        "%mean = solder.reduce mean %group_norm dims = [1, 2, 3, 4] : "
        "tensor<2x24x4x6x6xf32> -> tensor<2xf32>",
    ]
    assert return_line(imported) == "return %mean : tensor<2xf32>"
    assert_parses(tmp_path, imported)


class ChannelsLastBlock(nn.Module):
    """A ResNet basic block, and the input's mean over its channels."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)

    def forward(self, x):
        y = torch.relu(self.conv2(torch.relu(self.conv1(x))) + x)
        return y, x.mean(dim=1, keepdim=True), y.flatten(2)


def test_channels_last_inputs_and_results_are_marked(tmp_path):
    """An input the caller stores channels-last, and a result eager returns
    channels-last, carry solder.channels_last (the plan decides what stays);
    a contiguous input, a result computed contiguous (the mean) and a viewed
    result do not."""
    module = ChannelsLastBlock().eval()
    x = torch.randn(2, 8, 5, 6)
    imported = solder.import_module(module, (x.contiguous(memory_format=torch.channels_last),))
    assert header(imported) == (
        "func.func @channels_last_block(%x: tensor<2x8x5x6xf32> {solder.channels_last}, "
        "%conv1_weight: tensor<8x8x3x3xf32> {solder.parameter}, "
        "%conv2_weight: tensor<8x8x3x3xf32> {solder.parameter}) "
        "-> (tensor<2x8x5x6xf32> {solder.channels_last}, tensor<2x1x5x6xf32>, "
        "tensor<2x8x5x6xf32>) {")
    assert_parses(tmp_path, imported)
    assert "solder.channels_last" not in header(solder.import_module(module, (x,)))
    # One channel, or one pixel, is both layouts: contiguous is what counts.
    one_pixel = torch.randn(2, 8, 1, 1).contiguous(memory_format=torch.channels_last)
    assert "solder.channels_last" not in header(solder.import_module(
        nn.Sequential(nn.Conv2d(8, 8, 1), nn.ReLU()).eval(), (one_pixel,)))


def test_w2_structure(tmp_path):
    module, inputs = workloads.make("w2", small=True)
    imported = solder.import_module(module, inputs)
    assert imported.parameter_names == ["conv_transpose_weight", "group_norm_weight",
                                        "group_norm_bias"]
    assert header(imported) == (
        "func.func @w2(%x: tensor<2x8x3x4x4xf32>, "
        "%conv_transpose_weight: tensor<8x16x3x3x3xf32> {solder.parameter}, "
        "%group_norm_weight: tensor<16xf32> {solder.parameter}, "
        "%group_norm_bias: tensor<16xf32> {solder.parameter}) "
        "-> (tensor<2x16x5x6x6xf32>) {")
    assert body(imported) == [
        "%conv_transpose = solder.conv_transpose %x, %conv_transpose_weight "
        "strides = [1, 1, 1] padding = [0, 0, 0] output_padding = [0, 0, 0] "
        "dilations = [1, 1, 1] groups = 1 : (tensor<2x8x3x4x4xf32>, "
        "tensor<8x16x3x3x3xf32>) -> tensor<2x16x5x6x6xf32>",
        "%relu = solder.relu %conv_transpose : tensor<2x16x5x6x6xf32>",
        "%group_norm = solder.group_norm %relu weight = %group_norm_weight "
        "bias = %group_norm_bias num_groups = 4 epsilon = 1.0e-05 : "
        "(tensor<2x16x5x6x6xf32>, tensor<16xf32>, tensor<16xf32>) -> "
        "tensor<2x16x5x6x6xf32>",
    ]
    assert return_line(imported) == "return %group_norm : tensor<2x16x5x6x6xf32>"
    assert_parses(tmp_path, imported)


@pytest.mark.parametrize("shape", [(2, 8, 10, 10), (1, 8, 5, 7)])
def test_w3_structure(tmp_path, shape):
    module, _ = workloads.make("w3", small=True)
    x = torch.rand(shape)
    imported = solder.import_module(module, (x,))
    n, _, h, w = shape
    t_in = f"tensor<{n}x8x{h}x{w}xf32>"
    t = f"tensor<{n}x64x{h - 2}x{w - 2}xf32>"
    t_out = f"tensor<{n}x1x{h - 2}x{w - 2}xf32>"
    assert imported.parameter_names == ["conv_weight", "conv_bias",
                                        "group_norm_weight", "group_norm_bias"]
    assert header(imported) == (
        f"func.func @w3(%x: {t_in}, %conv_weight: tensor<64x8x3x3xf32> {{solder.parameter}}, "
        "%conv_bias: tensor<64xf32> {solder.parameter}, "
        "%group_norm_weight: tensor<64xf32> {solder.parameter}, "
        f"%group_norm_bias: tensor<64xf32> {{solder.parameter}}) -> ({t_out}) {{")
    assert body(imported) == [
        "%conv = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1] "
        f"padding = [0, 0] dilations = [1, 1] groups = 1 : ({t_in}, "
        f"tensor<64x8x3x3xf32>, tensor<64xf32>) -> {t}",
        "%group_norm = solder.group_norm %conv weight = %group_norm_weight "
        "bias = %group_norm_bias num_groups = 16 epsilon = 1.0e-05 : "
        f"({t}, tensor<64xf32>, tensor<64xf32>) -> {t}",
        f"%tanh = solder.tanh %group_norm : {t}",
        f"%hard_swish = solder.hardswish %tanh : {t}",
        f"%add = solder.add %conv, %hard_swish : {t}",
        f"%logsumexp = solder.reduce logsumexp %add dims = [1] keepdim : {t} -> {t_out}",
    ]
    assert return_line(imported) == f"return %logsumexp : {t_out}"
    assert imported.output_shapes == [(n, 1, h - 2, w - 2)]
    assert_parses(tmp_path, imported)


def test_parameters_are_the_module_tensors():
    module, inputs = workloads.make("w3", small=True)
    imported = solder.import_module(module, inputs)
    expected = [module.conv.weight, module.conv.bias, module.group_norm.weight,
                module.group_norm.bias]
    assert len(imported.parameters) == len(expected)
    for got, want in zip(imported.parameters, expected):
        assert got.dtype == torch.float32 and got.device.type == "cpu"
        assert torch.equal(got, want.detach())
    # The workloads randomize the norms: a test cannot pass on weight 1, bias 0.
    assert not torch.equal(module.group_norm.weight, torch.ones(64))
    assert not torch.equal(module.group_norm.bias, torch.zeros(64))


def test_solder_opt_rejects_a_broken_import(tmp_path):
    """The verifier check above is not vacuous: a wrong attribute in the
    imported text fails it."""
    module, inputs = workloads.make("w3", small=True)
    imported = solder.import_module(module, inputs)
    assert solder_opt(tmp_path, imported.mlir).returncode == 0
    broken = imported.mlir.replace("num_groups = 16", "num_groups = 7")
    assert broken != imported.mlir
    result = solder_opt(tmp_path, broken)
    assert result.returncode != 0
    assert "group" in result.stderr


def test_imported_w3_runs_the_pipeline(tmp_path):
    module, inputs = workloads.make("w3", small=True)
    imported = solder.import_module(module, inputs)
    result = solder_opt(tmp_path, imported.mlir, "--solder-pipeline")
    assert result.returncode == 0, result.stderr


def test_save_writes_ir_parameters_and_metadata(tmp_path):
    module, inputs = workloads.make("w1", small=True)
    imported = solder.import_module(module, inputs)
    path = Path(imported.save(tmp_path / "saved"))
    assert path == tmp_path / "saved" / "model.mlir"
    assert path.read_text() == imported.mlir
    for name, tensor in zip(imported.parameter_names, imported.parameters):
        np.testing.assert_array_equal(
            np.load(tmp_path / "saved" / "model.params" / f"{name}.npy"), tensor.numpy())
    import json
    metadata = json.loads((tmp_path / "saved" / "model.json").read_text())
    assert metadata == {"function": "w1", "inputs": ["x"],
                        "input_shapes": [[2, 3, 6, 8, 8]],
                        "input_arguments": [[0, [2, 3, 6, 8, 8]]],
                        "parameters": imported.parameter_names,
                        "output_shapes": [[2]], "result_shapes": [[2]],
                        "output_is_sequence": False}


# ---------------------------------------------------------------------------
# Smaller constructs, line by line
# ---------------------------------------------------------------------------

class Scalars(nn.Module):
    def forward(self, x):
        a = 2 - x
        b = 1 / x
        c = x * 0.5
        d = 0.5 * a
        return a + b + c + d


class PerChannel(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(3, 1, 1))
        self.shift = nn.Parameter(torch.randn(3, 1, 1))

    def forward(self, x):
        y = x * self.scale + self.shift
        return y * self.scale  # the same parameter: one argument


class EvalBatchNorm(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(x).relu()


class InPlace(nn.Module):
    def forward(self, x):
        y = x * 2.0
        z = y + 1.0      # before the mutation
        y.relu_()        # y is mutated ...
        return y * z     # ... and used again: the relu result


class TwoOutputs(nn.Module):
    def forward(self, x):
        return x.tanh(), torch.sum(x, dim=[-1, 1], keepdim=True)


class Reductions(nn.Module):
    def forward(self, x):
        a = torch.amax(x, dim=-1)
        b = x.mean(dim=(2, 0))
        c = F.softmax(x, dim=-1)
        return a, b, c


class Attributes(nn.Module):
    def forward(self, x):
        x = F.leaky_relu(x, 0.25)
        x = F.gelu(x, approximate="tanh")
        x = torch.clamp(x, min=-0.5)
        x = F.hardtanh(x, -2.0, 3.0)
        return torch.add(x, x, alpha=2)


class SamePadding(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, (3, 5), padding="same", dilation=(2, 1), bias=False)

    def forward(self, x):
        return self.conv(x)


def test_python_scalars_become_constants(tmp_path):
    imported = solder.import_module(Scalars(), (torch.rand(2, 3) + 0.5,))
    t = "tensor<2x3xf32>"
    bcast = lambda: f"tensor<f32>, {t} -> {t}"  # noqa: E731
    # torch.export writes 2 - x as rsub and 1 / x as reciprocal(x) * 1.
    assert body(imported) == [
        "%cst = arith.constant dense<2.0> : tensor<f32>",
        f"%rsub = solder.sub %cst, %x : {bcast()}",
        "%cst_1 = arith.constant dense<1.0> : tensor<f32>",
        f"%reciprocal = solder.div %cst_1, %x : {bcast()}",
        f"%mul = solder.mul %reciprocal, %cst_1 : {t}, tensor<f32> -> {t}",
        "%cst_2 = arith.constant dense<0.5> : tensor<f32>",
        f"%mul_1 = solder.mul %x, %cst_2 : {t}, tensor<f32> -> {t}",
        f"%mul_2 = solder.mul %rsub, %cst_2 : {t}, tensor<f32> -> {t}",  # 0.5 reused
        f"%add = solder.add %rsub, %mul : {t}",
        f"%add_1 = solder.add %add, %mul_1 : {t}",
        f"%add_2 = solder.add %add_1, %mul_2 : {t}",
    ]
    assert imported.parameter_names == []
    assert_parses(tmp_path, imported)


def test_per_channel_parameters(tmp_path):
    module = PerChannel()
    imported = solder.import_module(module, (torch.rand(2, 3, 4, 4),))
    t = "tensor<2x3x4x4xf32>"
    p = "tensor<3x1x1xf32>"
    assert imported.parameter_names == ["scale", "shift"]
    assert header(imported) == (
        f"func.func @per_channel(%x: {t}, %scale: {p} {{solder.parameter}}, "
        f"%shift: {p} {{solder.parameter}}) -> ({t}) {{")
    assert body(imported) == [
        f"%mul = solder.mul %x, %scale : {t}, {p} -> {t}",
        f"%add = solder.add %mul, %shift : {t}, {p} -> {t}",
        f"%mul_1 = solder.mul %add, %scale : {t}, {p} -> {t}",
    ]
    assert_parses(tmp_path, imported)


def test_eval_batch_norm_uses_running_statistics(tmp_path):
    """x * scale + shift per channel, scale = weight * rsqrt(var + eps) and
    shift = bias - mean * scale computed at import (in float64) from the
    captured statistics, as (C, 1, 1) parameters."""
    module = EvalBatchNorm()
    workloads.randomize_norms(module, torch.Generator().manual_seed(1))
    with torch.no_grad():
        module.bn.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0]))
        module.bn.running_var.copy_(torch.tensor([0.25, 4.0, 1.5]))
    module.eval()
    imported = solder.import_module(module, (torch.rand(2, 3, 4, 4),))
    t = "tensor<2x3x4x4xf32>"
    p = "tensor<3x1x1xf32>"
    assert imported.parameter_names == ["bn_scale", "bn_shift"]
    assert body(imported) == [
        f"%bn_scaled = solder.mul %x, %bn_scale : {t}, {p} -> {t}",
        f"%bn = solder.add %bn_scaled, %bn_shift : {t}, {p} -> {t}",
        f"%relu = solder.relu %bn : {t}",
    ]
    scale, shift = imported.parameters
    bn = module.bn
    want_scale = bn.weight.double() / torch.sqrt(bn.running_var.double() + bn.eps)
    want_shift = bn.bias.double() - bn.running_mean.double() * want_scale
    assert scale.shape == (3, 1, 1) and shift.shape == (3, 1, 1)
    assert torch.equal(scale.flatten(), want_scale.float().detach())
    assert torch.equal(shift.flatten(), want_shift.float().detach())
    assert any("bn" in note and "computed at import" in note for note in imported.notes)
    assert_parses(tmp_path, imported)


def test_eval_batch_norm_on_input_statistics(tmp_path):
    """Running statistics that are the caller's inputs cannot be folded:
    (x - mean) * (weight * rsqrt(var + eps)) + bias in the chain."""

    class InputStatistics(nn.Module):
        def forward(self, x, mean, var, weight, bias):
            return F.batch_norm(x, mean, var, weight, bias, False, 0.1, 1e-5)

    inputs = (torch.rand(2, 3, 4, 4), torch.randn(3), torch.rand(3) + 0.5,
              torch.randn(3), torch.randn(3))
    imported = solder.import_module(InputStatistics(), inputs)
    assert [line.split(" = ")[0] for line in body(imported)][-3:] == [
        "%batch_norm_centered", "%batch_norm_scaled", "%batch_norm"]
    got = solder.compile(InputStatistics(), inputs, backend="cpu", quiet=True)(*inputs)
    want = F.batch_norm(*[t.double() for t in inputs], False, 0.1, 1e-5)
    assert ((got.double() - want).norm() / want.norm()).item() < 1e-6
    assert_parses(tmp_path, imported)


def test_train_batch_norm_uses_batch_statistics(tmp_path):
    module = EvalBatchNorm().train()
    imported = solder.import_module(module, (torch.rand(2, 3, 4, 4),))
    t = "tensor<2x3x4x4xf32>"
    assert imported.parameter_names == ["bn_weight", "bn_bias"]
    assert body(imported)[0] == (
        "%bn = solder.batch_norm %x weight = %bn_weight bias = %bn_bias "
        f"epsilon = 1.0e-05 : ({t}, tensor<3xf32>, tensor<3xf32>) -> {t}")
    assert_parses(tmp_path, imported)


def test_several_eval_norms_keep_their_own_statistics(tmp_path):
    layers = [nn.BatchNorm2d(3) for _ in range(4)]
    for index, layer in enumerate(layers):
        with torch.no_grad():
            layer.weight.fill_(1.0 + index)
            layer.bias.fill_(-float(index))
            layer.running_mean.fill_(0.5 * index)
            layer.running_var.fill_(1.0 + 2.0 * index)
    module = nn.Sequential(*layers).eval()
    imported = solder.import_module(module, (torch.rand(2, 3, 2, 2),))
    names = [f"v{i}_{kind}" for i in range(4) for kind in ("scale", "shift")]
    assert imported.parameter_names == names
    for i in range(4):
        scale, shift = imported.parameters[2 * i:2 * i + 2]
        want = (1.0 + i) / (1.0 + 2.0 * i + 1e-5) ** 0.5
        assert torch.allclose(scale, torch.full((3, 1, 1), want), rtol=1e-7, atol=0)
        assert torch.allclose(shift, torch.full((3, 1, 1), -float(i) - 0.5 * i * want),
                              rtol=1e-6, atol=1e-7)
    for name in names:
        assert f"%{name}" in "\n".join(body(imported)), name
    assert_parses(tmp_path, imported)


@pytest.mark.parametrize("layer,names", [
    (nn.BatchNorm2d(3), ["weight", "bias"]),
    (nn.ConvTranspose2d(3, 2, 3, stride=2, output_padding=1), ["weight", "bias"]),
    (nn.InstanceNorm2d(3), []),
])
def test_bare_torch_module(tmp_path, layer, names):
    """A torch.nn module compiled on its own is one op; its parameters keep
    their state_dict names."""
    imported = solder.import_module(layer, (torch.rand(2, 3, 4, 4),))
    assert imported.parameter_names == names
    assert imported.input_names == ["input"]
    assert len(body(imported)) == 1
    assert_parses(tmp_path, imported)


def test_in_place_op_is_seen_by_later_uses(tmp_path):
    imported = solder.import_module(InPlace(), (torch.rand(2, 3),))
    t = "tensor<2x3xf32>"
    assert body(imported) == [
        "%cst = arith.constant dense<2.0> : tensor<f32>",
        f"%mul = solder.mul %x, %cst : {t}, tensor<f32> -> {t}",
        "%cst_1 = arith.constant dense<1.0> : tensor<f32>",
        f"%add = solder.add %mul, %cst_1 : {t}, tensor<f32> -> {t}",
        f"%relu = solder.relu %mul : {t}",
        f"%mul_1 = solder.mul %relu, %add : {t}",
    ]
    assert_parses(tmp_path, imported)


def test_two_outputs_and_dims(tmp_path):
    imported = solder.import_module(TwoOutputs(), (torch.rand(2, 3, 4, 5),))
    assert imported.output_is_sequence is True
    assert imported.output_shapes == [(2, 3, 4, 5), (2, 1, 4, 1)]
    assert body(imported) == [
        "%tanh = solder.tanh %x : tensor<2x3x4x5xf32>",
        "%sum_1 = solder.reduce sum %x dims = [1, 3] keepdim : tensor<2x3x4x5xf32> "
        "-> tensor<2x1x4x1xf32>",
    ]
    assert return_line(imported) == (
        "return %tanh, %sum_1 : tensor<2x3x4x5xf32>, tensor<2x1x4x1xf32>")
    assert header(imported).endswith(
        "-> (tensor<2x3x4x5xf32>, tensor<2x1x4x1xf32>) {")
    assert_parses(tmp_path, imported)


def test_reductions_normalize_dims(tmp_path):
    imported = solder.import_module(Reductions(), (torch.rand(2, 3, 4),))
    assert body(imported) == [
        "%amax = solder.reduce max %x dims = [2] : tensor<2x3x4xf32> -> tensor<2x3xf32>",
        "%mean = solder.reduce mean %x dims = [0, 2] : tensor<2x3x4xf32> -> tensor<3xf32>",
        "%softmax = solder.softmax %x dim = 2 : tensor<2x3x4xf32>",
    ]
    assert_parses(tmp_path, imported)


def test_op_attributes(tmp_path):
    imported = solder.import_module(Attributes(), (torch.rand(2, 3),))
    t = "tensor<2x3xf32>"
    assert body(imported) == [
        f"%leaky_relu = solder.leaky_relu %x {{alpha = 0.25 : f32}} : {t}",
        f"%gelu = solder.gelu %leaky_relu {{approximate = #solder.gelu_approximation<tanh>}} : {t}",
        f"%clamp = solder.clamp %gelu {{min = -0.5 : f32}} : {t}",
        f"%hardtanh = solder.hardtanh %clamp {{min = -2.0 : f32, max = 3.0 : f32}} : {t}",
        "%cst = arith.constant dense<2.0> : tensor<f32>",
        f"%add_alpha = solder.mul %hardtanh, %cst : {t}, tensor<f32> -> {t}",
        f"%add = solder.add %hardtanh, %add_alpha : {t}",
    ]
    assert_parses(tmp_path, imported)


def test_same_padding_is_resolved(tmp_path):
    imported = solder.import_module(SamePadding(), (torch.rand(1, 2, 7, 6),))
    assert body(imported) == [
        "%conv = solder.conv %x, %conv_weight strides = [1, 1] padding = [2, 2] "
        "dilations = [2, 1] groups = 1 : (tensor<1x2x7x6xf32>, tensor<4x2x3x5xf32>) "
        "-> tensor<1x4x7x6xf32>"]
    assert_parses(tmp_path, imported)


class EvenSamePadding(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, (2, 4), padding="same", dilation=(3, 1))

    def forward(self, x):
        return self.conv(x)


def test_same_padding_with_an_even_kernel_pads_more_after(tmp_path):
    """padding='same' with an odd total (an even kernel, an odd dilation):
    the extra zero after each dim, as PyTorch puts it; matches float64."""
    torch.manual_seed(0)
    x = torch.randn(2, 3, 7, 6)
    imported = solder.import_module(EvenSamePadding(), (x,))
    assert body(imported) == [
        "%conv = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1] padding = [1, 1] "
        "padding_high = [2, 2] dilations = [3, 1] groups = 1 : (tensor<2x3x7x6xf32>, "
        "tensor<4x3x2x4xf32>, tensor<4xf32>) -> tensor<2x4x7x6xf32>"]
    assert_parses(tmp_path, imported)
    module = EvenSamePadding()
    compiled = solder.compile(module, (x,), backend="cpu", quiet=True)
    with torch.no_grad():
        got, want = compiled(x).double(), copy.deepcopy(module).double()(x.double())
    assert ((got - want).norm() / want.norm()).item() < 1e-6


class Infinity(nn.Module):
    def forward(self, x):
        return torch.maximum(x, x * float("-inf")) + float("inf")


def test_infinite_constants_parse(tmp_path):
    imported = solder.import_module(Infinity(), (torch.rand(3),))
    assert "%cst = arith.constant dense<0xFF800000> : tensor<f32>" in body(imported)
    assert "%cst_1 = arith.constant dense<0x7F800000> : tensor<f32>" in body(imported)
    assert_parses(tmp_path, imported)


# ---------------------------------------------------------------------------
# Errors: the op and the user's line
# ---------------------------------------------------------------------------

def line_of(cls, snippet):
    """(line number, code) of the line of cls.forward containing snippet."""
    lines, start = inspect.getsourcelines(cls.forward)
    matches = [(start + i, line.strip()) for i, line in enumerate(lines)
               if snippet in line]
    assert len(matches) == 1, f"{snippet!r} in {cls.__name__}.forward: {matches}"
    return matches[0]


def at(cls, snippet):
    """The regex of the importer's '  at FILE:LINE: code' suffix."""
    number, code = line_of(cls, snippet)
    return rf"\n  at {re.escape(str(THIS_FILE))}:{number}: {re.escape(code)}$"


class AdaptivePool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(3)

    def forward(self, x):
        x = x * 2
        return self.pool(x)


class ViewIntoConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = x.relu()
        return self.conv(y.view(2, 3, 2, 8))


class ViewMixedWithValue(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.GroupNorm(2, 24)

    def forward(self, x):
        y = self.norm(x.flatten(1))
        return y.view(2, 4, 6) + x.tanh()


class PartialReduceOfView(nn.Module):
    def forward(self, x):
        z = x.relu().view(2, 3, 2, 8)
        return z.sum(3)


class FloorDiv(nn.Module):
    def forward(self, x):
        return torch.div(x, 2.0, rounding_mode="floor")


class InPlaceMethodOnInput(nn.Module):
    def forward(self, x):
        return x.relu_()


class InPlaceFunctionalOnInput(nn.Module):
    def forward(self, x):
        return F.relu(x, inplace=True) * 2


class InPlaceModuleOnInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(x) + 1


class InPlaceOnAliasOfInput(nn.Module):
    def forward(self, x):
        y = x.contiguous()
        return y.add_(1.0)


class InPlaceOnParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(3))

    def forward(self, x):
        return x * self.scale.mul_(2)


class TrainingDropout(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.25)

    def forward(self, x):
        return self.drop(x.tanh())


class ReflectConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")

    def forward(self, x):
        return self.conv(x)


class DoubleParameter(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.rand(3, dtype=torch.float64))

    def forward(self, x):
        return x * self.scale


class ToDouble(nn.Module):
    def forward(self, x):
        return x.to(torch.float64).sum()


class SumAsDouble(nn.Module):
    def forward(self, x):
        return x.sum(1, dtype=torch.float64)


class LinearOfConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(self.conv(x))


class ProductOfComputed(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return y @ y


class ProductByTransposedInput(nn.Module):
    def forward(self, x, y):
        return x @ y.t()


class ProductByTransposedView(nn.Module):
    def forward(self, x, y):
        return x @ y.view(5, 6).t()


class BatchedProduct(nn.Module):
    def forward(self, x):
        return torch.bmm(x, x)


class ReducesPermuted(nn.Module):
    def forward(self, x):
        return torch.relu(x).permute(0, 2, 3, 1).sum(-1)


class LayerNormOverWidthPermuted(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(torch.relu(x).permute(0, 1, 3, 2)).permute(0, 1, 3, 2)


class PermutedMixedWithComputed(nn.Module):
    def forward(self, x):
        return (torch.relu(x).permute(0, 1, 3, 2) + torch.tanh(x)).permute(0, 1, 3, 2)


class PermutedPlusCubeInput(nn.Module):
    """Sizes alike in every dim: only the order of the dims tells that x
    would need a transpose."""

    def forward(self, x):
        return (torch.relu(x).permute(0, 2, 3, 1) + x).permute(0, 3, 1, 2)


class MaxPoolIndices(nn.Module):
    def forward(self, x):
        return F.max_pool2d(x, 2, return_indices=True)[0]


class ConvOfUnbatchedLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.conv = nn.Linear(3, 8), nn.Conv1d(4, 2, 3)

    def forward(self, x):
        return self.conv(self.fc(x))


class MaxIndicesUsed(nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, dim=1)
        return values * indices.float()


class ReluOfEmpty(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


class SoftmaxOverSplitDim(nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        return torch.softmax(y.view(2, 3, 2, 8), dim=3)


UNSUPPORTED = [
    # module, input shape, message regex (before the 'at'), snippet of the line
    (FloorDiv, (2, 3), r"division with rounding_mode='floor'", "torch.div"),
    (InPlaceMethodOnInput, (2, 3),
     r"InPlaceMethodOnInput changes its input 'x' in place, which Solder does not "
     r"do to the caller's tensors; use the out-of-place form", "x.relu_()"),
    (InPlaceFunctionalOnInput, (2, 3), r"InPlaceFunctionalOnInput changes its input 'x'",
     "F.relu(x, inplace=True)"),
    (InPlaceModuleOnInput, (2, 3), r"InPlaceModuleOnInput changes its input 'x'",
     "self.act(x)"),
    (InPlaceOnAliasOfInput, (2, 3), r"InPlaceOnAliasOfInput changes its input 'x'",
     "y.add_(1.0)"),
    (InPlaceOnParameter, (2, 3), r"InPlaceOnParameter changes its parameter 'scale' "
     r"in place", "self.scale.mul_(2)"),
    (TrainingDropout, (2, 3),
     r"'aten\.native_dropout' with training=True is random: solder\.compile does not "
     r"take it \(torch\.compile\(backend='solder'\) leaves it to PyTorch's generator; "
     r"module\.eval\(\) turns it off for inference\)", "self.drop"),
    (ReflectConv, (1, 3, 5, 5), r"'aten\.pad' is not supported", "self.conv(x)"),
    (DoubleParameter, (2, 3), r"parameter 'scale' is torch\.float64; Solder "
     r"compiles float32 models", "x * self.scale"),
    (ToDouble, (2, 3), r"'aten\._to_copy' produces torch\.float64", "x.to"),
    (SumAsDouble, (2, 3), r"'aten\.sum\.dim_IntList' with dtype=torch\.float64",
     "x.sum"),
    (ProductOfComputed, (3, 3), r"'aten\.matmul' whose second operand is computed: Solder "
     r"runs Linear and matmul as a GEMM by a 2-D parameter or input", "y @ y"),
    (BatchedProduct, (2, 3, 3), r"'aten\.bmm' is not supported", "torch.bmm"),
    (ReducesPermuted, (2, 3, 4, 5), r"'aten\.sum\.dim_IntList' takes 'relu' permuted by "
     r"\[0, 2, 3, 1\]; Solder keeps a permute as layout bookkeeping", "sum(-1)"),
    (LayerNormOverWidthPermuted, (2, 3, 4, 5), r"'aten\.layer_norm': LayerNorm over "
     r"dims \[3\] of 'relu' permuted by \[0, 1, 3, 2\]; Solder runs it over "
     r"the channels only", "self.norm"),
    (PermutedPlusCubeInput, (2, 4, 4, 4), r"'aten\.add\.Tensor' mixes a tensor permuted by "
     r"\[0, 2, 3, 1\] with 'x' of shape \(2, 4, 4, 4\), which would need a transpose",
     "+ x"),
    (PermutedMixedWithComputed, (2, 3, 4, 4), r"'aten\.add\.Tensor' mixes a tensor permuted "
     r"by \[0, 1, 3, 2\] with 'tanh' of shape \(2, 3, 4, 4\), which would need a "
     r"transpose", "torch.tanh(x)"),
    (MaxIndicesUsed, (2, 3, 4), r"'aten\.max\.dim' returns indices; Solder computes the "
     r"values only", "torch.max(x, dim=1)"),
    (ReluOfEmpty, (2, 0, 3), r"'aten\.relu' takes 'x' of shape \(2, 0, 3\), which is empty; "
     r"Solder compiles tensors that hold elements", "torch.relu(x)"),
]


@pytest.mark.parametrize("cls,shape,message,snippet", UNSUPPORTED,
                         ids=[case[0].__name__ for case in UNSUPPORTED])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_unsupported_names_op_and_line(cls, shape, message, snippet):
    x = torch.randn(shape)  # negative values: an in-place relu would show
    before = x.clone()
    with pytest.raises(solder.UnsupportedOperation) as error:
        solder.import_module(cls(), (x,))
    text = str(error.value)
    assert re.match(message, text), text
    assert re.search(at(cls, snippet), text), text
    assert torch.equal(x, before), "importing changed the example input"


def test_unsupported_through_compile(tmp_path):
    """solder.compile raises the importer's error, before any tool runs."""
    line, _ = line_of(MaxIndicesUsed, "torch.max(x, dim=1)")
    with pytest.raises(solder.UnsupportedOperation,
                       match=rf"^'aten\.max\.dim' returns indices; .* "
                             rf"\(test_importer\.py:{line}\)\n  at .*test_importer\.py:"):
        solder.compile(MaxIndicesUsed(), (torch.rand(2, 3, 4),), backend="cpu")
    assert not (tmp_path / "cache").exists()


@pytest.mark.parametrize("dtype", [torch.float64, torch.float16, torch.int32])
def test_non_float32_input(dtype):
    x = torch.ones(2, 3, dtype=dtype)
    with pytest.raises(solder.UnsupportedOperation,
                       match=rf"^example input 0 is {re.escape(str(dtype))}; Solder "
                             "compiles float32 models"):
        solder.import_module(InPlace(), (x,))


class TwoInputs(nn.Module):
    def forward(self, x, y):
        return x * y


def test_non_float32_second_input():
    with pytest.raises(solder.UnsupportedOperation, match=r"example input 1 is torch\.float64"):
        solder.import_module(TwoInputs(), (torch.rand(3), torch.rand(3).double()))


class DataDependent(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x.relu()
        return x.tanh()


def test_data_dependent_control_flow():
    with pytest.raises(solder.SolderError,
                       match=r"torch\.export could not trace DataDependent on the example "
                             r"inputs: .*\(Solder needs a forward without data-dependent "
                             r"control flow\)") as error:
        solder.import_module(DataDependent(), (torch.rand(2, 3),))
    assert not isinstance(error.value, solder.UnsupportedOperation)


class Identity(nn.Module):
    def forward(self, x):
        return x


class ReturnsNumber(nn.Module):
    def forward(self, x):
        return x.relu(), 3


def test_returning_the_input():
    with pytest.raises(solder.UnsupportedOperation,
                       match=r"the module returns its input or parameter 'x' unchanged"):
        solder.import_module(Identity(), (torch.rand(2),))


def test_returning_a_number():
    with pytest.raises(solder.UnsupportedOperation,
                       match=r"the module returns a int; Solder compiles functions "
                             "that return tensors"):
        solder.import_module(ReturnsNumber(), (torch.rand(2),))


def test_wrong_number_of_example_inputs():
    with pytest.raises(solder.SolderError,
                       match=r"torch\.export could not trace TwoInputs on the example "
                             r"inputs: TypeError: missing a required argument: 'y'"):
        solder.import_module(TwoInputs(), (torch.rand(3),))


def test_example_input_that_does_not_fit():
    conv = SamePadding()
    with pytest.raises(solder.SolderError,
                       match=r"^torch\.export could not trace SamePadding on the example "
                             r"inputs: RuntimeError: .*channels") as error:
        solder.import_module(conv, (torch.rand(1, 3, 5, 5),))
    assert "\n" not in str(error.value)


def test_not_a_module():
    with pytest.raises(solder.SolderError, match="expects an nn.Module, got function"):
        solder.import_module(lambda x: x, (torch.rand(2),))


def test_non_tensor_example_input():
    with pytest.raises(solder.SolderError, match=r"example input 0 is a list"):
        solder.import_module(Identity(), ([1.0, 2.0],))


class Located(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(x)
        z = torch.tanh(y) * 2.0
        return z.view(2, 4, -1).mean(-1)


def test_locations_are_the_user_lines(tmp_path):
    """Each op's MLIR location is the ATen node that made it around the
    user's line (from the node's stack trace, skipping torch's frames);
    solder-opt keeps them."""
    imported = solder.import_module(Located(), (torch.rand(2, 3, 6, 6),))
    lines = [line.strip() for line in imported.mlir.splitlines() if " = solder." in line]
    conv_line, _ = line_of(Located, "self.conv(x)")
    tanh_line, _ = line_of(Located, "torch.tanh(y)")
    mean_line, _ = line_of(Located, ".mean(-1)")
    expected = [conv_line, tanh_line, tanh_line, mean_line]
    assert [line.split(" = ")[0] for line in lines] == ["%conv", "%tanh", "%mul", "%mean"]
    nodes = ["conv2d", "tanh", "mul", "mean"]
    for line, number, node in zip(lines, expected, nodes):
        assert line.endswith(f' loc("{node}"("{THIS_FILE}":{number}:1))'), line
    result = solder_opt(tmp_path, imported.mlir, "--mlir-print-debuginfo")
    assert result.returncode == 0, result.stderr
    # Printed as aliases: #locN = loc("conv2d"(#locM)), #locM = loc("file":line:1).
    aliases = dict(re.findall(r"^(#loc\d+) = loc\((.*)\)$", result.stdout, re.M))
    conv = re.search(r'"conv2d"\((#loc\d+)\)', result.stdout)
    assert conv and aliases[conv.group(1)] == f'"{THIS_FILE}":{conv_line}:1', result.stdout


def test_training_batch_norm_import_leaves_running_stats():
    module = nn.Sequential(nn.BatchNorm2d(3)).train()
    before = {k: v.clone() for k, v in module.state_dict().items()}
    imported = solder.import_module(module, (torch.rand(4, 3, 2, 2),))
    assert "solder.batch_norm" in imported.mlir
    for key, value in module.state_dict().items():
        assert torch.equal(value, before[key]), key


class KernelBenchStyle(nn.Module):
    """Shape unpacking, view with -1, a viewed parameter, clone().detach()
    and an in-place op on an intermediate."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3)
        self.bias = nn.Parameter(torch.randn(8))

    def forward(self, x):
        y = self.conv(x).clone().detach()
        b, c, d, h, w = y.shape
        y = y + self.bias.view(1, c, 1, 1, 1)
        y.relu_()
        return y.view(b, c, -1).mean(-1), torch.flatten(y, 1)


def test_kernelbench_idioms_structure(tmp_path):
    imported = solder.import_module(KernelBenchStyle(), (torch.rand(2, 3, 5, 6, 6),))
    t = "tensor<2x8x3x4x4xf32>"
    assert imported.parameter_names == ["conv_weight", "conv_bias", "bias_view"]
    assert imported.parameters[2].shape == (1, 8, 1, 1, 1)
    assert body(imported) == [
        "%conv = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1, 1] padding = "
        "[0, 0, 0] dilations = [1, 1, 1] groups = 1 : (tensor<2x3x5x6x6xf32>, "
        f"tensor<8x3x3x3x3xf32>, tensor<8xf32>) -> {t}",
        f"%add = solder.add %conv, %bias_view : {t}, tensor<1x8x1x1x1xf32> -> {t}",
        f"%relu = solder.relu %add : {t}",
        # mean(-1) of the (2, 8, 48) view: a mean over the dims it merges
        f"%mean = solder.reduce mean %relu dims = [2, 3, 4] keepdim : {t} -> "
        "tensor<2x8x1x1x1xf32>",
    ]
    assert return_line(imported) == (
        f"return %mean, %relu : tensor<2x8x1x1x1xf32>, {t}")
    # The caller views the results as the module returns them.
    assert imported.result_shapes == [(2, 8, 1, 1, 1), (2, 8, 3, 4, 4)]
    assert imported.output_shapes == [(2, 8), (2, 384)]
    assert_parses(tmp_path, imported)


class ViewedInput(nn.Module):
    def forward(self, x, scale):
        return x * scale.view(1, -1, 1), x.unsqueeze(1).tanh()


def test_viewed_inputs_become_arguments(tmp_path):
    imported = solder.import_module(ViewedInput(), (torch.rand(2, 3, 4), torch.rand(3)))
    # scale is only used viewed: one argument, of the viewed shape. tanh of
    # x.unsqueeze(1) is computed on x; the caller views the result.
    assert header(imported) == (
        "func.func @viewed_input(%x: tensor<2x3x4xf32>, %scale_view: tensor<1x3x1xf32>) "
        "-> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {")
    assert imported.input_arguments == [(0, (2, 3, 4)), (1, (1, 3, 1))]
    assert imported.result_shapes == [(2, 3, 4), (2, 3, 4)]
    assert imported.output_shapes == [(2, 3, 4), (2, 1, 3, 4)]
    assert_parses(tmp_path, imported)


class ClassifierHead(nn.Module):
    """ResNet's head and the other pools: global average pool -> flatten ->
    Linear, an adaptive max pool to a size that divides the input, an avg
    pool with divisor_override."""

    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 5)
        self.max = nn.AdaptiveMaxPool2d((2, 3))
        self.avg = nn.AvgPool2d(2, divisor_override=3)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(x), 1)), self.max(x), self.avg(x)


def test_pools_and_linear_structure():
    """Global pooling is a mean over the spatial dims (keepdim: the Linear's
    1x1 conv takes it as it is); a divisible adaptive pool is a pool of
    input / output windows; the Linear's weight is viewed as (K, C, 1, 1)."""
    imported = solder.import_module(ClassifierHead(), (torch.rand(2, 8, 6, 6),))
    assert header(imported) == (
        "func.func @classifier_head(%x: tensor<2x8x6x6xf32>, %fc_weight_view: "
        "tensor<5x8x1x1xf32> {solder.parameter}, %fc_bias: tensor<5xf32> {solder.parameter}) "
        "-> (tensor<2x5x1x1xf32>, "
        "tensor<2x8x2x3xf32>, tensor<2x8x3x3xf32>) {")
    assert body(imported) == [
        "%pool = solder.reduce mean %x dims = [2, 3] keepdim : tensor<2x8x6x6xf32> -> "
        "tensor<2x8x1x1xf32>",
        "%fc = solder.conv %pool, %fc_weight_view, %fc_bias strides = [1, 1] padding = "
        "[0, 0] dilations = [1, 1] groups = 1 : (tensor<2x8x1x1xf32>, tensor<5x8x1x1xf32>, "
        "tensor<5xf32>) -> tensor<2x5x1x1xf32>",
        "%max = solder.pool max %x kernel = [3, 2] strides = [3, 2] padding = [0, 0] "
        "dilations = [1, 1] : tensor<2x8x6x6xf32> -> tensor<2x8x2x3xf32>",
        "%avg = solder.pool avg %x kernel = [2, 2] strides = [2, 2] padding = [0, 0] "
        "dilations = [1, 1] {count_include_pad = true, divisor_override = 3 : i64} : "
        "tensor<2x8x6x6xf32> -> tensor<2x8x3x3xf32>"]
    assert imported.output_shapes == [(2, 5), (2, 8, 2, 3), (2, 8, 3, 3)]
    x = torch.rand(2, 8, 6, 6)
    module = ClassifierHead()
    compiled = solder.compile(module, (x,), backend="cpu", quiet=True)
    for got, want in zip(compiled(x), module.double()(x.double())):
        assert ((got.double() - want).norm() / want.norm()).item() < 1e-6


class TokenMlp(nn.Module):
    """Linear over the last dim of a rank-3 input, as transformers have it:
    LayerNorm over the features, Linear, GELU, a matmul by a parameter, a
    decomposed Linear (addmm by a transposed parameter), GroupNorm and
    eval-mode BatchNorm on the (rows, features) result."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(6)
        self.fc = nn.Linear(6, 8)
        self.w = nn.Parameter(torch.randn(8, 10) / 3)
        self.v = nn.Parameter(torch.randn(4, 10) / 3)
        self.b = nn.Parameter(torch.randn(4))
        self.group_norm = nn.GroupNorm(2, 4)
        self.batch_norm = nn.BatchNorm1d(4)

    def forward(self, x):
        h = torch.matmul(F.gelu(self.fc(self.norm(x))), self.w)
        rows = torch.addmm(self.b, h.flatten(0, 1), self.v.t())
        return torch.relu(self.batch_norm(self.group_norm(rows))).view(2, 5, 4) * 0.5


def randomized(module, seed):
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.add_(0.5 * torch.randn(parameter.shape, generator=generator))
        for name, buffer in module.named_buffers():
            if name.endswith("running_mean"):
                buffer.normal_(generator=generator)
            elif name.endswith("running_var"):
                buffer.uniform_(0.5, 2.0, generator=generator)
    return module.eval()


def test_linear_and_matmul_are_gemms(tmp_path):
    """Every Linear and matmul by a parameter is a 1x1 conv over the (rows,
    features, 1) tensor its input views: an input viewed so, or the conv
    before it (no copy); a (C, K) parameter is transposed once at import,
    and a transposed one taken as it is; norms on the result run on the
    conv's (rows, K, 1) tensor."""
    module = randomized(TokenMlp(), 3)
    x = torch.randn(2, 5, 6, generator=torch.Generator().manual_seed(4))
    imported = solder.import_module(module, (x,))
    assert header(imported) == (
        "func.func @token_mlp(%x_view: tensor<10x6x1xf32>, "
        "%norm_weight_view: tensor<6x1xf32> {solder.parameter}, "
        "%norm_bias_view: tensor<6x1xf32> {solder.parameter}, "
        "%fc_weight_view: tensor<8x6x1xf32> {solder.parameter}, %fc_bias: tensor<8xf32> {solder.parameter}, "
        "%w_t_view: tensor<10x8x1xf32> {solder.parameter}, %v_view: tensor<4x10x1xf32> {solder.parameter}, "
        "%b: tensor<4xf32> {solder.parameter}, %group_norm_weight: tensor<4xf32> {solder.parameter}, "
        "%group_norm_bias: tensor<4xf32> {solder.parameter}, "
        "%batch_norm_scale: tensor<4x1xf32> {solder.parameter}, "
        "%batch_norm_shift: tensor<4x1xf32> {solder.parameter}) -> (tensor<10x4x1xf32>) {")
    lines = body(imported)
    assert lines[0].startswith("%norm = solder.layer_norm %x_view weight = %norm_weight_view "
                               "bias = %norm_bias_view normalized_shape = [6, 1]")
    convs = [line for line in lines if "solder.conv" in line]
    assert [line.split(" = ")[0] for line in convs] == ["%fc", "%matmul", "%addmm"]
    assert convs[0].startswith("%fc = solder.conv %norm, %fc_weight_view, %fc_bias")
    assert convs[1].startswith("%matmul = solder.conv %gelu, %w_t_view strides = [1]")
    assert convs[2].startswith("%addmm = solder.conv %matmul, %v_view, %b strides = [1]")
    assert any(line.startswith("%group_norm = solder.group_norm %addmm") for line in lines)
    assert imported.output_shapes == [(2, 5, 4)]
    assert_parses(tmp_path, imported)
    want = copy.deepcopy(module).double()(x.double())
    got = solder.compile(module, (x,), backend="cpu", quiet=True)(x)
    error = lambda y: ((y.double() - want).norm() / want.norm()).item()  # noqa: E731
    assert error(got) < max(1e-6, 4 * error(module(x))), (error(got), error(module(x)))
    # The transposed parameter holds the values of compile time, transposed.
    index = imported.parameter_names.index("w_t_view")
    assert torch.equal(imported.parameters[index], module.w.detach().t().reshape(10, 8, 1))


class MatmulOfInputs(nn.Module):
    """KernelBench's Matmul_*: the product of two inputs, then more work,
    and a Linear of the result by a weight the caller passes."""

    def forward(self, x, y, w):
        return F.linear(torch.sigmoid(x @ y) * 2.0, w) + x.sum(dim=1, keepdim=True)


def test_a_matmul_of_two_inputs_is_a_gemm(tmp_path):
    """x @ y with y a caller's (C, K) input is a 1x1 conv_transpose, whose
    weight layout (in, out, taps) is y's as it is (the bundle converts it to
    the conv's each call); F.linear by an input (K, C) a 1x1 conv. Correct
    against float64 on the interpreter."""
    generator = torch.Generator().manual_seed(7)
    x, y, w = (torch.randn(s, generator=generator) for s in ((12, 10), (10, 6), (5, 6)))
    imported = solder.import_module(MatmulOfInputs(), (x, y, w))
    assert "%y_view: tensor<10x6x1xf32>, %w_view: tensor<5x6x1xf32>) -> (tensor<12x5xf32>)" \
        in header(imported), header(imported)
    lines = body(imported)
    assert lines[0].startswith("%matmul = solder.conv_transpose %x_view, %y_view strides = [1] "
                               "padding = [0] output_padding = [0] dilations = [1] groups = 1 "
                               ": (tensor<12x10x1xf32>, tensor<10x6x1xf32>) -> "
                               "tensor<12x6x1xf32>"), lines[0]
    assert any(line.startswith("%linear = solder.conv %mul, %w_view strides = [1]")
               for line in lines), lines
    assert_parses(tmp_path, imported)
    module = MatmulOfInputs()
    want = module(x.double(), y.double(), w.double())
    got = solder.compile(module, (x, y, w), backend="cpu", quiet=True)(x, y, w)
    assert ((got.double() - want).norm() / want.norm()).item() < 1e-6


def test_a_matmul_by_a_transposed_input_is_a_linear_by_it(tmp_path):
    """x @ y.t() with y a caller's (K, C) input: y is the 1x1 conv's weight
    as it is (a Linear's layout), no transpose; a transposed view of an
    input of another shape is refused as a computed operand."""
    generator = torch.Generator().manual_seed(8)
    x, y = torch.randn(4, 6, generator=generator), torch.randn(5, 6, generator=generator)
    imported = solder.import_module(ProductByTransposedInput(), (x, y))
    assert "(%x_view: tensor<4x6x1xf32>, %y_view: tensor<5x6x1xf32>) -> (tensor<4x5x1xf32>)" \
        in header(imported), header(imported)
    assert body(imported)[0].startswith(
        "%matmul = solder.conv %x_view, %y_view strides = [1] padding = [0] dilations = [1] "
        "groups = 1 : (tensor<4x6x1xf32>, tensor<5x6x1xf32>) -> tensor<4x5x1xf32>"), \
        body(imported)
    assert_parses(tmp_path, imported)
    want = x.double() @ y.double().t()
    got = solder.compile(ProductByTransposedInput(), (x, y), backend="cpu", quiet=True)(x, y)
    assert ((got.double() - want).norm() / want.norm()).item() < 1e-6
    with pytest.raises(solder.UnsupportedOperation,
                       match=r"^'aten\.matmul' whose second operand is computed: "):
        solder.import_module(ProductByTransposedView(), (x, torch.rand(30)))


class ChannelsLastMlp(nn.Module):
    """ConvNeXt's MLP: permute to channels-last -> LayerNorm over C -> Linear
    -> GELU -> Linear -> layer scale -> permute back -> residual."""

    def __init__(self, channels=6):
        super().__init__()
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.fc1 = nn.Linear(channels, 4 * channels)
        self.fc2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(0.5 + torch.rand(channels))

    def forward(self, x):
        h = torch.relu(x).permute(0, 2, 3, 1)
        h = self.fc2(F.gelu(self.fc1(self.norm(h))))
        return x + (self.gamma * h).permute(0, 3, 1, 2)


def test_permutes_are_layout_bookkeeping():
    """A permute emits nothing: LayerNorm over the permuted-last dim is a
    normalization over the channels (mean, then the variance of x - mean,
    over dim 1), each Linear a 1x1 conv on the NCHW tensor, the layer
    scale's (C,) parameter viewed as (1, C, 1, 1); the result matches
    float64 on the interpreter."""
    torch.manual_seed(0)
    module = ChannelsLastMlp()
    with torch.no_grad():
        module.norm.weight.copy_(1 + 0.3 * torch.randn(6))
        module.norm.bias.copy_(0.3 * torch.randn(6))
    x = torch.randn(2, 6, 5, 7)
    imported = solder.import_module(module, (x,))
    text = "\n".join(body(imported))
    assert "permute" not in text and "transpose" not in text, text
    assert "%norm_weight_view: tensor<6x1x1xf32>" in header(imported)
    assert "%gamma_view: tensor<1x6x1x1xf32>" in header(imported)
    assert "%gamma:" not in header(imported)
    assert "%norm_mean = solder.reduce mean %relu dims = [1] keepdim : tensor<2x6x5x7xf32> " \
        "-> tensor<2x1x5x7xf32>" in text, text
    assert "%norm_variance = solder.reduce mean %norm_squares dims = [1] keepdim" in text, text
    assert "%fc1 = solder.conv %norm_bias, %fc1_weight_view, %fc1_bias strides = [1, 1] " \
        "padding = [0, 0] dilations = [1, 1] groups = 1 : (tensor<2x6x5x7xf32>, " \
        "tensor<24x6x1x1xf32>, tensor<24xf32>) -> tensor<2x24x5x7xf32>" in text, text
    assert imported.output_shapes == [(2, 6, 5, 7)]
    compiled = solder.compile(module, (x,), backend="cpu", quiet=True)
    want = copy.deepcopy(module).double()(x.double())
    assert ((compiled(x).double() - want).norm() / want.norm()).item() < 1e-6


class GroupNormOfRegroupedChannels(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.norm = nn.Conv2d(4, 4, 1), nn.GroupNorm(2, 8)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x).view(2, 8, 2, 4)))


class PoolOfView(nn.Module):
    def forward(self, x):
        return F.max_pool2d(torch.relu(x).view(2, 6, 4, 4), 2)


class FlattenLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv2d(3, 3, 3, padding=1), nn.Linear(48, 5)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


class LayerNormOfView(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(12)

    def forward(self, x):
        return self.norm(torch.relu(x).view(2, 4, 12))


class LinearOverPermutedView(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)

    def forward(self, x):
        return self.fc(torch.relu(x).view(2, 3, 16).permute(0, 2, 1)).permute(0, 2, 1)


class IdentityPermuteOfView(nn.Module):
    def forward(self, x):
        return torch.relu(x).view(2, 3, 16).permute(0, 1, 2)


class LinearOfOneDim(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 5)

    def forward(self, x):
        return torch.tanh(self.fc(x))


# module, input shape, the solder.reshape lines the import holds
RESHAPED = [
    (ViewIntoConv, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : tensor<2x3x4x4xf32> "
                                  "-> tensor<2x3x2x8xf32>"]),
    (ViewMixedWithValue, (2, 4, 6), ["%norm_view = solder.reshape %norm : tensor<2x24xf32> "
                                     "-> tensor<2x4x6xf32>"]),
    (ConvOfUnbatchedLinear, (4, 3), ["%fc_view = solder.reshape %fc : tensor<4x8x1xf32> -> "
                                     "tensor<1x4x8xf32>"]),
    (SoftmaxOverSplitDim, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : "
                                         "tensor<2x3x4x4xf32> -> tensor<2x3x2x8xf32>"]),
    (PartialReduceOfView, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : "
                                         "tensor<2x3x4x4xf32> -> tensor<2x3x2x8xf32>"]),
    (LinearOfConv, (2, 3, 4, 4), ["%conv_view = solder.reshape %conv : tensor<2x3x4x4xf32> "
                                  "-> tensor<24x4x1xf32>"]),
    (GroupNormOfRegroupedChannels, (2, 4, 4, 4), [
        "%conv_view = solder.reshape %conv : tensor<2x4x4x4xf32> -> tensor<2x8x2x4xf32>"]),
    (PoolOfView, (2, 3, 8, 4), ["%relu_view = solder.reshape %relu : tensor<2x3x8x4xf32> -> "
                                "tensor<2x6x4x4xf32>"]),
    (FlattenLinear, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : tensor<2x3x4x4xf32> "
                                   "-> tensor<2x48x1xf32>"]),
    (LayerNormOfView, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : "
                                     "tensor<2x3x4x4xf32> -> tensor<2x4x12xf32>"]),
    (LinearOverPermutedView, (2, 3, 4, 4), ["%relu_view = solder.reshape %relu : "
                                            "tensor<2x3x4x4xf32> -> tensor<2x3x16xf32>"]),
    (LinearOfOneDim, (3,), []),
    # A permute to the same order is the view itself: the caller's to take.
    (IdentityPermuteOfView, (2, 3, 4, 4), []),
]


class AdaptiveMaxPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveMaxPool3d((3, 5, 2))

    def forward(self, x):
        return self.pool(torch.tanh(x))


@pytest.mark.parametrize("cls,shape,line", [
    (AdaptivePool, (2, 3, 4, 4), "%pool = solder.adaptive_pool avg %mul : tensor<2x3x4x4xf32> "
                                 "-> tensor<2x3x3x3xf32>"),
    (AdaptiveMaxPool, (2, 3, 7, 4, 5), "%pool = solder.adaptive_pool max %tanh : "
                                       "tensor<2x3x7x4x5xf32> -> tensor<2x3x3x5x2xf32>"),
])
def test_adaptive_pools_to_any_size(cls, shape, line):
    """An adaptive pool to sizes that do not divide the input (PyTorch's
    windows of varying size, overlapping; larger than the input along a dim)
    is a solder.adaptive_pool; matches float64."""
    x = torch.randn(shape)
    imported = solder.import_module(cls(), (x,))
    assert line in body(imported), body(imported)
    compiled = solder.compile(cls(), (x,), backend="cpu", quiet=True)
    want = cls().double()(x.double())
    assert ((compiled(x).double() - want).norm() / want.norm()).item() < 1e-6


@pytest.mark.parametrize("cls,shape,reshapes", RESHAPED, ids=[c[0].__name__ for c in RESHAPED])
def test_views_of_computed_tensors_are_reshapes(cls, shape, reshapes):
    """A view of a computed tensor that a conv, norm, pool, Linear,
    softmax, partial reduction or unmatched elementwise operand takes is a
    solder.reshape (no kernel, no copy); the result matches float64 on the
    interpreter. Random norm weights."""
    torch.manual_seed(1)
    module = cls()
    with torch.no_grad():
        for name, parameter in module.named_parameters():
            if "norm" in name:
                parameter.copy_(torch.randn_like(parameter) * 0.3 + (1 if "weight" in name else 0))
    x = torch.randn(shape)
    imported = solder.import_module(module, (x,))
    assert [line for line in body(imported) if "solder.reshape" in line] == reshapes, \
        body(imported)
    compiled = solder.compile(module, (x,), backend="cpu", quiet=True)
    with torch.no_grad():
        got, want = compiled(x).double(), copy.deepcopy(module).double()(x.double())
    assert ((got - want).norm() / want.norm()).item() < 1e-6


class SoftmaxOverPermutedChannels(nn.Module):
    def forward(self, x):
        return torch.softmax(torch.tanh(x).permute(0, 2, 3, 1), dim=-1).permute(0, 3, 1, 2)


def test_softmax_over_a_permuted_dim():
    """A softmax over the permuted-last dim is one over the base's channels."""
    x = torch.randn(2, 5, 3, 4)
    imported = solder.import_module(SoftmaxOverPermutedChannels(), (x,))
    assert body(imported)[-1] == ("%softmax = solder.softmax %tanh dim = 1 : "
                                  "tensor<2x5x3x4xf32>"), body(imported)
    compiled = solder.compile(SoftmaxOverPermutedChannels(), (x,), backend="cpu", quiet=True)
    want = torch.softmax(torch.tanh(x.double()), dim=1)
    assert ((compiled(x).double() - want).norm() / want.norm()).item() < 1e-6
