"""The torch.fx importer: an ``nn.Module`` and example inputs become solder IR
text (one ``func.func``) plus its parameters.

The function takes the module's inputs first, then every parameter and buffer
it reads (and constants the importer derives, such as an eval-mode BatchNorm's
scale), in a fixed order. Python scalars become ``arith.constant`` tensors.
Shapes are static: they come from running the module once on the example
inputs (``torch.fx.passes.shape_prop``).

Anything outside the dialect is refused with :class:`UnsupportedOperation`,
which names the op and the line of the module's source that called it; the
importer never emits IR it is unsure of. Works with torch 1.13 through 2.x.
"""

import inspect
import json
import linecache
import math
import operator
import os
import re
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.fx
import torch.nn as nn
import torch.nn.functional as F
from torch.fx.passes.shape_prop import ShapeProp

from .errors import SolderError, UnsupportedOperation


@dataclass
class Value:
    """An SSA value of the function being built."""
    name: str
    shape: tuple

    @property
    def type(self):
        return tensor_type(self.shape)


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
    """What the importer produces: IR text and the tensors its function
    takes after the module's own inputs."""
    mlir: str
    function: str
    input_names: list
    input_shapes: list
    parameter_names: list
    parameters: list  # float32 CPU tensors, in argument order
    output_shapes: list
    output_is_sequence: bool  # forward returned a tuple or list
    notes: list = field(default_factory=list)

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
        return {"function": self.function, "inputs": self.input_names,
                "input_shapes": [list(s) for s in self.input_shapes],
                "parameters": self.parameter_names,
                "output_shapes": [list(s) for s in self.output_shapes],
                "output_is_sequence": self.output_is_sequence}


def import_module(module, example_inputs, function_name=None):
    """Traces ``module`` with torch.fx and returns an :class:`ImportedModule`.

    ``example_inputs`` fixes the input shapes (float32 tensors, on any device).
    """
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
    graph_module = _trace(module)
    placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(example_inputs):
        raise SolderError(f"{type(module).__name__}.forward takes "
                          f"{len(placeholders)} inputs, {len(example_inputs)} "
                          "example inputs were given")
    try:
        with torch.no_grad():
            # On copies: an in-place op on an input (refused below) must not
            # change the caller's tensors.
            # Training-mode norms update their running statistics when run:
            # put the module's buffers back afterwards.
            buffers = {name: b.clone() for name, b in module.named_buffers()}
            try:
                ShapeProp(graph_module).propagate(*(t.clone() for t in example_inputs))
            finally:
                for name, b in module.named_buffers():
                    b.copy_(buffers[name])
    except Exception as error:
        cause = error  # ShapeProp wraps the error in a dump of the node's meta
        if str(error).startswith("ShapeProp error"):
            cause = error.__cause__ or error.__context__ or error
        summary = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
        raise SolderError(f"running {type(module).__name__} on the example "
                          f"inputs failed: {type(cause).__name__}: {summary}") from error
    name = function_name or _snake_case(type(module).__name__)
    return _Importer(graph_module, name, type(module).__name__).run(example_inputs)


# Frames of torch and of this file are not the user's.
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
_THIS_FILE = os.path.abspath(__file__)


class _Tracer(torch.fx.Tracer):
    """Records with every node the user's line that made it, for error
    messages (torch's own record_stack_traces lists, in torch 1.x, frames of
    the tracer's callers after it, so its last frame is not the user's)."""

    def create_proxy(self, *args, **kwargs):
        # The innermost frame outside torch and this file is the user's.
        proxy = super().create_proxy(*args, **kwargs)
        frame = inspect.currentframe()
        while frame is not None and (
                os.path.abspath(frame.f_code.co_filename).startswith(_TORCH_DIR)
                or os.path.abspath(frame.f_code.co_filename) == _THIS_FILE):
            frame = frame.f_back
        if frame is not None:
            proxy.node.meta["solder_source"] = (frame.f_code.co_filename, frame.f_lineno)
        return proxy


class _LeafRoot(nn.Module):
    """Holds a torch.nn module compiled on its own (a bare nn.BatchNorm2d):
    torch.fx traces into the root's forward, where such modules check their
    input's rank in Python; as a submodule it is one call_module node."""

    def __init__(self, module):
        super().__init__()
        self.leaf_name = _snake_case(type(module).__name__)
        self.add_module(self.leaf_name, module)

    def forward(self, x):
        return getattr(self, self.leaf_name)(x)


def _trace(module):
    tracer = _Tracer()
    try:
        graph = tracer.trace(module)
    except Exception as error:
        if tracer.is_leaf_module(module, ""):
            return _trace(_LeafRoot(module))
        raise SolderError(
            f"torch.fx could not trace {type(module).__name__}: "
            f"{str(error).splitlines()[0] if str(error) else type(error).__name__}"
            " (Solder needs a forward without data-dependent control flow)"
        ) from error
    return torch.fx.GraphModule(module, graph)


def _snake_case(name):
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name).lower()
    name = re.sub(r"[^a-z0-9_]", "_", name)
    return name if re.match(r"[a-z_]", name) else "m_" + name


def _source_line(node):
    """'file:line: code' of the user frame that created ``node``."""
    if "solder_source" not in node.meta:
        return None
    file, line = node.meta["solder_source"]
    return f"{file}:{line}: {linecache.getline(file, line).strip()}"


