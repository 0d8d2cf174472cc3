"""solder.compile, solder.export and solder.load."""

import array
import functools
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn

from .errors import SolderError, SolderWarning
from .importer import channels_last_format, import_module
from .tools import compiler_config, compiler_fingerprint, file_digest, find_tool, \
    run_tool

PRECISIONS = ("ieee", "tf32")
BACKENDS = ("cuda", "cpu")
FORCE = ("auto", "materialize", "recompute")
FRONTEND_FILE = "frontend.json"  # what solder.export adds to a bundle


def memory_format(spec):
    """The PyTorch memory format of a manifest's input or output entry: its
    "layout" (channels_last), else contiguous (NCDHW)."""
    if spec.get("layout") == "channels_last":
        return channels_last_format(len(spec["shape"]))
    return torch.contiguous_format
CACHE_ENV_VAR = "SOLDER_CACHE_DIR"


def _current_raw_stream(index):
    """The cudaStream_t (an int) of torch's current stream on device ``index``."""
    return torch.cuda.current_stream(index).cuda_stream


# torch's own accessor (what Inductor's generated launchers call) skips the
# Stream object: a few microseconds a call.
if hasattr(torch._C, "_cuda_getCurrentRawStream"):
    _current_raw_stream = torch._C._cuda_getCurrentRawStream  # noqa: F811

# The current CUDA device's index; torch.cuda.current_device() first checks
# its lazy initialization (a call's microsecond). A module's call comes after
# torch's CUDA initialization (its parameters are on the device).
_current_device = getattr(torch._C, "_cuda_getDevice", torch.cuda.current_device)


def cache_dir():
    """Where compiled bundles are kept: $SOLDER_CACHE_DIR, else
    ~/.cache/solder."""
    root = os.environ.get(CACHE_ENV_VAR) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "solder")
    return Path(root)


def _log(message):
    print(f"solder: {message}", file=sys.stderr, flush=True)


def _check_options(precision, backend, force):
    if precision not in PRECISIONS:
        raise SolderError(f"unknown precision '{precision}' (one of {PRECISIONS})")
    if backend not in BACKENDS:
        raise SolderError(f"unknown backend '{backend}' (one of {BACKENDS})")
    if force not in FORCE:
        raise SolderError(f"unknown force='{force}' (one of {FORCE})")


def _gpu_arch(device):
    if not torch.cuda.is_available():
        raise SolderError("backend='cuda' needs a CUDA GPU, and torch sees none; "
                          "use backend='cpu' to run on the reference interpreter, "
                          "or solder.export to compile a bundle for another machine")
    major, minor = torch.cuda.get_device_capability(device)
    name = torch.cuda.get_device_name(device)
    # As solder-compile's default maps it (tools/solder-compile,
    # targetArchs). Hopper (9.0): its arch-specific target, whose kernels may
    # use wgmma and the Hopper main loop; the bundle then runs on that GPU
    # alone, which is where it was compiled for. A GPU newer than the archs
    # solder-compile plans for: the newest of them below it, whose PTX the
    # driver compiles for it.
    if (major, minor) == (9, 0):
        return "sm_90a", name
    arch, capability = f"sm_{major}{minor}", 10 * major + minor
    planned = compiler_config().get("portable_archs")
    if planned is None:
        raise SolderError(f"{find_tool('solder-compile')} does not list the archs it plans "
                          "for (--print-config): it is older than this package; rebuild it")
    if arch in planned:
        return arch, name
    capabilities = {known: int(known[len("sm_"):]) for known in planned}
    below = [known for known in planned if capabilities[known] <= capability]
    if not below:
        raise SolderError(f"{name} ({arch}) is older than every GPU Solder compiles for "
                          f"({', '.join(planned)})")
    return max(below, key=capabilities.get), name


_SSA_OR_SYMBOL = re.compile(r"[%@][\w$.-]+")


@functools.lru_cache(maxsize=64)
def cache_ir(mlir):
    """``mlir`` as the cache keys it: without comments and source locations,
    its symbols and values renamed in order of appearance (string literals
    kept as they are). The same computation imported from other source
    lines (an edit above it in the file) or under another subgraph's names
    (a training backward's repeated blocks, each a subgraph) is then one
    entry; the entry keeps the names and lines of the compile that built it
    (a bundle's source.mlir). Memoized: a graph's IR is keyed by its
    build-ahead thread and its compile alike."""
    pieces, code, names, depth, i = [], [], {}, 0, 0

    def flush():
        pieces.append(_SSA_OR_SYMBOL.sub(
            lambda match: names.setdefault(match.group(), f"{match.group()[0]}{len(names)}"),
            "".join(code)))
        code.clear()

    while i < len(mlir):
        if mlir.startswith('"', i):  # a string literal, kept whole
            end = i + 1
            while end < len(mlir) and mlir[end] != '"':
                end += 2 if mlir[end] == "\\" else 1
            if depth == 0:
                flush()
                pieces.append(mlir[i:end + 1])
            i = end + 1
        elif depth == 0 and mlir.startswith("//", i):  # a comment, to its line's end
            end = mlir.find("\n", i)
            i = len(mlir) if end < 0 else end
        elif depth == 0 and mlir.startswith(" loc(", i):
            depth, i = 1, i + len(" loc(")
        elif depth and mlir[i] in "()":
            depth += 1 if mlir[i] == "(" else -1
            i += 1
        else:
            if depth == 0:
                code.append(mlir[i])
            i += 1
    flush()
    return "".join(pieces).strip()


