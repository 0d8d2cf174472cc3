"""The Python front end on a GPU: solder.compile of the seed workloads and of
varied chains, run through libsolder_runtime and compared with PyTorch in
float64 and with eager float32 (TF32 off); outputs poisoned with NaN first,
fresh random inputs and non-default norm parameters every run, two runs
bitwise equal. Run by run_gpu_suite.sh on the device (SOLDER_BIN_DIR set).
"""

import copy
import json
import os
import re
import subprocess
import sys

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import solder
from solder import workloads

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

REL_L2 = 1e-5  # the codegen issue's tolerance against float64
EAGER_TOL = 1e-4  # allclose against eager float32, TF32 off


@pytest.fixture(autouse=True)
def ieee_peers():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.manual_seed(int.from_bytes(os.urandom(4), "little"))  # fresh every run


@pytest.fixture(autouse=True)
def inference():
    """The calls are inference, as users make them: under no_grad (in grad
    mode, with the module's parameters requiring grad, a call would go
    through autograd; test_training_gpu.py covers that)."""
    with torch.no_grad():
        yield


def check(module, inputs):
    """Compiles, runs twice into NaN-poisoned outputs, compares; returns the
    compiled module."""
    module = workloads.randomize_norms(module).cuda()
    inputs = tuple(t.cuda() for t in inputs)
    compiled = solder.compile(module, inputs, quiet=True)
    with torch.no_grad():
        expected = module(*inputs)
        reference = copy.deepcopy(module).double()(
            *[t.double() for t in inputs])
    expected = expected if isinstance(expected, tuple) else (expected,)
    reference = reference if isinstance(reference, tuple) else (reference,)
    runs = []
    for _ in range(2):
        out = tuple(torch.full(e.shape, float("nan"), device="cuda") for e in expected)
        compiled(*inputs, out=out if len(out) > 1 else out[0])
        torch.cuda.synchronize()
        runs.append(out)
    for got, again, eager, ref in zip(runs[0], runs[1], expected, reference):
        assert torch.isfinite(got).all(), "an output element was not written"
        rel = ((got.double() - ref).norm() / ref.norm().clamp_min(1e-300)).item()
        assert rel <= REL_L2, f"rel L2 error {rel:.2e} against float64"
        assert torch.allclose(got, eager, atol=EAGER_TOL, rtol=EAGER_TOL), \
            f"max |solder - eager| = {(got - eager).abs().max().item():.2e}"
        assert torch.equal(got, again), "two runs differ"
    # The drop-in call returns what the module returns.
    result = compiled(*inputs)
    assert isinstance(result, tuple) == (len(expected) > 1)
    return compiled


@pytest.mark.parametrize("name", ["w1", "w2_small", "w3", "w2"])
def test_workload(name):
    module_class, shape, _ = workloads.WORKLOADS[name]
    check(module_class(), (torch.rand(shape),))


def test_workload_large_offset():
    """W1 with x + 1000: GroupNorm's variance must not cancel."""
    module_class, shape, _ = workloads.WORKLOADS["w1"]
    check(module_class(), (torch.rand(shape) + 1000,))


@pytest.mark.parametrize("conv", [False, True], ids=["batchnorm", "conv_batchnorm"])
def test_batchnorm_statistics_beyond_2_24(conv):
    """Training BatchNorm over 8 x 1535 x 1537 = 18.9M elements a channel,
    past a float count's 2^24, uneven per thread: the reduction kernel's
    statistics (double past 2^24) and the conv epilogue's (per-tile partials
    merged in double) stay exact. (At x + 100 no float32 BatchNorm meets
    1e-5: the mean stored in float32 alone costs 2e-5 there.)"""
    layers = [nn.Conv2d(3, 2, 1)] if conv else []
    module = Chain(*layers, nn.BatchNorm2d(2), nn.ReLU())
    check(module, (torch.rand(8, 3 if conv else 2, 1535, 1537),))


class SqueezeExcite(nn.Module):
    """conv -> global pool -> 1x1 conv -> ReLU -> 1x1 conv -> sigmoid ->
    scale of the conv's output."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(32, 32, 3, padding=1)
        self.fc1 = nn.Conv2d(32, 8, 1)
        self.fc2 = nn.Conv2d(8, 32, 1)

    def forward(self, x):
        y = self.conv(x)
        scale = torch.sigmoid(self.fc2(F.relu(self.fc1(y.mean(dim=[2, 3], keepdim=True)))))
        return y * scale


class Chain(nn.Module):
    def __init__(self, *layers, tail=None):
        super().__init__()
        self.layers = nn.Sequential(*layers)
        self.tail = tail

    def forward(self, x):
        y = self.layers(x)
        return self.tail(y) if self.tail is not None else y


class RegroupedGroupNormPool(nn.Module):
    """conv -> a view that splits each channel's rows in two (a
    solder.reshape) -> GroupNorm over the new channels -> max-pool."""

    def __init__(self):
        super().__init__()
        self.conv, self.norm = nn.Conv2d(8, 16, 3, padding=1), nn.GroupNorm(4, 32)

    def forward(self, x):
        y = self.conv(x)
        n, c, h, w = y.shape
        return F.max_pool2d(self.norm(y.view(n, 2 * c, h // 2, w)), 2)


class Residual(nn.Module):
    """conv(x) + x -> relu -> group norm (a residual from the input)."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, padding=1)
        self.norm = nn.GroupNorm(4, 16)

    def forward(self, x):
        return self.norm(F.relu(self.conv(x) + x))