def _describe(node, module=None):
    if node.op == "call_module":
        kind = type(module)
        origin = "nn" if kind.__module__.startswith("torch.nn") else kind.__module__
        return f"module '{node.target}' ({origin}.{kind.__name__})"
    if node.op == "call_method":
        return f"tensor method '.{node.target}()'"
    target = node.target
    qualified = getattr(target, "__module__", None) or ""
    name = getattr(target, "__name__", str(target))
    if qualified.startswith("torch.nn.functional"):
        qualified = "F"
    elif qualified in ("_operator", "operator"):
        qualified = "operator"
    elif qualified.startswith("torch") or qualified == "":
        qualified = "torch"
    return f"'{qualified}.{name}'"


def _bind(signature_function, args, kwargs):
    return inspect.signature(signature_function).bind(*args, **kwargs).arguments


def _tuple(value, rank):
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and rank > 1:
            return tuple(int(value[0]) for _ in range(rank))
        return tuple(int(v) for v in value)
    return tuple(int(value) for _ in range(rank))


# Signatures the arguments of supported calls are bound with, whatever form
# (positional, keyword, method) the module used.
def _sig_unary(input, inplace=False): pass
def _sig_unary_plain(input): pass
def _sig_leaky_relu(input, negative_slope=0.01, inplace=False): pass
def _sig_elu(input, alpha=1.0, inplace=False): pass
def _sig_gelu(input, approximate="none"): pass
def _sig_softplus(input, beta=1.0, threshold=20.0): pass
def _sig_hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False): pass
def _sig_clamp(input, min=None, max=None): pass
def _sig_binary(input, other, alpha=1): pass
def _sig_binary_plain(input, other): pass
def _sig_div(input, other, rounding_mode=None): pass
def _sig_pow(input, exponent): pass
def _sig_reduce(input, dim=None, keepdim=False, dtype=None): pass
def _sig_reduce_dim(input, dim, keepdim=False): pass
def _sig_amax(input, dim=(), keepdim=False): pass
def _sig_minmax(input, dim=None, keepdim=False): pass
def _sig_softmax(input, dim=None, _stacklevel=3, dtype=None): pass
def _sig_conv(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1): pass
def _sig_conv_transpose(input, weight, bias=None, stride=1, padding=0,
                        output_padding=0, groups=1, dilation=1): pass
def _sig_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5): pass
def _sig_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5): pass
def _sig_batch_norm(input, running_mean, running_var, weight=None, bias=None,
                    training=False, momentum=0.1, eps=1e-5): pass
def _sig_instance_norm(input, running_mean=None, running_var=None, weight=None,
                       bias=None, use_input_stats=True, momentum=0.1, eps=1e-5): pass
def _sig_max_pool(input, kernel_size, stride=None, padding=0, dilation=1,
                  ceil_mode=False, return_indices=False): pass
def _sig_avg_pool(input, kernel_size, stride=None, padding=0, ceil_mode=False,
                  count_include_pad=True, divisor_override=None): pass
def _sig_identity(input, *args, **kwargs): pass
def _sig_dropout(input, p=0.5, training=True, inplace=False): pass
def _sig_to(input, *args, **kwargs): pass


_UNARY = {  # solder op: the torch functions and methods that mean it
    "relu": [torch.relu, F.relu, "relu"],
    "tanh": [torch.tanh, F.tanh, "tanh"],
    "sigmoid": [torch.sigmoid, F.sigmoid, "sigmoid"],
    "silu": [F.silu],
    "mish": [F.mish],
    "hardswish": [F.hardswish],
    "hardsigmoid": [F.hardsigmoid],
    "exp": [torch.exp, "exp"],
    "log": [torch.log, "log"],
    "abs": [torch.abs, "abs"],
    "neg": [torch.neg, operator.neg, "neg"],
    "sqrt": [torch.sqrt, "sqrt"],
    "rsqrt": [torch.rsqrt, "rsqrt"],
}
_UNARY_MODULES = {nn.ReLU: "relu", nn.Tanh: "tanh", nn.Sigmoid: "sigmoid",
                  nn.SiLU: "silu", nn.Mish: "mish", nn.Hardswish: "hardswish",
                  nn.Hardsigmoid: "hardsigmoid"}
_BINARY = {
    "add": [torch.add, operator.add, operator.iadd, "add", "__add__"],
    "sub": [torch.sub, operator.sub, operator.isub, "sub", "__sub__"],
    "mul": [torch.mul, operator.mul, operator.imul, "mul", "__mul__"],
    "div": [torch.div, torch.true_divide, operator.truediv, operator.itruediv,
            "div", "true_divide", "__truediv__"],
    "maximum": [torch.maximum, "maximum"],
    "minimum": [torch.minimum, "minimum"],
    "pow": [torch.pow, operator.pow, "pow", "__pow__"],
}
_REDUCE = {"sum": [torch.sum, "sum"], "mean": [torch.mean, "mean"],
           "max": [torch.amax, "amax"], "min": [torch.amin, "amin"],
           "logsumexp": [torch.logsumexp, "logsumexp"],
           "prod": [torch.prod, "prod"]}


def _key(target):
    return target if isinstance(target, str) else id(target)


