"""solder-interp (the CPU reference interpreter, float64) against PyTorch in
float64, op by op, on the reduced seed workloads (also after the pass
pipeline), on NaN inputs, and on bad inputs.

Every case writes a small .mlir and fresh random .npy inputs (float64, seeded
per case) to tmp_path, runs solder-interp and compares each output with the
PyTorch result: NaN where PyTorch has NaN, elsewhere
max |actual - expected| <= 1e-9 * (1 + max |expected|).

Result types are taken from the PyTorch result, so the dialect's shape
verifiers are checked against PyTorch's shapes on the way.
"""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

torch.set_grad_enabled(False)

RELATIVE_TOLERANCE = 1e-9


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def ty(shape, element="f32"):
    """The MLIR tensor type of `shape`: tensor<2x3xf32>, tensor<f32>."""
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def ilist(values):
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def f32(value):
    """`value` rounded to float32, as an F32Attr holds it."""
    return float(np.float32(value))


def fattr(value):
    """An MLIR float literal (needs a '.') of `value`."""
    return f"{value:.9e}"


def to_torch(array):
    return torch.from_numpy(np.asarray(array, dtype=np.float64))


def as_numpy(value):
    if isinstance(value, torch.Tensor):
        assert value.dtype == torch.float64
        return value.numpy()
    return np.asarray(value, dtype=np.float64)


def assert_close(actual, expected, what="output"):
    expected = as_numpy(expected)
    assert actual.dtype == np.float64, f"{what}: dtype {actual.dtype}"
    assert actual.shape == expected.shape, (
        f"{what}: shape {actual.shape}, expected {expected.shape}")
    nan_actual, nan_expected = np.isnan(actual), np.isnan(expected)
    if (nan_actual != nan_expected).any():
        where = np.argwhere(nan_actual != nan_expected)[:5].tolist()
        pytest.fail(f"{what}: NaN mismatch at {where} (first 5): actual "
                    f"{[actual[tuple(i)] for i in where]}, expected "
                    f"{[expected[tuple(i)] for i in where]}")
    ok = ~nan_expected
    a, e = actual[ok], expected[ok]
    if a.size == 0:
        return
    # Equal infinities are no error; unequal ones an infinite one.
    with np.errstate(invalid="ignore"):
        diff = np.where(a == e, 0.0, np.abs(a - e))
    finite = np.isfinite(e)
    scale = np.abs(e[finite]).max() if finite.any() else 0.0
    bound = RELATIVE_TOLERANCE * (1.0 + scale)
    worst = int(np.argmax(diff))
    assert diff[worst] <= bound, (
        f"{what}: max abs err {diff[worst]:.3e} > {bound:.3e} at flat index "
        f"{worst}: actual {a[worst]!r}, expected {e[worst]!r}")


def single_op_module(op, inputs, result_shape):
    """A function @f taking `inputs` and returning the result of `op`.

    `op` may use $0, $1, ... for the operands, $t0, $t1, ... for their types,
    $r for the result type and $T for the functional type
    `(t0, t1, ...) -> r`."""
    names = [f"%a{i}" for i in range(len(inputs))]
    types = [ty(np.shape(x)) for x in inputs]
    result = ty(result_shape)
    text = op.replace("$T", "(" + ", ".join(types) + ") -> " + result)
    text = text.replace("$r", result)
    for i in reversed(range(len(inputs))):
        text = text.replace(f"$t{i}", types[i]).replace(f"${i}", names[i])
    args = ", ".join(f"{n}: {t}" for n, t in zip(names, types))
    return (f"func.func @f({args}) -> {result} {{\n"
            f"  %r = {text}\n"
            f"  return %r : {result}\n"
            f"}}\n")


def check_op(solder, op, inputs, reference):
    """Runs the single-op module of `op` on `inputs` and compares with
    `reference(*torch_inputs)`."""
    expected = reference(*[to_torch(x) for x in inputs])
    module = single_op_module(op, inputs, tuple(expected.shape))
    (actual,) = solder.interpret(module, inputs)
    assert_close(actual, expected)


def operands(names_present):
    """'$0, $1, $2' for the operand indices given."""
    return ", ".join(f"${i}" for i in names_present)


# ---------------------------------------------------------------------------
# conv
# ---------------------------------------------------------------------------

TORCH_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
TORCH_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d,
                        3: F.conv_transpose3d}

# id, input shape, weight shape, strides, padding, dilations, groups, bias
CONV_CASES = [
    ("1d", (2, 4, 10), (6, 4, 3), [1], [0], [1], 1, False),
    ("1d_s2_p1_d2_bias", (2, 3, 17), (6, 3, 3), [2], [1], [2], 1, True),
    ("1d_g3_p2_bias", (2, 6, 12), (9, 2, 3), [1], [2], [1], 3, True),
    ("1d_s3_p1_d3_g2", (1, 4, 20), (4, 2, 4), [3], [1], [3], 2, False),
    ("2d_bias", (2, 3, 9, 9), (4, 3, 3, 3), [1, 1], [0, 0], [1, 1], 1, True),
    ("2d_s21_p10_d13_g2_bias", (2, 4, 15, 12), (6, 2, 3, 3), [2, 1], [1, 0],
     [1, 3], 2, True),
    ("2d_depthwise_s3_p1", (1, 6, 8, 8), (6, 1, 3, 3), [3, 3], [1, 1],
     [1, 1], 6, False),
    ("2d_kernel24_s12_p12_bias", (2, 3, 7, 9), (5, 3, 2, 4), [1, 2], [1, 2],
     [1, 1], 1, True),
    ("3d_s122_p011_bias", (2, 3, 6, 8, 8), (5, 3, 3, 3, 3), [1, 2, 2],
     [0, 1, 1], [1, 1, 1], 1, True),
    ("3d_d2_g3", (1, 6, 7, 7, 7), (9, 2, 2, 2, 2), [1, 1, 1], [0, 0, 0],
     [2, 2, 2], 3, False),
    ("3d_s212_p110_d121_g2_bias", (1, 4, 5, 6, 7), (4, 2, 3, 2, 3),
     [2, 1, 2], [1, 1, 0], [1, 2, 1], 2, True),
]