class ScaleShift(nn.Module):
    """conv_transpose -> sigmoid -> per-channel parameter scale + scalar."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.scale = nn.Parameter(torch.randn(8, 1, 1))

    def forward(self, x):
        return torch.sigmoid(self.up(x)) * self.scale + 0.5


class TwoOutputs(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 16, 3)

    def forward(self, x):
        y = self.conv(x)
        return F.relu(y), y.mean(dim=[2, 3])


class ClampExpLse(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 16, 3)

    def forward(self, x):
        y = torch.clamp(self.conv(x), min=-0.4, max=0.9)
        return torch.logsumexp(torch.exp(y) / 3.0, dim=1)


class SquareMean(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(2, 6, 3, padding=1)
        self.norm = nn.GroupNorm(2, 6)

    def forward(self, x):
        z = torch.tanh(self.norm(self.conv(x)))
        return (z * z).mean(dim=1)


class AbsSqrt(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 12, 3, stride=2, bias=False)
        self.norm = nn.GroupNorm(3, 12)

    def forward(self, x):
        return self.norm(-torch.sqrt(self.conv(x).abs() + 1e-3))


def batch_norm_eval():
    """Eval mode with non-trivial running statistics: folded per channel."""
    model = Chain(nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16), nn.SiLU())
    with torch.no_grad():
        model.layers[1].running_mean.uniform_(-0.5, 0.5)
        model.layers[1].running_var.uniform_(0.5, 2.0)
    return model.eval()


class TokenMlp(nn.Module):
    """Linear and matmul as GEMMs over 200 rows: LayerNorm over 38 features
    (applied as the first GEMM's input is copied, padded to 40), Linear 38 ->
    96, GELU, a matmul by a (96, 24) parameter (its rows and weights read as
    they are), eval BatchNorm1d over the 24 features (scale and shift
    computed at import), ReLU."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(38)
        self.fc = nn.Linear(38, 96)
        self.w = nn.Parameter(torch.randn(96, 24) / 10)
        self.bn = nn.BatchNorm1d(24)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 2.0)
        self.eval()

    def forward(self, x):
        h = torch.matmul(F.gelu(self.fc(self.norm(x))), self.w)
        return torch.relu(self.bn(h.flatten(0, 1))).view(x.shape[0], x.shape[1], 24)


