"""solder.compile / export / load: small modules compiled with
backend='cpu' (the pipelined IR on solder-interp --precision=f32) against
PyTorch in float64; the errors of the API; the compile cache; a bundle
exported for sm_90 (nvcc, no GPU).

Every case draws fresh random inputs and parameters (seeded per case by the
`rng` fixture) with non-default norm weights, and checks
    ||solder - torch|| / ||torch|| <= 1e-5  (float64 norms)
and NaN exactly where torch has NaN. The compile cache of every test is a
fresh tmp folder.
"""

import copy
import json
import os
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import solder
from solder import workloads

torch.set_grad_enabled(False)

# F.tanh and F.sigmoid are deprecated, and tested on purpose.
pytestmark = pytest.mark.filterwarnings(
    "ignore:nn.functional.(tanh|sigmoid) is deprecated:UserWarning")

RELATIVE_L2 = 1e-5


@pytest.fixture(autouse=True)
def hermetic_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SOLDER_CACHE_DIR", str(tmp_path / "cache"))


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

class Fn(nn.Module):
    """forward(x) = fn(self, x); submodules and parameters given by name."""

    def __init__(self, fn, **members):
        super().__init__()
        self.fn = fn
        for name, member in members.items():
            if isinstance(member, torch.Tensor) and not isinstance(member, nn.Parameter):
                member = nn.Parameter(member)
            setattr(self, name, member)

    def forward(self, x):
        return self.fn(self, x)


class Fn2(Fn):
    def forward(self, x, y):
        return self.fn(self, x, y)


def draw(rng, shape, domain="normal"):
    if domain == "normal":
        values = rng.standard_normal(shape)
    elif domain == "wide":  # reaches the kinks of relu6, hardtanh, softplus ...
        values = 4.0 * rng.standard_normal(shape)
    elif domain == "positive":  # log, sqrt, rsqrt, divisors, pow bases
        values = rng.uniform(0.2, 3.0, shape)
    elif domain == "shifted":  # norms: far from mean 0, variance 1
        values = 3.0 + 2.5 * rng.standard_normal(shape)
    else:
        raise ValueError(domain)
    return torch.from_numpy(np.asarray(values, dtype=np.float32))


def seed_torch(rng):
    torch.manual_seed(int(rng.integers(2**31)))


def randomize(module, rng):
    """Random non-default norm affine parameters and running statistics."""
    generator = torch.Generator().manual_seed(int(rng.integers(2**31)))
    workloads.randomize_norms(module, generator)
    for layer in module.modules():
        if getattr(layer, "running_mean", None) is not None:
            layer.running_mean.copy_(torch.randn(layer.running_mean.shape,
                                                 generator=generator))
            layer.running_var.copy_(0.3 + 2 * torch.rand(layer.running_var.shape,
                                                         generator=generator))
    return module


def reference(module, inputs):
    """The module in float64 (a copy: .double() converts in place)."""
    twin = copy.deepcopy(module).double()
    return twin(*[x.double() for x in inputs])


def as_list(outputs):
    return list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]


def assert_matches(actual, expected, what="output"):
    assert isinstance(actual, torch.Tensor), f"{what}: {type(actual)}"
    assert actual.dtype == torch.float32, f"{what}: dtype {actual.dtype}"
    assert tuple(actual.shape) == tuple(expected.shape), (
        f"{what}: shape {tuple(actual.shape)}, torch {tuple(expected.shape)}")
    actual, expected = actual.double(), expected.double()
    nan_a, nan_e = torch.isnan(actual), torch.isnan(expected)
    assert torch.equal(nan_a, nan_e), (
        f"{what}: NaN at {torch.nonzero(nan_a != nan_e)[:5].tolist()} (first 5), "
        f"solder has {int(nan_a.sum())}, torch {int(nan_e.sum())}")
    ok = ~nan_e
    a, e = actual[ok], expected[ok]
    inf_e = torch.isinf(e)
    assert torch.equal(a[inf_e], e[inf_e]), f"{what}: infinities differ"
    a, e = a[~inf_e], e[~inf_e]
    if e.numel() == 0:
        return
    error = (a - e).norm() / max(e.norm(), 1e-30)
    worst = int((a - e).abs().argmax())
    assert error <= RELATIVE_L2, (
        f"{what}: relative L2 error {float(error):.3g} > {RELATIVE_L2}; worst "
        f"element {worst}: solder {float(a[worst])!r}, torch {float(e[worst])!r}")


def check(module, inputs, **options):
    """Compiles module for the CPU backend, runs it on `inputs` and compares
    with torch in float64; returns the compiled module."""
    expected = as_list(reference(module, inputs))
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True, **options)
    before = [x.clone() for x in inputs]
    actual = compiled(*inputs)
    for x, original in zip(inputs, before):
        assert torch.allclose(x, original, rtol=0, atol=0, equal_nan=True), (
            "the compiled module changed its input")
    assert isinstance(actual, tuple) == compiled.output_is_sequence
    actual = as_list(actual)
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert_matches(a, e, f"output {index}")
    return compiled


# One case: (id, factory(rng) -> module, input shapes, input domain).
CASES = []


def case(name, factory, *shapes, domain="normal"):
    CASES.append(pytest.param(factory, shapes, domain, id=name))


# -- convolutions -------------------------------------------------------------

case("conv1d_stride_pad", lambda r: nn.Conv1d(3, 4, 3, stride=2, padding=1), (2, 3, 9))
case("conv1d_same_dilated_nobias",
     lambda r: nn.Conv1d(3, 4, 3, padding="same", dilation=2, bias=False), (2, 3, 8))
case("conv1d_valid_groups", lambda r: nn.Conv1d(4, 6, 2, padding="valid", groups=2),
     (1, 4, 7))
case("conv2d_all_options", lambda r: nn.Conv2d(
    4, 6, 3, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2), (2, 4, 7, 8))
case("conv2d_same_k5", lambda r: nn.Conv2d(3, 4, 5, padding="same"), (1, 3, 6, 6))
case("conv2d_same_rect", lambda r: nn.Conv2d(2, 3, (3, 1), padding="same", bias=False),
     (2, 2, 5, 4))
case("conv2d_nobias", lambda r: nn.Conv2d(3, 4, (3, 2), bias=False), (2, 3, 5, 6))
case("conv2d_depthwise", lambda r: nn.Conv2d(4, 4, 3, padding=1, groups=4), (1, 4, 5, 5))
case("conv3d_all_options", lambda r: nn.Conv3d(
    2, 4, 3, stride=(1, 2, 2), padding=1, dilation=(2, 1, 1), groups=2), (1, 2, 6, 5, 5))
case("conv3d_nobias", lambda r: nn.Conv3d(2, 3, (1, 3, 3), bias=False), (2, 2, 3, 5, 5))
case("conv3d_same", lambda r: nn.Conv3d(2, 2, 3, padding="same"), (1, 2, 3, 4, 4))
case("F_conv2d", lambda r: Fn(
    lambda m, x: F.conv2d(x, m.w, m.b, stride=2, padding=1, dilation=1, groups=1),
    w=torch.randn(5, 3, 3, 3), b=torch.randn(5)), (2, 3, 6, 6))