def _cached(kind, key_parts, build):
    """The cache entry for ``key_parts`` (built by ``build(tmpdir)`` on a
    miss, then moved into place so a half-written entry is never seen)."""
    key = hashlib.sha256(json.dumps(key_parts, sort_keys=True).encode()).hexdigest()
    entry = cache_dir() / kind / key[:24]
    if entry.is_dir():  # entries appear whole, by rename
        return entry, True
    entry.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".tmp-", dir=entry.parent))
    try:
        build(staging)
        try:
            os.rename(staging, entry)
        except OSError:  # another process filled it first
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return entry, False


def _run_on_ir(mlir, directory, tool, args, what):
    """Runs ``tool`` on ``mlir`` written as DIRECTORY/input.mlir (removed
    after), with ``args`` following the input path."""
    source = directory / "input.mlir"
    source.write_text(mlir)
    run_tool(tool, [source] + args, what)
    source.unlink()


def _compile_bundle(mlir, arch, force, precision="ieee", gpu_name=None, output=None,
                    quiet=False):
    """A bundle of ``mlir`` for ``arch`` (None: solder-compile's default, the
    GPU found, else sm_90a): from the cache, or solder-compile."""
    def build(directory):
        start = time.time()
        if not quiet:
            target = arch or "the GPU found, else sm_90a"
            _log(f"compiling a {precision} bundle for {target} (solder-compile + nvcc) ...")
        _run_on_ir(mlir, directory, "solder-compile",
                   ["-o", directory, f"--force={force}", f"--precision={precision}"]
                   + ([f"--arch={arch}"] if arch else []),
                   "solder-compile")
        if not quiet:
            _log(f"compiled in {time.time() - start:.1f} s")

    if output is not None:  # solder.export: straight to the named folder
        output = Path(output)
        if output.exists():
            if not (output / "manifest.json").is_file() and any(output.iterdir()):
                raise SolderError(f"{output} exists and is not a Solder bundle; "
                                  "not overwriting it")
            shutil.rmtree(output)
        output.mkdir(parents=True)
        build(output)
        return output
    key = {"kind": "bundle", "mlir": cache_ir(mlir), "arch": arch, "gpu": gpu_name,
           "force": force, "precision": precision, "compiler": compiler_fingerprint()}
    entry, hit = _cached("bundles", key, build)
    if hit and not quiet:
        _log(f"using cached bundle {entry}")
    return entry


def _pipelined_ir(mlir, force):
    """The IR after Solder's pipeline, which the CPU backend interprets."""
    def build(directory):
        _run_on_ir(mlir, directory, "solder-opt",
                   [f"--solder-pipeline=force={force}", "-o", directory / "pipelined.mlir"],
                   "solder-opt --solder-pipeline")
    key = {"kind": "pipelined", "mlir": cache_ir(mlir), "force": force,
           "solder-opt": file_digest(find_tool("solder-opt"))}
    entry, _ = _cached("pipelined", key, build)
    return entry / "pipelined.mlir"


def _viewed_outputs(results, views, shapes):
    """The outputs as the caller sees ``results`` (ImportedModule.output_views).
    A norm's mean and rstd, items of its (N, G, 2) statistics, are each
    made dense, as PyTorch's kernels that read them (the CUDA
    native_group_norm_backward, cuDNN's BatchNorm backward) expect: every
    norm's statistics concatenated as (pairs, 2) and moved to (2, pairs),
    two launches whatever the number of norms (a ResNet-50 has 53), of
    which each mean and each rstd is a slice of one row. They share that
    buffer (and its version counter): they are what the backward reads, not
    tensors to change in place."""
    statistics = sorted({view["result"] for view in views if "item" in view})
    planes, outputs = {}, []
    if statistics:
        pairs = [results[index].reshape(-1, 2) for index in statistics]
        both = (torch.cat(pairs) if len(pairs) > 1 else pairs[0]).t().contiguous()
        offset = 0
        for index, pair in zip(statistics, pairs):
            planes[index] = both[:, offset:offset + len(pair)]
            offset += len(pair)
    for view, shape in zip(views, shapes):
        result = results[view["result"]]
        if "item" in view:
            outputs.append(planes[view["result"]][view["item"]].view(shape))
        elif "permute" in view:
            permuted = result.permute(view["permute"])
            outputs.append(permuted.contiguous() if view.get("contiguous") else permuted)
        else:
            outputs.append(_reshaped(result, shape))
    return outputs


