"""PyTorch's OpInfo sample inputs (``op_db`` of
torch.testing._internal.common_methods_invocations) for the ops Solder's
importer claims, each sample a one-op module: a test source that PyTorch
keeps up to date with every argument form its ops accept.

``samples(name)`` lists a claimed op's float32 samples; ``check(op, sample)``
compiles the sample's module for the CPU backend (after the CUDA code
generator has seen it, ``solder-compile --emit-cuda-only``) and compares it
with the op in float64. The sample's tensor arguments are parameters for the
layers (conv, conv_transpose, Linear, norms: as in a model) and further
inputs for everything else.
"""

import copy
import re
import zlib

import torch
import torch.nn as nn

from compare import error_bound, rel_l2, through_cuda_codegen

# OpInfo names of what the importer claims (docs/USER_GUIDE.md's table).
CLAIMED = """
nn.functional.conv1d nn.functional.conv2d nn.functional.conv3d
nn.functional.conv_transpose1d nn.functional.conv_transpose2d nn.functional.conv_transpose3d
nn.functional.group_norm nn.functional.layer_norm nn.functional.instance_norm
nn.functional.batch_norm nn.functional.linear mm matmul
nn.functional.max_pool1d nn.functional.max_pool2d nn.functional.max_pool3d
nn.functional.avg_pool1d nn.functional.avg_pool2d nn.functional.avg_pool3d
nn.functional.adaptive_avg_pool1d nn.functional.adaptive_avg_pool2d nn.functional.adaptive_avg_pool3d
nn.functional.adaptive_max_pool1d nn.functional.adaptive_max_pool2d nn.functional.adaptive_max_pool3d
nn.functional.relu nn.functional.relu6 nn.functional.elu nn.functional.gelu nn.functional.silu
nn.functional.mish nn.functional.hardswish nn.functional.hardsigmoid nn.functional.hardtanh
nn.functional.softplus nn.functional.leaky_relu
sigmoid tanh exp log abs neg sqrt rsqrt clamp clamp_min clamp_max square reciprocal
add sub mul div.no_rounding_mode true_divide maximum minimum pow rsub
sum mean amax amin prod logsumexp max.reduction_with_dim min.reduction_with_dim
max.reduction_no_dim min.reduction_no_dim softmax log_softmax
""".split()

# Ops whose tensor arguments are a layer's parameters and statistics.
LAYERS = re.compile(r"nn\.functional\.(conv|linear|.*_norm)")

RELATIVE_L2 = 1e-5

# Why Solder refuses some samples, each pinned (test_opinfo.py fails on any
# other refusal): the first line of the error without its location.
KNOWN_REFUSALS = [
    # Kernels are launched over elements; PyTorch's samples include empty tensors.
    r"'aten\.[\w.]+' (takes '\w+'|gives a tensor) of shape \([\d, ]*\), which is empty; "
    r"Solder compiles tensors that hold elements$",
    # A reduction over a 0-dim tensor, as a module on its own, returns its
    # input (the test takes this one for reductions only).
    r"the module returns its input or parameter '\w+' unchanged; there is nothing to "
    r"compile for it$",
    # Integer tensors as clamp's bounds.
    r"example input \d is torch\.int\d+; Solder compiles float32 models for now$",
    # Values PyTorch takes without complaint but that mean nothing.
    r"'aten\.avg_pool\dd' with divisor_override=-\d+: Solder divides a window's sum by a "
    r"positive count$",
    r"'aten\.(group|layer)_norm' with eps=-[\d.e+-]+: Solder normalizes with an epsilon of 0 "
    r"or more$",
    # Linear and matmul run as a GEMM by a 2-D weight.
    r"'aten\.matmul' with a \d-D second operand: Solder runs a matmul as a Linear, whose "
    r"second operand is 2-D$",
    r"'aten\.linear' by a 1-D weight \(a dot product over the last dim\): Solder runs Linear "
    r"and matmul by a 2-D weight$",
]
# The ops for which a refusal may say the module returns its input unchanged.
REDUCTIONS = re.compile(r"(sum|mean|amax|amin|prod|logsumexp|max|min)(\.|$)")