case("torch_conv1d_groups", lambda r: Fn(
    lambda m, x: torch.conv1d(x, m.w, None, 1, 2, 2, 2), w=torch.randn(4, 2, 3)),
    (2, 4, 9))
case("convtranspose1d", lambda r: nn.ConvTranspose1d(
    3, 4, 3, stride=2, padding=1, output_padding=1), (2, 3, 5))
case("convtranspose2d_groups", lambda r: nn.ConvTranspose2d(
    4, 6, 3, stride=2, padding=1, output_padding=(1, 0), groups=2), (1, 4, 4, 5))
case("convtranspose2d_dilation", lambda r: nn.ConvTranspose2d(
    3, 2, 3, stride=(1, 2), dilation=2, output_padding=(0, 1), bias=False), (2, 3, 4, 4))
case("convtranspose3d", lambda r: nn.ConvTranspose3d(
    2, 4, 3, stride=2, padding=1, output_padding=1, groups=2), (1, 2, 3, 3, 3))
case("convtranspose3d_nobias", lambda r: nn.ConvTranspose3d(
    2, 3, (2, 3, 3), stride=(1, 2, 1), padding=(0, 1, 1), bias=False), (1, 2, 2, 3, 3))
case("F_conv_transpose2d", lambda r: Fn(
    lambda m, x: F.conv_transpose2d(x, m.w, m.b, stride=2, padding=1, output_padding=1,
                                    groups=1, dilation=1),
    w=torch.randn(3, 2, 3, 3), b=torch.randn(2)), (1, 3, 4, 4))

# -- normalizations -------------------------------------------------------------

case("group_norm_affine", lambda r: nn.GroupNorm(2, 6), (2, 6, 4, 4), domain="shifted")
case("group_norm_plain", lambda r: nn.GroupNorm(3, 6, eps=1e-3, affine=False),
     (2, 6, 5), domain="shifted")
case("group_norm_3d", lambda r: nn.GroupNorm(4, 4), (1, 4, 2, 3, 3), domain="shifted")
case("F_group_norm", lambda r: Fn(lambda m, x: F.group_norm(x, 2, m.w, m.b, eps=1e-4),
                                  w=torch.rand(4) + 0.5, b=torch.randn(4)),
     (2, 4, 3, 3), domain="shifted")
case("batch_norm2d_train", lambda r: nn.BatchNorm2d(4).train(), (3, 4, 3, 3),
     domain="shifted")
case("batch_norm2d_train_plain", lambda r: nn.BatchNorm2d(4, affine=False, eps=1e-3).train(),
     (2, 4, 3, 3), domain="shifted")
case("batch_norm1d_train", lambda r: nn.BatchNorm1d(3).train(), (4, 3, 5), domain="shifted")
case("batch_norm3d_train", lambda r: nn.BatchNorm3d(2).train(), (2, 2, 2, 3, 3),
     domain="shifted")
case("batch_norm2d_eval", lambda r: nn.BatchNorm2d(4).eval(), (2, 4, 3, 3),
     domain="shifted")
case("batch_norm2d_eval_plain", lambda r: nn.BatchNorm2d(4, affine=False).eval(),
     (2, 4, 3, 3), domain="shifted")
case("batch_norm1d_eval", lambda r: nn.BatchNorm1d(3, eps=1e-2).eval(), (2, 3, 4),
     domain="shifted")
case("batch_norm2d_no_running_stats",
     lambda r: nn.BatchNorm2d(3, track_running_stats=False).eval(), (2, 3, 3, 3),
     domain="shifted")


class FunctionalBatchNorm(nn.Module):
    """F.batch_norm with the module's buffers as running statistics."""

    def __init__(self, training):
        super().__init__()
        self.register_buffer("mean", torch.randn(3))
        self.register_buffer("var", torch.rand(3) + 0.5)
        self.weight = nn.Parameter(torch.rand(3) + 0.5)
        self.bias = nn.Parameter(torch.randn(3))
        self.use_batch = training

    def forward(self, x):
        return F.batch_norm(x, self.mean, self.var, self.weight, self.bias,
                            training=self.use_batch, eps=1e-3)


case("F_batch_norm_eval", lambda r: FunctionalBatchNorm(False), (2, 3, 4), domain="shifted")
case("F_batch_norm_train", lambda r: FunctionalBatchNorm(True), (2, 3, 4), domain="shifted")
case("instance_norm2d_affine", lambda r: nn.InstanceNorm2d(3, affine=True), (2, 3, 4, 4),
     domain="shifted")
case("instance_norm1d", lambda r: nn.InstanceNorm1d(3), (2, 3, 6), domain="shifted")
case("instance_norm3d", lambda r: nn.InstanceNorm3d(2, affine=True, eps=1e-3),
     (1, 2, 2, 3, 3), domain="shifted")
case("instance_norm2d_running_eval",
     lambda r: nn.InstanceNorm2d(3, affine=True, track_running_stats=True).eval(),
     (2, 3, 3, 3), domain="shifted")
case("F_instance_norm", lambda r: Fn(lambda m, x: F.instance_norm(x, weight=m.w, bias=m.b),
                                     w=torch.rand(3) + 0.5, b=torch.randn(3)),
     (2, 3, 5), domain="shifted")
case("layer_norm_2d", lambda r: nn.LayerNorm([4, 5]), (2, 3, 4, 5), domain="shifted")
case("layer_norm_plain", lambda r: nn.LayerNorm(5, eps=1e-3, elementwise_affine=False),
     (2, 3, 5), domain="shifted")
case("F_layer_norm", lambda r: Fn(lambda m, x: F.layer_norm(x, (3, 4), m.w, m.b),
                                  w=torch.rand(3, 4) + 0.5, b=torch.randn(3, 4)),
     (2, 3, 4), domain="shifted")

# -- activations: as modules, F.*, torch.* and tensor methods -------------------