@pytest.mark.parametrize(
    "x_shape,w_shape,strides,padding,dilations,groups,bias",
    [pytest.param(*c[1:], id=c[0]) for c in CONV_CASES])
def test_conv(solder, rng, x_shape, w_shape, strides, padding, dilations,
              groups, bias):
    inputs = [rng.standard_normal(x_shape), rng.standard_normal(w_shape)]
    if bias:
        inputs.append(rng.standard_normal(w_shape[0]))
    op = (f"solder.conv {operands(range(len(inputs)))} "
          f"strides = {ilist(strides)} padding = {ilist(padding)} "
          f"dilations = {ilist(dilations)} groups = {groups} : $T")
    conv = TORCH_CONV[len(x_shape) - 2]
    check_op(solder, op, inputs,
             lambda x, w, b=None: conv(x, w, b, strides, padding, dilations,
                                       groups))


# id, input shape, weight shape, strides, padding, output_padding, dilations,
# groups, bias
CONV_TRANSPOSE_CASES = [
    ("1d", (2, 4, 5), (4, 3, 3), [1], [0], [0], [1], 1, False),
    ("1d_s3_p1_op2_bias", (2, 4, 6), (4, 2, 4), [3], [1], [2], [1], 1, True),
    ("1d_s2_p2_op1_d2_g3_bias", (1, 6, 7), (6, 2, 3), [2], [2], [1], [2], 3,
     True),
    ("2d", (2, 3, 4, 4), (3, 5, 2, 2), [1, 1], [0, 0], [0, 0], [1, 1], 1,
     False),
    ("2d_s2_p1_op1_d12_g2_bias", (1, 4, 5, 6), (4, 3, 3, 3), [2, 2], [1, 1],
     [1, 1], [1, 2], 2, True),
    ("2d_s23_p01_op12_bias", (2, 2, 4, 5), (2, 3, 3, 2), [2, 3], [0, 1],
     [1, 2], [1, 1], 1, True),
    ("3d", (1, 3, 3, 3, 3), (3, 4, 3, 3, 3), [1, 1, 1], [0, 0, 0], [0, 0, 0],
     [1, 1, 1], 1, False),
    ("3d_s113_p001_op012_d121_bias", (2, 4, 3, 4, 5), (4, 2, 3, 3, 3),
     [1, 1, 3], [0, 0, 1], [0, 1, 2], [1, 2, 1], 1, True),
    ("3d_s2_p1_op1_g2_bias", (1, 4, 3, 3, 3), (4, 3, 2, 2, 2), [2, 2, 2],
     [1, 1, 1], [1, 1, 1], [1, 1, 1], 2, True),
]


@pytest.mark.parametrize(
    "x_shape,w_shape,strides,padding,output_padding,dilations,groups,bias",
    [pytest.param(*c[1:], id=c[0]) for c in CONV_TRANSPOSE_CASES])
def test_conv_transpose(solder, rng, x_shape, w_shape, strides, padding,
                        output_padding, dilations, groups, bias):
    inputs = [rng.standard_normal(x_shape), rng.standard_normal(w_shape)]
    if bias:
        inputs.append(rng.standard_normal(w_shape[1] * groups))
    op = (f"solder.conv_transpose {operands(range(len(inputs)))} "
          f"strides = {ilist(strides)} padding = {ilist(padding)} "
          f"output_padding = {ilist(output_padding)} "
          f"dilations = {ilist(dilations)} groups = {groups} : $T")
    conv = TORCH_CONV_TRANSPOSE[len(x_shape) - 2]
    check_op(solder, op, inputs,
             lambda x, w, b=None: conv(x, w, b, strides, padding,
                                       output_padding, groups, dilations))


# ---------------------------------------------------------------------------
# Normalizations
# ---------------------------------------------------------------------------

def norm_case(rng, x_shape, param_shape, affine, x_scale=1.0, x_shift=0.0):
    """Input and (optional) affine parameters of a norm, plus the operand
    text `$0 weight = $1 bias = $2` and the torch keyword arguments."""
    inputs = [rng.standard_normal(x_shape) * x_scale + x_shift]
    text = "$0"
    weight = bias = None
    if affine in ("both", "weight"):
        weight = rng.uniform(0.5, 2.0, param_shape) * rng.choice([-1, 1],
                                                                 param_shape)
        inputs.append(weight)
        text += f" weight = ${len(inputs) - 1}"
    if affine in ("both", "bias"):
        bias = rng.standard_normal(param_shape)
        inputs.append(bias)
        text += f" bias = ${len(inputs) - 1}"

    def split(x, *params):
        params = list(params)
        w = params.pop(0) if weight is not None else None
        b = params.pop(0) if bias is not None else None
        return x, w, b

    return inputs, text, split


# id, input shape, groups, affine, epsilon
GROUP_NORM_CASES = [
    ("4d_g3_affine", (2, 6, 4, 4), 3, "both", 1e-5),
    ("4d_g4_plain", (2, 8, 3, 5), 4, "none", 1e-5),
    ("5d_g1_affine", (2, 6, 3, 3, 3), 1, "both", 1e-5),
    ("3d_g6_affine_eps_half", (3, 6, 10), 6, "both", 0.5),
    ("3d_g2_weight_only", (2, 6, 7), 2, "weight", 1e-3),
    ("2d_g2_bias_only", (5, 6), 2, "bias", 1e-5),
]


@pytest.mark.parametrize("x_shape,groups,affine,epsilon",
                         [pytest.param(*c[1:], id=c[0])
                          for c in GROUP_NORM_CASES])
