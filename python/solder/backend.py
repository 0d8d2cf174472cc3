"""``torch.compile(model, backend="solder")``: Solder as a dynamo backend.

Dynamo hands the backend an FX graph of torch calls and example inputs. The
backend exports that graph with ``torch.export`` (the user's stack traces kept,
so locations and messages name the user's lines), lets torch.fx's
``CapabilityBasedPartitioner`` cut out the largest subgraphs the importer
knows, compiles each into a bundle (CUDA tensors) or into pipelined IR for the
reference interpreter (CPU tensors), and leaves every other node to eager
PyTorch: an unsupported op costs speed, never the model. A subgraph the
importer refuses on a closer look (a view it cannot fuse) gives that node
back to eager and is partitioned again.

Shapes are static: the compiled graph is kept per input shapes, and a new
shape compiles again (dynamo's guards see shape changes; a graph dynamo made
dynamic is specialized here on each call's shapes). A graph whose inputs
require gradients with grad mode on trains (compile_training): its forward
compiled by Solder, its backward run by PyTorch. An op the importer or the
code generator refuses goes to eager alone: the graph is partitioned again
around it. The first compile of a graph warns (SolderWarning) when anything
ran eagerly: how many ops Solder compiled into how many kernels, and each op
left to eager with its reason and line. ``SOLDER_LOG=info`` logs one line per subgraph: what was fused
into how many kernels, and what fell back to eager and why.

Options (``torch.compile(..., options={...})``): ``precision`` ("ieee" or
"tf32"), ``force`` (the planner's "auto", "materialize", "recompute"),
``backward`` (who runs a training graph's backward: "solder", "eager" or
"inductor") and ``cudagraphs`` (True: each compiled graph, a training
graph's forward and backward alike, is recorded into a CUDA graph and
replayed, as torch.compile(mode="reduce-overhead") does; ``_CudaGraphs``).
"""

import copy
import functools
import logging
import math
import operator
import os
import re
import sys
import time
import warnings
from collections import Counter, defaultdict
from types import SimpleNamespace
from typing import NamedTuple

import torch
import torch.nn as nn

from .errors import SolderError, SolderWarning, UnsupportedOperation
from .importer import ImportedModule, export_program, import_graph, is_supported_node, \
    source_location, static_refusal

logger = logging.getLogger("solder")