def _reshaped(result, shape):
    """``result`` with ``shape`` (its elements in order), not a view in
    autograd's eyes: an output the caller may change in place, as eager's,
    also when AOTAutograd's function returns it."""
    shape = tuple(shape)
    return result if tuple(result.shape) == shape else torch.ops.aten._unsafe_view(result, shape)


class CompiledModule:
    """A compiled chain called like the module: takes the module's inputs
    (float32 tensors of the compiled shapes) and returns what it returns.

    On backend 'cuda' inputs must be CUDA tensors on the compiled device; the
    bundle runs on torch's current stream. Parameters were captured when the
    module was compiled (``parameters``): compile again after changing the
    module's; once a call has gone through autograd (solder.compile's
    module, in grad mode), every call does, on the module's parameters as
    they are, and so does every call of a module with a BatchNorm in
    training mode, whose running statistics each call updates. What the
    bundle computes from them alone (the weights in its main loops'
    layouts) is prepared at the first call and again only after an
    in-place change to one of ``parameters``. One bundle holds one
    workspace, so calls take turns: calls from several threads or on
    several streams are safe, and never overlap on the GPU.
    """

    def __init__(self, *, backend, input_names, input_shapes, output_shapes,
                 output_is_sequence, parameters, bundle=None, device=None,
                 pipelined=None, mlir=None, input_arguments=None, result_shapes=None,
                 parameter_inputs=(), parameters_require_grad=False, output_views=None):
        self.backend = backend
        self.input_names = list(input_names)
        self.input_shapes = [tuple(s) for s in input_shapes]
        self._input_sizes = [torch.Size(s) for s in self.input_shapes]
        self.output_shapes = [tuple(s) for s in output_shapes]
        self.output_is_sequence = output_is_sequence
        # The function's arguments are the inputs viewed (the importer's
        # views of inputs), its results are the outputs before their views.
        self.input_arguments = [(int(i), tuple(s)) for i, s in input_arguments] \
            if input_arguments is not None else list(enumerate(self.input_shapes))
        self.result_shapes = [tuple(s) for s in result_shapes] \
            if result_shapes is not None else list(self.output_shapes)
        # An output that is a view of its result other than a reshape
        # (what a training graph's backward saves: a norm's mean or rstd,
        # items of its statistics; a permuted activation).
        self.output_views = list(output_views) if output_views is not None else None
        self._outputs_are_views = self.output_views is not None
        self.bundle = Path(bundle) if bundle is not None else None
        self.pipelined = pipelined
        # The kernels compute no gradients (issue "Training through
        # Solder"): a call in grad mode says so rather than drop them. The
        # captured parameters are detached: whether the module's require
        # grad is given.
        self._parameters_require_grad = parameters_require_grad
        self._warned_gradients = False
        # solder.compile's module and example inputs (None elsewhere): a
        # call in grad mode goes through autograd (_train_call), and from
        # then on every call does, on the module's parameters as they are.
        self._source = None
        self._training = None
        self.mlir = mlir
        if backend == "cuda":
            from .runtime import LoadedBundle
            self.device = torch.device(device if device is not None else "cuda")
            if self.device.index is None:  # 'cuda' means the current device
                self.device = torch.device("cuda", torch.cuda.current_device())
            with torch.cuda.device(self.device):
                torch.cuda.current_stream()  # makes torch's context current
                self.parameters = [p.to(self.device, torch.float32).contiguous()
                                   for p in parameters]
                self._loaded = LoadedBundle(self.bundle)
            # The bundle's preparations from parameters (weights to the main
            # loops' layouts or TF32 fragments) run at the first call, and
            # again only when a parameter's pointer or version (bumped by
            # PyTorch's in-place ops) moves: the captured parameters', and
            # those of the caller's inputs marked parameters (through
            # torch.compile, a module's weights) that a preparation reads.
            # Other inputs: 0, may hold anything.
            manifest = json.loads((Path(self._loaded.path) / "manifest.json").read_text())
            prepared = {i for launch in manifest["launches"]
                        for i in launch.get("prepared_from", [])}
            marked = set(parameter_inputs)
            self._versioned_inputs = [
                (position, index) for position, (index, _) in enumerate(self.input_arguments)
                if index in marked and position in prepared]
            self._argument_versions = [0] * len(self.input_arguments)
            # Per function argument, the input whose version it passes (None:
            # 0), for the call's one pass over them.
            self._version_sources = [None] * len(self.input_arguments)
            for position, index in self._versioned_inputs:
                self._version_sources[position] = index
            self._arguments_are_inputs = [index for index, _ in self.input_arguments] == \
                list(range(len(self.input_shapes)))
            # Each input in the layout the bundle takes it (the manifest's
            # "layout": the plan kept the caller's channels-last where its
            # readers take it so), each output in the layout it stores.
            self._input_formats = [torch.contiguous_format] * len(self.input_shapes)
            for (index, _), spec in zip(self.input_arguments, manifest["inputs"]):
                self._input_formats[index] = memory_format(spec)
            self._output_formats = [memory_format(spec) for spec in manifest["outputs"]]
            # An inference tensor has no version counter: a captured one is
            # the module's own copy, 1 from call to call.
            self._inference_parameters = [p.is_inference() for p in self.parameters]
            # The last call's versioned inputs, held so that no other tensor
            # takes their addresses while the runtime compares the next
            # call's pointers and versions with theirs: the caller's tensors
            # (a kept conversion of one is held by _converted; one made in a
            # CUDA graph's capture lives in the graph's pool, where a tensor
            # the graph does not return must not outlive the capture, and
            # the runtime compares no pointers after a capture).
            self._held = []
        else:
            self.device = torch.device("cpu")
            self.parameters = [p.detach().cpu().float().contiguous() for p in parameters]
            self._input_formats = [torch.contiguous_format] * len(self.input_shapes)
            self._output_formats = [torch.contiguous_format] * len(self.output_shapes)
        # Inputs the caller passes unchanged from call to call (a module's
        # weights) in another layout than the bundle takes (a channels-last
        # model's conv weights): the last conversion, reused while the
        # caller's tensor, its storage and its version are the same, so that
        # a preparation from it still runs once.
        # input -> (tensor, (version, data_ptr, strides), copy)
        self._parameter_inputs = set(parameter_inputs)
        self._converted = {}
        # False: each call converts afresh (under PyTorch's CUDA graph
        # trees, whose warm-up call allocates in the graph's memory pool,
        # where nothing the graph does not return may stay).
        self.keeps_conversions = True
        self._relayout = []  # call_unchecked's (set_relayout)

    @property
    def kernels_source(self):
        """The generated CUDA C++ (kernels.cu) of the bundle."""
        return self.bundle / "kernels.cu" if self.bundle else None

    def _check_inputs(self, inputs, convert=True):
        """The inputs, dense in the layouts the bundle takes and 16-byte
        aligned (copied where not); with ``convert`` False, the inputs as
        they are once checked (a call through autograd, which differentiates
        the caller's tensors). Cheap per tensor: through the backend a
        ResNet-50 passes ~320 (its parameters), and the checks run before
        the first kernel launches."""
        if len(inputs) != len(self.input_shapes):
            raise SolderError(f"the compiled module takes {len(self.input_shapes)} "
                              f"inputs ({', '.join(self.input_names)}), got {len(inputs)}")
        checked = []
        float32, on_gpu, device = torch.float32, self.backend == "cuda", self.device
        for index, (tensor, size, layout) in enumerate(zip(inputs, self._input_sizes,
                                                           self._input_formats)):
            if (not isinstance(tensor, torch.Tensor) or tensor.shape != size
                    or tensor.dtype is not float32
                    or (on_gpu and tensor.get_device() != device.index)):
                self._refuse_input(index, tensor)
            if not convert:
                continue
            if not tensor.is_contiguous(memory_format=layout):
                tensor = self._converted_input(index, tensor, layout)
            if tensor.data_ptr() % 16:  # a view at an odd offset: kernels load float4
                tensor = tensor.clone(memory_format=layout)
            checked.append(tensor)
        return checked if convert else inputs

    def _converted_input(self, index, tensor, layout):
        """Input ``index`` in ``layout``: a copy, kept for a parameter input
        while the caller's tensor, its storage (``p.data = ...`` keeps the
        tensor and its version) and its version stay the same. Made afresh
        in a CUDA graph's capture, whose replays copy what the parameter
        holds then."""
        if index not in self._parameter_inputs or tensor.is_inference() or \
                not self.keeps_conversions or \
                (tensor.is_cuda and torch.cuda.is_current_stream_capturing()):
            return tensor.contiguous(memory_format=layout)
        key = (tensor._version, tensor.data_ptr(), tensor.stride())
        source, kept, copy = self._converted.get(index, (None, None, None))
        if source is not tensor or kept != key:
            copy = tensor.contiguous(memory_format=layout)
            self._converted[index] = (tensor, key, copy)
        return copy

    def _check_gradients(self, inputs):
        """In grad mode, a module compiled without its source (solder.load,
        the backend's subgraphs) refuses an input that requires grad, whose
        gradient would be lost, and warns once where its parameters require
        grad (an inference call without torch.no_grad() is common)."""
        for index, tensor in enumerate(inputs):
            if tensor.requires_grad:
                raise SolderError(
                    f"input {index} ({self.input_names[index]}) requires grad, but this "
                    "compiled module computes no gradients (it was loaded from a bundle): "
                    "call it under torch.no_grad() or detach the input, and train with "
                    "solder.compile(module, ...) or torch.compile(module, backend='solder')")
        if self._parameters_require_grad and not self._warned_gradients:
            self._warned_gradients = True
            warnings.warn("solder: the compiled module's parameters require grad, but it "
                          "computes no gradients: its outputs carry none back to them. "
                          "Call it under torch.no_grad() or torch.inference_mode() for "
                          "inference.", SolderWarning, stacklevel=3)

    def _needs_training(self, inputs):
        """Whether a call in grad mode must take part in autograd: an input
        or one of the module's parameters requires grad."""
        return any(isinstance(t, torch.Tensor) and t.requires_grad for t in inputs) or \
            any(p.requires_grad for p in self._source.module.parameters())

    def _updates_buffers(self):
        """Whether a call changes the module's buffers, grad mode or not: a
        BatchNorm (or InstanceNorm) with running statistics, in training
        mode, updates them, which the bundle compiled at solder.compile does
        not (only what the outputs need is imported), and the training path
        does."""
        return self._source is not None and any(
            norm.training for norm in self._source.running_statistics)

    def _train_call(self, inputs, out=None):
        """The call through autograd (solder.compile of a module): the
        module's exported program, its forward compiled by Solder and its
        backward run by PyTorch (solder.backend.compile_training), called on
        the module's parameters and buffers as they are now; a training
        BatchNorm's running statistics are written back. One program per
        train/eval mode of the module's submodules (export fixes BatchNorm's
        and Dropout's behaviour). ``out`` (under no_grad only) gets a copy."""
        self._check_inputs(inputs, convert=False)
        source = self._source
        modes = tuple(m.training for m in source.module.modules())
        with _training_lock:  # torch.export and AOTAutograd trace one at a time
            if self._training is None:
                self._training = {}
            program = self._training.get(modes)
            if program is None:
                program = self._training[modes] = _TrainingProgram(
                    source, self._precision, self._force, self._quiet)
        outputs = program(inputs)
        if out is None:
            return outputs
        values = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
        for target, value in zip(self._check_outputs(out), values):
            target.copy_(value)
        return out

    def _refuse_input(self, index, tensor):
        """Raises input ``index``'s one-line error (labels are built only
        here: a call's checks stay cheap)."""
        shape = self.input_shapes[index]
        label = f"input {index} ({self.input_names[index]})"
        if not isinstance(tensor, torch.Tensor):
            raise SolderError(f"{label} is a {type(tensor).__name__}, not a tensor")
        if tuple(tensor.shape) != shape:
            raise SolderError(f"{label} has shape {tuple(tensor.shape)}; the "
                              f"module was compiled for {shape} (compile again "
                              "for other shapes)")
        if tensor.dtype != torch.float32:
            raise SolderError(f"{label} is {tensor.dtype}; the module was "
                              "compiled for torch.float32")
        if tensor.device != self.device:
            raise SolderError(f"{label} is on {tensor.device}; the module was "
                              f"compiled for {self.device}")
        raise SolderError(f"{label} does not match the compiled input: shape "
                          f"{shape}, torch.float32 on {self.device}")

    def __call__(self, *inputs, out=None):
        """Runs the chain. ``out`` (a tensor, or a tuple for several outputs)
        is written instead of fresh tensors: contiguous float32 of the output
        shapes on the module's device."""
        needs_training = self._source is not None and torch.is_grad_enabled() and \
            self._needs_training(inputs)
        if needs_training and out is not None:
            raise SolderError("out= is not taken by a call through autograd (grad mode is "
                              "on and an input or a parameter requires grad): call it "
                              "under torch.no_grad() to write into out")
        if needs_training or self._training is not None or self._updates_buffers():
            return self._train_call(inputs, out)
        if out is not None and self._outputs_are_views:
            raise SolderError("out= is not taken by a module that returns a tensor twice "
                              "or a view of one it returns (a norm's statistics, a "
                              "permuted tensor)")
        given, inputs = inputs, self._check_inputs(inputs)
        if torch.is_grad_enabled():
            self._check_gradients(given)
        if self.backend == "cuda":
            outputs = self._launch(inputs, self._check_outputs(out) if out is not None else None,
                                   given)
        else:
            arguments = [inputs[index].view(shape) for index, shape in self.input_arguments]
            outputs = self._interpret(arguments)
            if not self._outputs_are_views:
                outputs = [_reshaped(o, shape) for o, shape in zip(outputs, self.output_shapes)]
            if out is not None:
                for target, value in zip(self._check_outputs(out), outputs):
                    target.copy_(value)
                outputs = list(out) if isinstance(out, (tuple, list)) else [out]
        return self._returned(outputs)

    def call_unchecked(self, *inputs):
        """__call__ on a CUDA module without its Python checks of each input,
        for a caller that guarantees what they check (shapes, float32, the
        module's device, dense in the compiled layouts but for the inputs
        set_relayout named): torch.compile's guards do on the
        backend's path, where a ResNet-50 passes 268 tensors a call (the
        checks took most of its host time). The runtime still refuses a
        pointer off 16 bytes, with a SolderError."""
        given = inputs
        if self._relayout:
            inputs = list(inputs)
            for index in self._relayout:
                inputs[index] = self._converted_input(index, inputs[index],
                                                      self._input_formats[index])
        return self._returned(self._launch(inputs, None, given, unchecked=True))

    def layout_mismatches(self, inputs):
        """The indices of ``inputs`` that are not dense in the layouts the
        bundle takes (what __call__ copies)."""
        return [index for index, (tensor, layout) in enumerate(zip(inputs, self._input_formats))
                if not tensor.is_contiguous(memory_format=layout)]

    def set_relayout(self, indices):
        """Inputs that call_unchecked converts to the compiled layout, each
        call in the layout it had (through the backend: a channels-last
        model's input where its first conv takes NCDHW, and its conv
        weights, whose copies are kept while the caller's tensor and
        version hold)."""
        self._relayout = list(indices)

    def _returned(self, outputs):
        """The outputs as the compiled forward returned them."""
        if self._outputs_are_views:
            outputs = _viewed_outputs(outputs, self.output_views, self.output_shapes)
        return tuple(outputs) if self.output_is_sequence else outputs[0]

    def _launch(self, inputs, outputs, given, unchecked=False):
        """Launches the bundle on checked ``inputs`` into ``outputs`` (fresh
        tensors where None) on the current stream; returns the outputs.
        ``given``: the caller's inputs (an input the checks copied has no
        version of its own). ``unchecked``: ``inputs`` are ``given`` but for
        the conversions set_relayout asked for (call_unchecked); a kept copy
        of a parameter input is as new as its source."""
        # The bundle takes pointers: an argument that views an input, or a
        # result an output views, is that tensor (contiguous).
        arguments = list(inputs) if self._arguments_are_inputs else \
            [inputs[index] for index, _ in self.input_arguments]
        if outputs is None:
            # Results where outputs view them (output_views), else the
            # outputs, which the results fill as they are (reshaped).
            shapes = self.result_shapes if self._outputs_are_views else self.output_shapes
            outputs = [torch.empty(shape, device=self.device, dtype=torch.float32,
                                   memory_format=layout)
                       for shape, layout in zip(shapes, self._output_formats)]
        # The Python around the launches shows in short chains (W2 small: 35
        # of 66 us a call went to the checks, torch.cuda.device and the Stream
        # object): switch devices only when needed, and take the raw stream
        # as Inductor's launchers do.
        index = self.device.index
        versions = None
        if unchecked:  # the caller's own tensors (call_unchecked): one pass
            try:
                versions = array.array("Q", [0 if i is None else given[i]._version + 1
                                             for i in self._version_sources])
                held = [given[i] for _, i in self._versioned_inputs]
            except RuntimeError:  # an inference tensor has no version counter
                versions = None
            if versions is not None and not self.keeps_conversions:
                # A conversion made for this call alone: nothing holds its
                # address after the call, so it passes no version.
                for position, input_index in self._versioned_inputs:
                    if inputs[input_index] is not given[input_index]:
                        versions[position] = 0
        if versions is None:
            versions = array.array("Q", self._argument_versions)
            held = []
            for position, input_index in self._versioned_inputs:
                tensor, source = inputs[input_index], given[input_index]
                converted = self._converted.get(input_index)
                if (tensor is source or (converted and converted[2] is tensor)) \
                        and not source.is_inference():
                    # A kept conversion is as new as its source.
                    versions[position] = source._version + 1
                    held.append(source)
        versions.extend(1 if inference else p._version + 1
                        for p, inference in zip(self.parameters, self._inference_parameters))
        if _current_device() == index:
            self._loaded.run(arguments + self.parameters, outputs,
                             _current_raw_stream(index), versions)
        else:
            with torch.cuda.device(self.device):
                self._loaded.run(arguments + self.parameters, outputs,
                                 _current_raw_stream(index), versions)
        self._held = held
        return outputs

    def _check_outputs(self, out):
        outputs = list(out) if isinstance(out, (tuple, list)) else [out]
        if len(outputs) != len(self.output_shapes):
            raise SolderError(f"out= holds {len(outputs)} tensors; the module "
                              f"returns {len(self.output_shapes)}")
        for index, (tensor, shape, layout) in enumerate(zip(outputs, self.output_shapes,
                                                            self._output_formats)):
            if (not isinstance(tensor, torch.Tensor) or tuple(tensor.shape) != shape
                    or tensor.dtype != torch.float32
                    or not tensor.is_contiguous(memory_format=layout)
                    or (self.backend == "cuda" and tensor.device != self.device)):
                raise SolderError(
                    f"out[{index}] must be a "
                    f"{'contiguous' if layout == torch.contiguous_format else 'channels-last'} "
                    f"torch.float32 tensor of shape {shape} on {self.device}")
            if self.backend == "cuda" and tensor.data_ptr() % 16:
                raise SolderError(f"out[{index}] must start on 16 bytes (Solder's "
                                  "kernels store float4); it is a view at an odd offset")
        return outputs

    def _interpret(self, arguments):
        device = arguments[0].device if arguments else torch.device("cpu")
        with tempfile.TemporaryDirectory(prefix="solder-cpu-") as work:
            paths = []
            for index, tensor in enumerate(list(arguments) + self.parameters):
                path = os.path.join(work, f"arg{index}.npy")
                np.save(path, tensor.detach().cpu().numpy())
                paths.append(path)
            out_dir = os.path.join(work, "out")
            run_tool("solder-interp", [self.pipelined, "--precision=f32",
                                       "--inputs=" + ",".join(paths),
                                       f"--output-dir={out_dir}"],
                     "solder-interp (backend='cpu')")
            return [torch.from_numpy(np.load(os.path.join(out_dir, f"output{i}.npy"))
                                     .astype(np.float32)).to(device)
                    for i in range(len(self.result_shapes))]