ACTIVATIONS = {
    "relu": [nn.ReLU(), F.relu, torch.relu, lambda x: x.relu()],
    "relu6": [nn.ReLU6(), F.relu6],
    "leaky_relu": [nn.LeakyReLU(0.2), lambda x: F.leaky_relu(x, 0.3),
                   lambda x: F.leaky_relu(x, negative_slope=0.05), F.leaky_relu],
    "elu": [nn.ELU(alpha=0.7), lambda x: F.elu(x, alpha=1.3), F.elu],
    "gelu": [nn.GELU(), nn.GELU(approximate="tanh"), F.gelu,
             lambda x: F.gelu(x, approximate="tanh")],
    "silu": [nn.SiLU(), F.silu],
    "mish": [nn.Mish(), F.mish],
    "hardswish": [nn.Hardswish(), F.hardswish],
    "hardsigmoid": [nn.Hardsigmoid(), F.hardsigmoid],
    "hardtanh": [nn.Hardtanh(-0.5, 1.5), lambda x: F.hardtanh(x, -2.0, 0.5), F.hardtanh,
                 lambda x: F.hardtanh(x, min_val=-3.0, max_val=3.0)],
    "softplus": [nn.Softplus(beta=2, threshold=1.5), nn.Softplus(),
                 lambda x: F.softplus(x, beta=0.5, threshold=3.0), F.softplus],
    "tanh": [nn.Tanh(), torch.tanh, F.tanh, lambda x: x.tanh()],
    "sigmoid": [nn.Sigmoid(), torch.sigmoid, F.sigmoid, lambda x: x.sigmoid()],
    "clamp": [lambda x: torch.clamp(x, min=-0.5), lambda x: x.clamp(max=0.3),
              lambda x: torch.clamp(x, -0.2, 0.4), lambda x: x.clip(-1, 1),
              lambda x: torch.clip(x, max=2)],
    "exp": [torch.exp, lambda x: x.exp()],
    "abs": [torch.abs, lambda x: x.abs()],
    "neg": [torch.neg, lambda x: -x, lambda x: x.neg()],
    "square": [torch.square, lambda x: x.square()],
}
POSITIVE_ACTIVATIONS = {
    "log": [torch.log, lambda x: x.log()],
    "sqrt": [torch.sqrt, lambda x: x.sqrt()],
    "rsqrt": [torch.rsqrt, lambda x: x.rsqrt()],
    "reciprocal": [torch.reciprocal, lambda x: x.reciprocal()],
}


def activation_module(form):
    if isinstance(form, nn.Module):
        return lambda r: copy.deepcopy(form)
    return lambda r: Fn(lambda m, x: form(x))


for table, domain in ((ACTIVATIONS, "wide"), (POSITIVE_ACTIVATIONS, "positive")):
    for op, forms in table.items():
        for index, form in enumerate(forms):
            kind = "module" if isinstance(form, nn.Module) else "call"
            case(f"{op}_{kind}{index}", activation_module(form), (2, 3, 4, 5),
                 domain=domain)

# -- arithmetic with tensors, parameters and Python scalars -------------------

case("add_sub_mul_tensors", lambda r: Fn2(lambda m, x, y: (x + y) * (x - y) - y * 0.25),
     (2, 3, 4), (2, 3, 4))
case("div_tensor", lambda r: Fn2(lambda m, x, y: x / (y + 1.0)), (2, 3, 4), (2, 3, 4),
     domain="positive")
case("pow_tensor", lambda r: Fn2(lambda m, x, y: x ** (y - 1.5)), (2, 3, 4), (2, 3, 4),
     domain="positive")
case("torch_functions", lambda r: Fn2(lambda m, x, y: torch.div(
    torch.mul(torch.sub(x, y), torch.add(x, y)), torch.true_divide(y, 2.0) + 3.0)),
    (2, 3, 4), (2, 3, 4), domain="positive")
case("tensor_methods", lambda r: Fn2(lambda m, x, y: x.add(y).mul(y).sub(x).div(y).pow(2)),
     (2, 3, 4), (2, 3, 4), domain="positive")
case("add_alpha", lambda r: Fn2(lambda m, x, y: torch.add(x, y, alpha=2.5)), (2, 3), (2, 3))
case("sub_alpha", lambda r: Fn2(lambda m, x, y: torch.sub(x, y, alpha=0.5)), (2, 3), (2, 3))
case("sub_scalar_alpha", lambda r: Fn(lambda m, x: torch.sub(x, 2, alpha=3)), (2, 3))
case("add_scalar_alpha_method", lambda r: Fn(lambda m, x: x.add(0.5, alpha=-4)), (2, 3))
case("maximum_minimum", lambda r: Fn2(
    lambda m, x, y: torch.maximum(x, y) * 2 + torch.minimum(x, y)), (2, 3, 4), (2, 3, 4))
case("max_min_binary", lambda r: Fn2(lambda m, x, y: torch.max(x, y) - torch.min(y, x)),
     (2, 3, 4), (2, 3, 4))
case("maximum_method_broadcast", lambda r: Fn2(lambda m, x, y: x.maximum(y)), (2, 3, 4), (3, 1))
case("broadcast_inputs", lambda r: Fn2(lambda m, x, y: x * y + y), (2, 3, 4, 4), (1, 3, 1, 1))
case("broadcast_both_sides", lambda r: Fn2(lambda m, x, y: x - y), (2, 1, 4), (3, 1))
case("per_channel_parameters", lambda r: Fn(
    lambda m, x: (x * m.scale + m.shift) / m.scale.abs(),
    scale=torch.randn(3, 1, 1), shift=torch.randn(3, 1, 1)), (2, 3, 4, 4))
case("parameter_on_the_left", lambda r: Fn(lambda m, x: m.bias - x * m.gain,
                                           bias=torch.randn(4), gain=torch.randn(3, 1)),
     (2, 3, 4))
case("scalar_left_sub", lambda r: Fn(lambda m, x: 2 - x), (2, 3, 4))
case("rsub_clamp_min_max", lambda r: Fn(lambda m, x: torch.rsub(
    x.clamp_min(-0.5).clamp_max(0.8), 2.0, alpha=3) + torch.clamp_min(x, 0.1)), (2, 3, 4))
case("dropout_eval_functional", lambda r: Fn(
    lambda m, x: F.dropout(x, 0.3, training=False) * 2), (2, 3, 4))
case("scalar_left_div", lambda r: Fn(lambda m, x: 1 / x), (2, 3, 4), domain="positive")
case("scalar_left_add_mul", lambda r: Fn(lambda m, x: 3 + 0.5 * x), (2, 3, 4))
case("scalar_left_pow", lambda r: Fn(lambda m, x: 2 ** x), (2, 3, 4))
case("scalar_right", lambda r: Fn(lambda m, x: (x * 0.5 - 1.5) / 3 + 2), (2, 3, 4))
case("scalar_int", lambda r: Fn(lambda m, x: x * 2 - 1), (2, 3, 4))
case("scalar_pow", lambda r: Fn(lambda m, x: x ** 2 + x.pow(3) + torch.pow(x, 0.5)),
     (2, 3, 4), domain="positive")
case("clamp_tensor_bounds", lambda r: Fn2(lambda m, x, y: torch.clamp(x, min=y, max=y + 1)),
     (2, 3, 4), (2, 3, 4))
case("dropout_eval", lambda r: Fn(lambda m, x: m.drop(x) * 2, drop=nn.Dropout(0.5).eval()),
     (2, 3))
case("dropout_p0_train", lambda r: Fn(lambda m, x: m.drop(x.tanh()), drop=nn.Dropout(0.0)),
     (2, 3))
case("identity_contiguous_float", lambda r: Fn(
    lambda m, x: m.ident(x * 3).contiguous().float().to(torch.float32).exp(),
    ident=nn.Identity()), (2, 3))

# -- reductions and softmax -----------------------------------------------------

case("mean_dims_keepdim", lambda r: Fn(lambda m, x: x.mean(dim=[1, -1], keepdim=True)),
     (2, 3, 4, 5))