def test_group_norm(solder, rng, x_shape, groups, affine, epsilon):
    inputs, text, split = norm_case(rng, x_shape, x_shape[1], affine,
                                    x_scale=3.0, x_shift=0.5)
    op = (f"solder.group_norm {text} num_groups = {groups} "
          f"epsilon = {fattr(epsilon)} : $T")

    def reference(*args):
        x, w, b = split(*args)
        return F.group_norm(x, groups, w, b, f32(epsilon))

    check_op(solder, op, inputs, reference)


# id, input shape, affine, epsilon
BATCH_NORM_CASES = [
    ("4d_affine", (8, 4, 3, 3), "both", 1e-5),
    ("2d_plain", (6, 5), "none", 1e-5),
    ("5d_affine", (2, 3, 2, 2, 2), "both", 1e-5),
    ("3d_weight_only_eps1", (4, 3, 5), "weight", 1.0),
    ("3d_batch1_bias_only", (1, 3, 6), "bias", 1e-5),
]


@pytest.mark.parametrize("x_shape,affine,epsilon",
                         [pytest.param(*c[1:], id=c[0])
                          for c in BATCH_NORM_CASES])
def test_batch_norm(solder, rng, x_shape, affine, epsilon):
    inputs, text, split = norm_case(rng, x_shape, x_shape[1], affine,
                                    x_scale=2.0, x_shift=-1.0)
    op = f"solder.batch_norm {text} epsilon = {fattr(epsilon)} : $T"

    def reference(*args):
        x, w, b = split(*args)
        return F.batch_norm(x, None, None, w, b, training=True,
                            eps=f32(epsilon))

    check_op(solder, op, inputs, reference)


# id, input shape, affine, epsilon
INSTANCE_NORM_CASES = [
    ("4d_affine", (3, 4, 5, 5), "both", 1e-5),
    ("3d_plain", (2, 3, 7), "none", 1e-5),
    ("5d_weight_only", (2, 3, 2, 3, 2), "weight", 1e-5),
    ("4d_batch1_bias_only", (1, 3, 5, 1), "bias", 1e-2),
]


@pytest.mark.parametrize("x_shape,affine,epsilon",
                         [pytest.param(*c[1:], id=c[0])
                          for c in INSTANCE_NORM_CASES])
def test_instance_norm(solder, rng, x_shape, affine, epsilon):
    inputs, text, split = norm_case(rng, x_shape, x_shape[1], affine,
                                    x_scale=2.0, x_shift=3.0)
    op = f"solder.instance_norm {text} epsilon = {fattr(epsilon)} : $T"

    def reference(*args):
        x, w, b = split(*args)
        return F.instance_norm(x, weight=w, bias=b, eps=f32(epsilon))

    check_op(solder, op, inputs, reference)


# id, input shape, number of normalized (trailing) dims, affine, epsilon
LAYER_NORM_CASES = [
    ("all_nonbatch_dims_affine", (3, 4, 5, 5), 3, "both", 1e-5),
    ("all_nonbatch_dims_plain", (4, 6, 9), 2, "none", 1e-5),
    ("last_dim_affine", (3, 4, 6), 1, "both", 1e-5),
    ("last_dim_plain", (2, 3, 4, 8), 1, "none", 1e-5),
    ("last_dim_weight_only", (2, 7, 5), 1, "weight", 1e-5),
    ("last_two_dims_bias_only", (2, 7, 5), 2, "bias", 1e-5),
    ("whole_tensor", (3, 5), 2, "both", 1e-3),
]


@pytest.mark.parametrize("x_shape,num_dims,affine,epsilon",
                         [pytest.param(*c[1:], id=c[0])
                          for c in LAYER_NORM_CASES])
def test_layer_norm(solder, rng, x_shape, num_dims, affine, epsilon):
    normalized = tuple(x_shape[-num_dims:])
    inputs, text, split = norm_case(rng, x_shape, normalized, affine,
                                    x_scale=2.0, x_shift=1.0)
    op = (f"solder.layer_norm {text} normalized_shape = {ilist(normalized)} "
          f"epsilon = {fattr(epsilon)} : $T")

    def reference(*args):
        x, w, b = split(*args)
        return F.layer_norm(x, normalized, w, b, f32(epsilon))

    check_op(solder, op, inputs, reference)


# ---------------------------------------------------------------------------
# Unary pointwise ops
# ---------------------------------------------------------------------------

GELU_NONE = "{approximate = #solder.gelu_approximation<none>}"
GELU_TANH = "{approximate = #solder.gelu_approximation<tanh>}"

# id, op with its attributes, torch function, input domain
UNARY_CASES = [
    ("relu", "relu", F.relu, "any"),
    ("leaky_relu_default", "leaky_relu",
     lambda x: F.leaky_relu(x, f32(0.01)), "any"),
    ("leaky_relu_alpha", "leaky_relu {alpha = 2.5e-01 : f32}",
     lambda x: F.leaky_relu(x, 0.25), "any"),
    ("leaky_relu_alpha_above_1", "leaky_relu {alpha = 1.5 : f32}",
     lambda x: F.leaky_relu(x, 1.5), "any"),
    ("tanh", "tanh", torch.tanh, "any"),
    ("sigmoid", "sigmoid", torch.sigmoid, "any"),
    ("gelu_exact", "gelu", F.gelu, "any"),
    ("gelu_exact_explicit", f"gelu {GELU_NONE}", F.gelu, "any"),
    ("gelu_tanh", f"gelu {GELU_TANH}",
     lambda x: F.gelu(x, approximate="tanh"), "any"),
    ("silu", "silu", F.silu, "any"),
    ("mish", "mish", F.mish, "wide"),
    ("hardswish", "hardswish", F.hardswish, "any"),
    ("hardsigmoid", "hardsigmoid", F.hardsigmoid, "any"),
    ("hardtanh_default", "hardtanh", F.hardtanh, "any"),
    ("hardtanh_min_max", "hardtanh {min = -2.5 : f32, max = 1.25 : f32}",
     lambda x: F.hardtanh(x, -2.5, 1.25), "any"),
    ("softplus_default", "softplus", F.softplus, "wide"),
    ("softplus_beta_threshold",
     "softplus {beta = 2.0 : f32, threshold = 5.0 : f32}",
     lambda x: F.softplus(x, beta=2.0, threshold=5.0), "any"),
    ("softplus_negative_beta", "softplus {beta = -5.0e-01 : f32}",
     lambda x: F.softplus(x, beta=-0.5), "any"),
    ("elu_default", "elu", F.elu, "any"),
    ("elu_alpha", "elu {alpha = 5.0e-01 : f32}",
     lambda x: F.elu(x, 0.5), "any"),
    ("clamp_min_only", "clamp {min = -1.5 : f32}",
     lambda x: torch.clamp(x, min=-1.5), "any"),
    ("clamp_max_only", "clamp {max = 6.25e-01 : f32}",
     lambda x: torch.clamp(x, max=0.625), "any"),
    ("clamp_both", "clamp {min = -7.5e-01 : f32, max = 2.25 : f32}",
     lambda x: torch.clamp(x, -0.75, 2.25), "any"),
    ("exp", "exp", torch.exp, "any"),
    ("log", "log", torch.log, "positive"),
    ("sqrt", "sqrt", torch.sqrt, "positive"),
    ("rsqrt", "rsqrt", torch.rsqrt, "positive"),
    ("abs", "abs", torch.abs, "any"),
    ("neg", "neg", torch.neg, "any"),
]