def compile(module, example_inputs, precision="ieee", *, backend="cuda",
            force="auto", quiet=False):
    """Compiles ``module`` for the shapes of ``example_inputs``; returns a
    :class:`CompiledModule` that replaces it.

    backend='cuda' builds (or takes from the cache) a bundle for the GPU of
    the example inputs and runs it through libsolder_runtime; backend='cpu'
    runs the same pipelined IR on Solder's reference interpreter.
    ``force`` is the planner's materialize/recompute choice.
    """
    _check_options(precision, backend, force)
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    imported = import_module(module, example_inputs)
    on_gpu = [t.device for t in example_inputs if t.is_cuda]
    compiled = compile_imported(imported, precision, backend, force, quiet,
                                on_gpu[0] if on_gpu else torch.device("cuda"),
                                any(p.requires_grad for p in module.parameters()))
    compiled._source = _Source(module, tuple(t.detach() for t in example_inputs))
    compiled._precision, compiled._force, compiled._quiet = precision, force, quiet
    return compiled


# Held while a module is exported and traced for autograd (calls from
# several threads: export's tracing state is global).
_training_lock = threading.Lock()


@dataclass
class _Source:
    """What solder.compile compiled: the module (its live parameters) and
    the example inputs, which the call through autograd exports again;
    ``running_statistics``: its norms that keep running statistics (a call
    in training mode updates them)."""
    module: nn.Module
    example_inputs: tuple

    def __post_init__(self):
        self.running_statistics = [
            m for m in self.module.modules()
            if isinstance(m, nn.modules.batchnorm._NormBase) and m.track_running_stats]