case("sum_tuple_dims", lambda r: Fn(lambda m, x: torch.sum(x, dim=(0, 2))), (2, 3, 4))
case("sum_all", lambda r: Fn(lambda m, x: x.sum() + x.mean()), (2, 3, 4))
case("amax_negative", lambda r: Fn(lambda m, x: torch.amax(x, dim=-1)), (2, 3, 4))
case("amin_keepdim", lambda r: Fn(lambda m, x: torch.amin(x, dim=[1, 2], keepdim=True)),
     (2, 3, 4))
case("amax_method_all", lambda r: Fn(lambda m, x: x.amax(dim=(0, 1, 2))), (2, 3, 4))
case("max_min_all", lambda r: Fn(lambda m, x: torch.max(x) - x.min()), (2, 3, 4))
case("logsumexp_dims", lambda r: Fn(lambda m, x: torch.logsumexp(x * 10, dim=[-2, 1])),
     (2, 3, 4, 2))
case("logsumexp_keepdim", lambda r: Fn(lambda m, x: x.logsumexp(1, keepdim=True)),
     (2, 5, 3))
case("prod_dim", lambda r: Fn(lambda m, x: torch.prod(x, dim=1)), (2, 4, 3),
     domain="positive")
case("prod_negative_keepdim", lambda r: Fn(lambda m, x: x.prod(-1, keepdim=True)),
     (2, 3, 4))
case("prod_all", lambda r: Fn(lambda m, x: torch.prod(x)), (2, 3), domain="positive")
case("softmax_module", lambda r: nn.Softmax(dim=1), (2, 4, 3), domain="wide")
case("log_softmax_module", lambda r: nn.LogSoftmax(dim=-1), (2, 4, 3), domain="wide")
case("softmax_functional", lambda r: Fn(
    lambda m, x: F.softmax(x, dim=-1) + F.log_softmax(x, 1) + torch.softmax(x, 0)),
    (2, 4, 3), domain="wide")
case("softmax_methods", lambda r: Fn(
    lambda m, x: x.softmax(-2) * x.log_softmax(dim=0) + torch.log_softmax(x, dim=2)),
    (2, 4, 3), domain="wide")

# -- in-place ops ---------------------------------------------------------------


class InPlaceUsedLater(nn.Module):
    def forward(self, x):
        y = x * 2.0
        before = y + 1.0       # sees y before the mutation
        y.relu_()              # y is now relu(2x) ...
        return y * before + y  # ... in both later uses


class InPlaceFunctional(nn.Module):
    def forward(self, x):
        y = x - 0.5
        z = F.relu(y, inplace=True)
        return y + z + F.leaky_relu(y * -1, 0.1, inplace=True)


class InPlaceModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.conv(x)
        z = self.act(y)   # mutates y
        return y + z      # 2 * relu(conv(x))


class InPlaceChain(nn.Module):
    def forward(self, x):
        y = x * 3.0
        alias = y.contiguous()   # the same tensor as y
        y.add_(1.0).mul_(x)      # both mutate y
        y.clamp_(min=-1.0)
        y.sigmoid_()
        return alias - x, y.tanh_()


class InPlaceAliases(nn.Module):
    def __init__(self):
        super().__init__()
        self.ident = nn.Identity()
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        y = x * 2.0
        a = self.ident(y)        # aliases of y
        b = self.drop(y)
        c = y.contiguous()
        d = y.relu_()            # and the in-place result itself
        y.sub_(0.25)
        return a + b * c, d


for cls in (InPlaceUsedLater, InPlaceFunctional, InPlaceModule, InPlaceChain):
    shape = (1, 2, 4, 4) if cls is InPlaceModule else (2, 3, 4)
    case(cls.__name__, lambda r, cls=cls: cls(), shape)
case("InPlaceAliases", lambda r: InPlaceAliases().eval(), (2, 3, 4))

# -- outputs, pooling, chains ---------------------------------------------------


class TwoOutputs(nn.Module):
    def forward(self, x):
        y = x.tanh()
        return y, torch.amax(y, dim=1)


class ListOutputs(nn.Module):
    def forward(self, x):
        return [x.relu() + 1.0, x.exp().sum(dim=-1)]


case("tuple_outputs", lambda r: TwoOutputs(), (2, 3, 4))
case("list_outputs", lambda r: ListOutputs(), (2, 3, 4))
case("max_pool2d", lambda r: nn.MaxPool2d(2), (1, 2, 5, 6))
case("max_pool2d_options", lambda r: nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
     (2, 2, 6, 7))
case("max_pool2d_dilated", lambda r: Fn(lambda m, x: F.max_pool2d(x, 2, 1, 0, 2)),
     (1, 2, 6, 6))
case("max_pool1d", lambda r: Fn(lambda m, x: F.max_pool1d(x, 3, stride=2, padding=1)),
     (2, 3, 8))
case("max_pool3d", lambda r: nn.MaxPool3d((1, 2, 2)), (1, 2, 3, 4, 4))
case("avg_pool2d", lambda r: nn.AvgPool2d(3, stride=2, padding=1), (2, 2, 6, 5))
case("avg_pool2d_exclude_pad", lambda r: nn.AvgPool2d(
    2, padding=1, ceil_mode=True, count_include_pad=False), (1, 2, 5, 5))
case("avg_pool1d", lambda r: Fn(lambda m, x: F.avg_pool1d(x, 2)), (2, 3, 7))
case("avg_pool3d", lambda r: nn.AvgPool3d(2, stride=1), (1, 2, 3, 3, 3))
case("conv_bn_relu_pool", lambda r: nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(inplace=True),
    nn.MaxPool2d(2)).eval(), (2, 3, 6, 6))
case("convtranspose_instance_norm_gelu", lambda r: nn.Sequential(
    nn.ConvTranspose2d(3, 4, 3, stride=2), nn.InstanceNorm2d(4, affine=True),
    nn.GELU(), nn.Softmax(dim=1)), (1, 3, 3, 3))


# -- torch.export idioms (KernelBench-style forwards) --------------------------