def draw(rng, domain, shape):
    if domain == "any":
        return rng.uniform(-5.0, 5.0, shape)
    if domain == "wide":  # also past softplus's threshold of 20
        return rng.uniform(-30.0, 30.0, shape)
    if domain == "positive":
        return rng.uniform(0.05, 5.0, shape)
    raise ValueError(domain)


@pytest.mark.parametrize("op,reference,domain",
                         [pytest.param(*c[1:], id=c[0]) for c in UNARY_CASES])
def test_unary(solder, rng, op, reference, domain):
    x = draw(rng, domain, (2, 3, 5, 7))
    mnemonic, _, attributes = op.partition(" ")
    check_op(solder, f"solder.{mnemonic} $0 {attributes} : $t0", [x],
             reference)


@pytest.mark.parametrize("op,reference", [
    pytest.param("neg", torch.neg, id="neg"),
    pytest.param("sigmoid", torch.sigmoid, id="sigmoid"),
])
def test_unary_rank0(solder, rng, op, reference):
    check_op(solder, f"solder.{op} $0 : $t0", [rng.standard_normal(())],
             reference)


# ---------------------------------------------------------------------------
# Binary pointwise ops with broadcasting
# ---------------------------------------------------------------------------

BINARY_OPS = {
    "add": torch.add,
    "sub": torch.sub,
    "mul": torch.mul,
    "div": torch.div,
    "maximum": torch.maximum,
    "minimum": torch.minimum,
    "pow": torch.pow,
}

# id, lhs shape, rhs shape
BROADCASTS = [
    ("same_shape", (2, 3, 4, 5), (2, 3, 4, 5)),
    ("channel_param_rhs", (2, 3, 4, 5), (3, 1, 1)),
    ("channel_param_lhs", (3, 1, 1), (2, 3, 4, 5)),
    ("scalar_rhs", (2, 3, 4, 5), ()),
    ("scalar_lhs", (), (2, 3, 4, 5)),
    ("rank_extension_rhs", (2, 3, 4), (4,)),
    ("rank_extension_lhs", (3, 1), (2, 3, 4)),
    ("both_sides", (2, 1, 4), (3, 1)),
    ("both_scalars", (), ()),
]


def binary_operands(rng, op, lhs_shape, rhs_shape):
    if op == "pow":
        return rng.uniform(0.5, 2.0, lhs_shape), rng.uniform(-2.0, 2.0,
                                                             rhs_shape)
    if op == "div":
        return (rng.uniform(-3.0, 3.0, lhs_shape),
                rng.uniform(0.5, 2.0, rhs_shape) * rng.choice([-1, 1],
                                                              rhs_shape))
    return rng.uniform(-3.0, 3.0, lhs_shape), rng.uniform(-3.0, 3.0, rhs_shape)


@pytest.mark.parametrize("lhs_shape,rhs_shape",
                         [pytest.param(*c[1:], id=c[0]) for c in BROADCASTS])
@pytest.mark.parametrize("op", list(BINARY_OPS))
def test_binary(solder, rng, op, lhs_shape, rhs_shape):
    lhs, rhs = binary_operands(rng, op, lhs_shape, rhs_shape)
    check_op(solder, f"solder.{op} $0, $1 : $t0, $t1 -> $r", [lhs, rhs],
             BINARY_OPS[op])


@pytest.mark.parametrize("op", ["add", "mul"])
def test_binary_short_form(solder, rng, op):
    """One type written once for lhs, rhs and result."""
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 3, 4))
    check_op(solder, f"solder.{op} $0, $1 : $t0", [a, b], BINARY_OPS[op])


# ---------------------------------------------------------------------------
# reduce, softmax, log_softmax
# ---------------------------------------------------------------------------

def torch_prod(x, dims, keepdim):
    for dim in sorted(dims, reverse=True):
        x = torch.prod(x, dim, keepdim=keepdim)
    return x


REDUCE_KINDS = {
    "sum": lambda x, d, k: torch.sum(x, d, keepdim=k),
    "mean": lambda x, d, k: torch.mean(x, d, keepdim=k),
    "max": lambda x, d, k: torch.amax(x, d, keepdim=k),
    "min": lambda x, d, k: torch.amin(x, d, keepdim=k),
    "logsumexp": lambda x, d, k: torch.logsumexp(x, d, keepdim=k),
    "prod": torch_prod,
}

# dims, keepdim (on a (2, 3, 4, 5) input)
REDUCE_DIMS = [
    ([1], False),
    ([1], True),
    ([3], False),
    ([0, 3], False),
    ([0, 2], True),
    ([1, 2, 3], False),
    ([1, 2, 3], True),
    ([0, 1, 2, 3], False),
    ([0, 1, 2, 3], True),
]