CHAINS = {
    "conv2d_k5_s2_p2_groupnorm_gelu_tanh": (
        lambda: Chain(nn.Conv2d(16, 32, 5, stride=2, padding=2), nn.GroupNorm(8, 32),
                      nn.GELU(approximate="tanh")), (8, 16, 33, 33)),
    "conv2d_grouped_silu_mean": (
        lambda: Chain(nn.Conv2d(32, 32, 3, padding=1, groups=4), nn.SiLU(),
                      tail=lambda y: y.mean(dim=[2, 3])), (8, 32, 20, 20)),
    "conv1d_k7_leakyrelu_groupnorm_amax": (
        lambda: Chain(nn.Conv1d(8, 16, 7, padding=3), nn.LeakyReLU(0.1),
                      nn.GroupNorm(4, 16), tail=lambda y: y.amax(dim=2)), (16, 8, 100)),
    "conv3d_anisotropic_stride_mish_sum": (
        lambda: Chain(nn.Conv3d(4, 8, (1, 3, 3), stride=(1, 2, 2)), nn.Mish(),
                      tail=lambda y: y.sum(dim=[2, 3, 4], keepdim=True)), (4, 4, 6, 17, 17)),
    "convtranspose2d_s2_sigmoid_param_scale": (ScaleShift, (4, 16, 15, 15)),
    "convtranspose1d_s3_groups_outpad_elu_logsumexp": (
        lambda: Chain(nn.ConvTranspose1d(8, 8, 3, stride=3, groups=2, output_padding=1),
                      nn.ELU(0.5), tail=lambda y: torch.logsumexp(y, dim=1, keepdim=True)),
        (8, 8, 40)),
    "conv2d_1x1_hardtanh_groupnorm_per_channel": (
        lambda: Chain(nn.Conv2d(3, 16, 1), nn.Hardtanh(-0.5, 0.5), nn.GroupNorm(16, 16)),
        (8, 3, 24, 24)),
    "conv2d_dilated_relu6_groupnorm_hardsigmoid_amin": (
        lambda: Chain(nn.Conv2d(8, 24, 3, dilation=2, padding=2), nn.ReLU6(),
                      nn.GroupNorm(3, 24), nn.Hardsigmoid(),
                      tail=lambda y: y.amin(dim=1)), (4, 8, 30, 30)),
    "conv2d_input_residual_relu_groupnorm": (Residual, (8, 16, 16, 16)),
    "groupnorm_softplus_mean_no_conv": (
        lambda: Chain(nn.GroupNorm(4, 16), nn.Softplus(beta=2.0),
                      tail=lambda y: y.mean()), (8, 16, 10, 10)),
    "conv2d_clamp_exp_div_logsumexp": (ClampExpLse, (8, 8, 18, 18)),
    "conv3d_p1_groupnorm_tanh_square_mean": (SquareMean, (2, 2, 8, 10, 10)),
    "conv2d_s2_nobias_abs_sqrt_neg_groupnorm": (AbsSqrt, (8, 8, 21, 21)),
    "conv2d_two_outputs_relu_and_mean": (TwoOutputs, (8, 8, 12, 12)),
    "conv2d_batchnorm_train_relu": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.BatchNorm2d(16), nn.ReLU()), (8, 8, 16, 16)),
    "conv2d_batchnorm_eval_silu": (batch_norm_eval, (8, 8, 16, 16)),
    "conv2d_instancenorm_affine_gelu": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.InstanceNorm2d(16, affine=True), nn.GELU()),
        (8, 8, 16, 16)),
    "conv2d_layernorm_chw_tanh": (
        lambda: Chain(nn.Conv2d(4, 8, 3), nn.LayerNorm([8, 14, 14]), nn.Tanh()),
        (4, 4, 16, 16)),
    "conv1d_log_softmax_channels": (
        lambda: Chain(nn.Conv1d(8, 16, 5), nn.LogSoftmax(dim=1)), (8, 8, 50)),
    # Pools: ResNet's stem (conv -> BN -> ReLU -> max-pool 3x3/2), avg with
    # ceil_mode and divisor_override, 1-D and 3-D, adaptive (global: a mean
    # the conv epilogue sums; divisible: a pool), the classifier head
    # (global pool -> flatten -> Linear) and squeeze-excitation.
    "conv2d_bn_relu_maxpool_stem": (
        lambda: Chain(nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(64),
                      nn.ReLU(), nn.MaxPool2d(3, 2, 1)), (8, 3, 96, 96)),
    "conv2d_avgpool_ceil_divisor_tanh": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.AvgPool2d(3, 2, 1, ceil_mode=True,
                                                         count_include_pad=False),
                      nn.AvgPool2d(2, divisor_override=3), nn.Tanh()), (4, 8, 23, 23)),
    "conv1d_maxpool_dilated_conv3d_avgpool": (
        lambda: Chain(nn.Conv1d(8, 16, 3), nn.MaxPool1d(4, 3, 2, dilation=2, ceil_mode=True)),
        (8, 8, 61)),
    "conv3d_avgpool_pad_sigmoid": (
        lambda: Chain(nn.Conv3d(4, 8, 3), nn.AvgPool3d(3, 2, 1), nn.Sigmoid()), (2, 4, 9, 12, 12)),
    "conv2d_relu_adaptive_avg_and_max": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.ReLU(), nn.AdaptiveMaxPool2d((3, 2))),
        (4, 8, 20, 14)),
    "classifier_head_global_pool_linear": (
        lambda: Chain(nn.Conv2d(16, 64, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(64, 10)), (8, 16, 14, 14)),
    "squeeze_excitation": (SqueezeExcite, (8, 32, 16, 16)),
    # Views an op takes as a tensor of its own (solder.reshape: no kernel,
    # no copy): a Linear after flatten, a Linear over a conv's width, a
    # GroupNorm and pool over regrouped channels.
    "conv2d_relu_flatten_linear_relu": (
        lambda: Chain(nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                      nn.Linear(16 * 12 * 12, 32), nn.ReLU()), (8, 8, 12, 12)),
    "conv2d_linear_over_width_gelu": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.Linear(10, 6), nn.GELU()), (8, 8, 12, 12)),
    "conv2d_view_groupnorm_maxpool": (RegroupedGroupNormPool, (8, 8, 16, 16)),
    # padding='same' with even kernels (one zero more after each dim) on
    # each main loop: CUTLASS's implicit GEMM, the direct conv, depthwise,
    # and a dilated 1-D conv.
    "conv2d_same_k4_groupnorm_relu": (
        lambda: Chain(nn.Conv2d(16, 32, 4, padding="same"), nn.GroupNorm(4, 32), nn.ReLU()),
        (8, 16, 20, 18)),
    "conv2d_3ch_same_k2_tanh": (
        lambda: Chain(nn.Conv2d(3, 16, 2, padding="same"), nn.Tanh()), (8, 3, 33, 31)),
    "depthwise_same_k4_gelu": (
        lambda: Chain(nn.Conv2d(32, 32, 4, padding="same", groups=32), nn.GELU()),
        (8, 32, 24, 24)),
    # Adaptive pools to sizes that do not divide the input (windows of
    # varying size that overlap): solder.adaptive_pool.
    "conv2d_relu_adaptive_avg_5x3": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.ReLU(), nn.AdaptiveAvgPool2d((5, 3))),
        (8, 8, 20, 14)),
    "conv3d_adaptive_max_tanh": (
        lambda: Chain(nn.Conv3d(4, 8, 3), nn.AdaptiveMaxPool3d((3, 4, 7)), nn.Tanh()),
        (2, 4, 9, 12, 8)),
    # A 1x1 conv over one pixel a sample that reads only padding: the bias
    # (no GEMM over the samples).
    "conv2d_1x1_one_pixel_padded_stride3": (
        lambda: Chain(nn.Conv2d(32, 16, 1, stride=3, padding=1), nn.Tanh()), (64, 32, 1, 1)),
    "conv1d_same_k2_dilated_sigmoid": (
        lambda: Chain(nn.Conv1d(8, 16, 2, padding="same", dilation=3), nn.Sigmoid()),
        (8, 8, 45)),
    "token_mlp_layernorm_linear_gelu_matmul_batchnorm": (TokenMlp, (4, 50, 38)),
    # torch.export idioms: flatten of the output (a view the caller takes).
    "conv2d_groupnorm_relu_flatten": (
        lambda: Chain(nn.Conv2d(8, 16, 3), nn.GroupNorm(4, 16), nn.ReLU(), nn.Flatten()),
        (8, 8, 12, 12)),
}


@pytest.mark.parametrize("name", list(CHAINS))
def test_chain(name):
    make, shape = CHAINS[name]
    check(make(), (torch.rand(shape) * 2 - 1,))


class MaxIndicesUsed(nn.Module):
    def forward(self, x):
        values, indices = torch.max(x, dim=1)
        return values * indices.float()


def test_unsupported_module_names_the_op():
    with pytest.raises(solder.UnsupportedOperation,
                       match=r"^'aten\.max\.dim' returns indices"):
        solder.compile(MaxIndicesUsed().cuda(), (torch.rand(2, 3, 8, device="cuda"),),
                       quiet=True)


class HugeBatchConv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        return torch.tanh(self.conv(x / 2))