def op_infos():
    from torch.testing._internal.common_methods_invocations import op_db
    found = {o.name + (f".{o.variant_test_name}" if o.variant_test_name else ""): o
             for o in op_db}
    return {name: found[name] for name in CLAIMED}


def samples(info):
    """The op's float32 samples, drawn from a generator seeded by the op's
    name: the same values whatever other tests ran first."""
    torch.manual_seed(zlib.crc32(info.name.encode() + info.variant_test_name.encode()))
    return list(info.sample_inputs("cpu", torch.float32, requires_grad=False))


class OneOp(nn.Module):
    """op(input, *args, **kwargs) with the sample's tensors as parameters
    (``as_parameters``) or as further inputs, in the order they appear."""

    def __init__(self, op, sample, as_parameters):
        super().__init__()
        self.op, self.as_parameters = op, as_parameters
        self.args, self.kwargs = list(sample.args), dict(sample.kwargs)
        self.tensors = []  # (where, key) of each tensor argument
        for where, items in (("args", enumerate(self.args)), ("kwargs", self.kwargs.items())):
            for key, value in list(items):
                if isinstance(value, torch.Tensor):
                    self.tensors.append((where, key))
                    if as_parameters:
                        self.register_buffer(f"t{len(self.tensors)}", value.clone())

    def extra_inputs(self, sample):
        if self.as_parameters:
            return []
        return [getattr(sample, where)[key] for where, key in self.tensors]

    def forward(self, x, *extra):
        args, kwargs = list(self.args), dict(self.kwargs)
        values = [getattr(self, f"t{i + 1}") for i in range(len(self.tensors))] \
            if self.as_parameters else extra
        for (where, key), value in zip(self.tensors, values):
            (args if where == "args" else kwargs)[key] = value
        out = self.op(x, *args, **kwargs)
        return out[0] if isinstance(out, (tuple, list)) else out


def check(name, info, sample):
    """('correct', error) or ('refused', first line without the location);
    raises AssertionError on a wrong answer or a refusal off the op's line."""
    import solder
    from solder.api import compile_imported
    from solder.importer import import_module

    module = OneOp(info.op, sample, bool(LAYERS.match(name))).eval()
    inputs = [sample.input] + module.extra_inputs(sample)
    with torch.no_grad():
        reference = copy.deepcopy(module).double()(*(x.double() for x in inputs))
        eager = module(*inputs)
    try:
        imported = import_module(module, inputs)
        through_cuda_codegen(imported.mlir)
        compiled = compile_imported(imported, "ieee", "cpu", "auto", True, None)
        with torch.no_grad():
            got = compiled(*inputs)
    except solder.SolderError as error:
        first = str(error).splitlines()[0]
        if first.startswith("example input "):  # about the caller's tensor, not an op
            return "refused", first
        located = re.search(r" \(opinfo_samples\.py:\d+\)$", first)
        assert located, f"a refusal not on the op's line: {first!r}"
        return "refused", first[:located.start()]
    assert tuple(got.shape) == tuple(reference.shape), (tuple(got.shape), reference.shape)
    # Against float64 where float32 can hold it: a product that float32
    # rounds to 0 or infinity is eager float32's too.
    reference = torch.where(torch.isfinite(eager) & (eager != 0), reference.double(),
                            eager.double())
    got = got.double()
    nan = torch.isnan(reference)
    assert torch.equal(torch.isnan(got), nan), "NaN elsewhere than PyTorch's"
    finite = torch.isfinite(reference)
    assert torch.equal(got[~finite & ~nan], reference[~finite & ~nan]), "infinities differ"
    error = rel_l2(got[finite], reference[finite])
    bound = error_bound(RELATIVE_L2, rel_l2(eager[finite], reference[finite]))
    assert error <= bound, f"rel L2 {error:.3g} > {bound:.3g}"
    return "correct", error
