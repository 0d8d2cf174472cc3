"""What cuBLAS's TF32 GEMM does to fp32 operands: its error against float64
next to truncation's and rounding's (emulated in float64), on positive
inputs, where truncation's bias adds up."""
import torch
torch.manual_seed(0)
def bits(x, mode):
    i = x.view(torch.int32)
    if mode == "round":
        i = (i + 0x1000) & ~0x1fff
    else:
        i = i & ~0x1fff
    return i.view(torch.float32)
for n in (2048, 8192):
    a = torch.rand(n, n, device="cuda")
    b = torch.rand(n, n, device="cuda")
    want = a.double() @ b.double()
    rel = lambda got: ((got.double() - want).norm() / want.norm()).item()
    torch.backends.cuda.matmul.allow_tf32 = True
    tf32 = a @ b
    torch.backends.cuda.matmul.allow_tf32 = False
    fp32 = a @ b
    print(f"n={n} cuBLAS TF32 rel L2 {rel(tf32):.2e}; fp32 {rel(fp32):.2e}; "
          f"emulated truncation {rel(bits(a, 'trunc').double() @ bits(b, 'trunc').double()):.2e}; "
          f"rounding {rel(bits(a, 'round').double() @ bits(b, 'round').double()):.2e}")