def test_op_without_kernel_is_refused_by_codegen():
    """A conv over 70000 samples has no generated kernel (the grid's z dim,
    the samples, holds at most 65535): the compile fails with
    solder-compile's reason and the user's line first, naming the conv's
    ATen node."""
    model = HugeBatchConv().cuda()
    with pytest.raises(solder.UnsupportedOperation,
                       match=r"^the CUDA code generator launches a conv's channel tiles and "
                             r"samples on grid y and z, at most 65535 each") as error:
        solder.compile(model, (torch.rand(70000, 8, 2, 2, device="cuda"),), quiet=True)
    assert error.value.node_names == ["conv2d"]


def test_out_of_memory_names_the_buffer_and_frees_it():
    """A bundle whose workspace does not fit: a one-line error naming the
    buffer and its size; what the load took is freed; once memory is back,
    the same module compiles (from the cache) and runs."""
    module_class, shape, _ = workloads.WORKLOADS["w2"]
    module = workloads.randomize_norms(module_class()).cuda()
    x = torch.rand(shape, device="cuda")
    with torch.no_grad():
        expected = module(x)
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    # Leave 64 MB: less than W2's NDHWC input workspace (134 MB).
    hog = torch.empty(torch.cuda.mem_get_info()[0] - (64 << 20), dtype=torch.uint8,
                      device="cuda")
    try:
        free_before = torch.cuda.mem_get_info()[0]
        with pytest.raises(solder.SolderError) as error:
            solder.compile(module, (x,), quiet=True)
        message = str(error.value)
        assert "\n" not in message
        assert re.search(r"cannot allocate workspace buffer '\w+' \(\d+ bytes\): "
                         r".*out of memory", message, re.IGNORECASE), message
        # The buffers the failed load took are back (the module image may stay).
        assert torch.cuda.mem_get_info()[0] >= free_before - (8 << 20)
    finally:
        del hog
        torch.cuda.empty_cache()
    compiled = solder.compile(module, (x,), quiet=True)
    got = compiled(x)
    assert torch.allclose(got, expected, atol=EAGER_TOL, rtol=EAGER_TOL)


def test_two_threads_on_two_streams_take_turns():
    """One compiled module (one workspace) called from two host threads, each
    on its own stream, with different inputs and no synchronization between
    them: every output equals eager's for its input."""
    import threading
    module_class, shape, _ = workloads.WORKLOADS["w2_small"]
    module = workloads.randomize_norms(module_class()).cuda()
    inputs = [torch.rand(shape, device="cuda") * (i + 1) for i in range(6)]
    compiled = solder.compile(module, (inputs[0],), quiet=True)
    with torch.no_grad():
        expected = [module(x) for x in inputs]
    torch.cuda.synchronize()
    results, errors = {}, []

    def worker(parity):
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream), torch.no_grad():  # grad mode is per thread
                results[parity] = [(i, compiled(inputs[i]))
                                   for _ in range(10) for i in range(parity, 6, 2)]
            stream.synchronize()
        except Exception as error:  # reported below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(parity,)) for parity in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    for outputs in results.values():
        for i, got in outputs:
            assert torch.allclose(got, expected[i], atol=EAGER_TOL, rtol=EAGER_TOL), \
                f"input {i}: max |solder - eager| = {(got - expected[i]).abs().max():.2e}"


def test_cuda_graph_capture_and_replay():
    """A call captured into a CUDA graph (torch.cuda.graph) replays the
    bundle's launches: new inputs copied into the captured input give the
    eager call's result bitwise, and eager calls after the capture still
    order themselves after the replays."""
    module_class, shape, _ = workloads.WORKLOADS["w2_small"]
    module = workloads.randomize_norms(module_class()).cuda()
    static_input = torch.rand(shape, device="cuda")
    compiled = solder.compile(module, (static_input,), quiet=True)
    compiled(static_input)  # warm: the bundle is loaded outside the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = compiled(static_input)
    for scale in (1.0, 3.0):
        fresh = torch.rand(shape, device="cuda") * scale
        static_input.copy_(fresh)
        graph.replay()
        eager_call = compiled(fresh)
        torch.cuda.synchronize()
        assert torch.equal(static_output, eager_call), "replay differs from a call"
        with torch.no_grad():
            expected = module(fresh)
        assert torch.allclose(static_output, expected, atol=EAGER_TOL, rtol=EAGER_TOL)


def test_graph_follows_tensors_that_move():
    """A bundle runs as one CUDA graph whose kernel nodes point at the last
    call's tensors: calls with inputs and outputs at other addresses each
    read and write their own (the nodes that take them updated), and a call
    back on the first tensors reads those again."""
    module_class, shape, _ = workloads.WORKLOADS["w3"]
    module = workloads.randomize_norms(module_class()).cuda()
    inputs = [torch.rand(shape, device="cuda") * (i + 1) for i in range(3)]
    compiled = solder.compile(module, (inputs[0],), quiet=True)
    with torch.no_grad():
        expected = [module(x) for x in inputs]
    outs = [torch.full(expected[0].shape, float("nan"), device="cuda") for _ in range(4)]
    for out, i in zip(outs, (0, 1, 2, 0)):
        compiled(inputs[i], out=out)
    torch.cuda.synchronize()
    for out, i in zip(outs, (0, 1, 2, 0)):
        assert torch.allclose(out, expected[i], atol=EAGER_TOL, rtol=EAGER_TOL), \
            f"input {i}: max |solder - eager| = {(out - expected[i]).abs().max():.2e}"
    assert torch.equal(outs[0], outs[3])