class UnpackAndView(nn.Module):
    """Shape unpacking, view with -1 and a reduction over the merged dims."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(3, 8, 3)
        self.norm = nn.GroupNorm(4, 8)

    def forward(self, x):
        x = self.norm(self.conv(x))
        b, c, d, h, w = x.shape
        return torch.tanh(x.view(b, c, -1)).mean(-1)


class ViewsAtTheEdges(nn.Module):
    """A viewed parameter, flatten and squeeze at the output, unsqueeze of the
    input, clone().detach() and in-place ops on intermediates."""

    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(4))

    def forward(self, x):
        y = x.unsqueeze(0).squeeze(0).clone().detach()
        y = y * self.scale.view(1, -1, 1, 1)
        y.relu_()
        y += 1.0
        return torch.flatten(y, 1), y.reshape(2, 4, -1).amax(dim=2, keepdim=True).squeeze(-1)


case("unpack_shape_view_mean", lambda r: UnpackAndView(), (2, 3, 5, 6, 6))
case("views_at_the_edges", lambda r: ViewsAtTheEdges(), (2, 4, 3, 5))
case("viewed_second_input", lambda r: Fn2(
    lambda m, x, y: x * y.view(1, -1, 1) + x.unsqueeze(1).tanh().squeeze(1)), (2, 3, 4), (3,))
case("view_through_elementwise_softmax", lambda r: Fn(
    lambda m, x: F.softmax(torch.sigmoid(x.view(2, 3, 20)) * 2, dim=1).view(2, 3, 4, 5)),
    (2, 3, 4, 5))
case("max_dim_values_and_pool_indices_item", lambda r: Fn(
    lambda m, x: torch.max(x, dim=1)[0].sum() + F.max_pool2d(x, 2, return_indices=True)[0]),
    (2, 3, 4, 4))
# Unbatched inputs (C, spatial...): PyTorch's batch of one; Solder views the
# input with the batch dim and the results without it.
case("unbatched_conv_relu_maxpool_conv", lambda r: nn.Sequential(
    nn.Conv2d(3, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 2, 1)), (3, 8, 8))
case("unbatched_conv_transpose1d_adaptive_pool", lambda r: Fn(
    lambda m, x: F.adaptive_avg_pool1d(torch.tanh(m.up(x)), 3) * 2, up=nn.ConvTranspose1d(
        3, 4, 4, stride=2)), (3, 5))
case("unbatched_avg_pool3d_and_global_pool", lambda r: Fn(
    lambda m, x: F.avg_pool3d(x, 2) + F.adaptive_avg_pool3d(x, 1)), (2, 4, 4, 4))
# Views of computed tensors mixed with their keepdim reductions; softmax over
# the dims a view merges (and over a unit dim it adds).
case("flattened_conv_minus_its_mean", lambda r: Fn(
    lambda m, x: (lambda v: v - v.mean(1, keepdim=True))(torch.relu(m.conv(x)).flatten(1)),
    conv=nn.Conv1d(3, 4, 3)), (2, 3, 10))
case("flattened_conv_over_its_abs_sum", lambda r: Fn(
    lambda m, x: (lambda v: v / v.abs().sum(1, keepdim=True).clamp(min=1e-3))(
        m.conv(x).flatten(1)), conv=nn.Conv2d(3, 4, 3)), (2, 3, 6, 6))
case("softmax_over_merged_spatial_dims", lambda r: Fn(
    lambda m, x: (lambda v: torch.softmax(v.view(2, 4, -1), -1).view(v.shape) + v)(m.conv(x)),
    conv=nn.Conv3d(3, 4, 3)), (2, 3, 5, 5, 5))
case("log_softmax_over_merged_spatial_dims", lambda r: Fn(
    lambda m, x: (lambda v: torch.log_softmax(v.view(2, 4, -1), 2).view(v.shape) * 2)(
        m.conv(x)), conv=nn.Conv2d(3, 4, 3)), (2, 3, 6, 7), domain="wide")
case("softmax_over_a_unit_dim_of_a_view", lambda r: Fn(
    lambda m, x: torch.softmax(F.adaptive_avg_pool2d(x, 1).view(2, 3, -1), -1) + 1),
    (2, 3, 4, 4))
# Eval-mode BatchNorm1d over a conv's flattened features: its folded scale
# and shift viewed onto the conv's tensor.
case("batchnorm1d_of_flattened_conv_features", lambda r: Fn(
    lambda m, x: torch.relu(m.bn(torch.tanh(m.conv(x)).flatten(1))),
    conv=nn.Conv2d(3, 4, 3), bn=nn.BatchNorm1d(80).eval()), (2, 3, 6, 7))
# Over a 0-dim tensor: the value itself (softmax: 1, log_softmax: 0).
case("reductions_and_softmax_of_a_scalar", lambda r: Fn(
    lambda m, x: (lambda s: s.sum(0) + torch.amax(s, dim=0) + torch.softmax(s, 0)
                  + torch.log_softmax(s, 0) + torch.logsumexp(s, 0))(torch.tanh(x).mean()) * x),
    (2, 3))
case("train_batch_norm_with_running_stats", lambda r: nn.Sequential(
    nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4).train(), nn.SiLU()), (4, 3, 6, 6))
case("eval_instance_norm_running_stats", lambda r: nn.InstanceNorm2d(
    3, affine=True, track_running_stats=True).eval(), (2, 3, 4, 4), domain="shifted")


def test_channels_last_input_on_the_cpu_backend():
    """A channels-last input (and a result eager returns channels-last)
    runs on the reference interpreter like any other: the layout is the
    GPU bundle's concern."""
    rng = np.random.default_rng(41)
    module = randomize(nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.BatchNorm2d(8),
                                     nn.ReLU()).eval(), rng)
    x = torch.randn(2, 4, 6, 7).contiguous(memory_format=torch.channels_last)
    compiled = check(module, (x,))
    assert "{solder.channels_last}" in compiled.mlir


@pytest.mark.parametrize("factory,shapes,domain", CASES)
def test_matches_torch(rng, factory, shapes, domain):
    seed_torch(rng)
    module = randomize(factory(rng), rng)
    inputs = tuple(draw(rng, shape, domain) for shape in shapes)
    check(module, inputs)


@pytest.mark.parametrize("name", ["w1", "w2", "w3"])
def test_workloads_match_torch(name):
    module, inputs = workloads.make(name, small=True, seed=7)
    check(module, inputs)


@pytest.mark.parametrize("force", ["materialize", "recompute"])
def test_forced_plans_match_torch(force):
    module, inputs = workloads.make("w3", small=True, seed=3)
    check(module, inputs, force=force)


class InPlaceFloatAliases(nn.Module):
    """.float() and .to(float32) of a float32 tensor are the tensor itself
    (not in a float64 copy of the module: compared with eager float32)."""

    def forward(self, x):
        y = x * 2.0
        a = y.float()
        b = y.to(torch.float32)
        y.tanh_()
        return a + b


@pytest.mark.parametrize("cls", [InPlaceChain, InPlaceAliases, InPlaceFloatAliases])
def test_in_place_matches_eager_float32(rng, cls):
    module = cls().eval()
    x = draw(rng, (2, 3, 4))
    expected = as_list(module(x.clone()))
    actual = as_list(solder.compile(module, (x,), backend="cpu", quiet=True)(x))
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        torch.testing.assert_close(a, e, rtol=1e-5, atol=1e-6)


class NanPaths(nn.Module):
    def forward(self, x):
        return (x.relu() + torch.amax(x, dim=1, keepdim=True),
                torch.maximum(x, x.tanh()) * torch.logsumexp(x, dim=-1, keepdim=True))


def test_nan_inputs_propagate(rng):
    """NaN exactly where torch has NaN (and finite values elsewhere match)."""
    x = draw(rng, (2, 3, 4))
    x[0, 1, 2] = float("nan")
    expected = as_list(reference(NanPaths(), (x,)))
    assert any(torch.isnan(e).any() for e in expected)
    assert any((~torch.isnan(e)).any() for e in expected)
    check(NanPaths(), (x,))