@pytest.mark.parametrize(
    "dims,keepdim",
    [pytest.param(d, k, id="dims" + "".join(map(str, d)) +
                  ("_keepdim" if k else "")) for d, k in REDUCE_DIMS])
@pytest.mark.parametrize("kind", list(REDUCE_KINDS))
def test_reduce(solder, rng, kind, dims, keepdim):
    shape = (2, 3, 4, 5)
    if kind == "prod":  # magnitudes near 1 with both signs
        x = rng.uniform(0.7, 1.4, shape) * rng.choice([-1, 1], shape)
    elif kind == "logsumexp":
        x = rng.uniform(-20.0, 20.0, shape)
    else:
        x = rng.uniform(-3.0, 3.0, shape)
    op = (f"solder.reduce {kind} $0 dims = {ilist(dims)}"
          f"{' keepdim' if keepdim else ''} : $t0 -> $r")
    check_op(solder, op, [x],
             lambda t: REDUCE_KINDS[kind](t, tuple(dims), keepdim))


SOFTMAX_CASES = [
    ("4d_dim0", (2, 3, 4, 5), 0, 1.0),
    ("4d_dim1", (2, 3, 4, 5), 1, 1.0),
    ("4d_dim3", (2, 3, 4, 5), 3, 1.0),
    ("4d_dim2_large_values", (2, 3, 4, 5), 2, 300.0),
    ("1d", (10,), 0, 1.0),
]


@pytest.mark.parametrize("shape,dim,scale",
                         [pytest.param(*c[1:], id=c[0])
                          for c in SOFTMAX_CASES])
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(solder, rng, op, shape, dim, scale):
    x = rng.standard_normal(shape) * scale
    reference = F.softmax if op == "softmax" else F.log_softmax
    check_op(solder, f"solder.{op} $0 dim = {dim} : $t0", [x],
             lambda t: reference(t, dim))


# ---------------------------------------------------------------------------
# pool
# ---------------------------------------------------------------------------

# id, kind, input shape, kernel, strides, padding, dilations, ceil_mode,
# count_include_pad (None: attribute left out, default true), negative input
POOL_CASES = [
    ("max2d_k2_s2", "max", (2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1],
     False, None, False),
    ("max2d_k32_p10_d21_ceil", "max", (1, 2, 10, 9), [3, 2], [2, 2], [1, 0],
     [2, 1], True, None, False),
    ("max2d_k2_s2_p1_d2_ceil", "max", (1, 2, 7, 6), [2, 2], [2, 2], [1, 1],
     [2, 2], True, None, False),
    ("max1d_k3_s2_p1_d2_ceil", "max", (2, 3, 11), [3], [2], [1], [2], True,
     None, False),
    ("max1d_k2_s2_p1_ceil_drops_last", "max", (2, 3, 5), [2], [2], [1], [1],
     True, None, False),
    ("max3d_k233_s233_p011", "max", (1, 2, 4, 6, 6), [2, 3, 3], [2, 3, 3],
     [0, 1, 1], [1, 1, 1], False, None, False),
    ("max2d_k3_s1_p1_negative_input", "max", (1, 3, 6, 7), [3, 3], [1, 1],
     [1, 1], [1, 1], False, None, True),
    ("avg2d_k2_s2", "avg", (2, 3, 8, 8), [2, 2], [2, 2], [0, 0], [1, 1],
     False, None, False),
    ("avg2d_k3_s2_p1_include_pad", "avg", (1, 2, 7, 7), [3, 3], [2, 2],
     [1, 1], [1, 1], False, True, False),
    ("avg2d_k3_s2_p1_exclude_pad", "avg", (1, 2, 7, 7), [3, 3], [2, 2],
     [1, 1], [1, 1], False, False, False),
    ("avg1d_k2_s2_p1_ceil_drops_last", "avg", (2, 3, 5), [2], [2], [1], [1],
     True, True, False),
    ("avg1d_k4_s3_ceil_exclude_pad", "avg", (1, 2, 6), [4], [3], [0], [1],
     True, False, False),
    ("avg1d_k3_s2_p1_ceil_include_pad", "avg", (2, 2, 6), [3], [2], [1], [1],
     True, None, False),
    ("avg1d_k3_s2_p1_ceil_exclude_pad", "avg", (2, 2, 6), [3], [2], [1], [1],
     True, False, False),
    ("avg2d_k3_s2_p1_ceil_include_pad", "avg", (1, 2, 8, 9), [3, 3], [2, 2],
     [1, 1], [1, 1], True, True, False),
    ("avg3d_k2_s2_p1_ceil_exclude_pad", "avg", (1, 2, 5, 5, 5), [2, 2, 2],
     [2, 2, 2], [1, 1, 1], [1, 1, 1], True, False, False),
    ("avg3d_k322_s221_p101_include_pad", "avg", (1, 2, 5, 4, 3), [3, 2, 2],
     [2, 2, 1], [1, 0, 1], [1, 1, 1], False, True, False),
]

TORCH_MAX_POOL = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}
TORCH_AVG_POOL = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}


@pytest.mark.parametrize(
    "kind,x_shape,kernel,strides,padding,dilations,ceil_mode,"
    "count_include_pad,negative",
    [pytest.param(*c[1:], id=c[0]) for c in POOL_CASES])
def test_pool(solder, rng, kind, x_shape, kernel, strides, padding, dilations,
              ceil_mode, count_include_pad, negative):
    x = rng.standard_normal(x_shape)
    if negative:
        x = -1.0 - np.abs(x)
    op = (f"solder.pool {kind} $0 kernel = {ilist(kernel)} "
          f"strides = {ilist(strides)} padding = {ilist(padding)} "
          f"dilations = {ilist(dilations)}")
    if ceil_mode:
        op += " ceil_mode"
    if count_include_pad is not None:
        op += f" {{count_include_pad = {str(count_include_pad).lower()}}}"
    op += " : $t0 -> $r"
    n = len(x_shape) - 2
    if kind == "max":
        def reference(t):
            return TORCH_MAX_POOL[n](t, kernel, strides, padding, dilations,
                                     ceil_mode=ceil_mode)
    else:
        include = True if count_include_pad is None else count_include_pad

        def reference(t):
            return TORCH_AVG_POOL[n](t, kernel, strides, padding,
                                     ceil_mode=ceil_mode,
                                     count_include_pad=include)
    check_op(solder, op, [x], reference)