def test_backend_view_at_an_odd_offset():
    """Through the backend a static graph's calls skip the per-input checks
    (dynamo's guards hold them); an input that is a view 4 bytes into its
    storage passes the guards, is refused by the runtime, and the call is
    checked (the view copied) instead: the eager result all the same."""
    import solder.backend  # noqa: F401
    module = Chain(nn.GroupNorm(2, 4), nn.SiLU())
    module = workloads.randomize_norms(module).cuda()
    shape = (2, 4, 6, 8)
    compiled = torch.compile(module, backend="solder")
    with torch.no_grad():
        aligned = torch.rand(shape, device="cuda")
        for _ in range(3):
            assert torch.allclose(compiled(aligned), module(aligned), atol=EAGER_TOL,
                                  rtol=EAGER_TOL)
        storage = torch.rand(aligned.numel() + 4, device="cuda")
        view = storage[1:1 + aligned.numel()].view(shape)
        assert view.data_ptr() % 16 == 4
        for _ in range(2):
            assert torch.allclose(compiled(view), module(view), atol=EAGER_TOL,
                                  rtol=EAGER_TOL)
        assert torch.allclose(compiled(aligned), module(aligned), atol=EAGER_TOL,
                              rtol=EAGER_TOL)


def test_wrong_shape_and_device():
    module_class, _, small = workloads.WORKLOADS["w3"]
    model = module_class().cuda()
    compiled = solder.compile(model, (torch.rand(small, device="cuda"),), quiet=True)
    with pytest.raises(solder.SolderError, match=r"compiled for \(2, 8, 10, 10\)"):
        compiled(torch.rand(3, 8, 10, 10, device="cuda"))
    with pytest.raises(solder.SolderError, match=r"is on cpu"):
        compiled(torch.rand(small))


def test_views_at_odd_offsets():
    """Kernels load float4: an input view 4 bytes into its storage is copied
    (same result as the aligned tensor), an out= view there is refused."""
    module = Chain(nn.GroupNorm(2, 4), nn.SiLU())
    module = workloads.randomize_norms(module).cuda()
    shape = (2, 4, 6, 8)
    storage = torch.rand(2 * 4 * 6 * 8 + 4, device="cuda")
    view = storage[1:1 + 2 * 4 * 6 * 8].view(shape)
    assert view.data_ptr() % 16 == 4
    compiled = solder.compile(module, (view,), quiet=True)
    assert torch.equal(compiled(view), compiled(view.clone()))
    out = torch.empty(storage.shape, device="cuda")[1:1 + view.numel()].view(shape)
    with pytest.raises(solder.SolderError, match=r"out\[0\] must start on 16 bytes"):
        compiled(view, out=out)


