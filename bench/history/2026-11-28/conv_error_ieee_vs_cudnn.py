"""Per conv: relative L2 vs float64 of Solder's ieee conv / input gradient against cuDNN's fp32 (TF32 off)."""
import sys, torch, solder
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
def rel(a, b): return ((a.double() - b).norm() / b.norm()).item()
class T(torch.nn.Module):
    def __init__(self, s, p, op, transposed):
        super().__init__(); self.s, self.p, self.op, self.t = s, p, op, transposed
    def forward(self, g, w):
        if self.t:
            return torch.nn.functional.conv_transpose2d(g, w, None, self.s, self.p, self.op)
        return torch.nn.functional.conv2d(g, w, None, self.s, self.p)
gen = torch.Generator("cuda").manual_seed(0)
# (N, Cin, Cout, H, k, stride, pad): the forward conv; its input gradient is the transposed conv.
for n, c, k, h, size, s, p in [(32, 64, 64, 56, 3, 1, 1), (32, 128, 128, 28, 3, 1, 1), (32, 256, 256, 14, 3, 1, 1),
                               (32, 512, 512, 7, 3, 1, 1), (32, 256, 512, 14, 3, 2, 1), (32, 512, 2048, 7, 1, 1, 0),
                               (32, 2048, 512, 7, 1, 1, 0), (32, 256, 64, 56, 1, 1, 0)]:
    ho = (h + 2 * p - size) // s + 1
    w = torch.randn(k, c, size, size, device="cuda", generator=gen) * (2 / (c * size * size)) ** 0.5
    for transposed in (False, True):
        if transposed:
            x = torch.randn(n, k, ho, ho, device="cuda", generator=gen)
            op = h - ((ho - 1) * s - 2 * p + size)
        else:
            x = torch.relu(torch.randn(n, c, h, h, device="cuda", generator=gen)); op = 0
        m = T(s, p, op, transposed)
        exact = m(x.double(), w.double())
        cudnn = m(x, w)
        compiled = solder.compile(m, [x, w], "ieee", quiet=True)
        got = compiled(x, w)
        torch.cuda.synchronize()
        print(f"{'dgrad' if transposed else 'fwd  '} N{n} C{c}->K{k} {h}x{h} k{size} s{s}: "
              f"solder {rel(got, exact):.2e} cudnn {rel(cudnn, exact):.2e} ratio {rel(got, exact) / rel(cudnn, exact):.2f}", flush=True)
