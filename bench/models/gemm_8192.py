"""GEMM 8192 x 8192 x 8192 alone, in KernelBench's form, for
`python -m solder.bench bench/models/gemm_8192.py`: eager's (cuBLAS) and
torch.compile's matmul against Solder's, TF32 off in ieee and on in tf32
(issue "Hopper-native main loops": >= cuBLAS TF32, >= 2x cuBLAS fp32)."""

import torch
from torch import nn

N = 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(N, N, bias=False)

    def forward(self, x):
        return self.linear(x)


def get_inputs():
    return [torch.rand(N, N)]


def get_init_inputs():
    return []