def _configure_logging():
    level = os.environ.get("SOLDER_LOG", "").strip().upper()
    if level and not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("solder: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(getattr(logging, level, logging.INFO))
        logger.propagate = False


_configure_logging()


def solder_backend(graph_module, example_inputs, **options):
    """The dynamo backend: returns a callable that runs ``graph_module``
    with its supported subgraphs compiled by Solder."""
    options = {**options.pop("options", {}), **options}
    precision = options.pop("precision", "ieee")
    force = options.pop("force", "auto")
    prepare_once = options.pop("prepare_once", True)
    backward = options.pop("backward", "solder")
    cudagraphs = options.pop("cudagraphs", False)
    if options:
        raise SolderError(f"unknown solder backend options {sorted(options)} "
                          "(precision, force, prepare_once, backward, cudagraphs)")
    from .api import _check_options
    _check_options(precision, "cuda", force)
    if backward not in BACKWARDS:
        raise SolderError(f"unknown backward '{backward}' (one of {', '.join(BACKWARDS)})")
    if not isinstance(cudagraphs, bool):
        raise SolderError(f"cudagraphs is True or False, not {cudagraphs!r}")
    if _needs_gradients(example_inputs):
        return compile_training(graph_module, example_inputs, precision, force,
                                prepare_once, backward=backward, cudagraphs=cudagraphs)
    return _CompiledOnCall(graph_module, precision, force, _is_dynamic(example_inputs),
                           prepare_once, cudagraphs)


def _needs_gradients(inputs):
    return torch.is_grad_enabled() and any(
        isinstance(t, torch.Tensor) and t.requires_grad for t in inputs)


def _is_dynamic(inputs):
    return not all(isinstance(t, torch.Tensor) and all(isinstance(d, int) for d in t.shape)
                   for t in inputs)


# The graphs whose dynamic shapes sent their training forward to eager,
# warned about once.
_warned_dynamic_training = set()


# Who runs a training graph's backward: Solder its convs' input gradients
# and eager PyTorch the rest, eager PyTorch alone, or Inductor.
BACKWARDS = ("solder", "eager", "inductor")
# Where the convs' input gradients go to Solder: ieee, its 3xTF32 loop
# against cuDNN's float32 dgrad on FMA (measured faster on an H200). In tf32
# cuDNN's dgrad runs on TF32 tensor cores; Solder's is not measured there.
_SOLDER_GRADIENT_PRECISIONS = {"ieee"}


def compile_training(graph_module, example_inputs, precision="ieee", force="auto",
                     prepare_once=True, guarded=True, warn=True, backward="solder",
                     cudagraphs=False):
    """A graph that needs gradients: AOTAutograd traces its joint forward and
    backward and cuts them apart as Inductor does (min-cut
    rematerialization: what is cheap to recompute is recomputed in the
    backward rather than saved). The forward graph, whose extra outputs are
    what the backward saves (activations, a norm's mean and rstd), is
    partitioned and compiled like an inference graph. The backward runs in
    eager PyTorch, each training BatchNorm's backward as eager autograd
    runs it, with the convs' input gradients compiled by Solder in ieee
    (``backward="solder"``, ``_input_gradients_by_solder``) or not
    (``"eager"``), or is compiled by Inductor (``"inductor"``: its
    decompositions fuse the norms' backward with their neighbours into
    Triton kernels; convs stay cuDNN's). AOTAutograd's runtime wraps both in
    one torch.autograd.Function and applies the inputs' mutations (a no-op
    for the running statistics the forward updated in place). ``guarded``:
    something (dynamo's guards) holds the strides of the graph's inputs from
    call to call, so the subgraphs may skip their checks; ``warn``: a
    SolderWarning when anything ran eagerly; ``cudagraphs``: the forward
    and the backward replayed from CUDA graphs (_CudaGraphs)."""
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_module_simplified
    from torch._functorch.partitioners import min_cut_rematerialization_partition

    name = _graph_name(graph_module)
    # The forward graph's inputs are the graph module's own parameters and
    # buffers (lifted by AOTAutograd), then dynamo's inputs, of which the
    # module's parameters and buffers are marked static: where AOTAutograd
    # does not say which are static (its forward's metadata, which
    # Inductor reads too, follows any inputs it merged or added).
    lifted = len(dict(graph_module.named_parameters(remove_duplicate=False))) + \
        len(dict(graph_module.named_buffers(remove_duplicate=False)))
    static_by_position = set(range(lifted)) | {
        lifted + index for index, value in enumerate(example_inputs) if _is_static_input(value)}
    dynamic = _is_dynamic(example_inputs)
    graphs = _CudaGraphs(graph_module, name, warn) if cudagraphs else None

    def forward_compiler(forward, inputs, is_inference=False):
        if dynamic:
            reason = ("its shapes are dynamic, and Solder compiles the forward of a "
                      "graph that needs gradients for static shapes: "
                      "torch.compile(..., dynamic=False) compiles each shape")
            logger.info("%s: runs eagerly: %s", name, reason)
            if warn and name not in _warned_dynamic_training:  # once a graph, not a shape
                _warned_dynamic_training.add(name)
                _warn(graph_module, f"solder: {name} runs eagerly: {reason}")
            return make_boxed_func(forward.forward)
        _running_statistics_by_pytorch(forward)
        context = torch._guards.TracingContext.try_get()
        indices = getattr(getattr(context, "fw_metadata", None), "static_input_indices", None)
        static = static_by_position if indices is None else set(indices)
        placeholders = [n for n in forward.graph.nodes if n.op == "placeholder"]
        parameters = {node.name for index, node in enumerate(placeholders)
                      if index in static} if prepare_once else set()
        partitioned = _partition_and_compile(forward, f"{name} (forward)", graph_module,
                                             precision, force, warn, guarded, parameters)
        run = make_boxed_func(partitioned.forward)
        return graphs.forward(run, forward, inputs, static, partitioned, is_inference) \
            if graphs else run

    def backward_compiler(graph, inputs):
        partitioned = None  # Solder's subgraphs of the backward, if any
        if backward == "inductor":
            # compile_fx traces the backward graph again (AOTAutograd, as an
            # inference graph), which is where Inductor's decompositions apply:
            # to the backward alone.
            from torch._inductor.compile_fx import compile_fx
            run = make_boxed_func(compile_fx(graph, inputs))
        else:
            _batch_norm_backward_as_eager(graph)
            # A dynamic graph's backward stays eager, as its forward does (its
            # sizes are symbols: Solder compiles static shapes).
            run = make_boxed_func(graph.forward)
            if backward == "solder" and precision in _SOLDER_GRADIENT_PRECISIONS and \
                    not dynamic and _input_gradients_by_solder(graph):
                partitioned = _partition_and_compile(graph, f"{name} (backward)",
                                                     graph_module, precision, force, warn,
                                                     False, set())
                run = make_boxed_func(partitioned.forward)
        return graphs.backward(run, graph, inputs, partitioned) if graphs else run

    # (A graph none of whose outputs requires grad has no backward:
    # AOTAutograd compiles its forward as an inference graph.)
    return aot_module_simplified(graph_module, example_inputs, fw_compiler=forward_compiler,
                                 bw_compiler=backward_compiler,
                                 inference_compiler=functools.partial(forward_compiler,
                                                                      is_inference=True),
                                 partition_fn=min_cut_rematerialization_partition)


class _CudaGraphs:
    """The backend's ``cudagraphs`` option on one graph: its compiled
    forward and backward (or its inference) replayed from CUDA graphs by
    PyTorch's CUDA graph trees (torch._inductor.cudagraph_trees: what
    torch.compile(mode="reduce-overhead") replays with; the calls follow
    dynamo's "cudagraphs" backend). Each is run once to warm up, recorded
    at its second call and replayed from then on, the forward and the
    backward into one memory pool: the activations the forward saves are
    the backward's inputs where they lie. The parameters and buffers, and
    the backward's saved activations, are read where they lie; other inputs
    are copied into the graph's own. The outputs of a replay are
    overwritten by the next (a tensor kept across steps is cloned; PyTorch
    raises on reading an overwritten one). The bundles' weight preparations
    are captured with their convs (the runtime skips none in a capture), so
    each replay prepares the weights as they are then. A graph that cannot
    be captured (a CPU tensor, an input written in place that is not a
    parameter or buffer, an op PyTorch marks unsafe to capture) runs as
    compiled, with a SolderWarning; its backward then too."""

    def __init__(self, graph_module, name, warn):
        self.graph_module, self.name, self.warn = graph_module, name, warn
        self.device_index = None  # the forward's, once it is graphed

    def forward(self, run, graph, inputs, static, partitioned, is_inference=False):
        """``run`` (boxed: takes its inputs as one list) of the ATen graph
        ``graph`` on example ``inputs``, replayed from a CUDA graph;
        ``static``: the indices of the inputs that stay where they lie;
        ``partitioned``: the module ``run`` calls, whose subgraphs then
        keep no conversion of an input from call to call; ``is_inference``:
        no backward follows (the graph trees then wait for none)."""
        api = _cudagraph_api()
        written = _written_inputs(graph)
        reason = _cudagraph_refusal(api, graph, _names(graph, written - set(static)))
        if reason:
            self._refused(" (forward)", reason)
            return run
        self.device_index = api.get_device_index(graph)
        _convert_each_call(partitioned)
        return _cudagraphified(api, run, graph, inputs, static, written, self.device_index,
                               is_backward=False, is_inference=is_inference)

    def backward(self, run, graph, inputs, partitioned=None):
        """The backward's ``run``, graphed where its forward is."""
        if self.device_index is None:
            return run
        api = _cudagraph_api()
        saved = range(api.count_tangents(graph))  # the forward's outputs, where they lie
        written = _written_inputs(graph)
        reason = _cudagraph_refusal(api, graph, _names(graph, written - set(saved)))
        if reason:
            self._refused(" (backward)", reason)
            # Graph trees must know the backward ran (its forward's pool
            # is then free for the next step), as dynamo's backend tells
            # them; their manager exists once the forward has run.
            def told(arguments):
                api.get_manager(self.device_index).set_to_running_backward()
                return run(arguments)
            told._boxed_call = True
            return told
        _convert_each_call(partitioned)
        return _cudagraphified(api, run, graph, inputs, saved, written, self.device_index,
                               is_backward=True, is_inference=False)

    def inference(self, run, exported, inputs, static, written, partitioned):
        """An inference graph's ``run`` (called with dynamo's arguments,
        ``inputs`` an example of them), checked on its exported ATen graph
        ``exported``; ``static`` and ``written``: the indices of the
        arguments that stay where they lie and that it writes in place."""
        from functorch.compile import make_boxed_func
        api = _cudagraph_api()
        reason = _cudagraph_refusal(api, exported,
                                    _names(self.graph_module, set(written) - set(static)))
        if reason:
            self._refused("", reason)
            return run
        _convert_each_call(partitioned)
        graphed = _cudagraphified(api, make_boxed_func(run), self.graph_module, inputs,
                                  static, written, api.get_device_index(exported),
                                  is_backward=False, is_inference=True)
        return lambda *args: graphed(list(args))

    def _refused(self, part, reason):
        message = f"solder: {self.name}{part} runs without a CUDA graph: {reason}"
        logger.info("%s", message)
        if self.warn:
            _warn(self.graph_module, message)


def _convert_each_call(partitioned):
    """The subgraphs of ``partitioned`` (None: none) keep no conversion of
    an input (a channels-last weight) from call to call: the graph trees'
    warm-up call allocates in the graph's memory pool, where nothing the
    graph does not return may stay, and the replays convert anyway."""
    for module in partitioned.modules() if partitioned is not None else ():
        if isinstance(module, _CompiledSubgraph) and module.compiled.backend == "cuda":
            module.compiled.keeps_conversions = False


def _cudagraph_api():
    """PyTorch's CUDA graph trees and the checks dynamo's "cudagraphs" backend
    makes (private API, the same in torch 2.11 to 2.15)."""
    try:
        from torch._dynamo.backends.cudagraphs import get_device_index, \
            get_device_node_mapping, get_stack_traces
        from torch._inductor.cudagraph_trees import cudagraphify_impl, get_manager
        from torch._inductor.cudagraph_utils import check_multiple_devices_or_any_cpu_nodes, \
            get_placeholder_info
        from torch._inductor.utils import count_tangents, get_first_incompatible_cudagraph_node
    except ImportError as error:
        raise SolderError(f"cudagraphs=True needs PyTorch's CUDA graph trees, which torch "
                          f"{torch.__version__} lacks ({error})") from None
    return SimpleNamespace(**locals())


def _cudagraph_refusal(api, graph, written_copied):
    """Why the ATen graph ``graph`` cannot be replayed from a CUDA graph, or
    None. ``written_copied``: the names of the inputs it writes in place
    that a replay copies into its own (the caller's would not see the
    write)."""
    if written_copied:
        return f"it writes {', '.join(written_copied)} in place, not a parameter or buffer"
    mapping = api.get_device_node_mapping(graph)
    # (PyTorch's check lets CPU nodes through where Inductor's graph
    # partitioning is on, which Solder's graphs do not go through.)
    cpu = mapping.get(torch.device("cpu"))
    if cpu is not None:
        return f"cpu device ({cpu.name})"
    devices = api.check_multiple_devices_or_any_cpu_nodes(mapping)
    if devices:
        return devices.removeprefix("skipping cudagraphs due to ")
    node = api.get_first_incompatible_cudagraph_node(graph)
    if node is not None:
        return f"{node.name} ({_op_name(node)}) cannot be captured"
    return None


def _cudagraphified(api, run, graph, inputs, static, written, device_index, is_backward,
                    is_inference):
    """The graph trees' callable of ``run``, as dynamo's "cudagraphs" backend
    makes it (``graph`` names its placeholders and stack traces in PyTorch's
    messages)."""
    def taking(arguments):
        # Graph trees hand their list over (the boxed calling convention)
        # and expect it emptied: the callee frees what it no longer needs.
        taken = list(arguments)
        arguments.clear()
        return run(taken)

    graphed = api.cudagraphify_impl(
        taking, list(inputs), sorted(static), device_index=device_index,
        is_backward=is_backward, is_inference=is_inference,
        stack_traces=api.get_stack_traces(graph),
        placeholders=api.get_placeholder_info(graph.graph),
        mutated_input_idxs=tuple(sorted(written)))
    graphed._boxed_call = True
    return graphed


def _names(graph_module, indices):
    placeholders = graph_module.graph.find_nodes(op="placeholder")
    return [placeholders[index].name for index in sorted(indices)]


def _written_inputs(graph_module):
    """The indices of the placeholders of ``graph_module`` that an op writes
    in place (its schema marks the argument written; a list argument, as
    the foreach ops take, item by item), directly or through a view.
    (torch's find_input_mutations takes no list argument.)"""
    from torch.multiprocessing.reductions import StorageWeakRef

    def storage(node):
        value = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
        return StorageWeakRef(value._typed_storage()) \
            if isinstance(value, torch.Tensor) else None

    placeholders = {node: index for index, node in
                    enumerate(graph_module.graph.find_nodes(op="placeholder"))}
    by_storage = defaultdict(set)
    for node, index in placeholders.items():
        by_storage[storage(node)].add(index)
    by_storage.pop(None, None)
    written = set()
    for node in graph_module.graph.nodes:
        schema = getattr(node.target, "_schema", None)
        if node.op != "call_function" or schema is None:
            continue
        for position, argument in enumerate(schema.arguments):
            if not (argument.alias_info and argument.alias_info.is_write):
                continue
            value = node.args[position] if position < len(node.args) else \
                node.kwargs.get(argument.name)
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if not isinstance(item, torch.fx.Node):
                    continue
                if item in placeholders:
                    written.add(placeholders[item])
                else:
                    written |= by_storage.get(storage(item), set())
    return written


class _BufferUpdate(NamedTuple):
    """One buffer the forward updates in place: ``new_value`` is the node
    the graph returned for it; ``stand_in`` is what the backward saves in
    its place (and for a running statistic, the batch statistic it moves
    toward: the mean, or the rstd the variance comes from)."""
    buffer: torch.fx.Node
    new_value: torch.fx.Node
    stand_in: torch.fx.Node
    momentum: float = None
    eps: float = None
    unbiased: float = None  # n / (n - 1)


def _running_statistics_by_pytorch(graph_module):
    """A training BatchNorm's running statistics, rewritten in ``graph_module``
    as PyTorch ops of the batch statistics it saves for the backward:
    running_mean.lerp_(mean, momentum), running_var.lerp_(unbiased var,
    momentum) with var = rstd^-2 - eps, and num_batches_tracked.add_(1)
    (where the graph returns it among the inputs' new values: the last
    BatchNorm's, returned after every new statistic, stays an eager add).
    Solder computes the BatchNorm and its mean and rstd in the fused
    kernels. These updates of C elements a BatchNorm run in place on the
    buffers, all BatchNorms' in one foreach launch an op (a ResNet-50 has 53
    BatchNorms: 6 launches where one op a BatchNorm and statistic took 318),
    at the end of the graph; the graph returns the buffers themselves as
    their new values, so the caller's copy back is a no-op. Marked
    ``solder_eager``: bookkeeping, not reported."""
    aten = torch.ops.aten
    graph = graph_module.graph
    graph.eliminate_dead_code()  # (a getitem no one reads)
    output = next(node for node in graph.nodes if node.op == "output")
    means, variances, counters = [], [], []  # _BufferUpdate each
    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target is aten.add.Tensor and len(node.args) == 2 and not node.kwargs and \
                node.args[1] == 1 and node.args[0].op == "placeholder" and \
                set(node.users) == {output} and \
                getattr(node.args[0].meta.get("val"), "dtype", None) == torch.long:
            # num_batches_tracked + 1: the buffer itself stands in, if saved
            counters.append(_BufferUpdate(node.args[0], node, stand_in=node.args[0]))
            continue
        if node.target is not aten._native_batch_norm_legit_functional.default:
            continue
        x, _, _, running_mean, running_var, training, momentum, eps = node.args[:8]
        items = {user.args[1]: user for user in node.users if user.target is operator.getitem}
        if not training or not (items.keys() & {3, 4}) or \
                running_mean.op != "placeholder" or running_var.op != "placeholder" or \
                any(set(items[index].users) != {output} for index in (3, 4) if index in items):
            # Its running statistics not the graph's inputs (made in the
            # graph), or their new values read in it (a BatchNorm applied
            # twice): eager.
            continue
        with graph.inserting_after(node):
            for index in (2, 1):
                if index not in items:
                    items[index] = graph.call_function(operator.getitem, (node, index))
                    items[index].meta["val"] = node.meta["val"][index]
        shape = x.meta["val"].shape
        count = math.prod(shape) // shape[1]
        if 3 in items:
            means.append(_BufferUpdate(running_mean, items[3], items[1], momentum))
        if 4 in items:
            variances.append(_BufferUpdate(running_var, items[4], items[2], momentum, eps,
                                           count / max(count - 1, 1)))

    # The graph returns the inputs' new values first, in the order of the
    # inputs (AOTAutograd's forward and an exported program alike), then
    # the outputs and what the backward saves. A BatchNorm's new running
    # statistics of its input buffers are such values; an int64 scalar input
    # plus one is taken for num_batches_tracked's only where it is returned
    # among them (before a BatchNorm's new statistics) and in its input's
    # place in their order.
    outputs = list(output.args[0])
    positions = defaultdict(list)  # value -> its positions in outputs
    for position, value in enumerate(outputs):
        positions[value].append(position)
    placeholders = {node: index for index, node in enumerate(graph.find_nodes(op="placeholder"))}
    known = sorted((positions[u.new_value][0], placeholders[u.buffer])
                   for u in means + variances)
    mutations_end = known[-1][0] if known else -1

    def in_input_order(update):
        position = positions[update.new_value][0]
        return position < mutations_end and all(
            (position < known_position) == (placeholders[update.buffer] < known_input)
            for known_position, known_input in known)

    counters = [update for update in counters if in_input_order(update)]

    def op(target, *args):
        created = graph.call_function(target, args)
        created.meta["solder_eager"] = True
        return created

    def by_momentum(updates):
        for momentum in dict.fromkeys(u.momentum for u in updates):
            yield momentum, [u for u in updates if u.momentum == momentum]

    with graph.inserting_before(output):
        for momentum, group in by_momentum(means):
            op(aten._foreach_lerp_.Scalar, [u.buffer for u in group],
               [u.stand_in for u in group], momentum)
        for momentum, group in by_momentum(variances):
            # The unbiased variance from the batch's rstd.
            variance = op(aten._foreach_pow.Scalar, [u.stand_in for u in group], -2)
            op(aten._foreach_sub_.ScalarList, variance, [u.eps for u in group])
            op(aten._foreach_mul_.ScalarList, variance, [u.unbiased for u in group])
            op(aten._foreach_lerp_.Scalar, [u.buffer for u in group], variance, momentum)
        if counters:
            op(aten._foreach_add_.Scalar, [u.buffer for u in counters], 1)
    # A training BatchNorm's backward is handed its running statistics but
    # does not read them; saved as the buffers themselves, the caller's copy
    # back (an in-place op, if a no-op) would fail autograd's version check,
    # so the batch statistics stand in.
    for update in means + variances + counters:
        mutation, *saved = positions[update.new_value]
        outputs[mutation] = update.buffer
        for position in saved:
            outputs[position] = update.stand_in
    output.args = (tuple(outputs),)
    graph.eliminate_dead_code()
    graph.lint()
    graph_module.recompile()


def _batch_norm_backward_as_eager(graph_module):
    """The backward of each training BatchNorm in ``graph_module`` as eager
    autograd runs it: aten.batch_norm_backward, which picks cuDNN's kernels
    where eager's forward would have run cuDNN (a CUDA float32 input), and
    PyTorch's own otherwise. AOTAutograd's graph names
    native_batch_norm_backward, PyTorch's generic kernels, which take a
    channels-last input through copies to NCHW and then run 2x slower than
    cuDNN's NHWC kernels. cuDNN's BatchNorm (no fused activation) keeps no
    reserve space, so an empty one stands in for the forward's."""
    aten = torch.ops.aten
    graph = graph_module.graph
    for node in list(graph.nodes):
        if node.op != "call_function" or \
                node.target is not aten.native_batch_norm_backward.default:
            continue
        grad_output, x, weight, running_mean, running_var, save_mean, save_invstd, \
            training, eps, mask = node.args
        if not training or weight is None:
            continue
        with graph.inserting_before(node):
            reserve = graph.call_function(aten.empty.memory_format, ([0],), {
                "dtype": torch.uint8, "device": x.meta["val"].device})
            reserve.meta["val"] = x.meta["val"].new_empty((0,), dtype=torch.uint8)
            backward = graph.call_function(aten.batch_norm_backward.default, (
                grad_output, x, weight, running_mean, running_var, save_mean, save_invstd,
                True, eps, mask, reserve))
        backward.meta.update(node.meta)
        node.replace_all_uses_with(backward)
        graph.erase_node(node)
    graph.lint()
    graph_module.recompile()


# A conv's input gradient goes to Solder from this many channels of the
# conv's input (the transposed conv's output channels, a tensor-core tile's
# columns): a stem's 3 would fill a fraction of a tile, and stays cuDNN's.
_MIN_GRADIENT_CHANNELS = 16


def _every_phase_reached(size, stride, padding, dilation):
    """Whether each output phase of the transposed conv (the input pixels
    of one residue modulo the stride) takes at least one kernel tap: a
    strided 1x1 conv's gradient does not (only the pixels it read get
    one)."""
    return all(len({(tap * dilation[i] - padding[i]) % stride[i] for tap in range(size[i])})
               == stride[i] for i in range(len(size)))


def _on_tensor_cores(weight, size, stride, padding, dilation):
    """Whether Solder's planner runs the transposed conv that is the input
    gradient of a conv of ``weight`` (K, C, ...) on tensor cores in ieee,
    not its FMA loop (``getTensorOpObstacle`` in
    lib/Analysis/ConvSchedule.cpp; a test holds the two together): K of at
    least 16 (its reduction), every output phase reached, at most 16
    phases, a kernel of at most 32 taps a dimension, and a padding within
    the kernel's extent."""
    return weight.shape[0] >= 16 and math.prod(stride) <= 16 and max(size) <= 32 and \
        all(padding[i] <= dilation[i] * (size[i] - 1) for i in range(len(size))) and \
        _every_phase_reached(size, stride, padding, dilation)


def _input_gradients_by_solder(graph_module):
    """Each conv's input gradient in ``graph_module`` (a backward graph) as
    the transposed conv it is, for Solder to compile on its 3xTF32 main
    loop (in ieee, where cuDNN's float32 dgrad runs on FMA); dense 2-D
    float32 convs only, the ones tested, where Solder plans it on tensor
    cores (``_on_tensor_cores``). The weight gradient stays cuDNN's
    (``convolution_backward`` with the input's gradient masked off): its
    reduction runs over batch and pixels, a shape Solder's conv loops do
    not tile. The residual adds that take a gradient computed here may fuse
    into its epilogue; everything else stays eager (``solder_eager``).
    Returns whether anything changed."""
    aten = torch.ops.aten
    graph = graph_module.graph
    gradients = set()
    for node in list(graph.nodes):
        if node.op != "call_function" or \
                node.target is not aten.convolution_backward.default or node.kwargs:
            continue
        grad_output, x, weight, _, stride, padding, dilation, transposed, _, groups, \
            mask = node.args
        uses = [user for user in node.users
                if user.target is operator.getitem and user.args[1] == 0]
        value, weight_value = x.meta["val"], weight.meta["val"]
        if transposed or groups != 1 or value.dim() != 4 or not mask[0] or \
                value.dtype != torch.float32 or not any(use.users for use in uses):
            continue
        size = weight_value.shape[2:]
        # ATen may give one value for every spatial dimension.
        stride, padding, dilation = ([v[0]] * 2 if len(v) == 1 else list(v)
                                     for v in (stride, padding, dilation))
        if value.shape[1] < _MIN_GRADIENT_CHANNELS or \
                not _on_tensor_cores(weight_value, size, stride, padding, dilation):
            continue
        # The transposed conv's output is the input's size: the rows a strided
        # forward conv dropped come back as output padding.
        output_padding = [value.shape[2 + i] - ((grad_output.meta["val"].shape[2 + i] - 1) *
                                                stride[i] - 2 * padding[i] +
                                                dilation[i] * (size[i] - 1) + 1)
                          for i in range(2)]
        with graph.inserting_before(node):
            gradient = graph.call_function(aten.convolution.default, (
                grad_output, weight, None, stride, padding, dilation, True, output_padding, 1))
        gradient.meta.update(node.meta)
        gradient.meta["val"] = uses[0].meta["val"]
        for use in uses:
            use.replace_all_uses_with(gradient)
            graph.erase_node(use)
        if len(node.users) == 0:
            graph.erase_node(node)
        else:
            node.args = node.args[:-1] + ([False, *mask[1:]],)
            node.meta["val"] = (None, *node.meta["val"][1:])
        gradients.add(gradient)
    for node in graph.nodes:
        if node.op == "call_function" and node not in gradients and not (
                node.target is aten.add.Tensor and any(a in gradients for a in node.args)):
            node.meta["solder_eager"] = True
    graph.lint()
    graph_module.recompile()
    return bool(gradients)


class _CompiledOnCall:
    """The graph compiled on its first call with given shapes: outside
    dynamo's tracing, whose guards on the caller's frame must not reach
    torch.export. A static graph (dynamo's guards hold its shapes) is
    compiled once and then called directly; a graph dynamo made dynamic is
    compiled once per set of input shapes."""

    def __init__(self, graph_module, precision, force, dynamic, prepare_once=True,
                 cudagraphs=False):
        self.graph_module = graph_module
        self.precision = precision
        self.force = force
        self.dynamic = dynamic
        self.prepare_once = prepare_once
        self.cudagraphs = cudagraphs
        self.compiled = {}

    def __call__(self, *args):
        key = _key(args) if self.dynamic else None
        runner = self.compiled.get(key)
        if runner is None:
            first = not self.compiled
            if self.cudagraphs and self.dynamic and first:
                _CudaGraphs(self.graph_module, _graph_name(self.graph_module), True)._refused(
                    "", "its shapes are dynamic: torch.compile(..., dynamic=False) "
                    "compiles each shape")
            runner = self.compiled[key] = compile_graph(
                self.graph_module, args, self.precision, self.force,
                warn=first, guarded=not self.dynamic, prepare_once=self.prepare_once,
                cudagraphs=self.cudagraphs and not self.dynamic)
        return runner(*args)


def _key(args):
    return tuple((tuple(a.shape), a.dtype, a.device) if isinstance(a, torch.Tensor)
                 else (type(a).__name__, a) for a in args)


class SubgraphReport:
    """What the backend did with one graph: the subgraphs Solder compiled and
    the nodes left to eager, with reasons."""

    def __init__(self):
        self.subgraphs = []  # (name, [op names], kernel count, target)
        self.fallbacks = []  # (what ran eagerly, its user line or None, reason)

    @property
    def eager_ops(self):
        """{op name: reason} of the ATen ops left to eager."""
        return {what[len("aten."):]: reason for what, _, reason in self.fallbacks
                if what.startswith("aten.")}

    @property
    def compiled_ops(self):
        return [op for _, ops, _, _ in self.subgraphs for op in ops]

    @property
    def kernels(self):
        return sum(kernels for _, _, kernels, _ in self.subgraphs)

    def _eager_list(self):
        return "; ".join(f"{what}{f' at {where}' if where else ''} ({reason})"
                         for what, where, reason in self.fallbacks)

    def lines(self, graph_name):
        lines = [f"{graph_name}: subgraph {name}: fused {len(ops)} ops "
                 f"({_summarize(ops)}) into {kernels} kernel{'s' if kernels != 1 else ''} "
                 f"({target})" for name, ops, kernels, target in self.subgraphs]
        if self.fallbacks:
            lines.append(f"{graph_name}: {len(self.fallbacks)} ops run eagerly: " +
                         self._eager_list())
        elif not self.subgraphs:
            lines.append(f"{graph_name}: nothing for Solder to compile")
        return lines

    def warning(self, graph_name):
        """One line for the user when anything ran eagerly, else None."""
        if not self.fallbacks:
            return None
        kernels = self.kernels
        return (f"solder: {graph_name}: {len(self.compiled_ops)} ops compiled into "
                f"{kernels} kernel{'s' if kernels != 1 else ''}; {len(self.fallbacks)} "
                f"ran eagerly: " + self._eager_list())


def _summarize(ops):
    counts = Counter(ops)
    return ", ".join(f"{op} x{n}" if n > 1 else op for op, n in counts.items())


def _op_name(node):
    target = node.target
    packet = getattr(target, "overloadpacket", None)
    return packet.__name__ if packet is not None else getattr(target, "__name__", str(target))


def compile_graph(graph_module, args, precision="ieee", force="auto", warn=True,
                  guarded=False, prepare_once=True, cudagraphs=False):
    """Exports ``graph_module`` on ``args`` (concrete), compiles its supported
    subgraphs and returns the partitioned module (eager for the rest). With
    ``warn``, anything left to eager is one SolderWarning. ``guarded``: dynamo's
    guards hold the shapes, dtypes, devices and strides of the graph's inputs
    (a static graph), so its subgraphs may skip their per-input checks.
    ``prepare_once``: the module's parameters and buffers (dynamo's static
    inputs) are the bundles' solder.parameter arguments, so that their
    weight conversions run again only when a weight's version moves.
    ``cudagraphs``: replayed from a CUDA graph (_CudaGraphs)."""
    name = _graph_name(graph_module)
    static, kept = _specialized(graph_module, args)

    def run_eagerly(reason):
        logger.info("%s: runs eagerly: %s", name, reason)
        if warn:
            _warn(graph_module, f"solder: {name} runs eagerly: {reason}")
        return graph_module.forward

    try:
        with torch.fx.traceback.preserve_node_meta():
            program = export_program(static, tuple(args[i] for i in kept), name)
    except SolderError as error:
        return run_eagerly(str(error).splitlines()[0])
    unusual = {spec.kind.name for spec in program.graph_signature.output_specs} - {
        "USER_OUTPUT", "USER_INPUT_MUTATION"}
    if unusual:  # dynamo passes parameters and buffers as inputs: not expected
        return run_eagerly("its exported outputs include " +
                           ", ".join(sorted(unusual)).lower())
    parameters = _static_placeholders(program, [args[i] for i in kept]) if prepare_once \
        else set()
    _running_statistics_by_pytorch(program.graph_module)
    partitioned = _partition_and_compile(program.graph_module, name, graph_module, precision,
                                         force, warn, guarded, parameters)
    runner = _FlatRunner(partitioned, program, kept)
    run = runner.direct_call(len(args)) or runner
    if cudagraphs:
        static_inputs = [index for index, value in enumerate(args) if _is_static_input(value)]
        written = [kept[index] for _, index in runner.mutations]
        run = _CudaGraphs(graph_module, name, warn).inference(
            run, program.graph_module, args, static_inputs, written, partitioned)
    return run


def _partition_and_compile(module, name, graph_module, precision, force, warn, guarded,
                           parameters):
    """Compiles the supported subgraphs of the ATen graph ``module`` (a
    copy is partitioned; the caller's stays) and returns the partitioned
    module; reports it (``reports``, the log, and with ``warn`` one
    SolderWarning at ``graph_module``'s first user line when anything ran
    eagerly)."""
    report = SubgraphReport()
    refused = {}  # node name -> reason: given back to eager after a closer look
    for _ in range(64):
        partitioned, retry = _partition(copy.deepcopy(module), refused, precision, force,
                                        report, guarded, parameters, name)
        if not retry:
            break
        report.subgraphs.clear()
        report.fallbacks.clear()
    report.subgraphs.sort()
    for line in report.lines(name):
        logger.info("%s", line)
    summary = report.warning(name)
    if warn and summary:
        _warn(graph_module, summary)
    reports.append((name, report))
    return partitioned


# (graph name, SubgraphReport) of every graph compiled in this process, in
# order: what a test or a benchmark reads back.
reports = []


def reports_summary():
    """What the graphs in ``reports`` compiled, as a benchmark records it:
    {"solder_ops": ops compiled, "solder_kernels": their launches,
    "eager_ops": {op: reason} of those left to eager}."""
    return {"solder_ops": sum(len(r.compiled_ops) for _, r in reports),
            "solder_kernels": sum(r.kernels for _, r in reports),
            "eager_ops": {op: reason for _, r in reports for op, reason in r.eager_ops.items()}}


class _FlatRunner:
    """Calls the partitioned graph of an exported program on dynamo's
    arguments: flat, with lifted constants put in, input mutations (a
    training BatchNorm's running statistics) written back, and the user
    outputs in the graph's structure. Cheaper per call than
    ExportedProgram.module(), whose input checks run in Python."""

    def __init__(self, module, program, kept):
        self.module = module
        # The tensor arguments dynamo passes, when integers were folded in;
        # None when they are a prefix of the arguments (sources index them).
        self.kept = None if len(kept) == max(kept, default=-1) + 1 else kept
        user_inputs = []
        self.sources = []  # per placeholder: an argument index or a constant
        for spec in program.graph_signature.input_specs:
            if spec.kind.name == "USER_INPUT":
                self.sources.append(len(user_inputs))
                user_inputs.append(spec.arg.name)
            elif spec.kind.name in ("PARAMETER", "BUFFER") and \
                    spec.target in program.state_dict:
                self.sources.append(program.state_dict[spec.target])
            else:
                self.sources.append(program.constants[spec.target])
        self.mutations, self.outputs = [], []
        for position, spec in enumerate(program.graph_signature.output_specs):
            if spec.kind.name == "USER_INPUT_MUTATION":
                self.mutations.append((position, user_inputs.index(spec.target)))
            else:  # USER_OUTPUT: compile_graph let no other kind through
                self.outputs.append(position)
        self.out_spec = program.call_spec.out_spec
        # Outputs that are a flat tuple (most graphs) skip pytree's unflatten.
        count = len(self.outputs)
        self.flat_outputs = self.out_spec is None or torch.utils._pytree.tree_unflatten(
            list(range(count)), self.out_spec) == tuple(range(count))

    def direct_call(self, arguments):
        """When the whole graph is one compiled subgraph that takes
        dynamo's arguments as they come and returns the graph's one output
        (a fused chain, most of KernelBench): a function that calls it
        straight, without this runner's and the partitioned module's
        Python around it (microseconds of a short chain's host time).
        None otherwise. ``arguments``: how many dynamo passes (integers,
        such as a dynamic graph's sizes, may follow the tensors)."""
        nodes = list(self.module.graph.nodes)
        placeholders = [n for n in nodes if n.op == "placeholder"]
        body = [n for n in nodes if n.op not in ("placeholder", "output")]
        if (arguments != len(placeholders) or self.kept is not None or self.mutations
                or not self.flat_outputs
                or self.sources != list(range(len(placeholders)))
                or len(body) != 1 or body[0].op != "call_module" or body[0].kwargs
                or list(body[0].args) != placeholders
                or nodes[-1].args[0] != (body[0],)):
            return None
        subgraph = getattr(self.module, body[0].target)
        if not isinstance(subgraph, _CompiledSubgraph) or \
                subgraph.compiled.output_is_sequence:
            return None

        def call(*args):
            return (subgraph(*args),)
        call.subgraph = subgraph  # what a test reads back
        return call

    def __call__(self, *args):
        if self.kept is not None:
            args = [args[i] for i in self.kept]
        # forward, not __call__: nn.Module's hooks machinery costs the host
        # microseconds a call and the partitioned module has no hooks.
        results = self.module.forward(*[args[s] if isinstance(s, int) else s
                                        for s in self.sources])
        for position, index in self.mutations:
            args[index].copy_(results[position])
        outputs = [results[position] for position in self.outputs]
        if self.flat_outputs:
            return tuple(outputs)
        return torch.utils._pytree.tree_unflatten(outputs, self.out_spec)


def _static_placeholders(program, args):
    """The names of the exported program's placeholders that hold the
    module's parameters and buffers: dynamo marks those of its inputs
    (``_dynamo_static_input_type``), and export lifts any it captured."""
    static, user = set(), 0
    for spec in program.graph_signature.input_specs:
        if spec.kind.name == "USER_INPUT":
            value = args[user]
            user += 1
            if _is_static_input(value):
                static.add(spec.arg.name)
        elif spec.kind.name in ("PARAMETER", "BUFFER"):
            static.add(spec.arg.name)
    return static


def _is_static_input(value):
    """Whether one of dynamo's inputs is a module's parameter or buffer
    (dynamo marks them ``_dynamo_static_input_type``)."""
    return isinstance(value, nn.Parameter) or \
        getattr(value, "_dynamo_static_input_type", None) is not None


def _specialized(graph_module, args):
    """A copy of dynamo's graph with its integer inputs (the sizes of a
    graph dynamo made dynamic) replaced by their values, and which of
    ``args`` it still takes: export then sees a static graph of tensors."""
    graph = copy.deepcopy(graph_module.graph)
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    kept = []
    for index, (node, value) in enumerate(zip(placeholders, args)):
        if isinstance(value, torch.Tensor):
            kept.append(index)
            continue
        node.replace_all_uses_with(value)
        graph.erase_node(node)
    for node in graph.nodes:  # only what says where the user wrote it
        node.meta = {k: v for k, v in node.meta.items()
                     if k in ("stack_trace", "nn_module_stack", "source_fn_stack")}
    return torch.fx.GraphModule(graph_module, graph), kept


def _first_location(graph_module):
    """(file, line, code) where the graph's first op was written, or None."""
    for node in graph_module.graph.nodes:
        where = source_location(node) if node.op == "call_function" else None
        if where:
            return where
    return None


def _warn(graph_module, message):
    """A SolderWarning at the graph's first user line (dynamo calls the
    backend from its own frames), every time: the caller warns once a graph."""
    where = _first_location(graph_module)
    file, line = (where[0], where[1]) if where else ("<graph>", 0)
    warnings.warn_explicit(message, SolderWarning, file, line)


def _graph_name(graph_module):
    """'graph at model.py:12': where the graph's first op was written."""
    where = _first_location(graph_module)
    return f"graph at {os.path.basename(where[0])}:{where[1]}" if where else "graph"


class _Supported(torch.fx.passes.operator_support.OperatorSupportBase):
    def __init__(self, refused):
        self.refused = refused

    def is_node_supported(self, submodules, node):
        if node.name in self.refused or node.meta.get("solder_eager") or \
                not is_supported_node(node):
            return False
        refusal = static_refusal(node)
        if refusal:
            self.refused[node.name] = refusal
        return refusal is None


_NON_COMPUTE = {"view", "_unsafe_view", "reshape", "flatten", "squeeze", "unsqueeze",
                "clone", "detach", "alias", "contiguous", "getitem", "_to_copy", "to",
                "dropout", "lift_fresh_copy", "copy_"}
# Layout bookkeeping in Solder: a subgraph of only these and the ops above
# computes nothing, so it is not compiled.
_PERMUTES = {"permute", "transpose", "t", "numpy_T"}


def _partition(module, refused, precision, force, report, guarded=False, parameters=(),
               graph_name="graph"):
    from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
    partitioner = CapabilityBasedPartitioner(module, _Supported(refused),
                                             allows_single_node_partition=True)
    partitions = [p for p in partitioner.propose_partitions()
                  if any(_op_name(n) not in _NON_COMPUTE | _PERMUTES for n in p.nodes)]
    for node in module.graph.nodes:
        value = node.meta.get("val")
        if node.op == "call_function" and not any(node in p.nodes for p in partitions) \
                and _op_name(node) not in _NON_COMPUTE and not node.meta.get("solder_eager") and \
                (_op_name(node) not in _PERMUTES or
                 (node.name in refused and not _views_an_input(node))) and \
                (getattr(value, "dtype", None) == torch.float32 or node.name in refused):
            reason = refused.get(node.name) or "not supported"
            where = source_location(node)
            report.fallbacks.append((f"aten.{_op_name(node)}", f"{os.path.basename(where[0])}:"
                                     f"{where[1]}" if where else None, reason))
    if not partitions:
        return module, False
    names = {n.name for n in module.graph.nodes}
    fused = partitioner.fuse_partitions(partitions, prefix="solder_")
    retry = False
    jobs = []  # (node, subgraph, its _ImportedSubgraph or the importer's refusal)
    for node in fused.graph.nodes:
        if node.op == "call_module" and node.target.startswith("solder_"):
            subgraph = getattr(fused, node.target)
            # The subgraph's inputs that are the module's parameters and buffers.
            subgraph_parameters = [i for i, arg in enumerate(node.args)
                                   if isinstance(arg, torch.fx.Node) and
                                   arg.op == "placeholder" and arg.name in parameters]
            try:
                imported = _import_subgraph(subgraph, node.target, subgraph_parameters)
            except SolderError as error:  # raised again below, in the subgraphs' order
                imported = error
            jobs.append((node, subgraph, imported))
    _build_ahead([imported for _, _, imported in jobs
                  if isinstance(imported, _ImportedSubgraph)], graph_name, precision, force)
    for node, subgraph, imported in jobs:
        try:
            if isinstance(imported, SolderError):
                raise imported
            compiled = _compile_subgraph(imported, precision, force)
        except UnsupportedOperation as error:
            # The importer's refusal names its node, the code generator's the
            # nodes its location holds: those alone go to eager, and the
            # graph is partitioned again around them, once the other
            # subgraphs have said theirs (a model of many blocks repeats one
            # refusal in each).
            culprits = [name for name in error.node_names
                        if name not in refused and name in names]
            if culprits:
                reason = _LOCATION_SUFFIX.sub("", str(error).splitlines()[0])
                refused.update((culprit, reason) for culprit in culprits)
                retry = True
                continue
            _leave_eager(subgraph, node.target, error, report)
            continue
        except SolderError as error:
            _leave_eager(subgraph, node.target, error, report)
            continue
        compiled.guarded = guarded
        setattr(fused, node.target, compiled)
        ops = [_op_name(n) for n in subgraph.graph.nodes
               if n.op == "call_function" and _op_name(n) not in _NON_COMPUTE]
        report.subgraphs.append((node.target, ops, compiled.kernel_count,
                                 compiled.target))
    if retry:
        return fused, True
    fused.recompile()
    return fused, False


def _views_an_input(node):
    """Whether ``node`` is a view or permute of a graph input, through
    others (a training graph saves a Linear's weight transposed): free in
    eager, nothing for Solder to compile, so not reported as eager."""
    while isinstance(node, torch.fx.Node) and node.op == "call_function" and \
            _op_name(node) in _NON_COMPUTE | _PERMUTES:
        node = node.args[0]
    return isinstance(node, torch.fx.Node) and node.op == "placeholder"


# ' (model.py:12)' ending a first line: the report names the line itself.
_LOCATION_SUFFIX = re.compile(r" \([^()\s]+:\d+\)$")


def _leave_eager(subgraph, name, error, report):
    report.fallbacks.append((f"subgraph {name}", None, str(error).splitlines()[0]))


class _ImportedSubgraph(NamedTuple):
    """A subgraph imported for Solder: its IR, the device of its inputs,
    and the indices of its 0-dim CPU scalars beside them."""
    imported: ImportedModule
    device: torch.device
    cpu_scalars: list


def _import_subgraph(subgraph, name, parameters=()):
    device, cpu_scalars = _subgraph_device(subgraph)
    return _ImportedSubgraph(import_graph(subgraph, name, name, parameter_inputs=parameters),
                             device, cpu_scalars)


def _compile_subgraph(subgraph, precision, force):
    """The compiled form of an _ImportedSubgraph."""
    from .api import compile_imported
    compiled = compile_imported(subgraph.imported, precision, subgraph.device.type, force, True,
                                subgraph.device)
    return _CompiledSubgraph(compiled, subgraph.cpu_scalars)


def _build_ahead(subgraphs, graph_name, precision, force):
    """Builds what each of ``subgraphs`` (_ImportedSubgraph) compiles to,
    on parallel threads, into Solder's cache, where its own compile then
    finds it: a graph of many subgraphs (a backward, with a conv's input
    gradient each) would otherwise wait on one solder-compile and nvcc at a
    time. A subgraph that fails here fails again in its own compile, which
    reports it."""
    from concurrent.futures import ThreadPoolExecutor
    from .api import build_artifact, cache_ir
    # Subgraphs that compute the same (a backward's repeated blocks) share
    # a cache entry: one build each.
    distinct = {}
    for subgraph in subgraphs:
        distinct.setdefault((cache_ir(subgraph.imported.mlir), subgraph.device), subgraph)
    subgraphs = list(distinct.values())
    workers = min(len(subgraphs), os.cpu_count() or 1)
    if workers < 2:
        return

    def build(subgraph):
        try:
            build_artifact(subgraph.imported.mlir, precision, subgraph.device.type, force, True,
                           subgraph.device)
        except SolderError:
            pass

    start = time.time()
    with ThreadPoolExecutor(workers) as pool:
        list(pool.map(build, subgraphs))
    logger.debug("%s: built %d subgraphs on %d threads in %.1f s", graph_name, len(subgraphs),
                 workers, time.time() - start)


def _subgraph_device(subgraph):
    """(the device of ``subgraph``'s inputs, the indices of its 0-dim CPU
    scalars beside them)."""
    placeholders = [n for n in subgraph.graph.nodes if n.op == "placeholder"]
    tensors = {index: n.meta["val"] for index, n in enumerate(placeholders)
               if isinstance(n.meta.get("val"), torch.Tensor)}
    # A 0-dim CPU tensor beside CUDA ones (torch.tensor(0.0) in a forward,
    # which torch.export lifts to an input) is a scalar PyTorch moves itself;
    # the compiled subgraph moves it to the GPU. In a CPU subgraph it is an
    # input like the others.
    cpu_scalars = [index for index, value in tensors.items()
                   if value.device.type == "cpu" and value.dim() == 0
                   and value.dtype == torch.float32]
    devices = {value.device for index, value in tensors.items() if index not in cpu_scalars}
    if devices <= {torch.device("cpu")}:
        cpu_scalars, devices = [], {value.device for value in tensors.values()}
    if len(devices) != 1:
        raise SolderError(f"inputs on {sorted(map(str, devices)) or 'no device'}; "
                          "Solder compiles a subgraph for one device")
    device = devices.pop()
    if device.type not in ("cuda", "cpu"):
        raise SolderError(f"tensors on {device}; Solder runs CUDA and CPU tensors")
    return device, cpu_scalars


class _CompiledSubgraph(nn.Module):
    """A fused subgraph replaced by its compiled chain."""

    def __init__(self, compiled, cpu_scalars=()):
        super().__init__()
        self.compiled = compiled
        # Inputs that arrive as 0-dim CPU tensors: each call passes a GPU copy,
        # made again only when the value changes (read on the host: a write
        # through .data or .numpy() leaves the version as it was).
        self.cpu_scalars = list(cpu_scalars)
        self._moved = {}
        self.target = f"bundle {compiled.bundle}" if compiled.backend == "cuda" else \
            "reference interpreter"
        # Whether dynamo's guards hold the graph's inputs (compile_graph sets
        # it); then, from the first call, whether the calls skip the
        # per-input checks (call_unchecked): on CUDA, when that call's
        # inputs were tensors; those in another layout than the bundle
        # takes (a channels-last model's input where its stem takes NCDHW,
        # its conv weights, whose copies are kept) call_unchecked converts.
        # Its other inputs are what eager ops computed from guarded ones,
        # alike from call to call.
        self.guarded = False
        self.unchecked = None

    @property
    def kernel_count(self):
        compiled = self.compiled
        if compiled.backend == "cuda":
            import json
            manifest = json.loads((compiled.bundle / "manifest.json").read_text())
            return len(manifest["launches"])
        return compiled.pipelined.read_text().count("solder.fusion")

    def _with_scalars_moved(self, args):
        args = list(args)
        for index in self.cpu_scalars:
            value = args[index].item()
            cached, moved = self._moved.get(index, (None, None))
            if cached != value:  # NaN never equals: copied each call
                moved = args[index].to(self.compiled.device)
                self._moved[index] = (value, moved)
            args[index] = moved
        return args

    def forward(self, *args):
        if self.cpu_scalars:
            args = self._with_scalars_moved(args)
        if self.unchecked:
            try:
                return self.compiled.call_unchecked(*args)
            except SolderError as error:
                if "16-byte aligned" not in str(error):
                    raise
                self.unchecked = False  # a view off 16 bytes: checked (and copied) from now on
        elif self.unchecked is None:
            self.unchecked = self.guarded and self.compiled.backend == "cuda" and all(
                isinstance(a, torch.Tensor) for a in args)
            if self.unchecked:
                self.compiled.set_relayout(self.compiled.layout_mismatches(args))
        return self.compiled(*args)

    # The partitioned module calls its subgraphs straight to forward: no
    # hooks are registered on them, and nn.Module.__call__'s checks for
    # them cost about a microsecond a subgraph a call.
    __call__ = forward