def test_export_then_load_in_a_fresh_process(tmp_path):
    """A bundle exported once and loaded by another process (as on a machine
    that did not compile it) gives the module's results."""
    module_class, _, small = workloads.WORKLOADS["w3"]
    model = workloads.randomize_norms(module_class())
    x = torch.rand(small)
    solder.export(model, (x,), tmp_path / "w3.bundle", quiet=True)
    torch.save({"x": x, "expected": model(x).detach()}, tmp_path / "io.pt")
    script = (
        "import sys, torch, solder\n"
        f"io = torch.load({str(tmp_path / 'io.pt')!r})\n"
        f"fast = solder.load({str(tmp_path / 'w3.bundle')!r})\n"
        "got = fast(io['x'].cuda()).cpu()\n"
        "err = (got - io['expected']).abs().max().item()\n"
        "print('max abs err', err)\n"
        "sys.exit(0 if err < 1e-4 else 1)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True,
                            text=True, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr


def test_hopper_plans_for_sm90a_and_runs_its_main_loop():
    """On a 9.0 GPU solder.compile plans for sm_90a: a tf32 conv_transpose
    runs the Hopper main loop (wgmma fed by TMA through the tensor maps the
    runtime encodes at load) and matches float64 within tf32's bound."""
    if torch.cuda.get_device_capability() != (9, 0):
        pytest.skip("needs a 9.0 GPU (H100, H200)")
    model = nn.Sequential(nn.ConvTranspose3d(64, 128, 3), nn.ReLU()).cuda()
    x = torch.randn(2, 64, 6, 7, 9, device="cuda")
    compiled = solder.compile(model, (x,), precision="tf32", quiet=True)
    manifest = json.loads((compiled.bundle / "manifest.json").read_text())
    assert manifest["target"] == "sm_90a"
    assert [launch["mainloop"] for launch in manifest["launches"]
            if "mainloop" in launch] == ["wgmma_tf32"]
    assert [m["mode"] for m in manifest["tensor_maps"]] == ["im2col", "tiled"]
    out = torch.full((2, 128, 8, 9, 11), float("nan"), device="cuda")
    with torch.no_grad():
        compiled(x, out=out)
        torch.cuda.synchronize()
        reference = copy.deepcopy(model).double()(x.double())
    assert torch.isfinite(out).all(), "an output element was not written"
    rel = ((out.double() - reference).norm() / reference.norm()).item()
    assert rel <= 1e-3, f"rel L2 error {rel:.2e} against float64"


def test_cache_hit_skips_compile():
    module_class, _, small = workloads.WORKLOADS["w1"]
    model = module_class().cuda()
    x = torch.rand(small, device="cuda")
    first = solder.compile(model, (x,), quiet=True)
    second = solder.compile(model, (x,), quiet=True)
    assert first.bundle == second.bundle


# -- torch.compile(backend="solder") on the GPU --------------------------------


def check_backend(module, inputs, expect_eager=()):
    """Through dynamo: correct against float64 and eager float32, twice
    bitwise equal; returns the log lines."""
    import logging
    module = workloads.randomize_norms(module).cuda().eval()
    inputs = tuple(t.cuda() for t in inputs)
    records = []
    handler = logging.Handler()
    handler.emit = lambda record: records.append(record.getMessage())
    logger = logging.getLogger("solder")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(module, backend="solder")
        with torch.no_grad():
            runs = [compiled(*inputs).clone() for _ in range(2)]
            expected = module(*inputs)
            reference = copy.deepcopy(module).double()(*[t.double() for t in inputs])
    finally:
        logger.removeHandler(handler)
    got = runs[0]
    rel = ((got.double() - reference).norm() / reference.norm()).item()
    assert rel <= REL_L2, f"rel L2 error {rel:.2e} against float64"
    assert torch.allclose(got, expected, atol=EAGER_TOL, rtol=EAGER_TOL)
    assert torch.equal(runs[0], runs[1]), "two runs differ"
    assert any("fused" in line and "bundle" in line for line in records), records
    for op in expect_eager:
        assert any(f"run eagerly: aten.{op}" in line for line in records), records
    return records


@pytest.mark.parametrize("name", ["w1", "w2_small", "w3"])
def test_backend_workload(name):
    module_class, shape, _ = workloads.WORKLOADS[name]
    records = check_backend(module_class(), (torch.rand(shape),))
    assert not any("run eagerly" in line for line in records), records


class MatmulOfInputs(nn.Module):
    """x @ y of two inputs (a 1x1 conv_transpose whose weights the bundle
    converts each call), then a Linear by an input weight."""

    def forward(self, x, y, w):
        return F.linear(torch.sigmoid(x @ y) * 2.0, w) + x.sum(dim=1, keepdim=True)


class MatmulByWeight(nn.Module):
    """x @ W of a (C, K) parameter: through the backend a graph input, the
    weight of a 1x1 conv_transpose (converted once while its version holds)."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(96, 80) / 10)

    def forward(self, x):
        return F.gelu(x @ self.w) * 0.5


def test_matmul_of_two_inputs():
    x, y, w = torch.rand(300, 96) - 0.5, torch.rand(96, 80) - 0.5, torch.rand(40, 80) - 0.5
    check(MatmulOfInputs(), (x, y, w))


class MatmulByTransposedInput(nn.Module):
    """x @ y.t() of a caller's (K, C) input: y the 1x1 conv's weight as it
    is, as a Linear's."""

    def forward(self, x, y):
        return torch.tanh(x @ y.t()) + 1.0


class MatmulByTransposedWeight(nn.Module):
    """x @ W.t() of a (K, C) parameter: through the backend a graph input
    transposed, the same GEMM."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(80, 96) / 10)

    def forward(self, x):
        return torch.sigmoid(x @ self.w.t()) * 3.0


def test_matmul_by_a_transposed_input():
    check(MatmulByTransposedInput(), (torch.rand(300, 96) - 0.5, torch.rand(80, 96) - 0.5))


def test_backend_matmul_by_a_transposed_weight():
    records = check_backend(MatmulByTransposedWeight(), (torch.rand(300, 96) - 0.5,))
    assert not any("run eagerly" in line for line in records), records


def test_backend_matmul_by_a_weight():
    records = check_backend(MatmulByWeight(), (torch.rand(300, 96) - 0.5,))
    assert not any("run eagerly" in line for line in records), records


class CumsumInTheMiddle(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 32, 3)
        self.norm = nn.GroupNorm(4, 32)

    def forward(self, x):
        y = torch.tanh(self.norm(self.conv(x)))
        y = torch.cumsum(y, dim=3)
        return torch.sigmoid(y) * 2 + 1


def test_backend_with_an_eager_op_between():
    records = check_backend(CumsumInTheMiddle(), (torch.rand(16, 8, 64, 64),),
                            expect_eager=("cumsum",))
    assert sum("fused" in line for line in records) == 2, records


def _runs_hopper_loop(manifest):
    """Whether a bundle's convs run the Hopper main loop (solder.compile on a
    9.0 GPU plans sm_90a), which reads tensor maps over its own conversion
    of the input: a channels-last input is then converted, where sm80's
    loop reads it as it is."""
    return any(launch.get("mainloop", "").startswith("wgmma") for launch in manifest["launches"])


def _check_later_call(kernels, hopper):
    """A call after the first: the two convs, no weight preparation; on
    sm80's loop nothing else, on the Hopper one each conv's input
    conversion and at most one more kernel (the caller's copy of the input
    to the NCHW the bundle takes)."""
    convs = [name for name in kernels if name.endswith("_conv")]
    assert len(convs) == 2, kernels
    assert not any(name.endswith("_weight_ktrsc") for name in kernels), kernels
    if hopper:
        assert len([name for name in kernels if name.endswith("_conv_input_ndhwc")]) == 2, kernels
        assert len(kernels) <= 5, kernels
    else:
        assert kernels == convs, kernels


def _kernels_of_call(call):
    """The names of the kernels one call runs (torch.profiler)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        call()
        torch.cuda.synchronize()
    return [event.name for event in prof.events()
            if event.device_type == torch.autograd.DeviceType.CUDA]