class _TrainingProgram:
    """``source``'s module exported with torch.export (in its current
    train/eval modes), its graph compiled for autograd by
    solder.backend.compile_training (forward by Solder, backward by
    PyTorch), called on the module's parameters, buffers and constants as
    they are at each call (looked up by name: ``module.cuda()`` or a
    reassigned parameter is seen). Buffers the graph updates (a training
    BatchNorm's running statistics) are written back; the outputs keep the
    module's structure."""

    def __init__(self, source, precision, force, quiet=False):
        from .importer import export_program
        self.module = source.module
        program = export_program(self.module, source.example_inputs)
        signature = program.graph_signature
        # Per placeholder: an input index, a parameter's or buffer's name,
        # or a constant tensor.
        self.sources, inputs = [], 0
        for spec in signature.input_specs:
            if spec.kind.name == "USER_INPUT":
                self.sources.append(inputs)
                inputs += 1
            elif spec.kind.name in ("PARAMETER", "BUFFER"):
                self.sources.append(spec.target)
            else:
                self.sources.append(program.constants[spec.target])
        self.mutations, self.outputs = [], []  # (output position, buffer name)
        for position, spec in enumerate(signature.output_specs):
            if spec.kind.name == "BUFFER_MUTATION":
                self.mutations.append((position, spec.target))
            elif spec.kind.name == "USER_OUTPUT":
                self.outputs.append(position)
            else:
                raise SolderError(f"{type(self.module).__name__}'s exported program has an "
                                  f"output of kind {spec.kind.name.lower()}, which Solder "
                                  "does not train through")
        self.out_spec = program.call_spec.out_spec
        self.graph_module, self.precision, self.force = program.graph_module, precision, force
        self.quiet = quiet
        # AOTAutograd's function differentiates the arguments that required
        # grad when it traced: one per pattern of them and grad mode.
        self.functions = {}

    def _state(self):
        return {**dict(self.module.named_parameters(remove_duplicate=False)),
                **dict(self.module.named_buffers(remove_duplicate=False))}

    def __call__(self, inputs):
        state = self._state()
        arguments = [inputs[s] if isinstance(s, int) else state[s] if isinstance(s, str)
                     else s for s in self.sources]
        # Traced under no_grad, AOTAutograd's function computes no gradients:
        # grad mode is part of the key.
        key = (torch.is_grad_enabled(),) + tuple(a.requires_grad for a in arguments)
        with _training_lock:
            function = self.functions.get(key)
            if function is None:
                from .backend import compile_training
                # Not guarded: nothing holds the strides of the caller's
                # inputs from call to call, so the subgraphs check them.
                function = self.functions[key] = compile_training(
                    self.graph_module, arguments, self.precision, self.force,
                    guarded=False, warn=not self.quiet)
        results = function(*arguments)
        with torch.no_grad():
            for position, name in self.mutations:
                # The forward updated a fused BatchNorm's running statistics
                # in place (the result is the buffer: no copy). Where one
                # stayed eager, its backward may be handed them (unread in
                # training mode): their versions stay as autograd saved them.
                with torch.autograd._unsafe_preserve_version_counter(state[name]):
                    state[name].copy_(results[position])
        outputs = [results[position] for position in self.outputs]
        if self.out_spec is None:
            return outputs[0] if len(outputs) == 1 else tuple(outputs)
        return torch.utils._pytree.tree_unflatten(outputs, self.out_spec)