def test_single_tensor_example_input(rng):
    module, (x,) = workloads.make("w3", small=True)
    compiled = solder.compile(module, x, backend="cpu", quiet=True)
    assert_matches(compiled(x), reference(module, (x,)))


def test_compiled_module_attributes(rng):
    module, inputs = workloads.make("w1", small=True)
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    assert compiled.backend == "cpu"
    assert compiled.input_names == ["x"]
    assert compiled.input_shapes == [(2, 3, 6, 8, 8)]
    assert compiled.output_shapes == [(2,)]
    assert compiled.output_is_sequence is False
    assert "solder.conv" in compiled.mlir
    assert Path(compiled.pipelined).is_file()
    # New inputs of the same shape: the compiled module is a function.
    x = torch.rand(2, 3, 6, 8, 8)
    assert_matches(compiled(x), reference(module, (x,)))


def test_parameters_are_captured_at_compile_time():
    module, inputs = workloads.make("w3", small=True)
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    expected = reference(module, inputs)
    with torch.no_grad():
        module.conv.weight.mul_(2.0)
    assert_matches(compiled(*inputs), expected)


def test_returned_views_of_one_result():
    """A permuted result is returned as computed and permuted for the
    caller (a view, with eager's strides); the same tensor returned again,
    reshaped, is the same result viewed: one result in the IR."""
    module = Fn(lambda m, x: (lambda r: (r.permute(0, 2, 3, 1), r.flatten(1), r))(
        torch.relu(x)))
    x = torch.randn(2, 3, 4, 5)
    compiled = solder.compile(module, (x,), backend="cpu", quiet=True)
    assert compiled.mlir.count("solder.relu") == 1
    assert compiled.result_shapes == [(2, 3, 4, 5)]
    expected = module(x)
    for got, want in zip(compiled(x), expected):
        assert_matches(got, want)
        assert got.stride() == want.stride()


def test_a_module_without_its_source_never_drops_gradients():
    """A compiled module that cannot go through autograd (solder.load's,
    which has no module to export again: its source is absent) refuses an
    input that requires grad in grad mode, and warns once where its
    parameters require grad; under no_grad neither. solder.compile's own
    modules train (test_training.py)."""
    module, inputs = workloads.make("w3", small=True)
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    compiled._source = None  # as solder.load leaves it
    x = inputs[0].clone().requires_grad_()
    with torch.enable_grad():  # this file runs with grad mode off
        with pytest.raises(solder.SolderError,
                           match=r"^input 0 \(x\) requires grad, but this compiled module "
                                 r"computes no gradients \(it was loaded from a bundle\): call "
                                 r"it under torch\.no_grad\(\) or detach the input, and train "
                                 r"with solder\.compile\(module, \.\.\.\) or "
                                 r"torch\.compile\(module, backend='solder'\)$"):
            compiled(x)
        with torch.no_grad():
            assert_matches(compiled(x), reference(module, inputs))
        assert not compiled._warned_gradients  # refusing an input did not warn
        with pytest.warns(solder.SolderWarning,
                          match=r"parameters require grad, but it computes no gradients") as caught:
            compiled(*inputs)
            compiled(*inputs)
        assert len([w for w in caught if issubclass(w.category, solder.SolderWarning)]) == 1


# ---------------------------------------------------------------------------
# Errors of the API
# ---------------------------------------------------------------------------

@pytest.fixture
def compiled_two_inputs():
    module = Fn2(lambda m, x, y: x * y + 1.0)
    return solder.compile(module, (torch.rand(2, 3), torch.rand(3)), backend="cpu",
                          quiet=True)


def test_wrong_input_shape(compiled_two_inputs):
    with pytest.raises(solder.SolderError,
                       match=r"^input 1 \(y\) has shape \(4,\); the module was compiled "
                             r"for \(3,\) \(compile again for other shapes\)"):
        compiled_two_inputs(torch.rand(2, 3), torch.rand(4))


def test_wrong_input_count(compiled_two_inputs):
    with pytest.raises(solder.SolderError,
                       match=r"^the compiled module takes 2 inputs \(x, y\), got 1"):
        compiled_two_inputs(torch.rand(2, 3))
    with pytest.raises(solder.SolderError, match=r"takes 2 inputs \(x, y\), got 3"):
        compiled_two_inputs(torch.rand(2, 3), torch.rand(3), torch.rand(3))


def test_wrong_input_dtype(compiled_two_inputs):
    with pytest.raises(solder.SolderError,
                       match=r"^input 0 \(x\) is torch\.float64; the module was compiled "
                             r"for torch\.float32"):
        compiled_two_inputs(torch.rand(2, 3, dtype=torch.float64), torch.rand(3))


def test_input_not_a_tensor(compiled_two_inputs):
    with pytest.raises(solder.SolderError, match=r"^input 1 \(y\) is a list, not a tensor"):
        compiled_two_inputs(torch.rand(2, 3), [1.0, 2.0, 3.0])


def test_non_contiguous_input_is_accepted(compiled_two_inputs):
    x = torch.rand(3, 2).t()
    y = torch.rand(3)
    assert not x.is_contiguous()
    assert_matches(compiled_two_inputs(x, y), x.double() * y.double() + 1.0)


def test_export_tf32_bundle_records_its_precision(tmp_path):
    # W2's conv_transpose runs sm80's implicit GEMM, one TF32 product in tf32.
    module, inputs = workloads.make("w2", small=True)
    path = solder.export(module, inputs, tmp_path / "tf32", arch="sm_90", precision="tf32",
                         quiet=True)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["precision"] == "tf32"
    source = (path / "kernels.cu").read_text()
    assert "solder::TensorMath::kTF32" in source
    assert "solder::TensorMath::k3xTF32" not in source


def test_export_targets_the_gpu_found_else_sm_90a(tmp_path, monkeypatch):
    # No GPU visible to solder-compile: the Hopper target.
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    module, inputs = workloads.make("w2", small=True)
    path = solder.export(module, inputs, tmp_path / "default", precision="tf32", quiet=True)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["target"] == "sm_90a"
    assert (path / "kernels.sm_90a.cubin").is_file()


@pytest.mark.parametrize("capability,arch", [
    ((9, 0), "sm_90a"),   # Hopper: its arch-specific target (wgmma)
    ((8, 9), "sm_89"),    # a planned arch: itself
    ((10, 3), "sm_100"),  # newer than planned: the newest below it (its PTX)
    ((12, 1), "sm_120"),
    ((11, 0), "sm_100"),
])
def test_the_arch_for_a_gpu(monkeypatch, capability, arch):
    """The arch solder.compile builds for the GPU it runs on, as
    solder-compile's default picks it (test/Codegen/solder-compile.test)."""
    from solder import api
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device: capability)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "NVIDIA Next")
    assert api._gpu_arch("cuda") == (arch, "NVIDIA Next")


def test_a_gpu_older_than_every_planned_arch(monkeypatch):
    from solder import api
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda device: (7, 5))
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device: "Tesla T4")
    with pytest.raises(solder.SolderError, match=r"^Tesla T4 \(sm_75\) is older than every "
                       r"GPU Solder compiles for \(sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, "
                       r"sm_120\)$"):
        api._gpu_arch("cuda")