class _Importer:
    def __init__(self, graph_module, function_name, class_name):
        self.gm = graph_module
        self.class_name = class_name
        self.function_name = function_name
        self.modules = dict(graph_module.named_modules())
        self.lines = []
        self.values = {}  # fx node -> Value
        self.used_names = set()
        self.parameters = []  # (Value, CPU copy), in argument order
        self.parameter_ids = {}  # id(tensor) -> Value
        self.keyed_tensors = []  # keeps those ids from being reused
        self.constants = {}
        self.notes = []
        self.node = None
        self._build_tables()

    def _build_tables(self):
        self.calls = {}
        def register(targets, handler):
            for target in targets:
                self.calls[_key(target)] = handler
        for op, targets in _UNARY.items():
            register(targets, lambda a, k, op=op: self.unary(op, _bind(_sig_unary, a, k)))
        for op, targets in _BINARY.items():
            register(targets, lambda a, k, op=op: self.binary_call(op, a, k))
        for kind, targets in _REDUCE.items():
            register(targets, lambda a, k, kind=kind: self.reduce_call(kind, a, k))
        register([torch.max, "max"], lambda a, k: self.minmax("max", a, k))
        register([torch.min, "min"], lambda a, k: self.minmax("min", a, k))
        register([F.leaky_relu], lambda a, k: self.attr_unary(
            "leaky_relu", a, k, _sig_leaky_relu, alpha="negative_slope"))
        register([F.elu], lambda a, k: self.attr_unary("elu", a, k, _sig_elu, alpha="alpha"))
        register([F.softplus], lambda a, k: self.attr_unary(
            "softplus", a, k, _sig_softplus, beta="beta", threshold="threshold"))
        register([F.hardtanh], lambda a, k: self.attr_unary(
            "hardtanh", a, k, _sig_hardtanh, min="min_val", max="max_val"))
        register([F.relu6], lambda a, k: self.hardtanh(
            self.value(_bind(_sig_unary, a, k)["input"]), 0.0, 6.0))
        register([F.gelu], lambda a, k: self.gelu(_bind(_sig_gelu, a, k)))
        register([torch.clamp, torch.clip, "clamp", "clip"],
                 lambda a, k: self.clamp(_bind(_sig_clamp, a, k)))
        register([torch.clamp_min, "clamp_min"], lambda a, k: self.clamp(
            {"input": a[0], "min": a[1] if len(a) > 1 else k["min"]}))
        register([torch.clamp_max, "clamp_max"], lambda a, k: self.clamp(
            {"input": a[0], "max": a[1] if len(a) > 1 else k["max"]}))
        register([torch.rsub], lambda a, k: self.rsub(_bind(_sig_binary, a, k)))
        register([F.dropout, F.dropout1d if hasattr(F, "dropout1d") else F.dropout,
                  F.dropout2d, F.dropout3d, F.alpha_dropout],
                 lambda a, k: self.dropout(_bind(_sig_dropout, a, k)))
        register([torch.square, "square"], lambda a, k: self.binary(
            "mul", a[0], a[0]))
        register([torch.reciprocal, "reciprocal"], lambda a, k: self.binary(
            "div", 1.0, a[0]))
        register([torch.softmax, F.softmax, "softmax"],
                 lambda a, k: self.softmax("softmax", _bind(_sig_softmax, a, k)))
        register([torch.log_softmax, F.log_softmax, "log_softmax"],
                 lambda a, k: self.softmax("log_softmax", _bind(_sig_softmax, a, k)))
        register([F.conv1d, F.conv2d, F.conv3d, torch.conv1d, torch.conv2d,
                  torch.conv3d], lambda a, k: self.conv(_bind(_sig_conv, a, k)))
        register([F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d,
                  torch.conv_transpose1d, torch.conv_transpose2d,
                  torch.conv_transpose3d],
                 lambda a, k: self.conv_transpose(_bind(_sig_conv_transpose, a, k)))
        register([F.group_norm], lambda a, k: self.group_norm(_bind(_sig_group_norm, a, k)))
        register([F.layer_norm], lambda a, k: self.layer_norm(_bind(_sig_layer_norm, a, k)))
        register([F.batch_norm], lambda a, k: self.batch_norm(_bind(_sig_batch_norm, a, k)))
        register([F.instance_norm],
                 lambda a, k: self.instance_norm(_bind(_sig_instance_norm, a, k)))
        register([F.max_pool1d, F.max_pool2d, F.max_pool3d],
                 lambda a, k: self.pool("max", _bind(_sig_max_pool, a, k)))
        register([F.avg_pool1d, F.avg_pool2d, F.avg_pool3d],
                 lambda a, k: self.pool("avg", _bind(_sig_avg_pool, a, k)))
        register(["contiguous"], lambda a, k: self.value(a[0]))
        register(["float", "to", "type_as"], lambda a, k: self.cast(a, k))

    # -- driving ---------------------------------------------------------

    def run(self, example_inputs):
        graph = self.gm.graph
        input_names, input_shapes = [], []
        for node in graph.nodes:
            if node.op == "placeholder":
                shape = tuple(node.meta["tensor_meta"].shape)
                value = Value(self.fresh(node.name), shape)
                self.values[node] = value
                input_names.append(node.name)
                input_shapes.append(shape)
        output_node = None
        for node in graph.nodes:
            self.node = node
            if node.op == "placeholder":
                continue
            if node.op == "output":
                output_node = node
                break
            if node.op == "get_attr":
                self.values[node] = self.get_attr(node)
                continue
            result = self.call(node)
            self.values[node] = result
        self.node = output_node
        results = output_node.args[0]
        is_sequence = isinstance(results, (tuple, list))
        results = list(results) if is_sequence else [results]
        result_values = []
        for result in results:
            if not isinstance(result, torch.fx.Node):
                raise self.unsupported(f"the module returns a {type(result).__name__}; "
                                       "Solder compiles functions that return tensors")
            value = self.value(result)
            if value.name in self.argument_names():
                raise self.unsupported(
                    f"the module returns its input or parameter '{result.name}' "
                    "unchanged; there is nothing to compile for it")
            result_values.append(value)
        arguments = [self.values[n] for n in graph.nodes if n.op == "placeholder"]
        arguments += [value for value, _ in self.parameters]
        header = (f"func.func @{self.function_name}("
                  + ", ".join(f"%{a.name}: {a.type}" for a in arguments)
                  + ") -> ("
                  + ", ".join(v.type for v in result_values) + ") {")
        body = ["  " + line for line in self.lines]
        body.append("  return " + ", ".join(f"%{v.name}" for v in result_values)
                    + " : " + ", ".join(v.type for v in result_values))
        text = "\n".join([f"// {self.class_name}, imported by solder.import_module.",
                          header] + body + ["}", ""])
        return ImportedModule(
            mlir=text, function=self.function_name, input_names=input_names,
            input_shapes=input_shapes,
            parameter_names=[v.name for v, _ in self.parameters],
            parameters=[t for _, t in self.parameters],
            output_shapes=[v.shape for v in result_values],
            output_is_sequence=is_sequence, notes=self.notes)

    def argument_names(self):
        names = {v.name for n, v in self.values.items()
                 if isinstance(n, torch.fx.Node) and n.op == "placeholder"}
        return names | {v.name for v in self.parameter_ids.values()}

    def call(self, node):
        if node.op == "call_module":
            module = self.modules[node.target]
            return self.call_module(node, module)
        inplace = self.is_inplace(node)
        target = node.target
        if inplace and isinstance(target, str):  # x.relu_() means x.relu()
            target = target[:-1]
        elif inplace and getattr(target, "__name__", "").endswith("_"):
            target = getattr(torch, target.__name__[:-1], target)
        handler = self.calls.get(_key(target))
        if handler is None:
            raise self.unsupported(f"{_describe(node)} is not supported")
        args, kwargs = node.args, node.kwargs
        try:
            result = handler(args, kwargs)
        except TypeError as error:  # the arguments did not bind
            raise self.unsupported(f"{_describe(node)} with these arguments: {error}")
        if inplace:
            self.mutate(node.args[0], result)
        return result

    def is_inplace(self, node):
        if node.op == "call_method":
            return node.target.endswith("_") and not node.target.endswith("__")
        name = getattr(node.target, "__name__", "")
        return (name.endswith("_") and not name.endswith("__")) or \
            node.target in (operator.iadd, operator.isub, operator.imul,
                            operator.itruediv) or node.kwargs.get("inplace") is True

    def mutate(self, target, result):
        """An in-place op: later uses of ``target`` see ``result``, as in
        PyTorch. Inputs and parameters cannot be changed for the caller."""
        old = self.values.get(target) if isinstance(target, torch.fx.Node) else None
        if old is None or target.op in ("placeholder", "get_attr") or \
                old.name in self.argument_names():
            raise self.unsupported(
                "an in-place op on the module's input or parameter "
                f"'{getattr(old, 'name', getattr(target, 'name', target))}' would "
                "change the caller's tensor, which Solder does not do; use the "
                "out-of-place form")
        # Aliases of the tensor (x.contiguous(), nn.Identity, an earlier
        # in-place result) are the same tensor in PyTorch: they change too.
        for node, value in list(self.values.items()):
            if value is old:
                self.values[node] = result

    def call_module(self, node, module):
        args, kwargs = node.args, node.kwargs
        if len(args) != 1 or kwargs:
            raise self.unsupported(f"{_describe(node, module)} called with "
                                   f"{len(args)} arguments and {list(kwargs)} keywords")
        x = self.value(args[0])
        result = self.module_op(node, module, x)
        if getattr(module, "inplace", False):
            self.mutate(args[0], result)
        return result

    def module_op(self, node, module, x):
        if type(module) in _UNARY_MODULES:
            return self.emit_unary(_UNARY_MODULES[type(module)], x)
        if isinstance(module, nn.ReLU6):
            return self.hardtanh(x, 0.0, 6.0)
        if isinstance(module, nn.Hardtanh):
            return self.hardtanh(x, module.min_val, module.max_val)
        if isinstance(module, nn.LeakyReLU):
            return self.emit_unary("leaky_relu", x, alpha=module.negative_slope)
        if isinstance(module, nn.ELU):
            return self.emit_unary("elu", x, alpha=module.alpha)
        if isinstance(module, nn.Softplus):
            return self.emit_unary("softplus", x, beta=module.beta,
                                   threshold=module.threshold)
        if isinstance(module, nn.GELU):
            return self.emit_gelu(x, getattr(module, "approximate", "none"))
        if isinstance(module, (nn.Softmax, nn.LogSoftmax)):
            op = "softmax" if isinstance(module, nn.Softmax) else "log_softmax"
            return self.softmax(op, {"input": node.args[0], "dim": module.dim})
        if isinstance(module, nn.Identity):
            return x
        if isinstance(module, nn.modules.dropout._DropoutNd):
            if module.training and module.p > 0:
                raise self.unsupported(
                    f"{_describe(node, module)} is random in training mode; call "
                    "module.eval() before compiling (Solder compiles inference)")
            return x
        if isinstance(module, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            if module.padding_mode != "zeros":
                raise self.unsupported(f"{_describe(node, module)} with padding_mode="
                                       f"'{module.padding_mode}' (only 'zeros')")
            return self.emit_conv(x, self.param(module.weight, node.target + ".weight"),
                                  self.param(module.bias, node.target + ".bias"),
                                  module.stride, module.padding, module.dilation,
                                  module.groups, module.weight.shape)
        if isinstance(module, (nn.ConvTranspose1d, nn.ConvTranspose2d, nn.ConvTranspose3d)):
            return self.emit_conv_transpose(
                x, self.param(module.weight, node.target + ".weight"),
                self.param(module.bias, node.target + ".bias"), module.stride,
                module.padding, module.output_padding, module.dilation, module.groups)
        if isinstance(module, nn.GroupNorm):
            affine = module.affine
            return self.emit_norm(
                "group_norm", x, self.param(module.weight if affine else None, node.target + ".weight"),
                self.param(module.bias if affine else None, node.target + ".bias"),
                module.eps, f"num_groups = {module.num_groups} ")
        if isinstance(module, nn.LayerNorm):
            return self.emit_norm(
                "layer_norm", x, self.param(module.weight, node.target + ".weight"),
                self.param(module.bias, node.target + ".bias"), module.eps,
                f"normalized_shape = {format_list(module.normalized_shape)} ")
        if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d,
                               nn.InstanceNorm1d, nn.InstanceNorm2d, nn.InstanceNorm3d)):
            batch = isinstance(module, nn.modules.batchnorm._BatchNorm)
            stats = module.training or module.running_mean is None
            op = "batch_norm" if batch else "instance_norm"
            return self.norm_with_running_stats(
                op, node.target, x, module.weight if module.affine else None,
                module.bias if module.affine else None, module.running_mean,
                module.running_var, use_batch_stats=stats, eps=module.eps)
        if isinstance(module, (nn.MaxPool1d, nn.MaxPool2d, nn.MaxPool3d)):
            return self.pool("max", {"input": node.args[0], "kernel_size": module.kernel_size,
                                     "stride": module.stride, "padding": module.padding,
                                     "dilation": module.dilation, "ceil_mode": module.ceil_mode,
                                     "return_indices": module.return_indices})
        if isinstance(module, (nn.AvgPool1d, nn.AvgPool2d, nn.AvgPool3d)):
            return self.pool("avg", {"input": node.args[0], "kernel_size": module.kernel_size,
                                     "stride": module.stride, "padding": module.padding,
                                     "ceil_mode": module.ceil_mode,
                                     "count_include_pad": module.count_include_pad,
                                     "divisor_override": getattr(module, "divisor_override", None)})
        raise self.unsupported(f"{_describe(node, module)} is not supported")

    # -- errors, names, operands ------------------------------------------

    def unsupported(self, message):
        where = _source_line(self.node) if self.node is not None else None
        if where:
            message += f"\n  at {where}"
        return UnsupportedOperation(message)

    def fresh(self, base):
        base = re.sub(r"[^A-Za-z0-9_]", "_", base) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, index = base, 1
        while name in self.used_names:
            name, index = f"{base}_{index}", index + 1
        self.used_names.add(name)
        return name

    def result_shape(self):
        meta = self.node.meta.get("tensor_meta")
        if meta is None or not hasattr(meta, "shape"):
            raise self.unsupported(f"{_describe(self.node)} does not produce one tensor")
        if meta.dtype != torch.float32:
            raise self.unsupported(f"{_describe(self.node)} produces {meta.dtype}; "
                                   "Solder compiles float32 chains")
        return tuple(meta.shape)

    def emit(self, text, shape=None, name=None):
        """Appends '%name = text' and returns its Value; ``shape`` defaults to
        the fx node's."""
        shape = self.result_shape() if shape is None else tuple(shape)
        value = Value(self.fresh(name or self.node.name), shape)
        self.lines.append(f"%{value.name} = {text}")
        return value

    def value(self, operand):
        """A tensor operand: an fx node's value or a Python scalar as a
        rank-0 constant."""
        if isinstance(operand, torch.fx.Node):
            if operand not in self.values:
                raise self.unsupported(f"operand '{operand.name}' is not a tensor")
            return self.values[operand]
        if isinstance(operand, bool) or not isinstance(operand, (int, float)):
            raise self.unsupported(
                f"{_describe(self.node)} with an operand of type "
                f"{type(operand).__name__}; Solder takes tensors and Python numbers")
        return self.constant(float(operand))

    def constant(self, number):
        key = format_float(number)
        if key not in self.constants:
            value = Value(self.fresh("cst"), ())
            self.lines.append(f"%{value.name} = arith.constant dense<{key}> : tensor<f32>")
            self.constants[key] = value
        return self.constants[key]

    def param(self, tensor, qualified_name):
        """A parameter or buffer (or a derived constant): a function argument
        after the inputs, deduplicated by identity."""
        if tensor is None:
            return None
        if id(tensor) in self.parameter_ids:
            return self.parameter_ids[id(tensor)]
        if tensor.dtype != torch.float32:
            raise self.unsupported(f"parameter '{qualified_name}' is {tensor.dtype}; "
                                   "Solder compiles float32 models")
        value = Value(self.fresh(qualified_name.replace(".", "_")), tuple(tensor.shape))
        self.parameter_ids[id(tensor)] = value
        self.keyed_tensors.append(tensor)
        # A copy: the compiled module keeps the values of compile time.
        self.parameters.append((value, tensor.detach().to(
            "cpu", torch.float32, copy=True).contiguous()))
        return value

    def get_attr(self, node):
        tensor = self.gm
        for part in node.target.split("."):
            tensor = getattr(tensor, part)
        if not isinstance(tensor, torch.Tensor):
            raise self.unsupported(f"attribute '{node.target}' is a "
                                   f"{type(tensor).__name__}, not a tensor")
        return self.param(tensor, node.target)

    def tensor_of(self, operand, what):
        """The concrete tensor behind a get_attr operand (running statistics)."""
        if operand is None:
            return None
        if isinstance(operand, torch.fx.Node) and operand.op == "get_attr":
            tensor = self.gm
            for part in operand.target.split("."):
                tensor = getattr(tensor, part)
            return tensor
        raise self.unsupported(f"{_describe(self.node)}: {what} must be a parameter "
                               "or buffer of the module")

    # -- op families ------------------------------------------------------

    def emit_unary(self, op, x, **attrs):
        attr_text = ", ".join(f"{k} = {format_float(v)} : f32" for k, v in attrs.items()
                              if v is not None)
        attr_text = f" {{{attr_text}}}" if attr_text else ""
        return self.emit(f"solder.{op} %{x.name}{attr_text} : {x.type}", x.shape)

    def unary(self, op, bound):
        return self.emit_unary(op, self.value(bound["input"]))

    def attr_unary(self, op, args, kwargs, signature, **attr_names):
        bound = _bind(signature, args, kwargs)
        attrs = {attr: _default(signature, bound, name) for attr, name in attr_names.items()}
        for attr, number in attrs.items():
            if not isinstance(number, (int, float)) or isinstance(number, bool):
                raise self.unsupported(f"{_describe(self.node)}: '{attr}' must be a number")
        return self.emit_unary(op, self.value(bound["input"]), **attrs)

    def hardtanh(self, x, low, high):
        return self.emit_unary("hardtanh", x, min=low, max=high)

    def gelu(self, bound):
        return self.emit_gelu(self.value(bound["input"]), bound.get("approximate", "none"))

    def emit_gelu(self, x, approximate):
        if approximate not in ("none", "tanh"):
            raise self.unsupported(f"gelu with approximate='{approximate}'")
        attr = "" if approximate == "none" else \
            " {approximate = #solder.gelu_approximation<tanh>}"
        return self.emit(f"solder.gelu %{x.name}{attr} : {x.type}", x.shape)

    def clamp(self, bound):
        x = self.value(bound["input"])
        low, high = bound.get("min"), bound.get("max")
        if isinstance(low, torch.fx.Node) or isinstance(high, torch.fx.Node):
            result = x
            if low is not None:
                result = self.binary("maximum", result, low)
            if high is not None:
                result = self.binary("minimum", result, high)
            return result
        if low is None and high is None:
            raise self.unsupported("clamp needs min or max")
        return self.emit_unary("clamp", x, min=low, max=high)

    def rsub(self, bound):
        """torch.rsub(input, other, alpha) = other - alpha * input."""
        return self.binary_call("sub", (bound["other"], bound["input"]),
                                {"alpha": bound.get("alpha", 1)})

    def dropout(self, bound):
        if bound.get("training", True) and bound.get("p", 0.5) > 0:
            raise self.unsupported(
                f"{_describe(self.node)} with training=True is random; pass "
                "training=self.training and call module.eval() before compiling")
        return self.value(bound["input"])

    def binary_call(self, op, args, kwargs):
        if op == "div":
            bound = _bind(_sig_div, args, kwargs)
            if bound.get("rounding_mode") is not None:
                raise self.unsupported(f"division with rounding_mode="
                                       f"'{bound['rounding_mode']}'")
            return self.binary(op, bound["input"], bound["other"])
        if op == "pow":
            bound = _bind(_sig_pow, args, kwargs)
            return self.binary(op, bound["input"], bound["exponent"])
        if op in ("add", "sub"):
            bound = _bind(_sig_binary, args, kwargs)
            other, alpha = bound["other"], bound.get("alpha", 1)
            if alpha != 1 and isinstance(other, (int, float)):  # torch.sub(x, 2, alpha=3)
                other = other * alpha
            elif alpha != 1:
                other = self.binary("mul", other, alpha, name=f"{self.node.name}_alpha")
            return self.binary(op, bound["input"], other)
        bound = _bind(_sig_binary_plain, args, kwargs)
        return self.binary(op, bound["input"], bound["other"])

    def binary(self, op, lhs, rhs, name=None):
        if not isinstance(lhs, (torch.fx.Node, Value)) and \
                not isinstance(rhs, (torch.fx.Node, Value)):
            raise self.unsupported(f"{_describe(self.node)} of two Python numbers")
        lhs = lhs if isinstance(lhs, Value) else self.value(lhs)
        rhs = rhs if isinstance(rhs, Value) else self.value(rhs)
        shape = tuple(torch.broadcast_shapes(lhs.shape, rhs.shape))
        if lhs.shape == rhs.shape:
            types = lhs.type
        else:
            types = f"{lhs.type}, {rhs.type} -> {tensor_type(shape)}"
        return self.emit(f"solder.{op} %{lhs.name}, %{rhs.name} : {types}", shape, name)

    def dims(self, dim, rank):
        if dim is None or dim == () or dim == []:
            return list(range(rank))
        dims = [dim] if isinstance(dim, int) else list(dim)
        if not all(isinstance(d, int) for d in dims):
            raise self.unsupported(f"{_describe(self.node)}: dim must be integers")
        if any(not -rank <= d < rank for d in dims):
            raise self.unsupported(f"{_describe(self.node)}: dim {dim} is out of "
                                   f"range for a rank-{rank} tensor")
        normalized = sorted({d % rank for d in dims})
        if len(normalized) != len(dims):
            raise self.unsupported(f"{_describe(self.node)}: dim {dim} repeats a dimension")
        return normalized

    def reduce_call(self, kind, args, kwargs):
        signature = {"max": _sig_amax, "min": _sig_amax, "logsumexp": _sig_reduce_dim,
                     "prod": _sig_reduce}.get(kind, _sig_reduce)
        bound = _bind(signature, args, kwargs)
        if bound.get("dtype") not in (None, torch.float32):
            raise self.unsupported(f"{_describe(self.node)} with dtype={bound['dtype']}")
        return self.emit_reduce(kind, self.value(bound["input"]), bound.get("dim"),
                                bound.get("keepdim", False))

    def emit_reduce(self, kind, x, dim, keepdim):
        dims = self.dims(dim, len(x.shape))
        shape = self.result_shape()
        keep = " keepdim" if keepdim else ""
        return self.emit(f"solder.reduce {kind} %{x.name} dims = {format_list(dims)}{keep}"
                         f" : {x.type} -> {tensor_type(shape)}", shape)

    def minmax(self, kind, args, kwargs):
        if len(args) >= 2 and isinstance(args[1], torch.fx.Node) or "other" in kwargs:
            bound = _bind(_sig_binary_plain, args, kwargs)
            return self.binary("maximum" if kind == "max" else "minimum",
                               bound["input"], bound["other"])
        bound = _bind(_sig_minmax, args, kwargs)
        if bound.get("dim") is not None:
            raise self.unsupported(
                f"{_describe(self.node)} with dim returns values and indices; use "
                f"torch.a{kind}(x, dim) for the values")
        return self.emit_reduce(kind, self.value(bound["input"]), None, False)

    def softmax(self, op, bound):
        x = self.value(bound["input"])
        dim = bound.get("dim")
        if dim is None:
            raise self.unsupported(f"{op} without dim (the implicit dim is deprecated)")
        if bound.get("dtype") not in (None, torch.float32):
            raise self.unsupported(f"{op} with dtype={bound['dtype']}")
        dim = self.dims(dim, len(x.shape))[0]
        return self.emit(f"solder.{op} %{x.name} dim = {dim} : {x.type}", x.shape)

    def cast(self, args, kwargs):
        shape_dtype = self.node.meta.get("tensor_meta")
        if shape_dtype is None or shape_dtype.dtype != torch.float32:
            raise self.unsupported(f"{_describe(self.node)} changes the dtype; Solder "
                                   "compiles float32 chains")
        if self.node.target == "to" and any(
                isinstance(a, (str, torch.device)) for a in list(args[1:]) + list(kwargs.values())):
            raise self.unsupported(".to() with a device inside the module")
        return self.value(args[0])

    def conv(self, bound):
        x, weight = self.value(bound["input"]), self.value(bound["weight"])
        bias = self.value(bound["bias"]) if bound.get("bias") is not None else None
        return self.emit_conv(x, weight, bias, bound.get("stride", 1), bound.get("padding", 0),
                              bound.get("dilation", 1), bound.get("groups", 1), weight.shape)

    def emit_conv(self, x, weight, bias, stride, padding, dilation, groups, weight_shape):
        spatial = len(x.shape) - 2
        dilation = _tuple(dilation, spatial)
        if isinstance(padding, str):
            if padding == "valid":
                padding = (0,) * spatial
            else:  # 'same'
                totals = [d * (k - 1) for d, k in zip(dilation, weight_shape[2:])]
                if any(t % 2 for t in totals):
                    raise self.unsupported("padding='same' with an even kernel pads "
                                           "unevenly, which solder.conv cannot express")
                padding = tuple(t // 2 for t in totals)
        return self.emit_convolution("conv", x, weight, bias, [
            ("strides", stride), ("padding", padding), ("dilations", dilation)], groups)

    def emit_convolution(self, op, x, weight, bias, window, groups):
        """solder.conv or solder.conv_transpose; ``window`` lists the
        per-spatial-dim attributes in the op's order."""
        spatial = len(x.shape) - 2
        operands = [x, weight] + ([bias] if bias is not None else [])
        shape = self.result_shape()
        attributes = "".join(f" {name} = {format_list(_tuple(values, spatial))}"
                             for name, values in window)
        return self.emit(
            f"solder.{op} " + ", ".join(f"%{v.name}" for v in operands)
            + f"{attributes} groups = {int(groups)}"
            f" : ({', '.join(v.type for v in operands)}) -> {tensor_type(shape)}", shape)

    def conv_transpose(self, bound):
        x, weight = self.value(bound["input"]), self.value(bound["weight"])
        bias = self.value(bound["bias"]) if bound.get("bias") is not None else None
        return self.emit_conv_transpose(
            x, weight, bias, bound.get("stride", 1), bound.get("padding", 0),
            bound.get("output_padding", 0), bound.get("dilation", 1), bound.get("groups", 1))

    def emit_conv_transpose(self, x, weight, bias, stride, padding, output_padding,
                            dilation, groups):
        if isinstance(padding, str):
            raise self.unsupported(f"conv_transpose with padding='{padding}'")
        return self.emit_convolution("conv_transpose", x, weight, bias, [
            ("strides", stride), ("padding", padding),
            ("output_padding", output_padding), ("dilations", dilation)], groups)

    def emit_norm(self, op, x, weight, bias, eps, extra):
        operands = [x] + [v for v in (weight, bias) if v is not None]
        affine = (f"weight = %{weight.name} " if weight is not None else "") + \
                 (f"bias = %{bias.name} " if bias is not None else "")
        return self.emit(
            f"solder.{op} %{x.name} {affine}{extra}epsilon = {format_float(eps)}"
            f" : ({', '.join(v.type for v in operands)}) -> {x.type}", x.shape)

    def optional_value(self, operand):
        return None if operand is None else self.value(operand)

    def group_norm(self, bound):
        groups = bound["num_groups"]
        if not isinstance(groups, int):
            raise self.unsupported("group_norm: num_groups must be an integer")
        return self.emit_norm("group_norm", self.value(bound["input"]),
                              self.optional_value(bound.get("weight")),
                              self.optional_value(bound.get("bias")),
                              bound.get("eps", 1e-5), f"num_groups = {groups} ")

    def layer_norm(self, bound):
        shape = bound["normalized_shape"]
        shape = [shape] if isinstance(shape, int) else list(shape)
        return self.emit_norm("layer_norm", self.value(bound["input"]),
                              self.optional_value(bound.get("weight")),
                              self.optional_value(bound.get("bias")),
                              bound.get("eps", 1e-5),
                              f"normalized_shape = {format_list(shape)} ")

    def batch_norm(self, bound):
        return self.functional_norm("batch_norm", bound, bound.get("training", False))

    def instance_norm(self, bound):
        return self.functional_norm("instance_norm", bound,
                                    bound.get("use_input_stats", True))

    def functional_norm(self, op, bound, use_batch_stats):
        x = self.value(bound["input"])
        if use_batch_stats:
            return self.emit_norm(op, x, self.optional_value(bound.get("weight")),
                                  self.optional_value(bound.get("bias")),
                                  bound.get("eps", 1e-5), "")
        mean = self.tensor_of(bound.get("running_mean"), "running_mean")
        var = self.tensor_of(bound.get("running_var"), "running_var")
        weight = self.tensor_of(bound.get("weight"), "weight")
        bias = self.tensor_of(bound.get("bias"), "bias")
        return self.fold_running_stats(x, self.node.name, weight, bias, mean, var,
                                       bound.get("eps", 1e-5))

    def norm_with_running_stats(self, op, target, x, weight, bias, mean, var,
                                use_batch_stats, eps):
        if use_batch_stats:
            return self.emit_norm(op, x, self.param(weight, target + ".weight"),
                                  self.param(bias, target + ".bias"), eps, "")
        return self.fold_running_stats(x, target, weight, bias, mean, var, eps)

    def fold_running_stats(self, x, target, weight, bias, mean, var, eps):
        """Eval-mode batch/instance norm: (x - mean) * scale + bias with
        scale = weight / sqrt(var + eps), computed in float64, per channel."""
        channels = x.shape[1]
        spread = (channels,) + (1,) * (len(x.shape) - 2)
        scale = (var.detach().double() + eps).rsqrt()
        if weight is not None:
            scale = scale * weight.detach().double()
        derived = lambda t: t.reshape(spread).float().contiguous()
        prefix = target.replace(".", "_")
        centered = self.binary("sub", x, self.param(derived(mean.detach()), prefix + ".mean"),
                               name=prefix + "_centered")
        result = self.binary("mul", centered, self.param(derived(scale), prefix + ".scale"),
                             name=prefix + "_scaled" if bias is not None else None)
        if bias is not None:
            result = self.binary("add", result,
                                 self.param(derived(bias.detach()), prefix + ".shift"))
        self.notes.append(f"{target}: eval-mode normalization folded into a per-channel "
                          "scale and shift (running statistics)")
        return result

    def pool(self, kind, bound):
        x = self.value(bound["input"])
        spatial = len(x.shape) - 2
        if bound.get("return_indices"):
            raise self.unsupported("max pooling with return_indices=True")
        if bound.get("divisor_override") is not None:
            raise self.unsupported("avg pooling with divisor_override")
        kernel = _tuple(bound["kernel_size"], spatial)
        stride = bound.get("stride")
        stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, spatial)
        shape = self.result_shape()
        text = (f"solder.pool {kind} %{x.name} kernel = {format_list(kernel)}"
                f" strides = {format_list(stride)}"
                f" padding = {format_list(_tuple(bound.get('padding', 0), spatial))}"
                f" dilations = {format_list(_tuple(bound.get('dilation', 1), spatial))}")
        if bound.get("ceil_mode"):
            text += " ceil_mode"
        if kind == "avg":
            include = "true" if bound.get("count_include_pad", True) else "false"
            text += f" {{count_include_pad = {include}}}"
        return self.emit(f"{text} : {x.type} -> {tensor_type(shape)}", shape)


def _default(signature, bound, name):
    if name in bound:
        return bound[name]
    return inspect.signature(signature).parameters[name].default