@pytest.mark.parametrize("in_channels", [16, 4])
def test_weights_prepared_once(in_channels):
    """The weights' conversions (KTRSC for the implicit GEMM, TF32 fragments
    for the direct conv) run at the first call only; fresh inputs still give
    the eager results, and an in-place change to a captured parameter
    prepares again."""
    module = workloads.randomize_norms(nn.Sequential(
        nn.Conv2d(in_channels, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())).cuda().eval()
    shape = (4, in_channels, 19, 23)
    compiled = solder.compile(module, (torch.rand(shape, device="cuda"),), quiet=True)
    preparation = "_weight_ktrsc" if in_channels == 16 else "_conv_prepare"
    first = _kernels_of_call(lambda: compiled(torch.rand(shape, device="cuda")))
    assert any(name.endswith(preparation) for name in first), first
    x = torch.rand(shape, device="cuda")
    out = torch.full((4, 32, 19, 23), float("nan"), device="cuda")
    later = _kernels_of_call(lambda: compiled(x, out=out))
    assert not any(name.endswith(preparation) for name in later), later
    assert any(name.endswith("_conv") for name in later), later
    with torch.no_grad():
        expected = module(x)
    assert torch.allclose(out, expected, atol=EAGER_TOL, rtol=EAGER_TOL), \
        f"max |solder - eager| = {(out - expected).abs().max():.2e}"
    # The captured weight (the compiled module's copy) changed in place.
    weight = next(p for p in compiled.parameters if p.dim() == 4)
    with torch.no_grad():
        weight.mul_(-1.0)
        module[0].weight.mul_(-1.0)
        expected = module(x)
    again = _kernels_of_call(lambda: compiled(x, out=out))
    assert any(name.endswith(preparation) for name in again), again
    assert torch.allclose(out, expected, atol=EAGER_TOL, rtol=EAGER_TOL), \
        f"after the change: max |solder - eager| = {(out - expected).abs().max():.2e}"


def test_backend_prepares_weights_once():
    """Through torch.compile(backend="solder") the module's parameters and
    buffers are the bundle's parameters: a call converts the weights and
    computes BatchNorm's scale only when one of them changed (an in-place
    update bumps its version), and the results follow the module."""
    torch._dynamo.reset()
    module = workloads.randomize_norms(nn.Sequential(
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())).cuda().eval()
    compiled = torch.compile(module, backend="solder")
    x = torch.rand(4, 16, 19, 23, device="cuda")

    def call():
        with torch.no_grad():
            return compiled(x)

    first = _kernels_of_call(call)
    assert any(name.endswith("_weight_ktrsc") for name in first), first
    later = _kernels_of_call(call)
    assert not any(name.endswith("_weight_ktrsc") for name in later), later
    assert len(later) < len(first), (first, later)  # BatchNorm's scale too
    with torch.no_grad():
        assert torch.allclose(call(), module(x), atol=EAGER_TOL, rtol=EAGER_TOL)
        module[0].weight.mul_(-1.0)
        module[1].running_var.mul_(2.0)
    again = _kernels_of_call(call)
    assert any(name.endswith("_weight_ktrsc") for name in again), again
    with torch.no_grad():
        expected = module(x)
        got = call()
    assert torch.allclose(got, expected, atol=EAGER_TOL, rtol=EAGER_TOL), \
        f"after the change: max |solder - eager| = {(got - expected).abs().max():.2e}"


def test_inference_tensors_have_no_versions():
    """A module compiled and called under torch.inference_mode (its captured
    parameters and inputs inference tensors, which have no version counter)
    runs, its weights prepared once, its results those of eager."""
    module = workloads.randomize_norms(nn.Sequential(
        nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())).cuda().eval()
    with torch.inference_mode():
        x = torch.rand(2, 16, 9, 11, device="cuda")
        compiled = solder.compile(module, (x,), quiet=True)
        for _ in range(2):
            got = compiled(x)
            assert torch.allclose(got, module(x), atol=EAGER_TOL, rtol=EAGER_TOL)
        later = _kernels_of_call(lambda: compiled(x))
    assert not any(name.endswith("_weight_ktrsc") for name in later), later


class BasicBlock(nn.Module):
    """A ResNet basic block: two 3x3 convs with BatchNorm, the input added."""

    def __init__(self, channels=64):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


def test_cudagraphs_replay_the_weights_as_they_are():
    """options={"cudagraphs": True}: a channels-last model's calls replay one
    CUDA graph after the first two (warm-up, record: nothing captured
    after), each on a fresh
    input and after an in-place change to a weight, and each equals
    float64's: the weights' conversions to the bundle's layout and their
    preparations are captured with the convs, not left at what they held
    at the capture."""
    torch._dynamo.reset()
    module = workloads.randomize_norms(BasicBlock()).cuda().eval() \
        .to(memory_format=torch.channels_last)
    compiled = torch.compile(module, backend="solder", options={"cudagraphs": True})
    for call in range(5):
        x = torch.rand(3, 64, 14, 14, device="cuda").contiguous(
            memory_format=torch.channels_last)
        with torch.no_grad():
            module.conv1.weight.mul_(-1.0)
            module.conv2.weight.mul_(1.5)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                    torch.profiler.ProfilerActivity.CUDA]) as prof:
                got = compiled(x).clone()  # the next replay overwrites the output
                torch.cuda.synchronize()
        _assert_close_to_float64(got, module, x)
        # (the recording call replays what it captured too; the bundles'
        # own graphs are cuGraphLaunch)
        names = [event.name for event in prof.events()]
        launches = [name for name in names if "GraphLaunch" in name]
        captures = [name for name in names if _is_capture(name)]
        if call == 0:  # (the graph trees' manager, made now, captures an empty graph)
            assert "cudaGraphLaunch" not in launches, launches
        elif call == 1:
            assert captures, "the second call records"
        else:
            assert launches == ["cudaGraphLaunch"] and not captures, (call, launches, captures)


def _is_capture(name):
    """A CUDA runtime call of a PyTorch graph's capture (the bundles' own
    graphs are built through the driver API, cu*)."""
    return name.startswith("cuda") and ("BeginCapture" in name or "Instantiate" in name)


def _assert_close_to_float64(got, module, x):
    with torch.no_grad():
        eager = module(x)
        reference = copy.deepcopy(module).double()(x.double())
    rel = ((got.double() - reference).norm() / reference.norm()).item()
    assert rel <= REL_L2, f"rel L2 error {rel:.2e} against float64"
    assert torch.allclose(got, eager, atol=EAGER_TOL, rtol=EAGER_TOL), \
        f"max |solder - eager| = {(got - eager).abs().max().item():.2e}"