def compile_imported(imported, precision, backend, force, quiet, device,
                     parameters_require_grad=False):
    """A :class:`CompiledModule` of imported IR: its bundle for ``device``
    (backend 'cuda'), or its pipelined IR on the interpreter ('cpu')."""
    common = dict(backend=backend, input_names=imported.input_names,
                  input_shapes=imported.input_shapes,
                  input_arguments=imported.input_arguments,
                  output_shapes=imported.output_shapes,
                  result_shapes=imported.result_shapes,
                  output_is_sequence=imported.output_is_sequence,
                  parameters=imported.parameters, mlir=imported.mlir,
                  parameter_inputs=imported.parameter_inputs,
                  parameters_require_grad=parameters_require_grad,
                  output_views=imported.output_views)
    artifact = build_artifact(imported.mlir, precision, backend, force, quiet, device)
    if backend == "cpu":
        return CompiledModule(pipelined=artifact, **common)
    return CompiledModule(bundle=artifact, device=device, **common)


def build_artifact(mlir, precision, backend, force, quiet, device):
    """What ``mlir`` compiles to, from the cache or built into it: its
    bundle for ``device`` (backend 'cuda'), or its pipelined IR ('cpu').
    Safe to call from several threads (the cache's entries appear whole)."""
    if backend == "cpu":
        return _pipelined_ir(mlir, force)
    arch, gpu_name = _gpu_arch(device)
    return _compile_bundle(mlir, arch, force, precision, gpu_name, quiet=quiet)


