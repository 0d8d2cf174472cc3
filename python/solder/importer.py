"""The ATen importer: a graph of ATen ops (from ``torch.export``, or a
subgraph that the ``torch.compile`` backend cut out of one) becomes solder IR
text (one ``func.func``) plus the tensors it captured.

Both entry points go through :func:`import_graph`:

- :func:`import_module` (``solder.compile``, ``solder.export``) exports the
  module with ``torch.export`` (non-strict), runs the decompositions that
  make it functional (in-place ops become out-of-place, training-mode
  BatchNorm becomes ``_native_batch_norm_legit_functional``), and captures
  parameters, buffers and lifted constants: the function takes the module's
  inputs first, then those tensors.
- ``solder.backend`` imports each supported subgraph of the graph dynamo
  hands it: every placeholder is a runtime input.

Shapes are static, from each node's ``meta["val"]``. Views of the
contiguous tensors Solder computes (``view``, ``reshape``, ``flatten``,
``squeeze``, ``unsqueeze``) are shape bookkeeping: an input viewed becomes an
argument of the viewed shape (the caller reshapes, free in torch), an output
viewed is reshaped by the caller, and a view in the middle of the chain passes
through elementwise ops and into reductions whose dims it maps onto the
tensor it views. Anything else is refused with :class:`UnsupportedOperation`,
which names the op and the user's source line (from the node's stack trace);
that line is also each op's MLIR location, so compiler errors point at the
user's code.
"""

import collections
import json
import math
import operator
import os
import re
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn as nn

from .errors import SolderError, UnsupportedOperation, located

aten = torch.ops.aten


@dataclass
class Value:
    """An SSA value of the function being built. ``argument`` is the graph
    input it is (reshaped), for values that are function arguments."""
    name: str
    shape: tuple
    argument: object = None
    is_constant: bool = False

    @property
    def type(self):
        return tensor_type(self.shape)


@dataclass
class View:
    """A view of a computed value with another shape, not yet emitted:
    consumers that can work on ``base`` directly take it."""
    base: Value
    shape: tuple


@dataclass
class Permuted:
    """``base`` (as computed, NC...) seen through ``permute(perm)``: the
    logical dim i is the base's dim perm[i]. Layout bookkeeping, never a
    transpose: pointwise ops, LayerNorm over the dim that is the base's
    channels and Linear over it work on ``base``; permuting back gives
    ``base`` again."""
    base: Value
    perm: tuple

    @property
    def shape(self):
        return tuple(self.base.shape[p] for p in self.perm)


@dataclass
class StatisticsItem:
    """A norm's mean or rstd per (sample, group), as the backward of a
    training graph saves it: item ``item`` (0 the mean, 1 the rstd) along
    the last dim of ``stats``, a solder.group_stats. Returned only: the
    caller takes the item from the function's result."""
    stats: Value
    item: int
    shape: tuple


class _Folded:
    """A parameter the importer computes from captured ones (an eval-mode
    norm's scale and shift): captured under a name of its own, so that
    argument() takes it as it takes any parameter."""

    def __init__(self, importer, name, tensor):
        self.name = importer.fresh(f"folded_{name}")
        importer.captured[self.name] = (name, tensor.to(torch.float32))


@dataclass
class TransposedParameter:
    """A 2-D parameter or input transposed (``w.t()``, ``w.T``): not
    emitted; a matmul takes it as its weight, laid out as it is (a Linear's
    (K, C)). Any other op refuses a transposed parameter and sees an input
    as Permuted."""
    placeholder: object


def _permuted_is_dense(value):
    """Whether ``value`` (Permuted) over a contiguous base is contiguous as
    it is seen: its non-unit dims keep their order."""
    dims = [d for d in value.perm if value.base.shape[d] != 1]
    return dims == sorted(dims)


