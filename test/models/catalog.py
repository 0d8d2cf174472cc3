"""Whole models Solder is asked to run: torchvision's ResNets, and blocks
written in the styles real networks are built of (diffusion UNets and VAE
decoders, squeeze-excitation, ResNeXt's grouped convs, MobileNet's inverted
residuals, ConvNeXt, a vision transformer's MLP, a KernelBench-style GEMM
chain, KernelBench-style strided conv_transpose chains).

Each entry builds an eval-mode float32 model with random, non-default norm
parameters and BatchNorm running statistics, and its input, at the size the
GPU tests and benchmarks use (``size="full"``: the issue's sizes) or at a size
the CPU reference interpreter runs in seconds (``size="small"``). ``EAGER``
lists, per model, the ATen ops the CUDA code generator still leaves to eager
PyTorch and why; test_models.py asserts exactly that, so the list shrinks as
Solder grows.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


def randomize(model, seed=0):
    """Random affine parameters for every norm and random running statistics
    for every BatchNorm (a test must not pass on weight 1, bias 0, mean 0,
    variance 1)."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for layer in model.modules():
            if isinstance(layer, (nn.GroupNorm, nn.LayerNorm, nn.modules.batchnorm._NormBase)):
                if getattr(layer, "weight", None) is not None:
                    layer.weight.copy_(1.0 + 0.3 * torch.randn(layer.weight.shape,
                                                               generator=generator))
                if getattr(layer, "bias", None) is not None:
                    layer.bias.copy_(0.3 * torch.randn(layer.bias.shape, generator=generator))
            if isinstance(layer, nn.modules.batchnorm._BatchNorm):
                layer.running_mean.copy_(0.2 * torch.randn(layer.running_mean.shape,
                                                           generator=generator))
                layer.running_var.copy_(0.5 + torch.rand(layer.running_var.shape,
                                                         generator=generator))
    return model.eval()


# -- diffusion UNet and VAE decoder blocks ---------------------------------

class ResnetBlock(nn.Module):
    """Pre-activation ResnetBlock of diffusion UNets and VAEs: GroupNorm(32)
    -> SiLU -> conv3x3 -> GroupNorm -> SiLU -> conv3x3, plus the skip (a 1x1
    conv where the channels change)."""

    def __init__(self, channels, out_channels=None, groups=32):
        super().__init__()
        out_channels = out_channels or channels
        self.norm1 = nn.GroupNorm(groups, channels)
        self.conv1 = nn.Conv2d(channels, out_channels, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, out_channels)
        self.conv2 = nn.Conv2d(out_channels, out_channels, 3, padding=1)
        self.skip = nn.Conv2d(channels, out_channels, 1) if out_channels != channels \
            else nn.Identity()

    def forward(self, x):
        h = self.conv1(F.silu(self.norm1(x)))
        h = self.conv2(F.silu(self.norm2(h)))
        return self.skip(x) + h


class UNetDown(nn.Module):
    """A diffusion UNet's down path: ResnetBlocks at 320, 640 and 1280
    channels, each level entered by a stride-2 conv."""

    def __init__(self, widths=(320, 640, 1280)):
        super().__init__()
        layers = [nn.Conv2d(4, widths[0], 3, padding=1)]
        previous = widths[0]
        for level, width in enumerate(widths):
            if level:
                layers.append(nn.Conv2d(previous, previous, 3, stride=2, padding=1))
            layers.append(ResnetBlock(previous, width))
            previous = width
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class VaeDecoderUp(nn.Module):
    """A VAE decoder's up step: ResnetBlock at 512 channels, nearest 2x
    upsampling as a stride-2 transposed conv (kernel 2, fixed to replicate),
    conv, then a ResnetBlock down to 256."""

    def __init__(self, channels=512, out_channels=256):
        super().__init__()
        self.block1 = ResnetBlock(channels)
        self.up = nn.ConvTranspose2d(channels, channels, 2, stride=2, groups=channels,
                                     bias=False)
        with torch.no_grad():
            self.up.weight.fill_(1.0)
        self.up.weight.requires_grad_(False)
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.block2 = ResnetBlock(channels, out_channels)

    def forward(self, x):
        return self.block2(self.conv(self.up(self.block1(x))))


# -- blocks of classification networks ---------------------------------------

class SqueezeExcitation(nn.Module):
    """global average pool -> 1x1 conv -> ReLU -> 1x1 conv -> sigmoid ->
    scale of the block's input (SENet, EfficientNet, MobileNetV3)."""

    def __init__(self, channels, squeezed):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(channels, squeezed, 1)
        self.fc2 = nn.Conv2d(squeezed, channels, 1)

    def forward(self, x):
        scale = torch.sigmoid(self.fc2(F.relu(self.fc1(self.pool(x)))))
        return x * scale