@pytest.mark.parametrize("workload,mainloop,math", [
    # W1: a mean reads the conv's result, which could cancel one product's
    # rounding of the input's offset: one product of the input centered.
    ("w1", "direct_tf32", "kTF32, solder::DirectAccumulation::kCentered"),
    # W3: a logsumexp; one TF32 product of the input as it is.
    ("w3", "direct_tf32", "kTF32, solder::DirectAccumulation::kPlain"),
])
def test_tf32_few_channel_convs_center_their_input_before_a_sum(
        tmp_path, workload, mainloop, math):
    module, inputs = workloads.make(workload, small=True)
    path = solder.export(module, inputs, tmp_path / workload, precision="tf32",
                         quiet=True)
    manifest = json.loads((path / "manifest.json").read_text())
    assert [l["mainloop"] for l in manifest["launches"] if l.get("mainloop")] == [
        mainloop]
    source = (path / "kernels.cu").read_text()
    assert "solder::DirectTensorOpConv<" in source
    assert f"solder::TensorMath::{math}>" in source


@pytest.mark.parametrize("options,message", [
    ({"precision": "fp16"}, r"unknown precision 'fp16'"),
    ({"backend": "rocm"}, r"unknown backend 'rocm' \(one of \('cuda', 'cpu'\)\)"),
    ({"force": "always"}, r"unknown force='always'"),
])
def test_unknown_options(options, message):
    module, inputs = workloads.make("w3", small=True)
    options = {"backend": "cpu", **options}
    with pytest.raises(solder.SolderError, match=message):
        solder.compile(module, inputs, **options)


@pytest.mark.skipif(torch.cuda.is_available(), reason="torch sees a GPU")
def test_cuda_backend_without_gpu():
    module, inputs = workloads.make("w3", small=True)
    with pytest.raises(solder.SolderError,
                       match=r"backend='cuda' needs a CUDA GPU, and torch sees none; use "
                             r"backend='cpu'"):
        solder.compile(module, inputs)  # backend='cuda' is the default