def test_channels_last_input_taken_as_it_is():
    """A channels-last input (torch.channels_last) is read as it is by the
    first conv and by the second conv's epilogue (the residual): a call runs
    the two conv kernels and no layout conversion (on sm80's main loop; the
    Hopper one converts it, _runs_hopper_loop). The output comes back in
    the layout the traced graph gives it (torch.export's fake CUDA conv says
    NCHW where cuDNN would return channels-last; the bundle suite's
    basic_block_channels_last_io returns one channels-last). An NCHW input
    to the same module is converted by the call, with the same result."""
    module = workloads.randomize_norms(BasicBlock()).cuda().eval()
    x = torch.rand(3, 64, 14, 14, device="cuda").contiguous(memory_format=torch.channels_last)
    compiled = solder.compile(module, (x,), quiet=True)
    manifest = json.loads((compiled.bundle / "manifest.json").read_text())
    hopper = _runs_hopper_loop(manifest)
    assert [spec.get("layout") for spec in manifest["inputs"]] == \
        [None if hopper else "channels_last"] + [None] * (len(manifest["inputs"]) - 1)
    layout = solder.api.memory_format(manifest["outputs"][0])
    compiled(x)  # the weights' preparations
    _check_later_call(_kernels_of_call(lambda: compiled(x)), hopper)
    out = torch.full(x.shape, float("nan"), device="cuda").contiguous(memory_format=layout)
    compiled(x, out=out)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all(), "an output element was not written"
    _assert_close_to_float64(out, module, x)
    got = compiled(x)
    assert got.is_contiguous(memory_format=layout)
    assert torch.equal(got, out), "two runs differ"
    assert torch.equal(compiled(x.contiguous()), out), "an NCHW input gives another result"
    other = torch.channels_last if layout == torch.contiguous_format \
        else torch.contiguous_format
    with pytest.raises(solder.SolderError, match=r"out\[0\] must be a (contiguous|channels-last) "
                       r"torch.float32 tensor of shape \(3, 64, 14, 14\)"):
        compiled(x, out=out.contiguous(memory_format=other))


def test_channels_last_output_returned_so():
    """Where the traced graph returns a conv block's output channels-last
    (a compiled module's result on the CPU export, here forced through the
    function's solder.channels_last), the epilogue stores it so and the
    call allocates it so; out= must be channels-last then."""
    module = workloads.randomize_norms(BasicBlock()).eval()
    x = torch.rand(3, 64, 14, 14).contiguous(memory_format=torch.channels_last)
    imported = solder.import_module(module, (x,))  # on the CPU: the export says channels-last
    assert imported.mlir.splitlines()[1].endswith("{solder.channels_last}) {")
    compiled = solder.api.compile_imported(imported, "ieee", "cuda", "auto", True,
                                           torch.device("cuda"), False)
    manifest = json.loads((compiled.bundle / "manifest.json").read_text())
    assert [spec.get("layout") for spec in manifest["outputs"]] == ["channels_last"]
    module, x = module.cuda(), x.cuda()
    out = torch.full(x.shape, float("nan"), device="cuda") \
        .contiguous(memory_format=torch.channels_last)
    compiled(x, out=out)
    torch.cuda.synchronize()
    assert torch.isfinite(out).all(), "an output element was not written"
    _assert_close_to_float64(out, module, x)
    got = compiled(x)
    assert got.is_contiguous(memory_format=torch.channels_last) and not got.is_contiguous()
    assert torch.equal(got, out), "two runs differ"
    with pytest.raises(solder.SolderError, match=r"out\[0\] must be a channels-last "
                       r"torch.float32 tensor of shape \(3, 64, 14, 14\)"):
        compiled(x, out=torch.empty(x.shape, device="cuda"))


def test_channels_last_model_through_the_backend():
    """A channels-last model (module.to(memory_format=torch.channels_last),
    as convnets are run for speed) through torch.compile(backend="solder"):
    the input is read as it is (on sm80's main loop) and the output
    returned in the traced graph's layout; its weights, channels-last too,
    are converted once and prepared once, so a later call runs the two conv
    kernels alone (and on the Hopper loop their input conversions). An
    in-place change to a weight is followed."""
    torch._dynamo.reset()
    module = workloads.randomize_norms(BasicBlock()).cuda().eval() \
        .to(memory_format=torch.channels_last)
    compiled = torch.compile(module, backend="solder")
    x = torch.rand(3, 64, 14, 14, device="cuda").contiguous(memory_format=torch.channels_last)

    def call():
        with torch.no_grad():
            return compiled(x)

    _kernels_of_call(call)
    later = _kernels_of_call(call)
    hopper = any(name.endswith("_conv_input_ndhwc") for name in later)
    # The Hopper main loop runs on a 9.0 GPU alone (solder.compile's sm_90a).
    assert hopper == (torch.cuda.get_device_capability() == (9, 0)), later
    _check_later_call(later, hopper)
    _assert_close_to_float64(call(), module, x)
    with torch.no_grad():
        module.conv1.weight.mul_(-1.0)
    again = _kernels_of_call(call)
    assert any(name.endswith("_weight_ktrsc") for name in again), again
    _assert_close_to_float64(call(), module, x)
    # Replaced through .data (the same tensor, the same version): the kept
    # copy follows its storage.
    with torch.no_grad():
        module.conv2.weight.data = (module.conv2.weight * 0.5).contiguous(
            memory_format=torch.channels_last)
    _assert_close_to_float64(call(), module, x)
