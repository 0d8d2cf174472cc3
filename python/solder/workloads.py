"""The seed workloads of ../shared/workloads.md as PyTorch modules, in the
Model / get_inputs / get_init_inputs form the benchmark harness accepts.

Each workload is a class with a ``name``, the module, and input shapes;
``small=True`` gives a reduced shape for quick checks on the CPU.
GroupNorm weight and bias are randomized (never the default 1 and 0).
"""

import torch
import torch.nn as nn


def randomize_norms(module, generator=None):
    """Random, non-default affine parameters for every norm layer, so a test
    cannot pass on the default weight 1 and bias 0."""
    with torch.no_grad():
        for layer in module.modules():
            if isinstance(layer, (nn.GroupNorm, nn.LayerNorm,
                                  nn.modules.batchnorm._NormBase)):
                if getattr(layer, "weight", None) is not None:
                    layer.weight.copy_(1.0 + 0.5 * torch.randn(
                        layer.weight.shape, generator=generator))
                if getattr(layer, "bias", None) is not None:
                    layer.bias.copy_(0.5 * torch.randn(layer.bias.shape,
                                                       generator=generator))
    return module


class W1(nn.Module):
    """Conv3d -> GroupNorm -> mean."""

    def __init__(self, in_channels=3, out_channels=24, kernel_size=3, num_groups=8):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        x = self.conv(x)
        x = self.group_norm(x)
        return x.mean(dim=[1, 2, 3, 4])


class W2(nn.Module):
    """ConvTranspose3d -> ReLU -> GroupNorm."""

    def __init__(self, in_channels=64, out_channels=128, kernel_size=3, groups=8):
        super().__init__()
        self.conv_transpose = nn.ConvTranspose3d(in_channels, out_channels,
                                                 kernel_size, bias=False)
        self.relu = nn.ReLU()
        self.group_norm = nn.GroupNorm(groups, out_channels)

    def forward(self, x):
        return self.group_norm(self.relu(self.conv_transpose(x)))


class W3(nn.Module):
    """Conv2d -> GroupNorm -> Tanh -> HardSwish -> residual add -> LogSumExp."""

    def __init__(self, in_channels=8, out_channels=64, kernel_size=3, groups=16):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(groups, out_channels, eps=1e-5)
        self.tanh = nn.Tanh()
        self.hard_swish = nn.Hardswish()

    def forward(self, x):
        x_conv = self.conv(x)
        x_norm = self.group_norm(x_conv)
        x_tanh = self.tanh(x_norm)
        x_hard_swish = self.hard_swish(x_tanh)
        x_res = x_conv + x_hard_swish
        return torch.logsumexp(x_res, dim=1, keepdim=True)


# name -> (module class, input shape, reduced input shape for CPU tests)
WORKLOADS = {
    "w1": (W1, (128, 3, 24, 32, 32), (2, 3, 6, 8, 8)),
    "w2": (W2, (16, 64, 32, 32, 32), (2, 8, 3, 4, 4)),
    "w2_small": (W2, (16, 64, 8, 16, 16), (2, 8, 3, 4, 4)),
    "w3": (W3, (128, 8, 128, 128), (2, 8, 10, 10)),
}


def make(name, small=False, device="cpu", seed=0):
    """(module, inputs) of a workload: fresh random inputs from torch.rand
    (uniform [0, 1), as workloads.md says) and randomized norms."""
    module_class, shape, small_shape = WORKLOADS[name]
    generator = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    if name.startswith("w2") and small:
        module = module_class(in_channels=8, out_channels=16, groups=4)
    else:
        module = module_class()
    randomize_norms(module, generator)
    x = torch.rand(small_shape if small else shape, generator=generator)
    return module.to(device), (x.to(device),)