def test_load_without_manifest(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(solder.SolderError,
                       match=r"empty is not a Solder bundle \(no manifest\.json\)"):
        solder.load(tmp_path / "empty")
    with pytest.raises(solder.SolderError, match=r"is not a Solder bundle"):
        solder.load(tmp_path / "missing")


def test_tool_not_found(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("SOLDER_BIN_DIR", str(empty))
    module, inputs = workloads.make("w3", small=True)
    with pytest.raises(solder.ToolNotFound,
                       match=rf"cannot find the Solder tool 'solder-\w+' \(SOLDER_BIN_DIR="
                             rf"{re.escape(str(empty))} has no solder-\w+\): .*set "
                             r"SOLDER_BIN_DIR"):
        solder.compile(module, inputs, backend="cpu")
    assert issubclass(solder.ToolNotFound, solder.SolderError)


def test_tool_failure_is_a_solder_error(tmp_path, monkeypatch):
    """A tool that fails gives SolderError with its diagnostics, not a crash."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = Path(os.environ.get("SOLDER_BIN_DIR") or
                Path(__file__).resolve().parents[2] / "build" / "bin")
    for tool in ("solder-compile", "solder-opt"):
        os.symlink(real / tool, bin_dir / tool)
    interp = bin_dir / "solder-interp"
    interp.write_text("#!/bin/sh\necho 'error: out of cheese' >&2\nexit 3\n")
    interp.chmod(0o755)
    monkeypatch.setenv("SOLDER_BIN_DIR", str(bin_dir))
    module, inputs = workloads.make("w3", small=True)
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    with pytest.raises(solder.SolderError,
                       match=r"^solder-interp \(backend='cpu'\) failed: out of cheese$"):
        compiled(*inputs)


# ---------------------------------------------------------------------------
# The compile cache
# ---------------------------------------------------------------------------

def cache_entries(root, kind):
    folder = root / kind
    if not folder.is_dir():
        return []
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith("."))


def test_cache_reuses_entries(tmp_path):
    root = tmp_path / "cache"
    assert solder.cache_dir() == root
    module, inputs = workloads.make("w3", small=True)
    first = solder.compile(module, inputs, backend="cpu", quiet=True)
    entries = cache_entries(root, "pipelined")
    assert len(entries) == 1
    assert (root / "pipelined" / entries[0] / "pipelined.mlir").is_file()
    stamp = (root / "pipelined" / entries[0] / "pipelined.mlir").stat().st_mtime_ns

    # The same module again (even a fresh instance with the same parameters):
    # the same entry, not rebuilt.
    second = solder.compile(copy.deepcopy(module), inputs, backend="cpu", quiet=True)
    assert cache_entries(root, "pipelined") == entries
    assert second.pipelined == first.pipelined
    assert (root / "pipelined" / entries[0] / "pipelined.mlir").stat().st_mtime_ns == stamp
    assert_matches(second(*inputs), reference(module, inputs))

    # Another module adds an entry; so does another input shape.
    other, other_inputs = workloads.make("w1", small=True)
    solder.compile(other, other_inputs, backend="cpu", quiet=True)
    assert len(cache_entries(root, "pipelined")) == 2
    solder.compile(module, (torch.rand(1, 8, 6, 6),), backend="cpu", quiet=True)
    assert len(cache_entries(root, "pipelined")) == 3
    # Another plan, too.
    solder.compile(module, inputs, backend="cpu", force="materialize", quiet=True)
    assert len(cache_entries(root, "pipelined")) == 4
    assert cache_entries(root, "bundles") == []
    assert not [p for p in (root / "pipelined").iterdir() if p.name.startswith(".tmp-")]


class _Scaled(torch.nn.Module):
    def forward(self, x):
        return torch.tanh(x) * 2.0


class _ScaledElsewhere(torch.nn.Module):
    """_Scaled's computation from other source lines, under other names."""

    def forward(self, activation):
        result = torch.tanh(activation)
        return result * 2.0


def test_cache_keys_the_computation_not_its_lines_or_names(tmp_path):
    """Source locations, comments and names are not in the key (an edit
    above a model, a backward's repeated blocks): one entry for both; a
    change to an op or an attribute is another."""
    root = tmp_path / "cache"
    x = torch.rand(2, 3, 4)
    first = solder.compile(_Scaled(), (x,), backend="cpu", quiet=True)
    second = solder.compile(_ScaledElsewhere(), (x,), backend="cpu", quiet=True)
    assert first.mlir != second.mlir  # other lines, names
    assert second.pipelined == first.pipelined
    assert len(cache_entries(root, "pipelined")) == 1
    assert_matches(second(x), torch.tanh(x.double()) * 2.0)

    class Halved(torch.nn.Module):
        def forward(self, x):
            return torch.tanh(x) * 0.5

    class Sigmoid(torch.nn.Module):
        def forward(self, x):
            return torch.sigmoid(x) * 2.0

    class Difference(torch.nn.Module):
        def forward(self, x):
            return x - torch.tanh(x)

    class Reversed(torch.nn.Module):  # the same ops, wired the other way
        def forward(self, x):
            return torch.tanh(x) - x

    for module in (Halved(), Sigmoid(), Difference(), Reversed()):
        solder.compile(module, (x,), backend="cpu", quiet=True)
    assert len(cache_entries(root, "pipelined")) == 5


def test_cache_entry_is_used(tmp_path):
    """A hit reads the cached file: corrupting it shows up in the result."""
    root = tmp_path / "cache"
    module, inputs = workloads.make("w3", small=True)
    solder.compile(module, inputs, backend="cpu", quiet=True)
    (entry,) = cache_entries(root, "pipelined")
    path = root / "pipelined" / entry / "pipelined.mlir"
    path.write_text(path.read_text().replace("func.func", "func.funk", 1))
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    with pytest.raises(solder.SolderError, match=r"^solder-interp \(backend='cpu'\) failed: "
                       r"custom op 'func\.funk' is unknown\n"):
        compiled(*inputs)


def test_compiler_fingerprint_covers_every_device_template():
    """A bundle's cache key covers the templates in the folders by role too:
    editing conv/mainloop_direct_tensorop.cuh must not reuse a stale bundle."""
    from solder import tools
    device = tools.compiler_fingerprint()["device"]
    for template in ("solder/kernel/conv_kernel.cuh", "solder/conv/mainloop_direct_tensorop.cuh",
                     "solder/epilogue/tile_visit.cuh", "solder/conv/direct_layout.h",
                     "solder/welford.cuh"):
        assert template in device, template
    assert all(len(digest) == 64 for digest in device.values())


# ---------------------------------------------------------------------------
# solder.export (nvcc, no GPU)
# ---------------------------------------------------------------------------

def test_export_w3(tmp_path):
    nvcc = Path("/usr/local/cuda/bin/nvcc")
    if not nvcc.is_file() and not shutil.which("nvcc"):
        pytest.skip("no nvcc")
    module, inputs = workloads.make("w3", small=True)
    target = tmp_path / "exported"
    (target / "stale").mkdir(parents=True)  # a folder that is not a bundle stays
    with pytest.raises(solder.SolderError,
                       match=r"exists and is not a Solder bundle; not overwriting it"):
        solder.export(module, inputs, target, arch="sm_90", quiet=True)
    assert (target / "stale").is_dir()
    (target / "manifest.json").write_text("{}")  # an old bundle is replaced
    path = solder.export(module, inputs, target, arch="sm_90", quiet=True)
    assert Path(path) == target
    assert not (target / "stale").exists()
    for name in ("manifest.json", "kernels.sm_90.cubin", "kernels.ptx", "kernels.cu",
                 "frontend.json"):
        assert (target / name).is_file(), name
        assert (target / name).stat().st_size > 0, name
    assert not (target / "input.mlir").exists()
    assert "__global__" in (target / "kernels.cu").read_text()

    imported = solder.import_module(module, inputs)
    frontend = json.loads((target / "frontend.json").read_text())
    assert frontend == {
        "function": "w3", "inputs": ["x"], "input_shapes": [[2, 8, 10, 10]],
        "input_arguments": [[0, [2, 8, 10, 10]]],
        "parameters": ["conv_weight", "conv_bias", "group_norm_weight",
                       "group_norm_bias"],
        "output_shapes": [[2, 1, 8, 8]], "result_shapes": [[2, 1, 8, 8]],
        "output_is_sequence": False}
    expected = {"conv_weight": module.conv.weight, "conv_bias": module.conv.bias,
                "group_norm_weight": module.group_norm.weight,
                "group_norm_bias": module.group_norm.bias}
    assert sorted(p.name for p in (target / "params").iterdir()) == sorted(
        f"{name}.npy" for name in expected)
    for name, tensor in expected.items():
        array = np.load(target / "params" / f"{name}.npy")
        assert array.dtype == np.float32
        np.testing.assert_array_equal(array, tensor.detach().numpy())

    manifest = json.loads((target / "manifest.json").read_text())
    assert manifest["files"]["cubin"] == "kernels.sm_90.cubin"
    assert [spec["shape"] for spec in manifest["inputs"]] == (
        [[2, 8, 10, 10]] + [list(p.shape) for p in imported.parameters])
    assert [spec["shape"] for spec in manifest["outputs"]] == [[2, 1, 8, 8]]
    # Exporting does not touch the compile cache.
    assert not (tmp_path / "cache" / "bundles").exists()
    if not torch.cuda.is_available():
        with pytest.raises(solder.SolderError, match=r"needs a CUDA GPU"):
            solder.load(target)



def test_import_leaves_running_stats_alone(rng):
    """Shape propagation runs forward once; a training-mode BatchNorm must not
    update the caller's running statistics because of it."""
    module = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))
    before = {name: b.clone() for name, b in module.named_buffers()}
    solder.import_module(module, (torch.rand(2, 3, 6, 6),))
    for name, buffer in module.named_buffers():
        assert torch.equal(buffer, before[name]), name


def test_cpu_backend_needs_no_solder_compile(tmp_path, monkeypatch):
    """backend='cpu' uses solder-opt and solder-interp only."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("solder-opt", "solder-interp"):
        (tools / name).symlink_to(Path(solder.tools.find_tool(name)).resolve())
    monkeypatch.setenv("SOLDER_BIN_DIR", str(tools))
    module, inputs = workloads.make("w3", small=True)
    compiled = solder.compile(module, inputs, backend="cpu", quiet=True)
    assert_matches(compiled(*inputs), reference(module, inputs))


class HugeBatchConv(nn.Module):
    """A conv on 70000 samples, which the code generator refuses (its grid's
    z dim, the samples, holds at most 65535)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3)

    def forward(self, x):
        y = self.conv(x)
        return torch.tanh(y)


def test_compiler_errors_point_at_the_user_line(tmp_path):
    """The importer's locations reach solder-compile's diagnostics: the
    codegen's refusal is an UnsupportedOperation whose first line is the
    reason and this file's line, then the line's code, then what
    solder-compile printed; it names the ATen nodes (no nvcc, no GPU)."""
    import inspect
    lines, start = inspect.getsourcelines(HugeBatchConv.forward)
    number = start + next(i for i, line in enumerate(lines) if "self.conv(x)" in line)
    with pytest.raises(solder.UnsupportedOperation) as error:
        solder.export(HugeBatchConv(), (torch.rand(70000, 8, 4, 4),), tmp_path / "bundle",
                      quiet=True)
    message = str(error.value).splitlines()
    assert message[0] == ("the CUDA code generator launches a conv's channel tiles and "
                          "samples on grid y and z, at most 65535 each; this one needs "
                          f"1 x 70000 ({Path(__file__).name}:{number})")
    assert message[1] == f"  at {Path(__file__).resolve()}:{number}: y = self.conv(x)"
    assert message[2] == "  solder-compile printed:"
    assert error.value.node_names == ["conv2d"]