def export(module, example_inputs, path, *, arch=None, force="auto",
           precision="ieee", quiet=False):
    """Compiles ``module`` into a self-contained bundle folder at ``path``
    (kernels, its parameters as .npy, and what solder.load needs to call it
    like the module). Needs nvcc, not a GPU. ``arch``: the GPU found, else
    sm_90a, unless given: one target, or several
    comma-separated ("sm_80,sm_90a"), each planned for its own; solder.load
    then runs the one built for the GPU (else the newest portable one below
    it, from its PTX)."""
    _check_options(precision, "cuda", force)
    imported = import_module(module, example_inputs)
    path = _compile_bundle(imported.mlir, arch, force, precision, output=path,
                           quiet=quiet)
    imported.save_parameters(path / "params", path / FRONTEND_FILE)
    return path


def load(path, device=None):
    """Loads a bundle folder for backend 'cuda'. A bundle written by
    solder.export is called like its module (parameters bound); any other
    bundle takes every manifest input, in order."""
    path = Path(path)
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise SolderError(f"{path} is not a Solder bundle (no manifest.json)")
    manifest = json.loads(manifest_path.read_text())
    if manifest.get("format") == "solder-multi-arch" and manifest.get("targets"):
        # A bundle of several archs: each target takes the same inputs and
        # outputs (the runtime loads the one for the GPU).
        target = path / str(manifest["targets"][0].get("bundle")) / "manifest.json"
        if not target.is_file():
            raise SolderError(f"{path} names target {target.parent.name}, which has no "
                              "manifest.json")
        manifest = json.loads(target.read_text())
    frontend_path = path / FRONTEND_FILE
    if frontend_path.is_file():
        frontend = json.loads(frontend_path.read_text())
        parameters = []
        for name in frontend["parameters"]:
            file = path / "params" / f"{name}.npy"
            if not file.is_file():
                raise SolderError(f"bundle {path} lacks parameter file {file}")
            parameters.append(torch.from_numpy(np.load(file)))
        names, shapes = frontend["inputs"], frontend["input_shapes"]
        outputs, sequence = frontend["output_shapes"], frontend["output_is_sequence"]
        arguments = frontend.get("input_arguments")
        results = frontend.get("result_shapes")
        items = frontend.get("output_views")
    else:
        arguments = results = items = None
        parameters = []
        names = [spec["name"] for spec in manifest["inputs"]]
        shapes = [spec["shape"] for spec in manifest["inputs"]]
        outputs = [spec["shape"] for spec in manifest["outputs"]]
        sequence = len(outputs) > 1
    if device is None:
        _gpu_arch("cuda")
    return CompiledModule(backend="cuda", bundle=path, device=device,
                          input_names=names, input_shapes=shapes,
                          output_shapes=outputs, output_is_sequence=sequence,
                          parameters=parameters, input_arguments=arguments,
                          result_shapes=results, output_views=items)