class SEResidual(nn.Module):
    """SE-ResNet's basic block: conv -> BN -> ReLU -> conv -> BN -> SE, plus
    the identity, then ReLU; three of them and a classifier head."""

    def __init__(self, channels=128, blocks=3, classes=100):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU())
        self.blocks = nn.ModuleList(nn.ModuleDict({
            "conv1": nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            "bn1": nn.BatchNorm2d(channels),
            "conv2": nn.Conv2d(channels, channels, 3, padding=1, bias=False),
            "bn2": nn.BatchNorm2d(channels),
            "se": SqueezeExcitation(channels, channels // 8)}) for _ in range(blocks))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, classes)

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            h = F.relu(block["bn1"](block["conv1"](x)))
            h = block["se"](block["bn2"](block["conv2"](h)))
            x = F.relu(x + h)
        return self.fc(torch.flatten(self.pool(x), 1))


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand -> BN -> ReLU6 -> depthwise 3x3 -> BN
    -> ReLU6 -> 1x1 project -> BN, plus the input; a stack of them."""

    def __init__(self, channels=32, expand=6, blocks=3):
        super().__init__()
        hidden = channels * expand
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU6())
        self.blocks = nn.ModuleList(nn.Sequential(
            nn.Conv2d(channels, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, channels, 1, bias=False), nn.BatchNorm2d(channels))
            for _ in range(blocks))

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = x + block(x)
        return x


class ConvNeXtBlock(nn.Module):
    """depthwise 7x7 conv -> permute to channels-last -> LayerNorm over C ->
    Linear -> GELU -> Linear -> layer scale -> permute back -> residual."""

    def __init__(self, channels=96):
        super().__init__()
        self.dwconv = nn.Conv2d(channels, channels, 7, padding=3, groups=channels)
        self.norm = nn.LayerNorm(channels, eps=1e-6)
        self.pwconv1 = nn.Linear(channels, 4 * channels)
        self.pwconv2 = nn.Linear(4 * channels, channels)
        self.gamma = nn.Parameter(0.5 + torch.rand(channels))

    def forward(self, x):
        h = self.dwconv(x).permute(0, 2, 3, 1)
        h = self.pwconv2(F.gelu(self.pwconv1(self.norm(h))))
        return x + (self.gamma * h).permute(0, 3, 1, 2)


class DepthwiseBnAct(nn.Module):
    """A depthwise conv -> BatchNorm -> activation: MobileNet's 3x3 (ReLU6),
    ConvNeXt's 7x7 (GELU here, for a BN + act chain)."""

    def __init__(self, channels, kernel, stride=1, act=nn.ReLU6):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel, stride=stride, padding=kernel // 2,
                              groups=channels, bias=False)
        self.norm = nn.BatchNorm2d(channels)
        self.act = act()

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


# -- GEMM chains ------------------------------------------------------------

class ViTMlp(nn.Module):
    """A vision transformer's MLP block on its tokens (batch, tokens,
    features): LayerNorm -> Linear -> GELU -> Linear -> residual."""

    def __init__(self, features=768):
        super().__init__()
        self.norm = nn.LayerNorm(features, eps=1e-6)
        self.fc1 = nn.Linear(features, 4 * features)
        self.fc2 = nn.Linear(4 * features, features)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class GemmGroupNormSwish(nn.Module):
    """KernelBench level 2's Gemm_GroupNorm_Swish_Multiply_Swish: Linear ->
    GroupNorm -> x * sigmoid(x) -> times a per-feature weight -> x *
    sigmoid(x)."""

    def __init__(self, in_features=1024, out_features=4096, groups=32):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.norm = nn.GroupNorm(groups, out_features)
        self.weight = nn.Parameter(1.0 + 0.3 * torch.randn(out_features))

    def forward(self, x):
        x = self.norm(self.gemm(x))
        x = x * torch.sigmoid(x) * self.weight
        return x * torch.sigmoid(x)


# -- KernelBench-style strided conv_transpose chains ----------------------

class ConvTransposeChain(nn.Module):
    """A conv_transpose of stride 2 followed by the tail KernelBench level 2
    puts after it: ``tail(y)`` of the conv's output y."""

    def __init__(self, dims, in_channels, out_channels, kernel, tail, padding=1,
                 output_padding=0):
        super().__init__()
        conv = nn.ConvTranspose2d if dims == 2 else nn.ConvTranspose3d
        self.conv = conv(in_channels, out_channels, kernel, stride=2, padding=padding,
                         output_padding=output_padding)
        self.tail = tail(out_channels)

    def forward(self, x):
        return self.tail(self.conv(x))


class GeluGroupNorm(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.norm = nn.GroupNorm(8, channels)

    def forward(self, y):
        return self.norm(F.gelu(y))


class MishAddHardtanhScale(nn.Module):
    def __init__(self, channels):
        super().__init__()

    def forward(self, y):
        return F.hardtanh(F.mish(y) + 0.5, -1.0, 1.0) * 2.0


class SigmoidMean(nn.Module):
    def __init__(self, channels):
        super().__init__()

    def forward(self, y):
        return torch.sigmoid(y).mean(dim=(2, 3))


def _convt(dims, in_channels, out_channels, kernel, tail, **options):
    return lambda: ConvTransposeChain(dims, in_channels, out_channels, kernel, tail, **options)


def _batchnorm_relu(channels):
    return nn.Sequential(nn.BatchNorm3d(channels), nn.ReLU())


def _resnext_block():
    # torchvision's ResNeXt-50 32x4d layer3 block: 32 groups of 16 channels.
    from torchvision.models.resnet import Bottleneck
    return Bottleneck(1024, 256, groups=32, base_width=4)


def _torchvision(name):
    def build():
        import torchvision
        return getattr(torchvision.models, name)(num_classes=1000)
    return build


# name -> (builder, full input shape, small input shape)
MODELS = {
    "resnet18": (_torchvision("resnet18"), (32, 3, 224, 224), (2, 3, 64, 64)),
    "resnet50": (_torchvision("resnet50"), (32, 3, 224, 224), (1, 3, 64, 64)),
    "unet_down": (UNetDown, (4, 4, 64, 64), None),
    "unet_block_320": (lambda: ResnetBlock(320), (4, 320, 64, 64), None),
    "unet_block_640": (lambda: ResnetBlock(640), (4, 640, 32, 32), None),
    "unet_block_1280": (lambda: ResnetBlock(1280), (4, 1280, 16, 16), None),
    "vae_block_512": (lambda: ResnetBlock(512), (1, 512, 128, 128), None),
    "vae_decoder_up": (VaeDecoderUp, (1, 512, 64, 64), None),
    "resnet_block_small": (lambda: ResnetBlock(64, 96, groups=8), None, (2, 64, 12, 12)),
    "se_resnet": (SEResidual, (32, 3, 56, 56), (2, 3, 16, 16)),
    "resnext_block": (_resnext_block, (32, 1024, 14, 14), (1, 1024, 4, 5)),
    "inverted_residual": (InvertedResidual, (32, 3, 224, 224), (2, 3, 32, 32)),
    "convnext_block": (ConvNeXtBlock, (32, 96, 56, 56), (2, 96, 14, 14)),
    # Depthwise conv + BN + act at MobileNetV2's and ConvNeXt's sizes.
    "depthwise3x3_bn_relu6": (lambda: DepthwiseBnAct(144, 3), (32, 144, 56, 56),
                              (2, 144, 9, 11)),
    "depthwise3x3_s2_bn_relu6": (lambda: DepthwiseBnAct(96, 3, stride=2),
                                 (32, 96, 112, 112), (2, 96, 13, 10)),
    "depthwise7x7_bn_gelu": (lambda: DepthwiseBnAct(96, 7, act=nn.GELU), (32, 96, 56, 56),
                             (2, 96, 12, 9)),
    "vit_mlp": (ViTMlp, (32, 197, 768), (2, 5, 768)),
    "gemm_groupnorm_swish": (GemmGroupNormSwish, (4096, 1024), (16, 1024)),
    # KernelBench level 2's ConvTranspose2d_GELU_GroupNorm (kernel 4), at the
    # 64 -> 128 channels of its larger chains.
    "convt2d_gelu_groupnorm": (_convt(2, 64, 128, 4, GeluGroupNorm), (32, 64, 64, 64),
                               (2, 64, 5, 6)),
    # ConvTranspose3d_BatchNorm_...: kernel 3, output padding 1 (2x upsampling).
    "convt3d_batchnorm_relu": (_convt(3, 32, 64, 3, _batchnorm_relu, output_padding=1),
                               (16, 32, 16, 32, 32), (2, 32, 3, 4, 5)),
    # ConvTranspose2d_Mish_Add_Hardtanh_Scaling, at its sizes.
    "convt2d_mish_add_hardtanh_scale": (_convt(2, 32, 64, 4, MishAddHardtanhScale,
                                               output_padding=1),
                                        (128, 32, 16, 16), (2, 32, 5, 4)),
    # A global average pool as the reduction tail.
    "convt2d_sigmoid_mean": (_convt(2, 16, 32, 4, SigmoidMean), (64, 16, 64, 64),
                             (2, 16, 6, 6)),
}

# The ops the CUDA code generator leaves to eager today, and why (the
# backend's reasons, without the user's line): none. Every op of each model
# runs in Solder kernels; a model that regresses shows its eager ops here.
# Every kind of op each model has, as the backend's reports name them: all
# must run in Solder kernels (test_models.py, test_models_gpu.py).
_BN = "_native_batch_norm_legit_no_training"
_RESNET_BLOCK = {"conv2d", "group_norm", "silu", "add"}
IN_SOLDER = {
    "resnet18": {"conv2d", _BN, "relu", "add", "max_pool2d", "adaptive_avg_pool2d", "linear"},
    "resnet50": {"conv2d", _BN, "relu", "add", "max_pool2d", "adaptive_avg_pool2d", "linear"},
    "se_resnet": {"conv2d", _BN, "relu", "add", "adaptive_avg_pool2d", "sigmoid", "mul",
                  "linear"},
    "inverted_residual": {"conv2d", _BN, "hardtanh", "add"},
    "resnext_block": {"conv2d", _BN, "relu", "add"},
    "resnet_block_small": _RESNET_BLOCK,
    "unet_down": _RESNET_BLOCK,
    "unet_block_320": _RESNET_BLOCK,
    "unet_block_640": _RESNET_BLOCK,
    "unet_block_1280": _RESNET_BLOCK,
    "vae_block_512": _RESNET_BLOCK,
    "vae_decoder_up": _RESNET_BLOCK | {"conv_transpose2d"},
    "convnext_block": {"conv2d", "permute", "layer_norm", "linear", "gelu", "mul", "add"},
    "depthwise3x3_bn_relu6": {"conv2d", _BN, "hardtanh"},
    "depthwise3x3_s2_bn_relu6": {"conv2d", _BN, "hardtanh"},
    "depthwise7x7_bn_gelu": {"conv2d", _BN, "gelu"},
    "vit_mlp": {"layer_norm", "linear", "gelu", "add"},
    "gemm_groupnorm_swish": {"linear", "group_norm", "sigmoid", "mul"},
    "convt2d_gelu_groupnorm": {"conv_transpose2d", "gelu", "group_norm"},
    "convt3d_batchnorm_relu": {"conv_transpose3d", _BN, "relu"},
    "convt2d_mish_add_hardtanh_scale": {"conv_transpose2d", "mish", "add", "hardtanh", "mul"},
    "convt2d_sigmoid_mean": {"conv_transpose2d", "sigmoid", "mean"},
}

EAGER = {
    "resnet18": {},
    "resnet50": {},
    "se_resnet": {},
    "inverted_residual": {},
    "resnext_block": {},
    "resnet_block_small": {},
    "unet_down": {},
    "unet_block_320": {},
    "unet_block_640": {},
    "unet_block_1280": {},
    "vae_block_512": {},
    "vae_decoder_up": {},
    "convnext_block": {},
    "depthwise3x3_bn_relu6": {},
    "depthwise3x3_s2_bn_relu6": {},
    "depthwise7x7_bn_gelu": {},
    "vit_mlp": {},
    "gemm_groupnorm_swish": {},
    "convt2d_gelu_groupnorm": {},
    "convt3d_batchnorm_relu": {},
    "convt2d_mish_add_hardtanh_scale": {},
    "convt2d_sigmoid_mean": {},
}


# The forward ops a training graph (under autograd) still leaves to eager,
# and why; every other model's training forward runs wholly in Solder.
TRAINING_EAGER = {
    # The backward of max pooling reads the indices, which Solder does not compute.
    "resnet18": {"max_pool2d_with_indices"},
    "resnet50": {"max_pool2d_with_indices"},
    # The residual add of the Linear's permuted output and the block's input.
    "convnext_block": {"add"},
}

# The op a norm of IN_SOLDER is in a training forward graph, which must run
# in Solder (its saved statistics come out of Solder's kernels).
TRAINING_NORMS = {
    _BN: "_native_batch_norm_legit_functional",
    "group_norm": "native_group_norm",
    "layer_norm": "native_layer_norm",
}


def make(name, size="full", seed=0):
    """(model, input) of catalog entry ``name``: float32, eval mode, random
    norm parameters and statistics, a uniform random input."""
    build, full, small = MODELS[name]
    shape = full if size == "full" else small
    if shape is None:
        raise ValueError(f"{name} has no {size} size")
    torch.manual_seed(seed)
    model = randomize(build(), seed)
    x = torch.randn(shape, generator=torch.Generator().manual_seed(seed + 1))
    return model, x