@pytest.mark.parametrize("divisor,ceil_mode", [(3, False), (7, True)])
def test_avg_pool_divisor_override(solder, rng, divisor, ceil_mode):
    x = rng.standard_normal((2, 3, 7, 6))
    op = (f"solder.pool avg $0 kernel = [3, 2] strides = [2, 2] padding = [1, 1] "
          f"dilations = [1, 1]{' ceil_mode' if ceil_mode else ''} "
          f"{{divisor_override = {divisor} : i64}} : $t0 -> $r")
    check_op(solder, op, [x], lambda t: F.avg_pool2d(
        t, [3, 2], [2, 2], [1, 1], ceil_mode=ceil_mode, divisor_override=divisor))


# ---------------------------------------------------------------------------
# NaN propagation
# ---------------------------------------------------------------------------

def with_nans(rng, shape, fraction=0.15):
    x = rng.uniform(-3.0, 3.0, shape)
    x[rng.random(shape) < fraction] = np.nan
    return x


def test_nan_relu(solder, rng):
    x = with_nans(rng, (3, 4, 5))
    check_op(solder, "solder.relu $0 : $t0", [x], F.relu)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
@pytest.mark.parametrize("lhs_shape,rhs_shape", [
    pytest.param((3, 4, 5), (3, 4, 5), id="same_shape"),
    pytest.param((3, 4, 5), (4, 1), id="broadcast"),
])
def test_nan_maximum_minimum(solder, rng, op, lhs_shape, rhs_shape):
    lhs, rhs = with_nans(rng, lhs_shape), with_nans(rng, rhs_shape)
    check_op(solder, f"solder.{op} $0, $1 : $t0, $t1 -> $r", [lhs, rhs],
             BINARY_OPS[op])


@pytest.mark.parametrize("kind", ["max", "min", "logsumexp", "sum"])
@pytest.mark.parametrize("dims,keepdim", [
    pytest.param([1], False, id="dims1"),
    pytest.param([0, 2], True, id="dims02_keepdim"),
])
def test_nan_reduce(solder, rng, kind, dims, keepdim):
    # Few enough NaNs that some rows have none.
    x = with_nans(rng, (3, 4, 5), fraction=0.04)
    op = (f"solder.reduce {kind} $0 dims = {ilist(dims)}"
          f"{' keepdim' if keepdim else ''} : $t0 -> $r")
    check_op(solder, op, [x],
             lambda t: REDUCE_KINDS[kind](t, tuple(dims), keepdim))


@pytest.mark.parametrize("op,reference", [
    pytest.param("clamp $0 {min = -1.0 : f32, max = 1.0 : f32}",
                 lambda t: torch.clamp(t, -1.0, 1.0), id="clamp"),
    pytest.param("hardtanh $0", F.hardtanh, id="hardtanh"),
    pytest.param("leaky_relu $0 {alpha = 2.5e-01 : f32}",
                 lambda t: F.leaky_relu(t, 0.25), id="leaky_relu"),
    pytest.param("softmax $0 dim = 1", lambda t: F.softmax(t, 1),
                 id="softmax"),
])
def test_nan_other_ops(solder, rng, op, reference):
    x = with_nans(rng, (3, 4, 5), fraction=0.05)
    check_op(solder, f"solder.{op} : $t0", [x], reference)


def test_nan_max_pool(solder, rng):
    x = with_nans(rng, (1, 2, 6, 6), fraction=0.05)
    op = ("solder.pool max $0 kernel = [2, 2] strides = [2, 2] "
          "padding = [0, 0] dilations = [1, 1] : $t0 -> $r")
    check_op(solder, op, [x], lambda t: F.max_pool2d(t, 2, 2))


# ---------------------------------------------------------------------------
# Infinities along a softmax / logsumexp row
# ---------------------------------------------------------------------------

INF = np.inf
# Rows: +inf among finite values, all -inf, two +inf, -inf among finite values.
INFINITE_ROWS = np.array([[1.0, INF, 2.0, -0.5],
                          [-INF, -INF, -INF, -INF],
                          [INF, INF, 0.0, 1.0],
                          [1.0, -INF, 0.0, -2.0]])

@pytest.mark.parametrize("op,reference", [
    pytest.param("reduce logsumexp $0 dims = [1] : $t0 -> $r",
                 lambda t: torch.logsumexp(t, 1), id="logsumexp"),
    pytest.param("reduce logsumexp $0 dims = [1] keepdim : $t0 -> $r",
                 lambda t: torch.logsumexp(t, 1, keepdim=True),
                 id="logsumexp_keepdim"),
    pytest.param("softmax $0 dim = 1 : $t0", lambda t: F.softmax(t, 1),
                 id="softmax"),
    pytest.param("log_softmax $0 dim = 1 : $t0",
                 lambda t: F.log_softmax(t, 1), id="log_softmax",),
])
def test_infinities(solder, op, reference):
    check_op(solder, f"solder.{op}", [INFINITE_ROWS], reference)


@pytest.mark.parametrize("op,reference", [
    pytest.param("softmax", F.softmax, id="softmax"),
    pytest.param("log_softmax", F.log_softmax, id="log_softmax"),
])
def test_softmax_all_minus_inf_rows(solder, op, reference):
    """Rows without +inf agree: all -inf gives NaN, a -inf entry 0 / -inf."""
    x = INFINITE_ROWS[[1, 3]]
    check_op(solder, f"solder.{op} $0 dim = 1 : $t0", [x],
             lambda t: reference(t, 1))


