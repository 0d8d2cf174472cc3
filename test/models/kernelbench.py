"""KernelBench level-2-style chains: a conv, conv_transpose or Linear followed
by the pointwise, norm, pool, reduction and softmax tails people fuse by hand
(the names follow KernelBench's problems; the sizes are its own, batch 16-128).

Each entry is a ``Chain``: its head layer, the layers and parameters its tail
uses, and the tail as a function of (module, head output, other inputs), so
an entry reads like the problem's ``forward``. ``make(name, size)`` builds it
(eval mode, random norm parameters and statistics, random parameters) with
inputs at the full size (GPU) or a small one the CPU reference interpreter
runs in about a second.

``EAGER`` lists, per chain, the ATen ops that torch.compile(backend="solder")
still leaves to eager PyTorch because the importer or the CUDA code generator
refuses them, with the first words of the reason; test_kernelbench.py asserts
exactly that, so the list shrinks as Solder grows.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F

from catalog import randomize


class Chain(nn.Module):
    def __init__(self, head, tail, **members):
        super().__init__()
        self.head = head
        for name, member in members.items():
            setattr(self, name, member)
        self.tail = tail

    def forward(self, x, *others):
        return self.tail(self, self.head(x), *others)


def p(*shape):
    """A parameter of the tail (a bias, a per-channel scale)."""
    return nn.Parameter(0.5 * torch.randn(shape))


def c1(i, o, k, **kw):
    return nn.Conv1d(i, o, k, **kw)


def c2(i, o, k, **kw):
    return nn.Conv2d(i, o, k, **kw)


def c3(i, o, k, **kw):
    return nn.Conv3d(i, o, k, **kw)


def t2(i, o, k, **kw):
    return nn.ConvTranspose2d(i, o, k, **kw)


def t3(i, o, k, **kw):
    return nn.ConvTranspose3d(i, o, k, **kw)


S2 = dict(stride=2, padding=1, output_padding=1)  # KernelBench's usual transposed conv
IMG, IMG_SMALL = (128, 3, 32, 32), (2, 3, 10, 10)
VOL, VOL_SMALL = (128, 3, 16, 32, 32), (2, 3, 6, 8, 8)
T2, T2_SMALL = (128, 32, 16, 16), (2, 32, 5, 5)
T3, T3_SMALL = (16, 32, 16, 32, 32), (2, 32, 3, 4, 4)


def _minus_spatial_mean(x):
    return x - torch.mean(x, dim=(2, 3, 4), keepdim=True)


# name -> (builder, full input shapes, small input shapes)
CHAINS = {
    # -- conv2d ------------------------------------------------------------
    "conv2d_relu_biasadd": (lambda: Chain(c2(3, 16, 3), lambda m, x: torch.relu(x) + m.bias,
                                          bias=p(16, 1, 1)), [IMG], [IMG_SMALL]),
    "conv2d_mish_mish": (lambda: Chain(c2(3, 16, 3), lambda m, x: F.mish(F.mish(x))),
                         [IMG], [IMG_SMALL]),
    "conv2d_instancenorm_divide": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: m.norm(x) / 2.0, norm=nn.InstanceNorm2d(16)),
        [IMG], [IMG_SMALL]),
    "conv2d_add_scale_sigmoid_groupnorm": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: m.norm(torch.sigmoid((x + m.bias) * m.scale)),
                      bias=p(16, 1, 1), scale=p(16, 1, 1), norm=nn.GroupNorm(8, 16)),
        [IMG], [IMG_SMALL]),
    "conv2d_min_tanh_tanh": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: torch.tanh(torch.tanh(torch.min(x, dim=1, keepdim=True)[0]))),
        [IMG], [IMG_SMALL]),
    "conv2d_min_add_multiply": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: (torch.min(x, torch.tensor(0.5)) + m.bias) * 2.0,
                      bias=p(16, 1, 1)),
        [IMG], [IMG_SMALL]),
    "conv2d_scaling_min": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: torch.min(x * 2.0, dim=1, keepdim=True)[0]),
        [IMG], [IMG_SMALL]),
    "conv2d_subtract_hardswish_maxpool_mish": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.mish(F.max_pool2d(F.hardswish(x - 0.5), 2))),
        [IMG], [IMG_SMALL]),
    "conv2d_subtract_tanh_subtract_avgpool": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.avg_pool2d(torch.tanh(x - 0.5) - 0.2, 2)),
        [IMG], [IMG_SMALL]),
    "conv2d_activation_batchnorm": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: m.bn(torch.tanh(F.softplus(x)) * x),
                      bn=nn.BatchNorm2d(16)),
        [IMG], [IMG_SMALL]),
    "conv2d_multiply_leakyrelu_gelu": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.gelu(F.leaky_relu(x * m.scale, 0.01)),
                      scale=p(16, 1, 1)),
        [IMG], [IMG_SMALL]),
    "conv2d_relu_hardswish": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: torch.relu(x) * torch.clamp((torch.relu(x) + 3) / 6, 0, 1)),
        [IMG], [IMG_SMALL]),
    "conv2d_avgpool_sigmoid_sum": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: torch.sum(torch.sigmoid(F.avg_pool2d(x, 2)), dim=[1, 2, 3])),
        [IMG], [IMG_SMALL]),
    "conv2d_gelu_globalavgpool": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.adaptive_avg_pool2d(F.gelu(x), 1)
                      .squeeze(-1).squeeze(-1)),
        [IMG], [IMG_SMALL]),
    "conv2d_divide_leakyrelu": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.leaky_relu(x / 2.0, 0.01)),
        [IMG], [IMG_SMALL]),
    "conv2d_batchnorm_scaling": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: m.bn(x) * 2.0, bn=nn.BatchNorm2d(16)),
        [IMG], [IMG_SMALL]),
    "conv2d_tanh_scaling_biasadd_max": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: F.max_pool2d(torch.tanh(x) * 2.0 + m.bias, 2),
                      bias=p(16, 1, 1)),
        [IMG], [IMG_SMALL]),
    "conv2d_groupnorm_scale_maxpool_clamp": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: torch.clamp(F.max_pool2d(m.norm(x) * m.scale, 2), 0.0, 1.0),
                      norm=nn.GroupNorm(8, 16), scale=p(16, 1, 1)),
        [IMG], [IMG_SMALL]),
    "conv2d_subtract_subtract_mish": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: F.mish(x - 0.5 - 0.2)), [IMG], [IMG_SMALL]),
    "conv2d_groupnorm_tanh_hardswish_residual_logsumexp": (
        lambda: Chain(c2(3, 16, 3),
                      lambda m, x: torch.logsumexp(x + F.hardswish(torch.tanh(m.norm(x))),
                                                   dim=1, keepdim=True),
                      norm=nn.GroupNorm(8, 16)),
        [IMG], [IMG_SMALL]),
    "conv2d_softmax_channels": (
        lambda: Chain(c2(3, 16, 3), lambda m, x: torch.softmax(x, dim=1) * 2.0),
        [IMG], [IMG_SMALL]),
    "conv2d_dilated_same_relu": (
        lambda: Chain(c2(3, 16, 3, padding="same", dilation=2), lambda m, x: torch.relu(x)),
        [IMG], [IMG_SMALL]),
    # -- conv3d ------------------------------------------------------------
    "conv3d_softmax_maxpool_maxpool": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: F.max_pool3d(F.max_pool3d(torch.softmax(x, dim=1), 2), 2)),
        [VOL], [VOL_SMALL]),
    "conv3d_relu_leakyrelu_gelu_sigmoid_biasadd": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.sigmoid(F.gelu(F.leaky_relu(torch.relu(x), 0.01)))
                      + m.bias, bias=p(16, 1, 1, 1)),
        [VOL], [VOL_SMALL]),
    "conv3d_divide_max_globalavgpool_biasadd_sum": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.sum(F.adaptive_avg_pool3d(F.max_pool3d(x / 2.0, 2), 1)
                                             + m.bias, dim=1),
                      bias=p(16, 1, 1, 1)),
        [VOL], [VOL_SMALL]),
    "conv3d_groupnorm_mean": (
        lambda: Chain(c3(3, 16, 3), lambda m, x: m.norm(x).mean(dim=[1, 2, 3, 4]),
                      norm=nn.GroupNorm(8, 16)),
        [VOL], [VOL_SMALL]),
    "conv3d_min_softmax": (
        lambda: Chain(c3(3, 16, 3), lambda m, x: torch.softmax(torch.min(x, dim=2)[0], dim=1)),
        [VOL], [VOL_SMALL]),
    "conv3d_hardswish_relu_softmax_mean": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.mean(torch.softmax(torch.relu(F.hardswish(x)), dim=1),
                                              dim=[2, 3, 4])),
        [VOL], [VOL_SMALL]),
    "conv3d_max_logsumexp_relu": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.relu(torch.logsumexp(F.max_pool3d(x, 2), dim=1,
                                                              keepdim=True))),
        [VOL], [VOL_SMALL]),
    "conv3d_mish_tanh": (lambda: Chain(c3(3, 16, 3), lambda m, x: torch.tanh(F.mish(x))),
                         [VOL], [VOL_SMALL]),
    "conv3d_scaling_tanh_multiply_sigmoid": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.sigmoid(torch.tanh(x * m.scale) * m.bias),
                      scale=p(16, 1, 1, 1), bias=p(16, 1, 1, 1)),
        [VOL], [VOL_SMALL]),
    "conv3d_multiply_instancenorm_clamp_multiply_max": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: torch.max(torch.clamp(m.norm(x * m.scale), -1.0, 1.0)
                                             * m.scale, dim=1)[0],
                      scale=p(16, 1, 1, 1), norm=nn.InstanceNorm3d(16)),
        [VOL], [VOL_SMALL]),
    "conv3d_groupnorm_min_clamp_dropout": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: m.drop(torch.clamp(torch.min(m.norm(x), torch.tensor(0.0)),
                                                      0.0, 1.0)),
                      norm=nn.GroupNorm(8, 16), drop=nn.Dropout(0.2)),
        [VOL], [VOL_SMALL]),
    "conv3d_leakyrelu_sum_clamp_gelu": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: F.gelu(torch.clamp(F.leaky_relu(x, 0.2) + m.bias, -1.0, 1.0)),
                      bias=p(16, 1, 1, 1)),
        [VOL], [VOL_SMALL]),
    "conv3d_batchnorm_subtract_mean": (
        lambda: Chain(c3(3, 16, 3),
                      lambda m, x: _minus_spatial_mean(m.bn(x)), bn=nn.BatchNorm3d(16)),
        [VOL], [VOL_SMALL]),
    # -- conv1d ------------------------------------------------------------
    "conv1d_batchnorm_gelu_mean": (
        lambda: Chain(c1(8, 32, 5, padding=2), lambda m, x: F.gelu(m.bn(x)).mean(dim=2),
                      bn=nn.BatchNorm1d(32)),
        [(64, 8, 512)], [(2, 8, 16)]),
    "conv1d_strided_dilated_silu_maxpool": (
        lambda: Chain(c1(8, 32, 3, stride=2, dilation=2), lambda m, x: F.max_pool1d(F.silu(x), 2)),
        [(64, 8, 512)], [(2, 8, 20)]),
    # -- conv_transpose2d --------------------------------------------------
    "convt2d_biasadd_clamp_scaling_clamp_divide": (
        lambda: Chain(t2(32, 16, 3, **S2),
                      lambda m, x: torch.clamp(torch.clamp(x + m.bias, 0.0, 1.0) * 2.0, 0.0, 1.0)
                      / 2.0, bias=p(16, 1, 1)),
        [T2], [T2_SMALL]),
    "convt2d_subtract_tanh": (
        lambda: Chain(t2(32, 16, 4, stride=2, padding=1, output_padding=1),
                      lambda m, x: torch.tanh(x - m.bias), bias=p(16, 1, 1)),
        [T2], [T2_SMALL]),
    "convt2d_maxpool_hardtanh_mean_tanh": (
        lambda: Chain(t2(32, 64, 4, stride=2, padding=1),
                      lambda m, x: torch.tanh(torch.mean(F.hardtanh(F.max_pool2d(x, 2, 2), -1, 1),
                                                         dim=(2, 3), keepdim=True))),
        [T2], [T2_SMALL]),
    "convt2d_batchnorm_tanh_maxpool_groupnorm": (
        lambda: Chain(t2(32, 64, 4, stride=2, padding=1),
                      lambda m, x: m.norm(F.max_pool2d(torch.tanh(m.bn(x)), 2)),
                      bn=nn.BatchNorm2d(64), norm=nn.GroupNorm(4, 64)),
        [T2], [T2_SMALL]),
    "convt2d_min_sum_gelu_add": (
        lambda: Chain(t2(32, 16, 3, **S2),
                      lambda m, x: F.gelu(torch.sum(torch.min(x, dim=1, keepdim=True)[0], dim=2,
                                                    keepdim=True)) + m.bias,
                      bias=p(1, 1, 1)),
        [T2], [T2_SMALL]),
    "convt2d_globalavgpool_biasadd_logsumexp_sum_multiply": (
        lambda: Chain(t2(32, 16, 3),
                      lambda m, x: torch.sum(torch.logsumexp(torch.mean(x, dim=(2, 3), keepdim=True)
                                                             + m.bias, dim=1, keepdim=True),
                                             dim=(2, 3)) * 10.0,
                      bias=p(16, 1, 1)),
        [T2], [T2_SMALL]),
    "convt2d_multiply_globalavgpool_globalavgpool_mean": (
        lambda: Chain(t2(32, 16, 3, **S2),
                      lambda m, x: torch.mean(torch.mean(torch.mean(x * 0.5, dim=[2, 3],
                                                                    keepdim=True),
                                                         dim=[2, 3], keepdim=True)),
                      ),
        [T2], [T2_SMALL]),
    "convt2d_softmax_biasadd_scaling_sigmoid": (
        lambda: Chain(t2(32, 16, 4, stride=2, padding=1, output_padding=1),
                      lambda m, x: torch.sigmoid((torch.softmax(x, dim=1) + m.bias) * 2.0),
                      bias=p(16, 1, 1)),
        [T2], [T2_SMALL]),
    "convt2d_add_min_gelu_multiply": (
        lambda: Chain(t2(32, 16, 4, stride=2),
                      lambda m, x: F.gelu(torch.min(x + 0.5, torch.tensor(0.0))) * 2.0),
        [T2], [T2_SMALL]),
    "convt2d_mish_add_hardtanh_scaling": (
        lambda: Chain(t2(32, 16, 3, **S2),
                      lambda m, x: F.hardtanh(F.mish(x) + 0.5, -1, 1) * 2.0),
        [T2], [T2_SMALL]),
    "convt2d_gelu_groupnorm": (
        lambda: Chain(t2(32, 64, 4, stride=2), lambda m, x: m.norm(F.gelu(x)),
                      norm=nn.GroupNorm(8, 64)),
        [T2], [T2_SMALL]),
    # -- conv_transpose3d --------------------------------------------------
    "convt3d_sum_layernorm_avgpool_gelu": (
        lambda: Chain(t3(32, 64, 3, **S2),
                      lambda m, x: F.gelu(F.avg_pool3d(m.norm(x + m.weight), 2)),
                      weight=p(1), norm=nn.LayerNorm(64)),
        [(16, 32, 16, 32, 32)], [(2, 32, 2, 4, 32)]),
    "convt3d_mean_add_softmax_tanh_scaling": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.tanh(torch.softmax(torch.mean(x, dim=2, keepdim=True)
                                                            + m.bias, dim=1)) * 2.0,
                      bias=p(1, 16, 1, 1, 1)),
        [T3], [T3_SMALL]),
    "convt3d_batchnorm_subtract": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: _minus_spatial_mean(m.bn(x)), bn=nn.BatchNorm3d(16)),
        [T3], [T3_SMALL]),
    "convt3d_sum_residualadd_multiply_residualadd": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: ((x + m.bias) + x) * x + x, bias=p(16, 1, 1, 1)),
        [T3], [T3_SMALL]),
    "convt3d_add_hardswish": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x, y: (x + y) * F.hardswish(x + y)),
        [T3, (16, 16, 32, 64, 64)], [T3_SMALL, (2, 16, 6, 8, 8)]),
    "convt3d_layernorm_gelu_scaling": (
        lambda: Chain(t3(32, 64, 4, stride=2, padding=1),
                      lambda m, x: F.gelu(m.norm(x)) * 2.0, norm=nn.LayerNorm(64)),
        [(16, 32, 16, 32, 32)], [(2, 32, 2, 4, 32)]),
    "convt3d_avgpool_clamp_softmax_multiply": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.softmax(torch.clamp(F.avg_pool3d(x, 2), 0.0, 1.0), dim=1)
                      * 2.0),
        [T3], [T3_SMALL]),
    "convt3d_softmax_sigmoid": (
        lambda: Chain(t3(32, 16, 3, **S2), lambda m, x: torch.sigmoid(torch.softmax(x, dim=1))),
        [T3], [T3_SMALL]),
    "convt3d_scaling_avgpool_biasadd_scaling": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: (F.avg_pool3d(x * 0.5, 2) + m.bias) * 1.5,
                      bias=p(16, 1, 1, 1)),
        [T3], [T3_SMALL]),
    "convt3d_logsumexp_hardswish_subtract_clamp_max": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.max(torch.clamp(
                          torch.logsumexp(x, dim=1, keepdim=True)
                          * torch.sigmoid(torch.logsumexp(x, dim=1, keepdim=True) + 3) / 6
                          - m.bias, -1, 1), dim=1, keepdim=True)[0],
                      bias=p(1, 1, 1, 1)),
        [T3], [T3_SMALL]),
    "convt3d_swish_groupnorm_hardswish": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: F.hardswish(m.norm(torch.sigmoid(x) * x)),
                      norm=nn.GroupNorm(4, 16)),
        [T3], [T3_SMALL]),
    "convt3d_relu_groupnorm": (
        lambda: Chain(t3(32, 16, 3, **S2), lambda m, x: m.norm(torch.relu(x)),
                      norm=nn.GroupNorm(4, 16)),
        [T3], [T3_SMALL]),
    "convt3d_batchnorm_avgpool_avgpool": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: F.avg_pool3d(F.avg_pool3d(m.bn(x), 2), 2),
                      bn=nn.BatchNorm3d(16)),
        [T3], [(2, 32, 4, 4, 4)]),
    "convt3d_leakyrelu_multiply_leakyrelu_max": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: F.max_pool3d(F.leaky_relu(F.leaky_relu(x, 0.2) * m.scale, 0.2),
                                                2),
                      scale=p(16, 1, 1, 1)),
        [T3], [T3_SMALL]),
    "convt3d_scale_batchnorm_globalavgpool": (
        lambda: Chain(t3(32, 16, 3), lambda m, x: F.adaptive_avg_pool3d(m.bn(x * 2.0), 1),
                      bn=nn.BatchNorm3d(16)),
        [T3], [T3_SMALL]),
    "convt3d_max_max_sum": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.sum(F.max_pool3d(F.max_pool3d(x, 2), 3), dim=1,
                                             keepdim=True)),
        [T3], [(2, 32, 6, 6, 6)]),
    "convt3d_maxpool_softmax_subtract_swish_max": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.max(F.silu(torch.softmax(F.max_pool3d(x, 2), dim=1)
                                                    - m.bias.view(1, -1, 1, 1, 1)), dim=1)[0],
                      bias=p(16)),
        [T3], [T3_SMALL]),
    "convt3d_multiply_max_globalavgpool_clamp": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.clamp(F.adaptive_avg_pool3d(F.max_pool3d(x * 0.5, 2), 1),
                                               0.0, 1.0)),
        [T3], [T3_SMALL]),
    "convt3d_clamp_min_divide": (
        lambda: Chain(t3(32, 16, 3, **S2),
                      lambda m, x: torch.clamp(x, min=-1.0) / 2.0),
        [T3], [T3_SMALL]),
    "convt3d_grouped_dilated_silu": (
        lambda: Chain(t3(32, 32, 3, stride=2, padding=2, dilation=2, groups=4, output_padding=1),
                      lambda m, x: F.silu(x)),
        [T3], [T3_SMALL]),
    # -- GEMMs -------------------------------------------------------------
    "gemm_subtract_multiply_relu": (
        lambda: Chain(nn.Linear(1024, 512), lambda m, x: torch.relu((x - 2.0) * 1.5)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_multiply_leakyrelu": (
        lambda: Chain(nn.Linear(1024, 512), lambda m, x: F.leaky_relu(x * 2.0, 0.1)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_divide_sum_scaling": (
        lambda: Chain(nn.Linear(1024, 512, bias=False),
                      lambda m, x: torch.sum(x / 2, dim=1, keepdim=True) * 1.5),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_groupnorm_hardtanh": (
        lambda: Chain(nn.Linear(1024, 512), lambda m, x: F.hardtanh(m.norm(x), -2, 2),
                      norm=nn.GroupNorm(8, 512)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_scale_batchnorm": (
        lambda: Chain(nn.Linear(1024, 512), lambda m, x: m.bn(x * m.scale),
                      scale=p(512), bn=nn.BatchNorm1d(512)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_swish_sum_groupnorm": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: m.norm(torch.sigmoid(x) * x + m.bias),
                      bias=p(512), norm=nn.GroupNorm(32, 512)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_scaling_residualadd": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: x * 0.5 + x.clone().detach()),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_logsumexp_leakyrelu_gelu": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: F.gelu(F.leaky_relu(torch.logsumexp(x, dim=1, keepdim=True),
                                                       0.01))),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_batchnorm_scaling_softmax": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: torch.softmax(m.bn(x) * 2.0, dim=1),
                      bn=nn.BatchNorm1d(512)),
        [(1024, 1024)], [(4, 1024)]),
    # KernelBench's Gemm_Max_Subtract_GELU without its max over dim 1 (after
    # which the subtraction of the row mean leaves zeros).
    "gemm_subtract_rowmean_gelu": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: F.gelu(x - x.mean(dim=1, keepdim=True))),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_sigmoid_sum": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x: torch.sum(torch.sigmoid(x), dim=1, keepdim=True)),
        [(1024, 1024)], [(4, 1024)]),
    "gemm_add_residual_input": (
        lambda: Chain(nn.Linear(1024, 512), lambda m, x, y: torch.relu(x + y) * y),
        [(1024, 1024), (1024, 512)], [(4, 1024), (4, 512)]),
    # KernelBench's Matmul_*: the product of two inputs; a module's (C, K)
    # weight multiplied on the right.
    "matmul_of_inputs_sigmoid_sum": (
        lambda: Chain(nn.Identity(),
                      lambda m, x, y: torch.sum(torch.sigmoid(x @ y), dim=1, keepdim=True)),
        [(1024, 1024), (1024, 512)], [(4, 1024), (1024, 512)]),
    "matmul_by_weight_scale_gelu": (
        lambda: Chain(nn.Identity(), lambda m, x: F.gelu((x @ m.w) * 0.5),
                      w=p(1024, 512)),
        [(1024, 1024)], [(4, 1024)]),
    "bmm_instancenorm_sum_residualadd_multiply": (
        lambda: Chain(nn.Linear(1024, 512),
                      lambda m, x, y: (m.norm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)
                                       + y) * y,
                      norm=nn.InstanceNorm2d(512)),
        [(1024, 1024), (1024, 512)], [(4, 1024), (4, 512)]),
}


# name -> {ATen op left to eager: the start of the reason}; chains not listed
# run entirely in Solder.
EAGER = {}


def make(name, size="full", seed=0):
    """(model, inputs) of chain ``name``: float32, eval mode, random
    parameters, norm parameters and statistics, uniform random inputs."""
    build, full, small = CHAINS[name]
    shapes = full if size == "full" else small
    torch.manual_seed(seed)
    model = randomize(build(), seed)
    generator = torch.Generator().manual_seed(seed + 1)
    return model, tuple(torch.randn(shape, generator=generator) for shape in shapes)