def tensor_type(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def format_float(value):
    """A float as MLIR reads it: a decimal with a point, or the f32 bits of
    inf and NaN."""
    value = float(value)
    if math.isnan(value):
        return "0x7FC00000"
    if math.isinf(value):
        return "0x7F800000" if value > 0 else "0xFF800000"
    text = repr(value)
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def format_list(values):
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


@dataclass
class ImportedModule:
    """What the importer produces: IR text, how the function's arguments
    come from the caller's inputs, and the tensors it captured.

    The function's arguments are ``input_arguments`` (each a caller's input,
    by index, viewed with a shape) followed by ``parameters``. Its results
    have ``result_shapes``; the caller sees them viewed as ``output_shapes``.
    """
    mlir: str
    function: str
    input_names: list
    input_shapes: list
    parameter_names: list
    parameters: list  # float32 CPU tensors, in argument order
    output_shapes: list
    output_is_sequence: bool  # forward returned a tuple or list
    input_arguments: list = None  # [(input index, shape)]; None: each input as is
    result_shapes: list = None  # None: the output shapes
    # Inputs the caller passes unchanged from call to call (a module's
    # weights through torch.compile): their arguments are solder.parameter.
    parameter_inputs: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    # Where outputs are not the results one by one, each reshaped (a
    # training graph's, whose backward saves more): per output, the index
    # of its result ("result") and how it views it: reshaped, its item k of
    # the last dim ("item": a norm's mean or rstd of its (N, G, 2)
    # statistics), or permuted ("permute", and "contiguous" where the graph
    # expects a dense copy). None: one result an output.
    output_views: list = None

    def __post_init__(self):
        if self.input_arguments is None:
            self.input_arguments = [(i, tuple(s)) for i, s in enumerate(self.input_shapes)]
        if self.result_shapes is None:
            self.result_shapes = list(self.output_shapes)

    def save(self, directory, stem="model"):
        """Writes STEM.mlir, STEM.params/<name>.npy and STEM.json; returns
        the .mlir path."""
        os.makedirs(directory, exist_ok=True)
        mlir_path = os.path.join(directory, f"{stem}.mlir")
        with open(mlir_path, "w") as f:
            f.write(self.mlir)
        self.save_parameters(os.path.join(directory, f"{stem}.params"),
                             os.path.join(directory, f"{stem}.json"))
        return mlir_path

    def save_parameters(self, params_dir, metadata_path):
        """Each parameter as PARAMS_DIR/<name>.npy, and the metadata (names,
        shapes) as JSON: what solder.load needs beside a bundle."""
        os.makedirs(params_dir, exist_ok=True)
        for name, tensor in zip(self.parameter_names, self.parameters):
            np.save(os.path.join(params_dir, f"{name}.npy"), tensor.numpy())
        with open(metadata_path, "w") as f:
            json.dump(self.metadata(), f, indent=2)

    def metadata(self):
        views = {"output_views": self.output_views} if self.output_views is not None else {}
        return {"function": self.function, "inputs": self.input_names,
                "input_shapes": [list(s) for s in self.input_shapes],
                "input_arguments": [[i, list(s)] for i, s in self.input_arguments],
                "parameters": self.parameter_names,
                "output_shapes": [list(s) for s in self.output_shapes],
                "result_shapes": [list(s) for s in self.result_shapes],
                "output_is_sequence": self.output_is_sequence, **views}


# -- torch.export --------------------------------------------------------

def import_module(module, example_inputs, function_name=None):
    """Exports ``module`` with torch.export and returns an
    :class:`ImportedModule`; ``example_inputs`` fixes the input shapes
    (float32 tensors, on any device)."""
    if not isinstance(module, nn.Module):
        raise SolderError(f"solder.import_module expects an nn.Module, got "
                          f"{type(module).__name__}")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    for index, tensor in enumerate(example_inputs):
        if not isinstance(tensor, torch.Tensor):
            raise SolderError(f"example input {index} is a "
                              f"{type(tensor).__name__}; Solder compiles "
                              "functions of tensors")
        if tensor.dtype != torch.float32:
            raise UnsupportedOperation(f"example input {index} is {tensor.dtype}; "
                                       "Solder compiles float32 models for now")
    class_name = type(module).__name__
    program = export_program(module, example_inputs, class_name)
    signature = program.graph_signature
    captured = {}
    for spec in signature.input_specs:
        if spec.kind.name == "USER_INPUT":
            continue
        if spec.kind.name in ("PARAMETER", "BUFFER"):
            tensor = program.state_dict.get(spec.target)
            if tensor is None:  # a non-persistent buffer
                tensor = program.constants[spec.target]
        else:  # CONSTANT_TENSOR, lifted from the forward
            tensor = program.constants.get(spec.target)
        if not isinstance(tensor, torch.Tensor):
            raise UnsupportedOperation(f"{class_name} takes '{spec.target}', which is "
                                       f"a {type(tensor).__name__}, not a tensor")
        captured[spec.arg.name] = (spec.target, tensor)
    mutated = getattr(signature, "user_inputs_to_mutate", {}) or {}
    if mutated:
        output_name, name = next(iter(mutated.items()))
        node = next((n for n in program.graph.nodes if n.name == output_name), None)
        raise UnsupportedOperation(_at(
            node, f"{class_name} changes its input '{name}' in place, which Solder does "
            "not do to the caller's tensors; use the out-of-place form"))
    for spec in signature.output_specs:
        if spec.kind.name == "PARAMETER_MUTATION":
            node = next((n for n in program.graph.nodes if n.name == spec.arg.name), None)
            raise UnsupportedOperation(_at(
                node, f"{class_name} changes its parameter '{spec.target}' in place, "
                "which Solder does not do; use the out-of-place form"))
        if spec.kind.name == "USER_OUTPUT" and not getattr(spec.arg, "name", ""):
            value = getattr(spec.arg, "value", None)
            raise UnsupportedOperation(
                f"the module returns a {type(value).__name__}; Solder compiles "
                "functions that return tensors")
    user_outputs = [spec.arg.name for spec in signature.output_specs
                    if spec.kind.name == "USER_OUTPUT"]
    return import_graph(program.graph_module, function_name or _snake_case(class_name),
                        class_name, captured=captured, outputs=user_outputs,
                        returns_sequence=_returns_sequence(program, len(user_outputs)))


def export_program(module, example_inputs, class_name=None):
    """torch.export (non-strict) of ``module``, made functional: in-place ops
    out of place, CompositeImplicit ops (conv2d, group_norm, ...) kept."""
    class_name = class_name or type(module).__name__
    try:
        with torch.no_grad():
            program = torch.export.export(module, example_inputs, strict=False)
        return program.run_decompositions({})
    except Exception as error:
        summary = str(error).strip().splitlines()[0] if str(error).strip() else ""
        hint = " (Solder needs a forward without data-dependent control flow)" \
            if "DataDependent" in type(error).__name__ else ""
        raise SolderError(
            f"torch.export could not trace {class_name} on the example inputs: "
            f"{type(error).__name__}: {summary}{hint}") from error


def _returns_sequence(program, count):
    """Whether forward returns a tuple or list, from the exported output spec."""
    spec = program.call_spec.out_spec
    if spec is None:
        return count != 1
    return spec.type in (tuple, list)


# -- one importer for both entry points ------------------------------------

def import_graph(graph_module, function_name, class_name, captured=None, outputs=None,
                 returns_sequence=None, parameter_inputs=()):
    """Imports an ATen graph. ``captured`` maps placeholder names to
    (qualified name, tensor): those become parameters; the other placeholders
    are the caller's inputs. ``outputs`` names the returned nodes to import
    (default: all of them); ``returns_sequence`` defaults to whether the
    graph returns a tuple. ``parameter_inputs``: the indices of inputs the
    caller passes unchanged from call to call (solder.parameter)."""
    return _Importer(graph_module, function_name, class_name, captured or {},
                     parameter_inputs).run(outputs, returns_sequence)


def is_channels_last(value):
    """Whether ``value`` (a tensor or fake tensor) is stored channels-last
    (PyTorch's channels_last or channels_last_3d) and not also contiguous
    (one channel, or one pixel a sample, is both)."""
    if not isinstance(value, torch.Tensor) or value.dim() not in (4, 5) \
            or value.is_contiguous():
        return False
    return value.is_contiguous(memory_format=channels_last_format(value.dim()))


def channels_last_format(rank):
    """PyTorch's channels-last memory format of a rank-4 or rank-5 tensor."""
    return torch.channels_last if rank == 4 else torch.channels_last_3d


def is_supported_node(node):
    """Whether the importer has a rule for ``node``, an ATen call producing
    float32 (its arguments are checked when its subgraph is imported)."""
    if node.op != "call_function":
        return False
    value = node.meta.get("val")
    if isinstance(value, (tuple, list)):
        value = value[0] if value else None
    if not isinstance(value, torch.Tensor) or value.dtype != torch.float32:
        return False
    if node.target is operator.getitem:
        source = node.args[0]
        return isinstance(source, torch.fx.Node) and is_supported_node(source)
    return getattr(node.target, "overloadpacket", None) in _supported_packets()


def static_refusal(node):
    """Why the importer refuses ``node`` whatever its neighbours, judged from
    its own arguments' shapes, or None. The backend's partitioner leaves such
    a node out at once instead of finding it subgraph by subgraph."""
    packet = getattr(node.target, "overloadpacket", None)
    if packet is aten.linear:
        perm = _permutation(node.args[0])
        if perm is not None and perm != list(range(len(perm))) and \
                (len(perm) < 3 or perm[-1] != 1):
            return (f"{_describe(node)} over dim {perm[-1]} of a tensor permuted by {perm}: "
                    "Solder multiplies permuted tensors over their channels only")
    if packet in (aten.mm, aten.addmm, aten.matmul):
        second = node.args[2] if packet is aten.addmm else node.args[1]
        value = second.meta.get("val") if isinstance(second, torch.fx.Node) else None
        if isinstance(value, torch.Tensor) and value.dim() != 2:
            return (f"{_describe(node)} with a {value.dim()}-D second operand: Solder runs a "
                    "matmul as a Linear, whose second operand is 2-D")
    return None


def _transposed_dims(node, rank):
    """The permutation aten.transpose (two dims swapped), aten.t and .T
    (aten.numpy_T: every dim reversed) apply to a rank-``rank`` tensor."""
    packet = node.target.overloadpacket
    if packet is not aten.transpose:
        return list(reversed(range(rank)))
    first, second = (d % rank for d in (_arg(node, 1, "dim0"), _arg(node, 2, "dim1")))
    dims = list(range(rank))
    dims[first], dims[second] = dims[second], dims[first]
    return dims


def _permutation(node):
    """The permutation ``node`` is seen through (through pointwise ops,
    LayerNorm and Linear), or None where it is not a permute's."""
    perm, seen = None, set()
    while isinstance(node, torch.fx.Node) and node not in seen:
        seen.add(node)
        packet = getattr(node.target, "overloadpacket", node.target)
        dims = None
        if packet is aten.permute:
            dims = [d % len(_arg(node, 1, "dims")) for d in _arg(node, 1, "dims")]
        elif packet in (aten.transpose, aten.t, aten.numpy_T):
            value = node.meta.get("val")
            dims = _transposed_dims(node, value.dim() if isinstance(value, torch.Tensor) else 2)
        elif packet not in _PERMUTED_PASSES:
            break
        if dims is not None:
            perm = dims if perm is None else [dims[p] for p in perm]
        # The first computed tensor argument carries the layout (a binary
        # op's other operand is permuted alike, or a parameter).
        node = next((a for a in node.args if isinstance(a, torch.fx.Node)
                     and a.op != "placeholder"), None)
    return perm


_SUPPORTED = []


def _supported_packets():
    if not _SUPPORTED:
        _SUPPORTED.append(frozenset(_Importer(None, "", "", {}).handlers))
    return _SUPPORTED[0]


# Frames of torch and of this package are not the user's.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_FRAME = re.compile(r'File "([^"]+)", line (\d+), in [^\n]*\n([^\n]*)')


def source_location(node):
    """(file, line, code) of the innermost user frame in the node's stack
    trace, or None."""
    trace = node.meta.get("stack_trace") if node is not None else None
    if not trace:
        return None
    for file, line, code in reversed(_FRAME.findall(trace)):
        path = os.path.abspath(file) if not file.startswith("<") else file
        if path.startswith(_TORCH_DIR) or path.startswith(_PACKAGE_DIR) or file.startswith("<"):
            continue
        return file, int(line), code.strip()
    return None


def _at(node, message):
    """``message`` located at ``node``'s user line, when it has one."""
    where = source_location(node)
    return located(message, *where) if where else message


def _snake_case(name):
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    name = re.sub(r"[^a-z0-9_]", "_", name)
    return name if re.match(r"[a-z_]", name) else "m_" + name


def _describe(node):
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        packet = target.overloadpacket.__name__
        return f"'aten.{packet}'" if target._overloadname == "default" else \
            f"'aten.{packet}.{target._overloadname}'"
    return f"'{getattr(target, '__name__', target)}'"


def _tuple(value, rank):
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and rank > 1:
            return tuple(int(value[0]) for _ in range(rank))
        return tuple(int(v) for v in value)
    return tuple(int(value) for _ in range(rank))


def _arg(node, index, name, default=None):
    """An ATen call's argument, positional or keyword."""
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def _spatial_rank(node):
    """1, 2 or 3: a pool's spatial dims, from its name (max_pool2d, ...)."""
    return int(re.search(r"(\d)d", node.target.overloadpacket.__name__).group(1))


def _reshape_groups(base, view):
    """The contiguous groups a row-major reshape maps onto each other: a list
    of (base dims, view dims) with equal products; unit dims alone."""
    groups, i, j = [], 0, 0
    while i < len(base) or j < len(view):
        if i < len(base) and base[i] == 1:
            groups.append(([i], []))
            i += 1
            continue
        if j < len(view) and view[j] == 1:
            groups.append(([], [j]))
            j += 1
            continue
        bi, vj = [i], [j]
        pb, pv = base[i], view[j]
        i, j = i + 1, j + 1
        while pb != pv:
            if pb < pv:
                pb *= base[i]
                bi.append(i)
                i += 1
            else:
                pv *= view[j]
                vj.append(j)
                j += 1
        groups.append((bi, vj))
    return groups


_UNARY = {aten.relu: "relu", aten.tanh: "tanh", aten.sigmoid: "sigmoid",
          aten.silu: "silu", aten.mish: "mish", aten.hardswish: "hardswish",
          aten.hardsigmoid: "hardsigmoid", aten.exp: "exp", aten.log: "log",
          aten.abs: "abs", aten.neg: "neg", aten.sqrt: "sqrt", aten.rsqrt: "rsqrt"}
_BINARY = {aten.add: "add", aten.sub: "sub", aten.mul: "mul", aten.div: "div",
           aten.true_divide: "div", aten.maximum: "maximum", aten.minimum: "minimum",
           aten.pow: "pow"}
_REDUCE = {aten.sum: "sum", aten.mean: "mean", aten.amax: "max", aten.amin: "min",
           aten.max: "max", aten.min: "min", aten.logsumexp: "logsumexp",
           aten.prod: "prod"}
_IDENTITY = {aten.clone, aten.detach, aten.alias, aten.contiguous, aten.lift_fresh_copy,
             aten._to_copy, aten.to, aten.type_as}
_VIEWS = {aten.view, aten._unsafe_view, aten.reshape, aten.flatten, aten.squeeze,
          aten.unsqueeze}
# Ops that return a tuple of which Solder computes only item 0.
_FIRST_RESULT = {aten.native_group_norm, aten.native_layer_norm,
                 aten._native_batch_norm_legit_no_training,
                 aten._native_batch_norm_legit_functional, aten._native_batch_norm_legit,
                 aten.native_batch_norm, aten.max_pool1d_with_indices,
                 aten.max_pool2d_with_indices, aten.max_pool3d_with_indices,
                 aten.adaptive_max_pool1d, aten.adaptive_max_pool2d,
                 aten.adaptive_max_pool3d}

# The BatchNorm ops that may normalize by batch statistics: op -> the
# (training, eps) of its node.
_BATCH_NORM_MODE = {
    aten._native_batch_norm_legit_functional: lambda n: (n.args[5], n.args[7]),
    aten._native_batch_norm_legit: lambda n: (n.args[3], n.args[5])
    if n.target._overloadname == "no_stats" else (n.args[5], n.args[7]),
    aten.native_batch_norm: lambda n: (n.args[5], n.args[7]),
}

# The norms whose results 1 and 2 (mean and rstd, which a training graph's
# backward saves) the importer computes.
_STATISTICS = {aten.native_group_norm, aten.native_layer_norm} | set(_BATCH_NORM_MODE)

# The ops that keep a permuted tensor permuted on its way to a Linear: the
# pointwise ones, LayerNorm, Linear itself.
_PERMUTED_PASSES = frozenset(_UNARY) | frozenset(_BINARY) | _IDENTITY | frozenset({
    aten.rsub, aten.reciprocal, aten.square, aten.leaky_relu, aten.elu, aten.softplus,
    aten.hardtanh, aten.relu6, aten.gelu, aten.clamp, aten.clip, aten.clamp_min,
    aten.clamp_max, aten.dropout, aten.native_dropout, aten._softmax, aten.softmax,
    aten._log_softmax, aten.log_softmax, aten.layer_norm, aten.native_layer_norm,
    aten.linear, operator.getitem})


class _Importer:
    def __init__(self, graph_module, function_name, class_name, captured,
                 parameter_inputs=()):
        self.gm = graph_module
        self.parameter_inputs = set(parameter_inputs)
        self.class_name = class_name
        self.function_name = function_name
        self.captured = captured
        self.lines = []
        self.values = {}  # fx node -> Value or View
        self.used_names = set()
        self.inputs = []  # placeholders that are the caller's inputs, in order
        self.arguments = []  # (Value, input index, shape)
        self.argument_values = {}  # (placeholder, shape) -> Value
        self.parameters = []  # (Value, CPU tensor), in argument order
        self.parameter_values = {}  # (placeholder, shape) -> Value
        self.reshapes = {}  # (base name, shape) -> the solder.reshape's Value
        self.constants = {}
        self.statistics = {}  # norm node -> its mean and rstd
        self.notes = []
        self.node = None
        self.handlers = self._handlers()

    # -- driving ---------------------------------------------------------

    def run(self, output_names=None, is_sequence=None):
        graph = self.gm.graph
        output_node = next(n for n in graph.nodes if n.op == "output")
        returned = output_node.args[0]
        returned = list(returned) if isinstance(returned, (tuple, list)) else [returned]
        if output_names is not None:
            by_name = {n.name: n for n in returned if isinstance(n, torch.fx.Node)}
            returned = [by_name[name] for name in output_names]
        if is_sequence is None:
            is_sequence = isinstance(output_node.args[0], (tuple, list))
        for node in graph.nodes:
            if node.op == "placeholder" and node.name not in self.captured:
                self.inputs.append(node)
        needed = self._needed(returned)
        for node in graph.nodes:
            if node.op == "output":
                break
            self.node = node
            if node not in needed or node.op == "placeholder":
                continue
            # torch.export lifts every tensor into a placeholder, and dynamo
            # passes them as inputs: only ATen calls remain.
            if node.op != "call_function":
                raise self.unsupported(f"'{node.op}' node '{node.name}' is not supported")
            self.values[node] = self.call(node)
        self.node = output_node
        # Each returned value once (a training graph returns an output and
        # its detached copy, a norm's mean and rstd of one statistics
        # tensor); outputs that are views of a result say of which.
        results, channels_last_results, output_shapes, output_views = [], [], [], []
        positions = {}  # (value name, channels-last) -> its index in results

        def result_of(base, channels_last=False):
            # One result a value and layout: a view reshapes a dense one.
            key = (base.name, channels_last)
            if key not in positions:
                positions[key] = len(results)
                results.append(base)
                channels_last_results.append(channels_last)
            return positions[key]

        for result in returned:
            if not isinstance(result, torch.fx.Node):
                raise self.unsupported(f"the module returns a {type(result).__name__}; "
                                       "Solder compiles functions that return tensors")
            self.node = result
            if result.op == "placeholder":
                raise self.unsupported(
                    f"the module returns its input or parameter '{result.name}' "
                    "unchanged; there is nothing to compile for it")
            value = self.values[result]
            if isinstance(value, TransposedParameter):
                raise self.unsupported(
                    f"the module returns its input or parameter "
                    f"'{value.placeholder.name}' transposed; there is nothing to compile "
                    "for it")
            output_shapes.append(tuple(value.shape))
            if isinstance(value, StatisticsItem):
                output_views.append({"result": result_of(value.stats), "item": value.item})
                continue
            if isinstance(value, Permuted):
                if value.base.argument is not None:
                    raise self.unsupported(
                        f"the module returns its input or parameter "
                        f"'{value.base.argument.name}' permuted; there is nothing to "
                        "compile for it")
                # Returned as computed; the caller sees it permuted: a view,
                # or a copy where the graph expects it dense in the permuted
                # order (a backward that views it so).
                view = {"result": result_of(value.base), "permute": list(value.perm)}
                expected = result.meta.get("val")
                if isinstance(expected, torch.Tensor) and expected.is_contiguous() and \
                        not _permuted_is_dense(value):
                    view["contiguous"] = True
                output_views.append(view)
                continue
            base = value.base if isinstance(value, View) else value
            if base.argument is not None:
                raise self.unsupported(
                    f"the module returns its input or parameter '{result.name}' "
                    "unchanged; there is nothing to compile for it")
            output_views.append({"result": result_of(base, not isinstance(value, View) and
                                                     is_channels_last(result.meta.get("val")))})
        if output_views == [{"result": i} for i in range(len(results))]:
            output_views = None  # the results, each reshaped: no views
        self.arguments.sort(key=lambda argument: argument[1])  # in the caller's order
        # The captured parameters are the same call after call
        # (solder.parameter): what the bundle computes from them alone is
        # prepared once. An input the caller stores channels-last, taken as
        # it is (not viewed), is solder.channels_last: the plan keeps that
        # where its readers take it so, and the caller converts it where not.
        arguments_of = collections.Counter(index for _, index, _ in self.arguments)
        arguments = []
        for value, index, shape in self.arguments:
            attributes = []
            if index in self.parameter_inputs:
                attributes.append("solder.parameter")
            if arguments_of[index] == 1 and shape == self.shape_of(self.inputs[index]) \
                    and is_channels_last(self.inputs[index].meta.get("val")):
                attributes.append("solder.channels_last")
            arguments.append(f"%{value.name}: {value.type}"
                             + (" {" + ", ".join(attributes) + "}" if attributes else ""))
        arguments += [f"%{value.name}: {value.type} {{solder.parameter}}"
                      for value, _ in self.parameters]
        # A result the traced graph returns channels-last (its fake tensor's
        # strides: on the CPU, a conv of a channels-last input) is asked for
        # so; the graph's later ops, and the caller, expect those strides.
        result_types = [value.type + (" {solder.channels_last}" if returned_layout else "")
                        for value, returned_layout in zip(results, channels_last_results)]
        header = (f"func.func @{self.function_name}("
                  + ", ".join(arguments)
                  + ") -> ("
                  + ", ".join(result_types) + ") {")
        body = ["  " + line for line in self.lines]
        body.append("  return " + ", ".join(f"%{v.name}" for v in results)
                    + " : " + ", ".join(v.type for v in results))
        text = "\n".join([f"// {self.class_name}, imported by solder.import_module.",
                          header] + body + ["}", ""])
        return ImportedModule(
            mlir=text, function=self.function_name,
            input_names=[n.name for n in self.inputs],
            input_shapes=[self.shape_of(n) for n in self.inputs],
            parameter_names=[v.name for v, _ in self.parameters],
            parameters=[t for _, t in self.parameters],
            output_shapes=output_shapes, output_is_sequence=is_sequence,
            input_arguments=[(index, value.shape) for value, index, _ in self.arguments],
            result_shapes=[v.shape for v in results], notes=self.notes,
            parameter_inputs=sorted(self.parameter_inputs), output_views=output_views)

    @staticmethod
    def _needed(returned):
        """The nodes the returned values depend on: the rest (a training
        BatchNorm's running-stat updates, say) is not imported."""
        needed, stack = set(), [n for n in returned if isinstance(n, torch.fx.Node)]
        while stack:
            node = stack.pop()
            if node in needed:
                continue
            needed.add(node)
            stack.extend(node.all_input_nodes)
        return needed

    def call(self, node):
        target = node.target
        if target is operator.getitem:
            return self.getitem(node)
        packet = getattr(target, "overloadpacket", None)
        if packet in (aten.max, aten.min) and target._overloadname == "dim":
            return node  # values and indices: getitem 0 emits the values
        if packet in (aten.max, aten.min) and target._overloadname == "other":
            return self.elementwise("maximum" if packet is aten.max else "minimum",
                                    node.args[:2])
        handler = self.handlers.get(packet)
        if handler is None:
            raise self.unsupported(f"{_describe(node)} is not supported")
        return handler(node)

    def _handlers(self):
        handlers = {}
        for packet, op in _UNARY.items():
            handlers[packet] = lambda n, op=op: self.unary(op, n)
        for packet, op in _BINARY.items():
            handlers[packet] = lambda n, op=op: self.binary_node(op, n)
        for packet, kind in _REDUCE.items():
            handlers[packet] = lambda n, kind=kind: self.reduce(kind, n)
        for packet in _IDENTITY:
            handlers[packet] = self.identity
        for packet in _VIEWS:
            handlers[packet] = self.view
        for packet in _FIRST_RESULT:
            handlers[packet] = lambda n: n  # emitted by getitem 0
        handlers.update({
            aten.rsub: self.rsub,
            aten.reciprocal: lambda n: self.elementwise("div", [1.0, n.args[0]]),
            aten.square: lambda n: self.elementwise("mul", [n.args[0], n.args[0]]),
            aten.leaky_relu: lambda n: self.unary(
                "leaky_relu", n, alpha=_arg(n, 1, "negative_slope", 0.01)),
            aten.elu: self.elu,
            aten.softplus: lambda n: self.unary(
                "softplus", n, beta=_arg(n, 1, "beta", 1.0),
                threshold=_arg(n, 2, "threshold", 20.0)),
            aten.hardtanh: lambda n: self.unary(
                "hardtanh", n, min=_arg(n, 1, "min_val", -1.0), max=_arg(n, 2, "max_val", 1.0)),
            aten.relu6: lambda n: self.unary("hardtanh", n, min=0.0, max=6.0),
            aten.gelu: self.gelu,
            aten.clamp: lambda n: self.clamp(n, _arg(n, 1, "min"), _arg(n, 2, "max")),
            aten.clip: lambda n: self.clamp(n, _arg(n, 1, "min"), _arg(n, 2, "max")),
            aten.clamp_min: lambda n: self.clamp(n, _arg(n, 1, "min"), None),
            aten.clamp_max: lambda n: self.clamp(n, None, _arg(n, 1, "max")),
            aten._softmax: lambda n: self.softmax("softmax", n),
            aten.softmax: lambda n: self.softmax("softmax", n),
            aten._log_softmax: lambda n: self.softmax("log_softmax", n),
            aten.log_softmax: lambda n: self.softmax("log_softmax", n),
            aten.dropout: self.dropout,
            aten.native_dropout: self.dropout,
            aten.conv1d: self.conv, aten.conv2d: self.conv, aten.conv3d: self.conv,
            aten.convolution: self.convolution,
            aten.conv_transpose1d: self.conv_transpose,
            aten.conv_transpose2d: self.conv_transpose,
            aten.conv_transpose3d: self.conv_transpose,
            aten.group_norm: self.group_norm,
            aten.layer_norm: self.layer_norm,
            aten.instance_norm: self.instance_norm,
            aten.batch_norm: self.batch_norm,
            aten.max_pool1d: lambda n: self.pool("max", n),
            aten.max_pool2d: lambda n: self.pool("max", n),
            aten.max_pool3d: lambda n: self.pool("max", n),
            aten.avg_pool1d: lambda n: self.pool("avg", n),
            aten.avg_pool2d: lambda n: self.pool("avg", n),
            aten.avg_pool3d: lambda n: self.pool("avg", n),
            aten.adaptive_avg_pool1d: lambda n: self.adaptive_pool("avg", n),
            aten.adaptive_avg_pool2d: lambda n: self.adaptive_pool("avg", n),
            aten.adaptive_avg_pool3d: lambda n: self.adaptive_pool("avg", n),
            aten._adaptive_avg_pool2d: lambda n: self.adaptive_pool("avg", n),
            aten._adaptive_avg_pool3d: lambda n: self.adaptive_pool("avg", n),
            aten.linear: self.linear,
            aten.mm: self.matmul,
            aten.matmul: self.matmul,
            aten.addmm: self.matmul,
            aten.permute: self.permute,
            aten.t: self.transpose,
            aten.transpose: self.transpose,
            aten.numpy_T: self.transpose,
        })
        return handlers

    # -- errors, names, locations ---------------------------------------

    def unsupported(self, message):
        error = UnsupportedOperation(_at(self.node, message))
        name = getattr(self.node, "name", None)
        error.node_names = [name] if name else []
        return error

    def fresh(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, index = base, 1
        while name in self.used_names:
            name, index = f"{base}_{index}", index + 1
        self.used_names.add(name)
        return name

    def value_name(self, node):
        """A builtin module's attribute name for the op it ran
        (``self.conv`` -> %conv), else the ATen node's name."""
        stack = node.meta.get("nn_module_stack") or {}
        if stack:
            path, kind = list(stack.values())[-1]
            kind = kind if isinstance(kind, str) else \
                f"{getattr(kind, '__module__', '')}.{getattr(kind, '__qualname__', '')}"
            if kind.startswith("torch.nn.modules.") and path:
                path = re.sub(r"^L\['[^']*'\]\.?", "", path)
                path = re.sub(r"\[['\"]?([^'\"\]]+)['\"]?\]", r".\1", path)
                if path:
                    return path.replace(".", "_")
        # The op, not its ATen variant: native_group_norm -> group_norm.
        return re.sub(r"^_?(native_)?(.*?)(_legit.*|_with_indices)?(_\d+)?$", r"\2\4",
                      node.name)

    def location(self):
        """The op's MLIR location: the ATen node's name around the user's
        line, loc("max_pool2d"("model.py":12:1)). Diagnostics print the line;
        the name tells the backend which node a refusal concerns."""
        quote = lambda text: text.replace("\\", "\\\\").replace('"', '\\"')
        where = source_location(self.node)
        line = f'("{quote(where[0])}":{where[1]}:1)' if where else ""
        return f' loc("{quote(self.node.name)}"{line})'

    def shape_of(self, node):
        value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor):
            raise self.unsupported(f"'{getattr(node, 'name', node)}' is not one tensor")
        if value.dtype != torch.float32:
            if node.name in self.captured:
                raise self.unsupported(f"parameter '{self.captured[node.name][0]}' is "
                                       f"{value.dtype}; Solder compiles float32 models")
            raise self.unsupported(f"'{node.name}' is {value.dtype}; Solder compiles "
                                   "float32 chains")
        return tuple(int(d) for d in value.shape)

    def nonempty(self, shape, what):
        """``shape``, or the refusal of a tensor with no element (the
        kernels are launched over elements)."""
        if 0 in shape:
            raise self.unsupported(f"{_describe(self.node)} {what} of shape {shape}, which is "
                                   "empty; Solder compiles tensors that hold elements")
        return shape

    def result_shape(self):
        value = self.node.meta.get("val")
        if isinstance(value, (tuple, list)):
            value = value[0]
        if not isinstance(value, torch.Tensor):
            raise self.unsupported(f"{_describe(self.node)} does not produce one tensor")
        if value.dtype != torch.float32:
            raise self.unsupported(f"{_describe(self.node)} produces {value.dtype}; "
                                   "Solder compiles float32 chains")
        try:
            return self.nonempty(tuple(int(d) for d in value.shape), "gives a tensor")
        except TypeError as error:  # a symbolic size
            raise self.unsupported(f"{_describe(self.node)} has a dynamic shape "
                                   f"{tuple(value.shape)}; Solder compiles static "
                                   "shapes") from error

    def emit(self, text, shape=None, name=None):
        """Appends '%name = text loc(...)' and returns its Value; ``shape``
        defaults to the node's."""
        shape = self.result_shape() if shape is None else tuple(shape)
        value = Value(self.fresh(name or self.value_name(self.node)), shape)
        self.lines.append(f"%{value.name} = {text}{self.location()}")
        return value

    # -- operands -------------------------------------------------------

    def operand(self, operand):
        """A tensor operand: a Value, a View, or a Python number as a rank-0
        constant. Placeholders become arguments of their own shape."""
        if isinstance(operand, (Value, View, Permuted)):
            return operand
        if isinstance(operand, torch.fx.Node):
            if operand.op == "placeholder":
                return self.argument(operand, self.shape_of(operand))
            if operand not in self.values:
                raise self.unsupported(f"operand '{operand.name}' is not a tensor")
            value = self.values[operand]
            if isinstance(value, TransposedParameter):
                placeholder = value.placeholder
                if placeholder.name not in self.captured:  # an input: a permute
                    return Permuted(self.argument(placeholder, self.shape_of(placeholder)),
                                    (1, 0))
                raise self.unsupported(
                    f"{_describe(self.node)} takes the transposed parameter "
                    f"'{value.placeholder.name}'; Solder takes a transposed parameter "
                    "only as the weight of a Linear or matmul")
            if isinstance(value, StatisticsItem):
                raise self.unsupported(
                    f"{_describe(self.node)} reads {_describe(operand.args[0])}'s "
                    f"{('mean', 'rstd')[value.item]}; Solder returns a norm's statistics "
                    "as outputs only")
            return value
        if isinstance(operand, bool) or not isinstance(operand, (int, float)):
            raise self.unsupported(
                f"{_describe(self.node)} with an operand of type "
                f"{type(operand).__name__}; Solder takes tensors and Python numbers")
        return self.constant(float(operand))

    def value(self, operand):
        """A materialized tensor operand: a view of an argument becomes an
        argument of the viewed shape; a view in the middle of the chain a
        solder.reshape (no kernel, no copy)."""
        value = self.operand(operand)
        if isinstance(value, Permuted):
            raise self.unsupported(
                f"{_describe(self.node)} takes '{value.base.name}' permuted by "
                f"{list(value.perm)}; Solder keeps a permute as layout bookkeeping for "
                "pointwise ops, LayerNorm and Linear over the channels, until it is "
                "permuted back")
        if isinstance(value, View) and value.base.argument is not None:
            return self.argument(value.base.argument, value.shape)
        if isinstance(value, View):
            return self.reshaped(value.base, value.shape)
        return value

    def reshaped(self, base, shape):
        """``base``, a computed value, seen with ``shape``: a solder.reshape,
        emitted once per shape. Its result shares the base's storage; the op
        that needs it is where it is located."""
        key = (base.name, tuple(shape))
        if key not in self.reshapes:
            self.reshapes[key] = self.emit(
                f"solder.reshape %{base.name} : {base.type} -> {tensor_type(shape)}",
                shape, name=f"{base.name}_view")
        return self.reshapes[key]

    def undeclared_operand(self, operand):
        """operand(), but a placeholder is not declared as an argument of
        its own shape: its consumer takes it viewed (argument())."""
        if isinstance(operand, torch.fx.Node) and operand.op == "placeholder":
            return Value(operand.name, self.shape_of(operand), operand)
        return self.operand(operand)

    def optional_value(self, operand):
        return None if operand is None else self.value(operand)

    def argument(self, placeholder, shape, transposed=False):
        """The placeholder as a function argument of ``shape`` (the caller
        views its tensor): a captured parameter, or a caller's input. A 2-D
        parameter may be ``transposed`` (a copy, made once here)."""
        shape = self.nonempty(tuple(shape), f"takes '{placeholder.name}'")
        if placeholder.name in self.captured:
            key = (placeholder, shape, transposed)
            if key not in self.parameter_values:
                qualified, tensor = self.captured[placeholder.name]
                if tensor.dtype != torch.float32:
                    raise self.unsupported(f"parameter '{qualified}' is {tensor.dtype}; "
                                           "Solder compiles float32 models")
                name = qualified.replace(".", "_")
                if transposed:
                    tensor, name = tensor.t(), f"{name}_t"
                value = Value(self.fresh(name if shape == tuple(tensor.shape)
                                         else f"{name}_view"), shape, placeholder)
                # A copy: the compiled module keeps the values of compile time.
                self.parameters.append((value, tensor.detach().to(
                    "cpu", torch.float32, copy=True).reshape(shape).contiguous()))
                self.parameter_values[key] = value
            return self.parameter_values[key]
        key = (placeholder, shape)
        if key not in self.argument_values:
            self.shape_of(placeholder)  # float32, static
            index = self.inputs.index(placeholder)
            name = placeholder.name if shape == self.shape_of(placeholder) \
                else f"{placeholder.name}_view"
            value = Value(self.fresh(name), shape, placeholder)
            self.arguments.append((value, index, shape))
            self.argument_values[key] = value
        return self.argument_values[key]

    def constant(self, number):
        key = format_float(number)
        if key not in self.constants:
            value = Value(self.fresh("cst"), (), is_constant=True)
            self.lines.append(f"%{value.name} = arith.constant dense<{key}> : tensor<f32>")
            self.constants[key] = value
        return self.constants[key]

    # -- views ----------------------------------------------------------

    def view(self, node):
        """A View of the viewed tensor (of its base, for a view of a view);
        consumers decide how to take it."""
        shape = self.result_shape()
        source = node.args[0]
        # A placeholder is not an argument yet: only the shapes its consumers
        # take are.
        value = self.undeclared_operand(source)
        if isinstance(value, Permuted):
            raise self.unsupported(
                f"{_describe(node)} of '{value.base.name}' permuted by {list(value.perm)}; "
                "Solder views tensors in the order it computes them")
        if isinstance(value, View):
            value = value.base
        if value.shape == shape:
            return self.operand(source) if value.argument is not None else value
        return View(value, shape)

    def base_of(self, view):
        """A view's base as an emitted value (an argument is declared)."""
        base = view.base
        return base if base.argument is None else self.argument(base.argument, base.shape)

    def identity(self, node):
        value = self.node.meta.get("val")
        source = node.args[0].meta.get("val") if isinstance(node.args[0], torch.fx.Node) \
            else None
        if isinstance(value, torch.Tensor) and isinstance(source, torch.Tensor) and \
                source.device != value.device:
            raise self.unsupported(f"{_describe(node)} moves the tensor to {value.device} "
                                   "inside the module")
        self.result_shape()  # float32
        if isinstance(self.values.get(node.args[0]), StatisticsItem):
            return self.values[node.args[0]]  # detached for the backward
        return self.operand(node.args[0])

    def elementwise(self, op, operands, attrs="", name=None):
        """An elementwise op on tensors and numbers. Views of arguments become
        arguments of the viewed shape. Views of computed values pass through
        when every other tensor operand is a view of the same shape over a
        base of the same shape, a scalar, or an argument (viewed onto the
        bases' shape); otherwise the op runs on the views' shapes, each view
        a solder.reshape."""
        permuted = [v for v in operands if isinstance(v, Permuted) or (
            isinstance(v, torch.fx.Node) and isinstance(self.values.get(v), Permuted))]
        if permuted:
            perm = self.operand(permuted[0]).perm
            return self.elementwise_permuted(op, operands, perm, attrs, name)
        values = [self.operand(o) for o in operands]
        views = [v for v in values if isinstance(v, View)]
        computed = [v for v in views if v.base.argument is None]
        # Work on the bases where a computed value is viewed, or where every
        # tensor is an argument viewed alike (the view may feed a reduction).
        alike = views and all(
            (isinstance(v, View) and (v.shape, v.base.shape) ==
             (views[0].shape, views[0].base.shape)) or
            (isinstance(v, Value) and v.is_constant) for v in values)
        result_shape = self.result_shape()
        # The view the result takes its shape from (a smaller one, such as a
        # keepdim reduction of it, broadcasts onto its base).
        widest = [v for v in computed if v.shape == result_shape] or computed
        reference = widest[0] if computed else views[0] if alike else None
        if reference is not None:
            mapped = self.onto_base(values, reference)
            if mapped is not None:
                return View(self.emit_elementwise(op, mapped, attrs, name), result_shape)
        return self.emit_elementwise(op, [self.value(v) for v in values], attrs, name)

    def onto_base(self, values, reference):
        """The operands of an elementwise op on the base of the view
        ``reference``: arguments viewed onto it, scalars, views whose base is
        what broadcasting them reads of it; None where one is not."""
        view_shape, base_shape = reference.shape, reference.base.shape
        # Every operand is mapped before any argument is declared: a
        # declaration the fallback does not use would stay in the signature.
        mapped = []
        for v in values:
            argument = v.argument if isinstance(v, Value) else v.base.argument
            if argument is not None:
                onto = self.broadcast_onto(v.shape, view_shape, base_shape)
                if onto is None:
                    return None
                mapped.append((argument, onto))
            elif isinstance(v, Value) and v.shape == ():
                mapped.append(v)
            elif isinstance(v, View) and self.broadcasts_onto_base(v, view_shape, base_shape):
                mapped.append(v.base)
            else:
                return None
        return [self.argument(*m) if isinstance(m, tuple) else m for m in mapped]

    def elementwise_permuted(self, op, values, perm, attrs, name):
        """An elementwise op on permuted tensors, on their bases: every other
        tensor is permuted alike, a number, or an argument broadcast along
        the permuted dims (a LayerNorm's or layer scale's (C,) parameter),
        viewed onto the bases' layout."""
        rank = len(perm)
        mapped = []
        for operand in values:
            placeholder = operand if isinstance(operand, torch.fx.Node) and \
                operand.op == "placeholder" else None
            # An argument is declared in the shape it is read in, only.
            v = Value(operand.name, self.shape_of(operand), operand) if placeholder \
                else self.operand(operand)
            if isinstance(v, Permuted) and v.perm == perm:
                mapped.append(v.base)
                continue
            if isinstance(v, Value) and (v.shape == () or v.is_constant):
                mapped.append(self.operand(operand) if placeholder else v)
                continue
            if isinstance(v, Value) and v.argument is not None and len(v.shape) <= rank:
                logical = (1,) * (rank - len(v.shape)) + tuple(v.shape)
                physical = [1] * rank
                for i, p in enumerate(perm):
                    physical[p] = logical[i]
                # Viewing the argument onto the bases' layout must keep the
                # order of its non-unit dims (no transpose): their places in
                # the base ascend.
                places = [perm[i] for i, d in enumerate(logical) if d != 1]
                if places == sorted(places):
                    mapped.append(self.argument(v.argument, tuple(physical)))
                    continue
            what = v.base.name if isinstance(v, (View, Permuted)) else v.name
            raise self.unsupported(
                f"{_describe(self.node)} mixes a tensor permuted by {list(perm)} with "
                f"'{what}' of shape {tuple(v.shape)}, which would need a transpose")
        return Permuted(self.emit_elementwise(op, mapped, attrs, name), perm)

    def transpose(self, node):
        """aten.t, aten.transpose, .T: a permute."""
        return self.permute(node, _transposed_dims(
            node, len(self.undeclared_operand(node.args[0]).shape)))

    def permute(self, node, dims=None):
        """aten.permute: layout bookkeeping (Permuted); a permute back to the
        computed order is the base itself. A 2-D parameter transposed is a
        TransposedParameter, for the matmul that takes it as its weight."""
        source = node.args[0]
        dims = list(_arg(node, 1, "dims")) if dims is None else dims
        if isinstance(source, torch.fx.Node) and source.op == "placeholder" and \
                len(self.shape_of(source)) == 2 and [d % 2 for d in dims] == [1, 0]:
            return TransposedParameter(source)
        x = self.operand(source)
        dims = [d % len(x.shape) for d in dims]
        if isinstance(x, View):
            if dims == list(range(len(dims))):
                return x
            x = self.value(x)
        base, perm = (x.base, [x.perm[d] for d in dims]) if isinstance(x, Permuted) \
            else (x, dims)
        if perm == list(range(len(perm))):
            return base
        return Permuted(base, tuple(perm))

    def channels_of_permuted(self, x, dims, what):
        """The base of permuted ``x`` where its logical ``dims`` are exactly
        the base's channels (dim 1), else a refusal."""
        if sorted(x.perm[d] for d in dims) != [1] or len(x.base.shape) < 3:
            raise self.unsupported(
                f"{_describe(self.node)}: {what} over dims {dims} of '{x.base.name}' "
                f"permuted by {list(x.perm)}; Solder runs it over the channels only")
        return x.base

    def layer_norm_permuted(self, x, normalized_shape, weight, bias, eps):
        """LayerNorm over the last dim of a channels-last permute (ConvNeXt):
        over the channels of the base, per position. The mean, then the
        variance (two reductions over the channels), then (x - mean) * rstd
        with the affine parameters: pointwise ops that fuse into the next
        conv's input conversion as its prologue. The variance squares
        mean - x, not x - mean, so that CSE leaves it inside the variance's
        region (a region that yields a reduction yields nothing else)."""
        rank = len(x.perm)
        base = self.channels_of_permuted(
            x, list(range(rank - len(normalized_shape), rank)), "LayerNorm")
        channels = base.shape[1]
        stem = self.value_name(self.node)

        def reduce_mean(value, name):
            return self.emit_keepdim_reduce("mean", value, [1], f"{stem}_{name}")

        mean = reduce_mean(base, "mean")
        deviation = self.emit_elementwise("sub", [mean, base], name=f"{stem}_deviation")
        variance = reduce_mean(
            self.emit_elementwise("mul", [deviation, deviation], name=f"{stem}_squares"),
            "variance")
        rstd = self.emit_elementwise(
            "rsqrt", [self.emit_elementwise("add", [variance, self.constant(float(eps))],
                                            name=f"{stem}_variance_eps")],
            name=f"{stem}_rstd")
        y = self.emit_elementwise(
            "mul", [self.emit_elementwise("sub", [base, mean], name=f"{stem}_centered"),
                    rstd], name=f"{stem}_normalized")
        spread = (channels,) + (1,) * (len(base.shape) - 2)
        for parameter, op in ((weight, "mul"), (bias, "add")):
            if parameter is not None:
                y = self.emit_elementwise(op, [y, self.channel_argument(parameter, spread)],
                                          name=f"{stem}_{'weight' if op == 'mul' else 'bias'}")
        return Permuted(y, x.perm)

    @staticmethod
    def broadcast_onto(shape, view_shape, base_shape):
        """The shape in the bases' layout of an operand that broadcasts as
        ``shape`` against ``view_shape``, or None where it broadcasts beyond
        the view or within a group of dims that the view merges."""
        padded = (1,) * (len(view_shape) - len(shape)) + tuple(shape)
        if len(padded) != len(view_shape):
            return None
        result = [1] * len(base_shape)
        for base_dims, view_dims in _reshape_groups(base_shape, view_shape):
            sizes = [padded[d] for d in view_dims]
            if all(s == 1 for s in sizes):
                continue
            if sizes != [view_shape[d] for d in view_dims]:
                return None
            for d in base_dims:
                result[d] = base_shape[d]
        return tuple(result)

    def broadcasts_onto_base(self, view, view_shape, base_shape):
        """Whether ``view`` (of a computed value) is, in its base's layout,
        what broadcasting it against ``view_shape`` reads of a tensor of
        ``base_shape``: a keepdim reduction of that view, say."""
        return view.base.shape == self.broadcast_onto(view.shape, view_shape, base_shape)

    def emit_keepdim_reduce(self, kind, value, dims, name=None):
        """solder.reduce KIND of ``value`` over ``dims``, keeping them (size 1)."""
        shape = tuple(1 if d in dims else s for d, s in enumerate(value.shape))
        return self.emit(f"solder.reduce {kind} %{value.name} dims = {format_list(sorted(dims))}"
                         f" keepdim : {value.type} -> {tensor_type(shape)}", shape, name)

    def emit_elementwise(self, op, values, attrs="", name=None):
        """solder.OP on Values (one, or two broadcasting); ``attrs`` is the
        attribute dictionary's text."""
        if len(values) == 1:
            (x,) = values
            return self.emit(f"solder.{op} %{x.name}{attrs} : {x.type}", x.shape, name)
        lhs, rhs = values
        if lhs.is_constant and rhs.is_constant:
            raise self.unsupported(f"{_describe(self.node)} of two Python numbers")
        out = tuple(torch.broadcast_shapes(lhs.shape, rhs.shape))
        types = lhs.type if lhs.shape == rhs.shape else \
            f"{lhs.type}, {rhs.type} -> {tensor_type(out)}"
        return self.emit(f"solder.{op} %{lhs.name}, %{rhs.name} : {types}", out, name)

    # -- op families ------------------------------------------------------

    def unary(self, op, node, **attrs):
        for name, number in attrs.items():
            if number is not None and (isinstance(number, bool)
                                       or not isinstance(number, (int, float))):
                raise self.unsupported(f"{_describe(node)}: '{name}' must be a number")
        text = ", ".join(f"{k} = {format_float(v)} : f32" for k, v in attrs.items()
                         if v is not None)
        return self.elementwise(op, [node.args[0]], f" {{{text}}}" if text else "")

    def elu(self, node):
        if _arg(node, 2, "scale", 1) != 1 or _arg(node, 3, "input_scale", 1) != 1:
            raise self.unsupported(f"{_describe(node)} with scale or input_scale (selu, celu)")
        return self.unary("elu", node, alpha=_arg(node, 1, "alpha", 1.0))

    def gelu(self, node):
        approximate = node.kwargs.get("approximate", "none")
        if approximate not in ("none", "tanh"):
            raise self.unsupported(f"gelu with approximate='{approximate}'")
        return self.elementwise("gelu", [node.args[0]], "" if approximate == "none" else
                                " {approximate = #solder.gelu_approximation<tanh>}")

    def clamp(self, node, low, high):
        if isinstance(low, torch.fx.Node) or isinstance(high, torch.fx.Node):
            result = node.args[0]
            if low is not None:
                result = self.elementwise("maximum", [result, low])
            if high is not None:
                result = self.elementwise("minimum", [result, high])
            return result
        if low is None and high is None:
            raise self.unsupported("clamp needs min or max")
        return self.unary("clamp", node, min=low, max=high)

    def binary_node(self, op, node):
        lhs, rhs = node.args[0], node.args[1] if len(node.args) > 1 else \
            node.kwargs.get("other", node.kwargs.get("exponent"))
        if op == "div" and node.kwargs.get("rounding_mode") is not None:
            raise self.unsupported(f"division with rounding_mode="
                                   f"'{node.kwargs['rounding_mode']}'")
        alpha = _arg(node, 2, "alpha", 1)
        if op in ("add", "sub") and alpha != 1:
            if isinstance(rhs, (int, float)):
                rhs = rhs * alpha
            else:
                rhs = self.elementwise("mul", [rhs, alpha],
                                       name=self.value_name(node) + "_alpha")
        return self.elementwise(op, [lhs, rhs])

    def rsub(self, node):
        """aten.rsub(input, other, alpha) = other - alpha * input."""
        x, other = node.args[0], node.args[1]
        alpha = _arg(node, 2, "alpha", 1)
        scaled = x if alpha == 1 else self.elementwise("mul", [x, alpha])
        return self.elementwise("sub", [other, scaled])

    def dims(self, dim, rank):
        if dim is None or dim == () or dim == []:
            return list(range(rank))
        dims = [dim] if isinstance(dim, int) else list(dim)
        if not all(isinstance(d, int) for d in dims):
            raise self.unsupported(f"{_describe(self.node)}: dim must be integers")
        if any(not -max(rank, 1) <= d < max(rank, 1) for d in dims):
            raise self.unsupported(f"{_describe(self.node)}: dim {dim} is out of "
                                   f"range for a rank-{rank} tensor")
        normalized = sorted({d % max(rank, 1) for d in dims})
        if len(normalized) != len(dims):
            raise self.unsupported(f"{_describe(self.node)}: dim {dim} repeats a dimension")
        return normalized

    def reduce(self, kind, node):
        overload = node.target._overloadname
        dtype = node.kwargs.get("dtype")
        if dtype not in (None, torch.float32):
            raise self.unsupported(f"{_describe(node)} with dtype={dtype}")
        packet = node.target.overloadpacket
        if overload == "default" and packet in (aten.sum, aten.mean, aten.prod, aten.max,
                                                aten.min):
            dim, keepdim = None, False
        else:
            dim, keepdim = _arg(node, 1, "dim"), _arg(node, 2, "keepdim", False)
        x = self.operand(node.args[0])
        result_shape = self.result_shape()
        if isinstance(x, Permuted):
            self.value(x)  # the refusal of a permuted operand
        if isinstance(x, View):
            through_base = self.reduce_view(kind, x, dim, result_shape)
            if through_base is not None:
                return through_base
            x = self.value(x)
        if x.shape == ():  # over a 0-dim tensor's one value: the value
            return self.value(x)
        dims = self.dims(dim, len(x.shape))
        keep = " keepdim" if keepdim else ""
        return self.emit(f"solder.reduce {kind} %{x.name} dims = {format_list(dims)}{keep}"
                         f" : {x.type} -> {tensor_type(result_shape)}", result_shape)

    def reduce_view(self, kind, view, dim, result_shape):
        """A reduction of a view: over the base dims of the reduced view dims
        (whole groups), keeping them; the result views that. None where it
        reduces part of a group of dims the view regroups (the reduction then
        takes the view as a solder.reshape)."""
        reduced = set(self.dims(dim, len(view.shape)))
        base_dims = []
        for group_base, group_view in _reshape_groups(view.base.shape, view.shape):
            hit = reduced & set(group_view)
            if hit and hit != set(group_view):
                return None
            if hit:
                base_dims += group_base
        base = self.base_of(view)
        if base_dims:
            base = self.emit_keepdim_reduce(kind, base, base_dims)
        return base if base.shape == result_shape else View(base, result_shape)

    def getitem(self, node):
        source, index = node.args
        if not isinstance(getattr(source, "target", None), torch._ops.OpOverload):
            raise self.unsupported(f"item {index} of '{source}' is not supported")
        if source.target.overloadpacket in (aten.max, aten.min):
            if index != 0:
                raise self.unsupported(f"{_describe(source)} returns indices; Solder "
                                       "computes the values only")
            self.node = source
            result = self.reduce(_REDUCE[source.target.overloadpacket], source)
            self.node = node
            return result
        packet = source.target.overloadpacket
        if packet not in _FIRST_RESULT:
            raise self.unsupported(f"item {index} of {_describe(source)} is not supported")
        if index in (1, 2) and packet in _STATISTICS:
            self.node = source
            try:
                if packet is aten.native_layer_norm:
                    return self.layer_norm_statistics(source)[index - 1]
                return StatisticsItem(self.norm_statistics(source), index - 1,
                                      tuple(node.meta["val"].shape))
            finally:
                self.node = node
        if index != 0:
            self.node = source  # the op is what cannot run: blame it
            what = "indices" if "pool" in packet.__name__ else "statistics"
            raise self.unsupported(
                f"{_describe(source)}'s {what} (result {index}) are used; Solder computes "
                "its result 0 only" + (" (a training BatchNorm's running statistics "
                                       "update)" if "batch_norm" in packet.__name__ else ""))
        self.node = source
        try:
            return self.first_result(packet, source)
        finally:
            self.node = node

    def norm_statistics(self, node):
        """The mean and rstd of ``node`` (a native_group_norm, or a
        training BatchNorm's), once: a solder.group_stats, (N, G, 2) or
        across the batch (1, C, 2), which the pipeline merges with the
        norm's own (the same op once the norm is decomposed)."""
        if node not in self.statistics:
            x = self.value(node.args[0])
            if node.target.overloadpacket is aten.native_group_norm:
                groups, eps, across = int(node.args[6]), node.args[7], ""
                shape = (x.shape[0], groups, 2)
            else:
                training, eps = _BATCH_NORM_MODE[node.target.overloadpacket](node)
                if not training:
                    raise self.unsupported(f"{_describe(node)}'s saved statistics in eval "
                                           "mode")
                groups, across = x.shape[1], " across_batch"
                shape = (1, groups, 2)
            self.statistics[node] = self.emit(
                f"solder.group_stats %{x.name} num_groups = {groups} epsilon = "
                f"{format_float(eps)}{across} : {x.type} -> {tensor_type(shape)}", shape,
                name=f"{self.value_name(node)}_stats")
        return self.statistics[node]

    def layer_norm_statistics(self, node):
        """(mean, rstd) of native_layer_norm ``node`` over its normalized
        trailing dims, kept as dims of 1, as the op returns them:
        tensors of the chain, computed as the decomposed layer_norm
        computes them (two means, the variance of the centered values)."""
        if node not in self.statistics:
            operand, eps = self.undeclared_operand(node.args[0]), node.args[4]
            if isinstance(operand, Permuted) and len(node.args[1]) == 1:
                # Over the permuted tensor's last dim: its base's dim perm[-1].
                x, dims, perm = operand.base, [operand.perm[-1]], operand.perm
            else:
                x, perm = self.value(node.args[0]), None
                dims = list(range(len(x.shape) - len(node.args[1]), len(x.shape)))
            prefix = self.value_name(node)
            mean = self.emit_keepdim_reduce("mean", x, dims, name=f"{prefix}_mean")
            centered = self.emit_elementwise("sub", [x, mean])
            squared = self.emit_elementwise("mul", [centered, centered])
            variance = self.emit_keepdim_reduce("mean", squared, dims)
            shifted = self.emit_elementwise("add", [variance, self.constant(eps)])
            rstd = self.emit_elementwise("rsqrt", [shifted], name=f"{prefix}_rstd")
            self.statistics[node] = (mean, rstd) if perm is None else \
                (Permuted(mean, tuple(perm)), Permuted(rstd, tuple(perm)))
        return self.statistics[node]

    def first_result(self, packet, node):
        a = node.args
        if packet is aten.native_group_norm:
            return self.emit_norm("group_norm", a[0], a[1], a[2], a[7],
                                  f"num_groups = {int(a[6])} ")
        if packet is aten.native_layer_norm:
            return self.emit_layer_norm(a[0], list(a[1]), a[2], a[3], a[4])
        if packet is aten._native_batch_norm_legit_no_training:
            return self.running_stats_norm(a[0], a[1], a[2], a[3], a[4], a[6])
        if packet in _BATCH_NORM_MODE:
            training, eps = _BATCH_NORM_MODE[packet](node)
            if packet is aten.native_batch_norm and not training:
                return self.running_stats_norm(a[0], a[1], a[2], a[3], a[4], eps)
            return self.batch_stats_norm(a[0], a[1], a[2], training, eps)
        if packet in (aten.adaptive_max_pool1d, aten.adaptive_max_pool2d,
                      aten.adaptive_max_pool3d):
            return self.adaptive_pool("max", node)
        return self.pool("max", node)  # max_pool*_with_indices

    def softmax(self, op, node):
        dim = _arg(node, 1, "dim")
        dtype = node.kwargs.get("dtype")
        if node.target.overloadpacket in (aten._softmax, aten._log_softmax):
            dtype = None
        if dtype not in (None, torch.float32):
            raise self.unsupported(f"{op} with dtype={dtype}")
        x = self.operand(node.args[0])
        if x.shape == ():  # over a 0-dim tensor's one value
            if isinstance(x, View):
                return View(self.softmax_over(op, self.base_of(x), []), ())
            return self.softmax_over(op, x, [])
        if isinstance(x, Permuted):
            base_dim = x.perm[self.dims(dim, len(x.shape))[0]]
            return Permuted(self.emit(f"solder.{op} %{x.base.name} dim = {base_dim} : "
                                      f"{x.base.type}", x.base.shape), x.perm)
        if isinstance(x, View):
            dim = self.dims(dim, len(x.shape))[0]
            group = next(g for g in _reshape_groups(x.base.shape, x.shape) if dim in g[1])
            if len(group[1]) == 1:
                base = self.base_of(x)
                if len(group[0]) != 1:
                    return View(self.softmax_over(op, base, group[0]), x.shape)
                result = self.emit(f"solder.{op} %{base.name} dim = {group[0][0]} : "
                                   f"{base.type}", base.shape)
                return View(result, x.shape)
            x = self.value(x)  # over a dim split out of the base's: over the view
        dim = self.dims(dim, len(x.shape))[0]
        return self.emit(f"solder.{op} %{x.name} dim = {dim} : {x.type}", x.shape)

    def softmax_over(self, op, x, dims):
        """softmax or log_softmax of ``x`` over several dims (those a view
        merges into the one it normalizes; none for a unit dim the view
        adds): the max, then the sum of the
        exponentials of the shifted values, as reductions over ``dims``."""
        stem = self.value_name(self.node)

        def reduce(kind, value, name):
            if not dims:  # over a unit dim of the view: each value alone
                return value
            return self.emit_keepdim_reduce(kind, value, dims, f"{stem}_{name}")

        shifted = self.emit_elementwise("sub", [x, reduce("max", x, "max")],
                                        name=f"{stem}_shifted")
        exps = self.emit_elementwise("exp", [shifted], name=f"{stem}_exp")
        total = reduce("sum", exps, "sum")
        if op == "log_softmax":
            return self.emit_elementwise(
                "sub", [shifted, self.emit_elementwise("log", [total], name=f"{stem}_log_sum")])
        return self.emit_elementwise("div", [exps, total])

    def dropout(self, node):
        training = node.target.overloadpacket is aten.native_dropout or \
            _arg(node, 2, "train", False)
        if training and _arg(node, 1, "p", 0.5) > 0:
            raise self.unsupported(
                f"{_describe(node)} with training=True is random: solder.compile does "
                "not take it (torch.compile(backend='solder') leaves it to PyTorch's "
                "generator; module.eval() turns it off for inference)")
        return self.operand(node.args[0])

    def batched(self, operand, spatial):
        """The input of a conv, conv_transpose or pool with ``spatial``
        spatial dims, with its batch dim: PyTorch takes an unbatched input
        (C, spatial...) as a batch of one. An unbatched argument is viewed
        with the batch dim (free); a computed one is the view of a batched
        result (an earlier unbatched conv's or pool's), whose base it takes,
        or is seen with it through a solder.reshape. Returns (value, whether
        the input was unbatched)."""
        x = self.undeclared_operand(operand)
        if len(x.shape) != spatial + 1:
            return self.value(operand), False
        shape = (1,) + tuple(x.shape)
        if isinstance(x, (Value, View)) and \
                (x.argument if isinstance(x, Value) else x.base.argument) is not None:
            placeholder = x.argument if isinstance(x, Value) else x.base.argument
            return self.argument(placeholder, shape), True
        if isinstance(x, View) and x.base.shape == shape:
            return self.base_of(x), True
        if isinstance(x, Permuted):
            return self.value(x), True  # its refusal
        return self.reshaped(x.base if isinstance(x, View) else x, shape), True

    def batched_result_shape(self, unbatched):
        """The node's result shape, with the batch dim an unbatched op adds."""
        return (1,) * unbatched + self.result_shape()

    @staticmethod
    def unbatched_result(result, unbatched):
        """An unbatched op's result seen without the batch dim it added."""
        return View(result, result.shape[1:]) if unbatched else result

    def conv(self, node):
        weight = self.value(node.args[1])
        spatial = len(weight.shape) - 2
        x, unbatched = self.batched(node.args[0], spatial)
        bias = self.optional_value(_arg(node, 2, "bias"))
        stride = _arg(node, 3, "stride", 1)
        padding = _arg(node, 4, "padding", 0)
        dilation = _tuple(_arg(node, 5, "dilation", 1), spatial)
        groups = _arg(node, 6, "groups", 1)
        padding_high = None
        if isinstance(padding, str):
            if padding == "valid":
                padding = (0,) * spatial
            else:  # 'same': an odd total puts the extra zero after, as PyTorch does
                totals = [d * (k - 1) for d, k in zip(dilation, weight.shape[2:])]
                padding = tuple(t // 2 for t in totals)
                if any(t % 2 for t in totals):
                    padding_high = tuple(t - t // 2 for t in totals)
        window = [("strides", stride), ("padding", padding)] + \
            ([("padding_high", padding_high)] if padding_high else []) + \
            [("dilations", dilation)]
        return self.unbatched_result(self.emit_convolution(
            "conv", x, weight, bias, window, groups, self.batched_result_shape(unbatched)),
            unbatched)

    def conv_transpose(self, node):
        weight = self.value(node.args[1])
        x, unbatched = self.batched(node.args[0], len(weight.shape) - 2)
        bias = self.optional_value(_arg(node, 2, "bias"))
        padding = _arg(node, 4, "padding", 0)
        if isinstance(padding, str):
            raise self.unsupported(f"conv_transpose with padding='{padding}'")
        window = [("strides", _arg(node, 3, "stride", 1)), ("padding", padding),
                  ("output_padding", _arg(node, 5, "output_padding", 0)),
                  ("dilations", _arg(node, 7, "dilation", 1))]
        return self.unbatched_result(self.emit_convolution(
            "conv_transpose", x, weight, bias, window, _arg(node, 6, "groups", 1),
            self.batched_result_shape(unbatched)), unbatched)

    def convolution(self, node):
        """aten.convolution: (input, weight, bias, stride, padding, dilation,
        transposed, output_padding, groups)."""
        a = node.args
        x, weight, bias = self.value(a[0]), self.value(a[1]), self.optional_value(a[2])
        if a[6]:
            return self.emit_convolution("conv_transpose", x, weight, bias, [
                ("strides", a[3]), ("padding", a[4]), ("output_padding", a[7]),
                ("dilations", a[5])], a[8])
        return self.emit_convolution("conv", x, weight, bias, [
            ("strides", a[3]), ("padding", a[4]), ("dilations", a[5])], a[8])

    def emit_convolution(self, op, x, weight, bias, window, groups, shape=None):
        """solder.conv or solder.conv_transpose; ``window`` lists the
        per-spatial-dim attributes in the op's order; ``shape`` defaults to
        the node's."""
        spatial = len(x.shape) - 2
        operands = [x, weight] + ([bias] if bias is not None else [])
        shape = self.result_shape() if shape is None else shape
        attributes = "".join(f" {name} = {format_list(_tuple(values, spatial))}"
                             for name, values in window)
        return self.emit(
            f"solder.{op} " + ", ".join(f"%{v.name}" for v in operands)
            + f"{attributes} groups = {int(groups)}"
            f" : ({', '.join(v.type for v in operands)}) -> {tensor_type(shape)}", shape)

    def emit_norm(self, op, x, weight, bias, eps, extra, base=None):
        """solder.OP of ``x`` (per sample and channel, or over ``base``: a
        view's base and the view's shape, as layer_norm_of_view gives)."""
        if eps < 0:
            raise self.unsupported(f"{_describe(self.node)} with eps={eps}: Solder normalizes "
                                   "with an epsilon of 0 or more")
        x, view_shape = base or self.per_channel_operand(x)
        weight, bias = self.optional_value(weight), self.optional_value(bias)
        operands = [x] + [v for v in (weight, bias) if v is not None]
        affine = (f"weight = %{weight.name} " if weight is not None else "") + \
                 (f"bias = %{bias.name} " if bias is not None else "")
        result = self.emit(
            f"solder.{op} %{x.name} {affine}{extra}epsilon = {format_float(eps)}"
            f" : ({', '.join(v.type for v in operands)}) -> {x.type}", x.shape)
        return View(result, view_shape) if view_shape else result

    def per_channel_operand(self, operand):
        """value(), but a view of a computed tensor that keeps its dims 0 and
        1 and reshapes only the rest (a Linear's (N, K) of its conv's (N, K,
        1)) gives its base: an op per sample and channel over the rest runs
        on the base alike. Returns (value, the view's shape or None)."""
        x = self.operand(operand)
        if isinstance(x, View) and x.base.argument is None and len(x.shape) >= 2 and \
                x.shape[:2] == x.base.shape[:2]:
            return self.base_of(x), x.shape
        return self.value(operand), None

    def layer_norm_of_view(self, x, shape, weight, bias, eps):
        """LayerNorm over the last dims of a view of a computed tensor (a
        Linear's output over its features): over the base's last dims that
        hold the same elements, the weight and bias viewed alike; where no
        last dims of the base do, over the view as a solder.reshape."""
        size = math.prod(shape)
        suffix = next((m for m in range(1, len(x.base.shape))
                       if math.prod(x.base.shape[m:]) == size), None)
        if suffix is None:
            return self.emit_norm("layer_norm", None, weight, bias, eps,
                                  f"normalized_shape = {format_list(shape)} ",
                                  base=(self.value(x), None))
        normalized = x.base.shape[suffix:]
        affine = []
        for parameter in (weight, bias):
            if parameter is not None and not (isinstance(parameter, torch.fx.Node) and
                                              parameter.op == "placeholder"):
                raise self.unsupported(f"{_describe(self.node)} with a computed weight "
                                       "or bias on a view")
            affine.append(None if parameter is None else self.argument(parameter, normalized))
        return self.emit_norm("layer_norm", None, affine[0], affine[1], eps,
                              f"normalized_shape = {format_list(normalized)} ",
                              base=(self.base_of(x), x.shape))

    def group_norm(self, node):
        groups = _arg(node, 1, "num_groups")
        return self.emit_norm("group_norm", node.args[0], _arg(node, 2, "weight"),
                              _arg(node, 3, "bias"), _arg(node, 4, "eps", 1e-5),
                              f"num_groups = {int(groups)} ")

    def layer_norm(self, node):
        shape = _arg(node, 1, "normalized_shape")
        shape = [shape] if isinstance(shape, int) else list(shape)
        return self.emit_layer_norm(node.args[0], shape, _arg(node, 2, "weight"),
                                    _arg(node, 3, "bias"), _arg(node, 4, "eps", 1e-5))

    def emit_layer_norm(self, x, shape, weight, bias, eps):
        operand = self.undeclared_operand(x)
        if isinstance(operand, Permuted):
            return self.layer_norm_permuted(operand, shape, weight, bias, eps)
        if isinstance(operand, Value) and operand.argument is not None and \
                len(operand.shape) >= 2 and len(shape) == 1:
            # An input normalized over its last dim C: over the channels of
            # the input viewed as (rows, C, 1), so that a Linear takes the result.
            rows = (math.prod(operand.shape[:-1]), operand.shape[-1], 1)
            operand = View(self.argument(operand.argument, rows), operand.shape)
        if isinstance(operand, View) and (operand.base.argument is None or
                                          operand.base.shape[2:] == (1,)):
            return self.layer_norm_of_view(operand, shape, weight, bias, eps)
        return self.emit_norm("layer_norm", x, weight, bias, eps,
                              f"normalized_shape = {format_list(shape)} ")

    def instance_norm(self, node):
        a = node.args
        if not a[5]:  # use_input_stats=False: running statistics
            return self.running_stats_norm(a[0], a[1], a[2], a[3], a[4], a[7])
        return self.emit_norm("instance_norm", a[0], a[1], a[2], a[7], "")

    def batch_norm(self, node):
        a = node.args
        if a[5] or a[3] is None:
            return self.batch_stats_norm(a[0], a[1], a[2], True, a[7])
        return self.running_stats_norm(a[0], a[1], a[2], a[3], a[4], a[7])

    def batch_stats_norm(self, x, weight, bias, training, eps):
        if not training:
            raise self.unsupported(f"{_describe(self.node)} without running statistics "
                                   "in eval mode")
        return self.emit_norm("batch_norm", x, weight, bias, eps, "")

    def running_stats_norm(self, x, weight, bias, mean, var, eps):
        """Eval-mode batch or instance norm: x * scale + shift per channel,
        scale = weight / sqrt(var + eps) and shift = bias - mean * scale
        computed once here where all four are captured (parameters and
        buffers, which the compiled module keeps at their compile-time
        values); else (x - mean) * scale + bias computed in the chain. The
        per-channel tensors are arguments viewed as (C, 1, ...). A view
        that regroups a computed tensor's channels (BatchNorm1d after a
        flatten) takes the folded scale and shift as elementwise operands,
        which are viewed onto its base."""
        if mean is None or var is None:
            raise self.unsupported(f"{_describe(self.node)}: running statistics must be "
                                   "tensors")
        prefix = self.value_name(self.node)
        operand = self.operand(x)
        if isinstance(operand, View) and operand.base.argument is None and \
                len(operand.shape) >= 2 and operand.shape[:2] != operand.base.shape[:2]:
            spread = (operand.shape[1],) + (1,) * (len(operand.shape) - 2)
            folded = self.folded_scale_shift(weight, bias, mean, var, eps, spread, prefix)
            if folded:
                # Undeclared: the elementwise ops declare them viewed onto the base.
                scale, shift = (Value(f.name, spread, f) for f in folded)
                self.notes.append(f"{prefix}: eval-mode normalization of a view with running "
                                  "statistics as a scale and shift, computed at import")
                return self.elementwise("add", [
                    self.elementwise("mul", [operand, scale], name=prefix + "_scaled"), shift],
                    name=prefix)
        x, view_shape = self.per_channel_operand(x)
        spread = (x.shape[1],) + (1,) * (len(x.shape) - 2)
        folded = self.folded_scale_shift(weight, bias, mean, var, eps, spread, prefix)
        if folded:
            scale, shift = (self.argument(f, spread) for f in folded)
            scaled = self.emit(f"solder.mul %{x.name}, %{scale.name} : {x.type}, "
                               f"{scale.type} -> {x.type}", x.shape, name=prefix + "_scaled")
            result = self.emit(f"solder.add %{scaled.name}, %{shift.name} : {x.type}, "
                               f"{shift.type} -> {x.type}", x.shape, name=prefix)
            self.notes.append(f"{prefix}: eval-mode normalization with running statistics "
                              "as a per-channel scale and shift, computed at import")
            return View(result, view_shape) if view_shape else result
        per_channel = lambda node: self.channel_argument(node, spread)  # noqa: E731
        std = self.emit_elementwise("add", [per_channel(var), self.constant(eps)],
                                    name=prefix + "_var") if eps else per_channel(var)
        scale = self.emit(f"solder.rsqrt %{std.name} : {std.type}", spread,
                          name=prefix + "_rstd")
        if weight is not None:
            scale = self.emit(f"solder.mul %{scale.name}, %{per_channel(weight).name} : "
                              f"{scale.type}", spread, name=prefix + "_scale")
        mean_value = per_channel(mean)
        centered = self.emit(f"solder.sub %{x.name}, %{mean_value.name} : {x.type}, "
                             f"{mean_value.type} -> {x.type}", x.shape,
                             name=prefix + "_centered")
        result = self.emit(f"solder.mul %{centered.name}, %{scale.name} : {x.type}, "
                           f"{scale.type} -> {x.type}", x.shape,
                           name=prefix + ("_scaled" if bias is not None else ""))
        if bias is not None:
            shift = per_channel(bias)
            result = self.emit(f"solder.add %{result.name}, %{shift.name} : {x.type}, "
                               f"{shift.type} -> {x.type}", x.shape, name=prefix)
        self.notes.append(f"{prefix}: eval-mode normalization with running statistics "
                          "as a per-channel scale and shift")
        return View(result, view_shape) if view_shape else result

    def folded_scale_shift(self, weight, bias, mean, var, eps, spread, prefix):
        """(scale, shift) of an eval-mode norm as new parameters of shape
        ``spread`` (not yet arguments), computed in float64 from the
        captured tensors; None where any of them is not captured (a
        caller's input)."""
        nodes = [mean, var] + [n for n in (weight, bias) if n is not None]
        if not all(isinstance(n, torch.fx.Node) and n.op == "placeholder" and
                   n.name in self.captured for n in nodes):
            return None
        tensor = lambda node: self.captured[node.name][1].detach().to(  # noqa: E731
            "cpu", torch.float64).flatten()
        scale = torch.rsqrt(tensor(var) + eps)
        if weight is not None:
            scale = scale * tensor(weight)
        shift = -tensor(mean) * scale
        if bias is not None:
            shift = shift + tensor(bias)
        return [_Folded(self, f"{prefix}_{what}", value.reshape(spread))
                for what, value in (("scale", scale), ("shift", shift))]

    def channel_argument(self, operand, spread):
        if not (isinstance(operand, torch.fx.Node) and operand.op == "placeholder"):
            raise self.unsupported(f"{_describe(self.node)}: running statistics and affine "
                                   "parameters must be parameters, buffers or inputs")
        return self.argument(operand, spread)

    def pool(self, kind, node):
        spatial = _spatial_rank(node)
        x, unbatched = self.batched(node.args[0], spatial)
        kernel = _tuple(_arg(node, 1, "kernel_size"), spatial)
        stride = _arg(node, 2, "stride", [])
        stride = kernel if stride is None or list(stride) == [] else _tuple(stride, spatial)
        padding = _tuple(_arg(node, 3, "padding", 0), spatial)
        if kind == "max":
            dilation = _tuple(_arg(node, 4, "dilation", 1), spatial)
            ceil_mode = _arg(node, 5, "ceil_mode", False)
        else:
            dilation = (1,) * spatial
            ceil_mode = _arg(node, 4, "ceil_mode", False)
            divisor = _arg(node, 6, "divisor_override")
            if divisor is not None and divisor <= 0:
                raise self.unsupported(f"{_describe(node)} with divisor_override={divisor}: "
                                       "Solder divides a window's sum by a positive count")
        shape = self.batched_result_shape(unbatched)
        text = (f"solder.pool {kind} %{x.name} kernel = {format_list(kernel)}"
                f" strides = {format_list(stride)}"
                f" padding = {format_list(padding)}"
                f" dilations = {format_list(dilation)}")
        if ceil_mode:
            text += " ceil_mode"
        if kind == "avg":
            include = "true" if _arg(node, 5, "count_include_pad", True) else "false"
            override = f", divisor_override = {int(divisor)} : i64" if divisor else ""
            text += f" {{count_include_pad = {include}{override}}}"
        return self.unbatched_result(
            self.emit(f"{text} : {x.type} -> {tensor_type(shape)}", shape), unbatched)

    def adaptive_pool(self, kind, node):
        """adaptive_{avg,max}_pool: to size 1 everywhere, a mean or max over
        the spatial dims (the classifier head's and squeeze-excitation's
        global pool, which a conv epilogue sums); to sizes that divide the
        input, a pool of windows input / output wide; otherwise a
        solder.adaptive_pool (PyTorch's windows of varying size)."""
        x, unbatched = self.batched(node.args[0], _spatial_rank(node))
        inputs = x.shape[2:]
        outputs = tuple(i if o is None else int(o)
                        for o, i in zip(_tuple(node.args[1], len(inputs)), inputs))
        return self.unbatched_result(self.emit_adaptive_pool(
            kind, x, inputs, outputs, self.batched_result_shape(unbatched)), unbatched)

    def emit_adaptive_pool(self, kind, x, inputs, outputs, shape):
        if all(o == 1 for o in outputs):
            return self.emit_keepdim_reduce("mean" if kind == "avg" else "max", x,
                                            list(range(2, len(x.shape))))
        if any(i % o for i, o in zip(inputs, outputs)):
            return self.emit(f"solder.adaptive_pool {kind} %{x.name} : {x.type} -> "
                             f"{tensor_type(shape)}", shape)
        window = format_list([i // o for i, o in zip(inputs, outputs)])
        zeros, ones = format_list([0] * len(inputs)), format_list([1] * len(inputs))
        return self.emit(f"solder.pool {kind} %{x.name} kernel = {window} strides = {window}"
                         f" padding = {zeros} dilations = {ones} : {x.type} -> "
                         f"{tensor_type(shape)}", shape)

    def linear(self, node):
        """aten.linear: over the last dim of a channels-last permute, a 1x1
        conv over the base's channels (linear_permuted); otherwise a GEMM
        with the weight a parameter laid out (K, C)."""
        x = self.undeclared_operand(node.args[0])
        if isinstance(x, Permuted):
            return self.linear_permuted(node, x)
        return self.gemm(node, x, node.args[1], transposed=False, bias=_arg(node, 2, "bias"))

    def matmul(self, node):
        """aten.mm / aten.matmul / aten.addmm whose second operand is a 2-D
        parameter or input, or one transposed (as a decomposed Linear has
        it): a GEMM, a parameter transposed once at import where it is (C,
        K), an input transposed taken as a Linear's (K, C) weight."""
        bias, (a, b) = None, node.args[:2]
        if node.target.overloadpacket is aten.addmm:
            bias, a, b = node.args[:3]
            if _arg(node, 3, "beta", 1) != 1 or _arg(node, 4, "alpha", 1) != 1:
                raise self.unsupported(f"{_describe(node)} with beta or alpha other than 1")
            if not (isinstance(bias, torch.fx.Node) and bias.op == "placeholder" and
                    len(self.shape_of(bias)) == 1):
                raise self.unsupported(f"{_describe(node)} whose added tensor is not a 1-D "
                                       "parameter (a Linear's bias)")
        x = self.undeclared_operand(a)
        transposed = self.values.get(b) if isinstance(b, torch.fx.Node) else None
        if isinstance(transposed, TransposedParameter):
            return self.gemm(node, x, transposed.placeholder, transposed=False, bias=bias)
        return self.gemm(node, x, b, transposed=True, bias=bias)

    def gemm(self, node, x, weight, transposed, bias):
        """x (..., C) times the parameter ``weight`` ((K, C), or (C, K) where
        ``transposed``) plus ``bias``: a 1x1 conv over the (M, C, 1, ...)
        tensor x views, M the product of its leading dims (the plan runs such
        a conv as a GEMM over the samples). x is an input, or a view of a
        computed (M, C, 1, ...) tensor (a Linear's output, a keepdim global
        pool), or a computed tensor seen so through a solder.reshape. The
        result is the conv's (M, K, 1, ...) viewed as x's shape with K
        last."""
        refusal = static_refusal(node)
        if refusal:
            raise self.unsupported(refusal)
        self.check_linear_weight(node, weight, transposed)
        shape = self.result_shape()
        if isinstance(x, Permuted):
            raise self.unsupported(f"{_describe(node)} over dim {x.perm[-1]} of a permuted "
                                   "operand; Solder multiplies permuted tensors over their "
                                   "channels only")
        rows, channels = math.prod(x.shape[:-1]), x.shape[-1]
        base = x.base if isinstance(x, View) else x
        if len(base.shape) > 2 and base.shape[:2] == (rows, channels) and \
                all(d == 1 for d in base.shape[2:]):
            base = self.base_of(x) if isinstance(x, View) else base
        elif base.argument is not None:
            base = self.argument(base.argument, (rows, channels, 1))
        else:
            base = self.reshaped(base, (rows, channels, 1))
        conv = self.conv_1x1(base, weight, bias, transposed)
        return conv if conv.shape == shape else View(conv, shape)

    def linear_permuted(self, node, x):
        """aten.linear over the last dim of a channels-last permute (ConvNeXt's
        MLP): a 1x1 conv over the base's channels, permuted alike; its
        weight a parameter viewed as (K, C, 1, ...)."""
        base = self.channels_of_permuted(x, [len(x.perm) - 1], "Linear")
        self.check_linear_weight(node, node.args[1], transposed=False)
        return Permuted(self.conv_1x1(base, node.args[1], _arg(node, 2, "bias")), x.perm)

    def check_linear_weight(self, node, weight, transposed):
        """Refuses a Linear's or matmul's weight that is not a 2-D placeholder
        (a parameter, or a caller's input)."""
        if isinstance(weight, torch.fx.Node) and weight.op == "placeholder" and \
                len(self.shape_of(weight)) == 1:
            raise self.unsupported(f"{_describe(node)} by a 1-D weight (a dot product over "
                                   "the last dim): Solder runs Linear and matmul by a 2-D "
                                   "weight")
        if not (isinstance(weight, torch.fx.Node) and weight.op == "placeholder" and
                len(self.shape_of(weight)) == 2):
            raise self.unsupported(
                f"{_describe(node)} whose second operand is computed: Solder runs Linear "
                "and matmul as a GEMM by a 2-D parameter or input (a product of two "
                "computed tensors is not supported)")

    def conv_1x1(self, base, weight, bias, transposed=False):
        """The 1x1 conv over the channels of ``base`` (N, C, ...) that a
        Linear or matmul computes: ``weight`` a 2-D parameter or input, (K,
        C) or (C, K) where ``transposed``, viewed as (K, C, 1, ...). A
        caller's (C, K) tensor (a matmul's second input; through
        torch.compile, a module's weight) is the weight of a 1x1
        conv_transpose as it is: the bundle lays it out as the conv's, each
        call (once for a parameter that keeps its version)."""
        out_channels = self.shape_of(weight)[1 if transposed else 0]
        spatial = tuple(base.shape[2:])
        shape = (base.shape[0], out_channels) + spatial
        if transposed and weight.name not in self.captured:
            weight = self.argument(weight, (base.shape[1], out_channels) + (1,) * len(spatial))
            return self.emit_convolution(
                "conv_transpose", base, weight, self.optional_value(bias),
                [("strides", 1), ("padding", 0), ("output_padding", 0), ("dilations", 1)], 1,
                shape=shape)
        weight = self.argument(weight, (out_channels, base.shape[1]) + (1,) * len(spatial),
                               transposed=transposed)
        return self.emit_convolution(
            "conv", base, weight, self.optional_value(bias),
            [("strides", 1), ("padding", 0), ("dilations", 1)], 1, shape=shape)