# ---------------------------------------------------------------------------
# The comparison itself
# ---------------------------------------------------------------------------

def test_comparison_is_not_vacuous(solder, rng):
    """The tolerance catches a small formula difference (GELU exact vs tanh
    approximation, about 1e-4) and a NaN mismatch."""
    x = rng.uniform(-3.0, 3.0, (4, 5))
    (actual,) = solder.interpret(
        single_op_module("solder.gelu $0 : $t0", [x], x.shape), [x])
    assert_close(actual, F.gelu(to_torch(x)))
    with pytest.raises(AssertionError, match="max abs err"):
        assert_close(actual, F.gelu(to_torch(x), approximate="tanh"))
    with pytest.raises(pytest.fail.Exception, match="NaN mismatch"):
        expected = F.gelu(to_torch(x)).numpy().copy()
        expected[1, 2] = np.nan
        assert_close(actual, expected)


# ---------------------------------------------------------------------------
# The seed workloads at reduced sizes
# ---------------------------------------------------------------------------

def random_group_norm(rng, channels, groups):
    norm = torch.nn.GroupNorm(groups, channels, eps=f32(1e-5)).double()
    # Non-default affine parameters: weights of both signs away from 1.
    norm.weight.copy_(to_torch(rng.uniform(0.5, 2.0, channels) *
                               rng.choice([-1, 1], channels)))
    norm.bias.copy_(to_torch(rng.standard_normal(channels)))
    return norm


def set_conv(conv, rng):
    fan_in = conv.weight[0].numel()
    bound = 1.0 / np.sqrt(fan_in)
    conv.weight.copy_(to_torch(rng.uniform(-bound, bound, conv.weight.shape)))
    if conv.bias is not None:
        conv.bias.copy_(to_torch(rng.uniform(-bound, bound,
                                             conv.bias.shape)))


def params(*tensors):
    return [t.detach().numpy().copy() for t in tensors]


def workload_w1(rng, shift=0.0):
    """W1: Conv3d(3 -> 8, k3, bias) -> GroupNorm(4, 8) -> mean [1, 2, 3, 4]."""
    x = rng.uniform(-1.0, 1.0, (2, 3, 6, 8, 8)) + shift
    conv = torch.nn.Conv3d(3, 8, 3).double()
    set_conv(conv, rng)
    norm = random_group_norm(rng, 8, 4)
    y = conv(to_torch(x))
    expected = norm(y).mean(dim=(1, 2, 3, 4))
    inputs = [x] + params(conv.weight, conv.bias, norm.weight, norm.bias)
    xt, wt, bt, gt = (ty(np.shape(a)) for a in inputs[:4])
    yt = ty(y.shape)
    module = f"""
func.func @w1(%x: {xt}, %conv_weight: {wt}, %conv_bias: {bt},
              %norm_weight: {gt}, %norm_bias: {gt}) -> {ty(expected.shape)} {{
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1, 1]
         padding = [0, 0, 0] dilations = [1, 1, 1] groups = 1
       : ({xt}, {wt}, {bt}) -> {yt}
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 4 epsilon = 1.0e-05
       : ({yt}, {gt}, {gt}) -> {yt}
  %out = solder.reduce mean %n dims = [1, 2, 3, 4]
       : {yt} -> {ty(expected.shape)}
  return %out : {ty(expected.shape)}
}}
"""
    return module, inputs, [expected]


def workload_w2(rng):
    """W2: ConvTranspose3d(4 -> 8, k3, no bias) -> ReLU -> GroupNorm(4, 8)."""
    x = rng.standard_normal((2, 4, 3, 4, 4))
    conv = torch.nn.ConvTranspose3d(4, 8, 3, bias=False).double()
    set_conv(conv, rng)
    norm = random_group_norm(rng, 8, 4)
    y = conv(to_torch(x))
    expected = norm(torch.relu(y))
    inputs = [x] + params(conv.weight, norm.weight, norm.bias)
    xt, wt, gt = (ty(np.shape(a)) for a in inputs[:3])
    yt = ty(y.shape)
    module = f"""
func.func @w2(%x: {xt}, %conv_weight: {wt}, %norm_weight: {gt},
              %norm_bias: {gt}) -> {yt} {{
  %y = solder.conv_transpose %x, %conv_weight strides = [1, 1, 1]
         padding = [0, 0, 0] output_padding = [0, 0, 0] dilations = [1, 1, 1]
         groups = 1
       : ({xt}, {wt}) -> {yt}
  %r = solder.relu %y : {yt}
  %out = solder.group_norm %r weight = %norm_weight bias = %norm_bias
           num_groups = 4 epsilon = 1.0e-05
       : ({yt}, {gt}, {gt}) -> {yt}
  return %out : {yt}
}}
"""
    return module, inputs, [expected]


def workload_w3(rng):
    """W3: y = Conv2d(3 -> 8, k3, bias)(x); z = HardSwish(Tanh(GroupNorm(2, 8)
    (y))); logsumexp(y + z, dim 1, keepdim)."""
    x = rng.standard_normal((2, 3, 8, 8))
    conv = torch.nn.Conv2d(3, 8, 3).double()
    set_conv(conv, rng)
    norm = random_group_norm(rng, 8, 2)
    y = conv(to_torch(x))
    z = F.hardswish(torch.tanh(norm(y)))
    expected = torch.logsumexp(y + z, dim=1, keepdim=True)
    inputs = [x] + params(conv.weight, conv.bias, norm.weight, norm.bias)
    xt, wt, bt, gt = (ty(np.shape(a)) for a in inputs[:4])
    yt, ot = ty(y.shape), ty(expected.shape)
    module = f"""
func.func @w3(%x: {xt}, %conv_weight: {wt}, %conv_bias: {bt},
              %norm_weight: {gt}, %norm_bias: {gt}) -> {ot} {{
  %y = solder.conv %x, %conv_weight, %conv_bias strides = [1, 1]
         padding = [0, 0] dilations = [1, 1] groups = 1
       : ({xt}, {wt}, {bt}) -> {yt}
  %n = solder.group_norm %y weight = %norm_weight bias = %norm_bias
         num_groups = 2 epsilon = 1.0e-05
       : ({yt}, {gt}, {gt}) -> {yt}
  %t = solder.tanh %n : {yt}
  %z = solder.hardswish %t : {yt}
  %s = solder.add %y, %z : {yt}
  %out = solder.reduce logsumexp %s dims = [1] keepdim : {yt} -> {ot}
  return %out : {ot}
}}
"""
    return module, inputs, [expected]


WORKLOADS = [
    pytest.param(workload_w1, id="w1_conv3d_groupnorm_mean"),
    pytest.param(lambda rng: workload_w1(rng, shift=1000.0),
                 id="w1_input_plus_1000"),
    pytest.param(workload_w2, id="w2_convtranspose3d_relu_groupnorm"),
    pytest.param(workload_w3,
                 id="w3_conv2d_groupnorm_tanh_hardswish_residual_logsumexp"),
]


@pytest.mark.parametrize("workload", WORKLOADS)
def test_workload(solder, rng, workload):
    module, inputs, expected = workload(rng)
    actual = solder.interpret(module, inputs)
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert_close(a, e, f"output #{index}")


@pytest.mark.parametrize("workload", WORKLOADS)
def test_workload_after_pipeline(solder, rng, workload):
    """solder-opt --solder-pipeline, then the interpreter on the fused IR."""
    module, inputs, expected = workload(rng)
    pipelined = solder.pipeline(module)
    assert "solder.fusion" in pipelined.read_text()
    actual = solder.interpret_file(pipelined, inputs)
    assert len(actual) == len(expected)
    for index, (a, e) in enumerate(zip(actual, expected)):
        assert_close(a, e, f"output #{index}")


# ---------------------------------------------------------------------------
# Driver options: --function, several outputs
# ---------------------------------------------------------------------------

def test_named_function_and_several_outputs(solder, rng):
    module = """
func.func @first(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = solder.relu %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @second(%x: tensor<2x3x4xf32>, %c: tensor<3x1xf32>)
    -> (tensor<2x3x4xf32>, tensor<2x1x4xf32>) {
  %0 = solder.mul %x, %c : tensor<2x3x4xf32>, tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = solder.log_softmax %0 dim = 1 : tensor<2x3x4xf32>
  %2 = solder.reduce sum %0 dims = [1] keepdim
       : tensor<2x3x4xf32> -> tensor<2x1x4xf32>
  return %1, %2 : tensor<2x3x4xf32>, tensor<2x1x4xf32>
}
"""
    x, c = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 1))
    actual = solder.interpret(module, [x, c], function="second")
    product = to_torch(x) * to_torch(c)
    assert len(actual) == 2
    assert_close(actual[0], F.log_softmax(product, 1), "output #0")
    assert_close(actual[1], product.sum(1, keepdim=True), "output #1")


def test_float32_inputs_accepted(solder, rng):
    """float32 .npy inputs are read exactly (widened to double)."""
    x = rng.standard_normal((3, 5)).astype(np.float32)
    path = solder.tmp_path / "x32.npy"
    np.save(path, x)
    mlir = solder.write_mlir(single_op_module("solder.tanh $0 : $t0", [x],
                                              x.shape))
    out_dir = solder.tmp_path / "out32"
    result = solder.run_interp(mlir, [path], out_dir)
    assert result.returncode == 0, result.stderr
    assert_close(np.load(out_dir / "output0.npy"),
                 torch.tanh(to_torch(x.astype(np.float64))))


# ---------------------------------------------------------------------------
# Error handling
# ---------------------------------------------------------------------------

ERROR_MODULE = """
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = solder.add %a, %b : tensor<2x3xf32>, tensor<3xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


def make_error_inputs(kind, tmp_path, rng):
    """The input paths of error case `kind` and the words its message must
    contain."""
    a, b = tmp_path / "a.npy", tmp_path / "b.npy"
    np.save(a, rng.standard_normal((2, 3)))
    np.save(b, rng.standard_normal(3))
    if kind == "wrong_input_count":
        return [a], ["takes 2 inputs", "got 1"]
    if kind == "wrong_input_shape":
        np.save(b, rng.standard_normal(4))
        return [a, b], ["input #1", "shape (4)", "tensor<3xf32>"]
    if kind == "missing_npy":
        missing = tmp_path / "missing.npy"
        return [a, missing], [str(missing), "cannot open file"]
    if kind == "truncated_npy_data":
        data = b.read_bytes()
        b.write_bytes(data[:-5])
        return [a, b], [str(b), "truncated data", "the shape (3,) needs 24 bytes, the file has 19"]
    if kind == "truncated_npy_header":
        data = b.read_bytes()
        b.write_bytes(data[:40])
        return [a, b], [str(b), "truncated header"]
    raise ValueError(kind)


ERROR_KINDS = ["wrong_input_count", "wrong_input_shape", "missing_npy",
               "truncated_npy_data", "truncated_npy_header"]

def run_error_case(solder, rng, kind):
    paths, words = make_error_inputs(kind, solder.tmp_path, rng)
    mlir = solder.write_mlir(ERROR_MODULE)
    out_dir = solder.tmp_path / "out"
    result = solder.run_interp(mlir, paths, out_dir)
    return result, words, out_dir


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_error_exit_code_and_message(solder, rng, kind):
    result, words, out_dir = run_error_case(solder, rng, kind)
    assert result.returncode != 0
    assert "error" in result.stderr
    for word in words:
        assert word in result.stderr, (
            f"{word!r} missing from stderr:\n{result.stderr}")
    assert not (out_dir / "output0.npy").exists()


@pytest.mark.parametrize("kind", ERROR_KINDS)
def test_error_message_is_one_line(solder, rng, kind):
    result, _, _ = run_error_case(solder, rng, kind)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, (
        f"{len(lines)} lines on stderr:\n{result.stderr[:2000]}")
