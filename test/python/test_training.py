"""Training through Solder on the CPU (the reference interpreter): the
forward of a graph that needs gradients compiled by Solder, its backward run
by PyTorch (issue "Training through Solder").

Each case runs one training step (forward, backward with a random output
gradient) of W1-W3 and of the catalog's models in training mode, and
compares with the same step in float64: the output, the gradient of the
input and of every parameter (no worse than three times eager float32's
error, so that it is Solder's forward and not the check that decides), and
the BatchNorms' running statistics. The forward must run in Solder: the ops
left to eager are exactly those listed, and the norm of each model is
fused, its saved mean and rstd included.
"""

import collections
import copy
import re
import sys
import types
import warnings
from pathlib import Path

import pytest
import torch

import solder
import solder.backend as backend
from solder import workloads

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import catalog  # noqa: E402

from test_frontend import assert_matches  # noqa: E402


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


@pytest.fixture(autouse=True)
def grad_mode():
    """Grad mode on (test_frontend, imported here, turns it off process-wide)."""
    with torch.enable_grad():
        yield

WORKLOADS = ["w1", "w2", "w3"]
SMALL = [name for name, (_, _, small) in catalog.MODELS.items() if small is not None]

def _make(name):
    if name in WORKLOADS:
        model, (x,) = workloads.make(name, small=True, seed=5)
        return model, x, {"group_norm"}
    model, x = catalog.make(name, "small", seed=3)
    return model, x, catalog.IN_SOLDER[name]


def _step(model, x, grad_output=None, parameters_of=None):
    """One forward and backward (of ``grad_output``, else zeros); returns
    (output, {name: gradient}) of the input and of ``parameters_of``'s
    parameters (default: the model's)."""
    x = x.clone().requires_grad_()
    out = model(x)
    out.backward(torch.zeros_like(out) if grad_output is None else grad_output.to(out.dtype))
    gradients = {"input": x.grad}
    module = parameters_of or getattr(model, "_orig_mod", model)  # torch.compile's wrapper
    gradients.update((n, p.grad) for n, p in module.named_parameters())
    return out, gradients


def assert_gradients_match(solder_grads, eager_grads, exact_grads):
    """Each of Solder's tensors (gradients, the output) within 3x eager
    float32's error of the float64 ones (plus 1e-6 of their largest
    magnitude)."""
    assert solder_grads.keys() == exact_grads.keys()
    for name, exact in exact_grads.items():
        assert solder_grads[name] is not None, f"{name}: no gradient"
        assert solder_grads[name].dtype == torch.float32, name
        error = (solder_grads[name].double() - exact).abs().max().item()
        eager = (eager_grads[name].double() - exact).abs().max().item()
        bound = 3 * eager + 1e-6 * exact.abs().max().item()
        assert error <= bound, f"{name}: error {error:.3g}, eager float32's {eager:.3g}"


@pytest.mark.parametrize("name", WORKLOADS + SMALL)
@pytest.mark.filterwarnings("ignore::solder.SolderWarning")
def test_training_step_through_the_backend(name, codegen_on_cpu):
    model, x, kinds = _make(name)
    model.train()
    exact_model, eager_model = copy.deepcopy(model).double(), copy.deepcopy(model)
    compiled = torch.compile(model, backend="solder")
    out, _ = _step(compiled, x)
    grad_output = torch.randn(out.shape, generator=torch.Generator().manual_seed(7))
    for parameter in model.parameters():
        parameter.grad = None
    # Again, with a random output gradient (the first step compiled; both
    # updated the running statistics, as eager's two steps below do).
    out, grads = _step(compiled, x, grad_output)
    _step(eager_model, x)
    _step(exact_model, x.double())
    for twin in (eager_model, exact_model):
        twin.zero_grad(set_to_none=True)
    eager_out, eager_grads = _step(eager_model, x, grad_output)
    exact_out, exact_grads = _step(exact_model, x.double(), grad_output)

    assert_gradients_match({"output": out.detach(), **grads},
                           {"output": eager_out.detach(), **eager_grads},
                           {"output": exact_out.detach(), **exact_grads})
    # The running statistics, as the gradients (num_batches_tracked exactly).
    buffers = [dict(m.named_buffers()) for m in (model, eager_model, exact_model)]
    floating = [{n: b for n, b in found.items() if b.is_floating_point()} for found in buffers]
    assert_gradients_match(*floating)
    for buffer_name, count in buffers[0].items():
        if not count.is_floating_point():
            assert torch.equal(count, buffers[2][buffer_name]), buffer_name

    eager, compiled, gradients = {}, [], collections.Counter()
    for graph, report in backend.reports:
        if graph.endswith("(backward)"):
            # Each conv's input gradient as a transposed conv (the residual
            # adds that take one fused with it); nothing else of the backward.
            assert report.eager_ops == {}, report.eager_ops
            gradients.update(report.compiled_ops)
            continue
        assert graph.endswith("(forward)"), graph
        eager.update(report.eager_ops)
        compiled += report.compiled_ops
    assert set(eager) == catalog.TRAINING_EAGER.get(name, set()), eager
    norms = {catalog.TRAINING_NORMS[kind] for kind in kinds
             if kind in catalog.TRAINING_NORMS}
    assert compiled and norms <= set(compiled), sorted(compiled)
    assert gradients["convolution"] == _solder_input_gradients(model), gradients
    assert set(gradients) <= {"convolution", "add"}, gradients


def _solder_input_gradients(model):
    """How many of ``model``'s convs have their input gradient computed by
    Solder: the dense 2-D ones (not transposed, not grouped) of at least
    16 input and output channels, other than a strided 1x1 (a ResNet's
    downsample). The catalog's models call each conv once."""
    return sum(type(m) is torch.nn.Conv2d and m.groups == 1 and
               min(m.in_channels, m.out_channels) >= backend._MIN_GRADIENT_CHANNELS and
               not (m.kernel_size == (1, 1) and m.stride != (1, 1)) for m in model.modules())


def test_saved_statistics_come_out_of_the_fused_kernels():
    """W3's forward under autograd is the inference chain's two kernels:
    the conv with its GroupNorm statistics in the epilogue, then the rest;
    the mean and rstd the backward saves are that epilogue's, not another
    pass."""
    model, (x,) = workloads.make("w3", small=True, seed=5)
    out = torch.compile(model, backend="solder")(x.clone().requires_grad_())
    out.sum().backward()
    ((graph, report),) = backend.reports
    assert graph.endswith("(forward)")
    assert report.fallbacks == []
    ((_, ops, kernels, _),) = report.subgraphs
    assert sorted(ops) == sorted(["convolution", "native_group_norm", "tanh", "hardswish",
                                  "add", "logsumexp"])
    assert kernels == 2


def _top_level_ops(run):
    """{ATen op: count} of what ``run`` dispatches, ops called inside
    another op not counted (a foreach op's per-tensor fallback on the
    CPU, the kernel batch_norm_backward picks)."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
        run()
    return collections.Counter(
        event.name[len("aten::"):] for event in profile.events()
        if event.name.startswith("aten::") and
        not (event.cpu_parent and event.cpu_parent.name.startswith("aten::")))


def test_batch_norm_bookkeeping_and_backward():
    """Three training BatchNorms: their running statistics and
    num_batches_tracked are updated in place by one foreach op a step of
    the update (not one op a BatchNorm), and exactly as eager's; their
    backward is aten.batch_norm_backward, which picks cuDNN on a GPU as
    eager autograd does, not native_batch_norm_backward."""
    torch.manual_seed(4)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3), torch.nn.BatchNorm2d(8, momentum=0.3), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 4, 3), torch.nn.BatchNorm2d(4)).train()
    eager = copy.deepcopy(model)
    x = torch.randn(2, 3, 12, 12)
    compiled = torch.compile(model, backend="solder")
    compiled(x).sum().backward()  # compiles
    eager(x).sum().backward()
    outputs = []
    forward = _top_level_ops(lambda: outputs.append(compiled(x)))
    backward = _top_level_ops(lambda: outputs[0].sum().backward())
    eager(x).sum().backward()
    bookkeeping = {op: count for op, count in forward.items()
                   if op.startswith("_foreach") or op in ("lerp", "pow", "sub", "mul", "add")}
    assert bookkeeping == {"_foreach_lerp_": 4, "_foreach_pow": 2, "_foreach_sub_": 2,
                           "_foreach_mul_": 2, "_foreach_add_": 1}  # a group a momentum (0.1, 0.3)
    assert backward["batch_norm_backward"] == 3
    assert backward["native_batch_norm_backward"] == 0
    for (name, buffer), (_, expected) in zip(model.named_buffers(), eager.named_buffers()):
        if name.endswith("num_batches_tracked"):
            assert buffer.item() == expected.item() == 2, name
        else:
            torch.testing.assert_close(buffer, expected, rtol=1e-5, atol=1e-6, msg=name)


def test_only_buffers_are_updated_in_place():
    """The in-place bookkeeping takes only a BatchNorm's input buffers and
    num_batches_tracked among the inputs' new values: running statistics
    made in the graph, and a user's int64 input plus one, stay functional
    (the caller's step is not changed)."""

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)
            self.weight = torch.nn.Parameter(torch.rand(4))

        def forward(self, x, step):
            y = torch.nn.functional.batch_norm(self.conv(x), torch.zeros(4), torch.ones(4),
                                               self.weight, None, True, 0.1, 1e-5)
            return y, step + 1

    model = Model()
    x, step = torch.randn(2, 3, 8, 8), torch.tensor(7)
    out, next_step = torch.compile(model, backend="solder")(x.clone().requires_grad_(), step)
    out.sum().backward()
    assert step.item() == 7 and next_step.item() == 8
    assert_matches(out, model(x, step)[0])


class _GradientBlock(torch.nn.Module):
    """Convs whose input gradients go to Solder in ieee, and those that do not."""

    def __init__(self):
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 16, 3, padding=1)  # 3 channels: cuDNN's
        self.conv = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.strided = torch.nn.Conv2d(16, 24, 3, stride=2, padding=1)  # 4 phases
        self.shortcut = torch.nn.Conv2d(16, 24, 1, stride=2)  # a phase no tap reaches
        self.dilated = torch.nn.Conv2d(24, 24, 3, padding=2, dilation=2)
        self.frozen = torch.nn.Conv2d(24, 24, 3, padding=1).requires_grad_(False)
        self.head = torch.nn.Conv2d(24, 3, 1)  # 3 output channels: cuDNN's

    def forward(self, x):
        h = torch.relu(self.stem(x))
        h = torch.relu(self.conv(h)) + h
        h = torch.relu(self.dilated(torch.relu(self.strided(h) + self.shortcut(h))))
        return self.head(self.frozen(h))


def test_input_gradients_by_solder():
    """The default backward ("solder"), ieee: the input gradients of the
    conv, the strided conv, the dilated conv and the frozen conv are
    Solder's transposed convs (the frozen one's convolution_backward gone:
    it had nothing else to compute), two of them one kernel with the add of
    h's two gradients; the stem's (3 input channels), the head's (3 output
    channels) and the strided 1x1's stay in convolution_backward. In tf32
    the backward is eager's. Gradients within eager's error."""
    torch.manual_seed(8)
    model = _GradientBlock()
    eager, exact = copy.deepcopy(model), copy.deepcopy(model).double()
    x, grad_output = torch.randn(2, 3, 12, 12), torch.randn(2, 3, 6, 6)
    compiled = torch.compile(model, backend="solder")
    out, gradients = _step(compiled, x, grad_output)  # compiles
    gradients = {name: gradient.clone() for name, gradient in gradients.items()
                 if not name.startswith("frozen.")}
    second = compiled(x.clone().requires_grad_())
    backward = _top_level_ops(lambda: second.backward(grad_output))
    assert backward["convolution_backward"] == 6, backward
    ((graph, report),) = [(g, r) for g, r in backend.reports if g.endswith("(backward)")]
    # h's gradient: the conv's plus the residual's, the strided conv's plus
    # the shortcut's (cuDNN's): each add in the epilogue of Solder's conv.
    assert sorted((ops, kernels) for _, ops, kernels, _ in report.subgraphs) == [
        (["convolution"], 1), (["convolution"], 1), (["convolution", "add"], 1),
        (["convolution", "add"], 1)], report.subgraphs
    assert report.fallbacks == []
    trained = ["input"] + [n for n, p in model.named_parameters() if p.requires_grad]
    exact_out, exact_gradients = _step(exact, x.double(), grad_output)
    eager_out, eager_gradients = _step(eager, x, grad_output)
    assert_gradients_match({**gradients, "output": out},
                           {**{n: eager_gradients[n] for n in trained}, "output": eager_out},
                           {**{n: exact_gradients[n] for n in trained}, "output": exact_out})

    torch._dynamo.reset()
    backend.reports.clear()
    tf32 = torch.compile(copy.deepcopy(model), backend="solder", options={"precision": "tf32"})
    tf32(x.clone().requires_grad_()).backward(grad_output)
    assert [g for g, _ in backend.reports if g.endswith("(backward)")] == []


# (input channels, output channels, kernel, stride, padding, dilation) of
# forward convs, and whether Solder's planner runs their input gradient on
# tensor cores (sm_90a, ieee).
_GRADIENT_CONVS = [
    ((64, 64, 3, 1, 1, 1), True), ((64, 256, 1, 1, 0, 1), True),
    ((128, 128, 3, 2, 1, 1), True), ((24, 24, 3, 1, 2, 2), True),
    ((3, 64, 7, 2, 3, 1), True),  # a stem: taken by the planner, not the backend
    ((256, 512, 1, 2, 0, 1), False),  # a phase no tap reaches
    ((64, 3, 3, 1, 1, 1), False),  # a reduction of 3 channels
    ((32, 32, 3, 4, 1, 1), False),  # stride 4 over 3 taps: a phase without one
    ((32, 32, 5, 1, 5, 1), False),  # padding past the kernel
]


@pytest.mark.parametrize("conv, on_tensor_cores", _GRADIENT_CONVS)
def test_input_gradients_taken_where_the_planner_uses_tensor_cores(conv, on_tensor_cores,
                                                                    tmp_path):
    """backend._on_tensor_cores, with which the backend picks the input
    gradients it gives Solder, agrees with the planner's choice for the
    transposed conv (solder-compile --report): a drift in either shows
    here."""
    from solder.importer import export_program, import_graph
    from solder.tools import run_tool
    c, k, size, stride, padding, dilation = conv
    x, weight = torch.empty(2, c, 16, 16), torch.empty(k, c, size, size)
    y = torch.nn.functional.conv2d(x, weight, None, stride, padding, dilation)
    taken = backend._on_tensor_cores(weight, [size] * 2, [stride] * 2, [padding] * 2,
                                     [dilation] * 2)
    assert taken == on_tensor_cores
    output_padding = 16 - ((y.shape[2] - 1) * stride - 2 * padding + dilation * (size - 1) + 1)

    class Gradient(torch.nn.Module):
        def forward(self, grad_output, w):
            return torch.nn.functional.conv_transpose2d(grad_output, w, None, stride, padding,
                                                        output_padding, 1, dilation)

    program = export_program(Gradient(), (torch.empty(y.shape), weight), "gradient")
    source = tmp_path / "gradient.mlir"
    source.write_text(import_graph(program.graph_module, "gradient", "gradient").mlir)
    plan = run_tool("solder-compile", [source, "-o", tmp_path / "bundle", "--emit-cuda-only",
                                       "--report", "--arch=sm_90a", "--precision=ieee"],
                    "solder-compile").stdout
    (row,) = [line.split() for line in plan.splitlines()
              if line.split()[1:2] == ["conv_transpose"]]
    assert (row[2] != "fma") == on_tensor_cores, plan


@pytest.fixture
def recorded_builds(monkeypatch):
    """The builds (solder-opt runs: the CPU's build; solder-compile and nvcc
    on a GPU) as (function name, whether on the main thread), with four
    cores to build on."""
    import threading
    import solder.api as api
    monkeypatch.setattr(backend.os, "cpu_count", lambda: 4)
    builds = []
    run_on_ir = api._run_on_ir

    def recorded(mlir, *args):
        builds.append((mlir.split("(")[0].split("@")[-1],
                       threading.current_thread() is threading.main_thread()))
        return run_on_ir(mlir, *args)

    monkeypatch.setattr(api, "_run_on_ir", recorded)
    return builds


def test_subgraphs_built_in_parallel(recorded_builds):
    """A graph of several subgraphs (the backward's four input gradients)
    has them built on parallel threads into the cache before each is
    compiled in turn, which then finds it there: no build runs on the
    compiling thread."""
    model = _GradientBlock()
    out = torch.compile(model, backend="solder")(torch.randn(2, 3, 12, 12).requires_grad_())
    forward_builds = len(recorded_builds)
    out.sum().backward()
    backward = recorded_builds[forward_builds:]
    assert sorted(backward) == [(f"solder_{i}", False) for i in range(4)]


def test_repeated_blocks_build_once(recorded_builds):
    """Three convs of one shape have input gradients that compute the same
    under other names (three backward subgraphs): one build, which each
    compiles from the cache, and their gradients match eager's."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(*[layer for _ in range(3) for layer in
                                  (torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU())])
    eager, exact = copy.deepcopy(model), copy.deepcopy(model).double()
    x, grad_output = torch.randn(2, 16, 8, 8), torch.randn(2, 16, 8, 8)
    compiled = torch.compile(model, backend="solder")
    compiled(x.clone().requires_grad_())  # the forward's compile
    forward_builds = len(recorded_builds)
    out, gradients = _step(compiled, x, grad_output)
    (graph, report), = [(g, r) for g, r in backend.reports if g.endswith("(backward)")]
    assert len(report.subgraphs) == 3, report.subgraphs
    assert report.compiled_ops == ["convolution"] * 3, report.compiled_ops
    assert len(recorded_builds) - forward_builds == 1, recorded_builds
    exact_out, exact_gradients = _step(exact, x.double(), grad_output)
    eager_out, eager_gradients = _step(eager, x, grad_output)
    assert_gradients_match({**gradients, "output": out}, {**eager_gradients, "output": eager_out},
                           {**exact_gradients, "output": exact_out})


def test_backward_by_inductor():
    """backward="inductor": Inductor compiles the backward graph, so that no
    norm's backward is an ATen op of its own (Inductor's decompositions
    fused them into its kernels; the convs' backward stays ATen's), and the
    gradients and running statistics are float64's within eager's error."""
    torch.manual_seed(6)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
        torch.nn.Conv2d(8, 8, 3), torch.nn.GroupNorm(2, 8), torch.nn.SiLU()).train()
    eager, exact = copy.deepcopy(model), copy.deepcopy(model).double()
    x = torch.randn(2, 3, 12, 12)
    grad_output = torch.randn(2, 8, 8, 8)
    compiled = torch.compile(model, backend="solder", options={"backward": "inductor"})
    out, gradients = _step(compiled, x, grad_output)  # compiles
    gradients = {name: gradient.clone() for name, gradient in gradients.items()}
    second = compiled(x.clone().requires_grad_())
    backward = _top_level_ops(lambda: second.backward(grad_output))
    assert not {"native_batch_norm_backward", "batch_norm_backward",
                "native_group_norm_backward"} & backward.keys(), backward
    assert backward["convolution_backward"] == 2
    exact_out, exact_gradients = _step(exact, x.double(), grad_output)
    eager_out, eager_gradients = _step(eager, x, grad_output)
    assert_gradients_match({**gradients, "output": out}, {**eager_gradients, "output": eager_out},
                           {**exact_gradients, "output": exact_out})
    eager(x)  # its second step's running statistics, as the compiled model's
    torch.testing.assert_close(model[1].running_var, eager[1].running_var, rtol=1e-5, atol=1e-6)
    # (dynamo wraps the backend's error)
    with pytest.raises(Exception, match="SolderError: unknown backward 'aot' "
                       "\\(one of solder, eager, inductor\\)\n"):
        torch.compile(copy.deepcopy(model), backend="solder", options={"backward": "aot"})(x)


def test_compiled_module_updates_running_statistics_without_grad():
    """solder.compile of a module with a BatchNorm in training mode: a call
    under no_grad normalizes with the batch statistics and updates the
    running statistics and num_batches_tracked, as eager's does (the
    training path, whose forward Solder compiles; out= gets a copy); a
    later call in grad mode computes gradients."""
    torch.manual_seed(8)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8),
                                torch.nn.ReLU()).train()
    eager = copy.deepcopy(model)
    x = torch.randn(2, 3, 10, 10)
    with torch.no_grad():
        compiled = solder.compile(model, [x], backend="cpu", quiet=True)
        out = torch.empty(2, 8, 8, 8)
        for call in range(2):
            got = compiled(x) if call == 0 else compiled(x, out=out)
            assert_matches(got, eager(x), "output")
    assert got is out
    for (name, buffer), (_, expected) in zip(model.named_buffers(), eager.named_buffers()):
        torch.testing.assert_close(buffer, expected, rtol=1e-5, atol=1e-6, msg=name)
    assert model[1].num_batches_tracked.item() == 2
    # Then in grad mode: a function of its own, which computes gradients.
    compiled(x).sum().backward()
    eager(x).sum().backward()
    for (name, parameter), (_, expected) in zip(model.named_parameters(),
                                                eager.named_parameters()):
        assert parameter.grad is not None, name
        torch.testing.assert_close(parameter.grad, expected.grad, rtol=1e-4, atol=1e-5,
                                   msg=name)


@pytest.mark.parametrize("name", ["w3", "gradient_block"])
def test_dynamic_shapes_train_eagerly_with_one_warning(name):
    """A dynamic graph's forward and backward (its convs' input gradients
    too) run eagerly, with one warning."""
    if name == "w3":
        model, _ = workloads.make("w3", small=True, seed=5)
        shapes = [(2, 8, 10, 10), (3, 8, 9, 11)]
    else:
        torch.manual_seed(9)
        model, shapes = _GradientBlock(), [(2, 3, 12, 12), (3, 3, 10, 14)]
    compiled = torch.compile(model, backend="solder", dynamic=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in shapes:
            x = torch.rand(shape, requires_grad=True)
            compiled(x).sum().backward()
            exact = x.detach().double().requires_grad_()
            copy.deepcopy(model).double()(exact).sum().backward()
            assert_matches(x.grad, exact.grad, "input gradient")
    messages = [str(w.message) for w in caught if issubclass(w.category, solder.SolderWarning)]
    assert backend.reports == []
    assert len(messages) == 1, messages
    assert messages[0].endswith(
        "runs eagerly: its shapes are dynamic, and Solder compiles the forward of a graph "
        "that needs gradients for static shapes: torch.compile(..., dynamic=False) "
        "compiles each shape")


def test_compiled_module_trains():
    """solder.compile: a call in grad mode takes part in autograd (the
    module's parameters and the input get their gradients, a training
    BatchNorm updates its running statistics), two SGD steps follow the
    float64 model's, and the calls after training, under no_grad too, read
    the trained parameters."""
    model, x = catalog.make("se_resnet", "small", seed=3)
    model.train()
    exact = copy.deepcopy(model).double()
    compiled = solder.compile(model, (x,), backend="cpu", quiet=True)
    grad_output = torch.randn(2, 100, generator=torch.Generator().manual_seed(7))
    for _ in range(2):
        out, grads = _step(compiled, x, grad_output, parameters_of=model)
        exact_out, exact_grads = _step(exact, x.double(), grad_output)
        assert_matches(out.detach(), exact_out.detach())
        for name, exact_grad in exact_grads.items():
            torch.testing.assert_close(grads[name].double(), exact_grad,
                                       rtol=1e-4, atol=1e-5 * exact_grad.abs().max().item(),
                                       msg=lambda m: f"{name}: {m}")
        with torch.no_grad():
            for p, q in zip(model.parameters(), exact.parameters()):
                p -= 0.1 * p.grad
                q -= 0.1 * q.grad
                p.grad, q.grad = None, None
    for (name, buffer), (_, expected) in zip(model.named_buffers(), exact.named_buffers()):
        torch.testing.assert_close(buffer.double(), expected.double(), rtol=1e-5, atol=1e-6,
                                   msg=lambda m: f"{name}: {m}")
    with torch.no_grad():
        assert_matches(compiled(x), exact.double()(x.double()))
    # The training forward, fused whole (the Linear's transposed weight it
    # saves is a view, not an eager op); then, under no_grad with an input
    # that requires no grad, another function of the same program.
    graph, report = backend.reports[0]
    assert graph.endswith("(forward)") and report.fallbacks == []
    assert "_native_batch_norm_legit_functional" in report.compiled_ops
    # Switched to eval: the running statistics are read, not updated (a
    # program of its own, exported in eval mode).
    model.eval()
    exact.eval()
    frozen = {name: b.clone() for name, b in model.named_buffers()}
    with torch.no_grad():
        assert_matches(compiled(x), exact(x.double()))
    for name, buffer in model.named_buffers():
        assert torch.equal(buffer, frozen[name]), name
    with pytest.raises(solder.SolderError,
                       match=r"^out= is not taken by a call through autograd \(grad mode is on "
                             r"and an input or a parameter requires grad\): call it under "
                             r"torch\.no_grad\(\) to write into out$"):
        compiled(x, out=torch.empty(2, 100))


class GroupNormWithStatistics(torch.nn.Module):
    def forward(self, x):
        return torch.ops.aten.native_group_norm(torch.relu(x), None, None, 2, 8, 20, 4, 1e-5)


def test_statistics_outputs_are_dense():
    """A norm's mean and rstd come out of one statistics result (one
    solder.group_stats in the IR), each dense as eager's (the CUDA
    native_group_norm_backward reads them so)."""
    x = torch.randn(2, 8, 4, 5)
    compiled = solder.compile(GroupNormWithStatistics(), (x,), backend="cpu", quiet=True)
    assert compiled.mlir.count("solder.group_stats") == 1
    assert [view["result"] for view in compiled.output_views] == [0, 1, 1]
    with torch.no_grad():
        got, expected = compiled(x), GroupNormWithStatistics()(x)
    for tensor, want in zip(got, expected):
        assert tensor.is_contiguous() and tensor.shape == want.shape
        torch.testing.assert_close(tensor, want, rtol=1e-5, atol=1e-6)


def test_dropout_stays_eager_with_its_generator():
    """A training Dropout runs in PyTorch, on PyTorch's generator: for a
    fixed seed the step is eager's, output and input gradient alike; the
    convs around it run in Solder."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Dropout(0.5),
                                torch.nn.Conv2d(8, 4, 1)).train()
    x = torch.randn(2, 3, 8, 8)
    grad_output = torch.randn(2, 4, 6, 6)
    compiled = torch.compile(model, backend="solder")
    results = []
    for run in (compiled, model, compiled):
        torch.manual_seed(1)
        out, grads = _step(run, x, grad_output)
        results.append((out.detach(), grads["input"]))
    assert torch.equal(results[0][0], results[2][0])  # deterministic for the seed
    torch.testing.assert_close(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(results[0][1], results[1][1], rtol=1e-5, atol=1e-6)
    ((_, report),) = backend.reports
    assert set(report.eager_ops) == {"native_dropout"}
    assert report.compiled_ops.count("convolution") == 2


def test_outputs_can_be_changed_in_place():
    """A returned tensor that reshapes a result (the flatten here) is not a
    view in autograd's eyes, as eager's is not: an in-place op on it works
    under autograd, and the gradients follow it."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.Flatten())
    twin = copy.deepcopy(model).double()
    x = torch.randn(2, 3, 6, 6)
    out = torch.compile(model, backend="solder")(x)
    ((_, report),) = backend.reports
    assert "convolution" in report.compiled_ops
    expected = twin(x.double())
    out.mul_(2.0).sum().backward()
    expected.mul_(2.0).sum().backward()
    assert_matches(out.detach(), expected.detach())
    torch.testing.assert_close(model[0].weight.grad.double(), twin[0].weight.grad,
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backward", ["solder", "inductor"])
def test_cudagraphs_refused_with_the_reason(backward):
    """cudagraphs=True where a graph cannot be captured (CPU tensors here):
    the graph runs as compiled, with one SolderWarning that says why, its
    backward too (it follows its forward; Inductor's backward as well as
    Solder's: with Inductor's, the backward's compiler once failed on the
    subgraphs it does not have), and the step is right; in inference the
    same. A value other than True or False is refused."""
    class Block(torch.nn.Module):  # its lines name the graph
        def __init__(self):
            super().__init__()
            self.conv, self.norm = torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8)

        def forward(self, x):
            return torch.relu(self.norm(self.conv(x)))

    torch.manual_seed(7)
    model = Block().train()
    eager, exact = copy.deepcopy(model), copy.deepcopy(model).double()
    x, grad_output = torch.randn(2, 3, 10, 10), torch.randn(2, 8, 8, 8)
    compiled = torch.compile(model, backend="solder",
                             options={"cudagraphs": True, "backward": backward})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out, gradients = _step(compiled, x, grad_output)
        with torch.no_grad():
            inference = compiled(x)
    messages = [str(w.message) for w in caught if issubclass(w.category, solder.SolderWarning)]
    assert len(messages) == 2, messages
    assert re.fullmatch(r"solder: graph at test_training\.py:\d+ \(forward\) runs without a "
                        r"CUDA graph: cpu device \(\w+\)", messages[0]), messages[0]
    assert re.fullmatch(r"solder: graph at test_training\.py:\d+ runs without a CUDA graph: "
                        r"cpu device \(\w+\)", messages[1]), messages[1]
    eager_out, eager_gradients = _step(eager, x, grad_output)
    exact_out, exact_gradients = _step(exact, x.double(), grad_output)
    assert_gradients_match({**gradients, "output": out}, {**eager_gradients, "output": eager_out},
                           {**exact_gradients, "output": exact_out})
    with torch.no_grad():
        assert_matches(inference, eager(x))
    with pytest.raises(Exception, match="SolderError: cudagraphs is True or False, not 'yes'\n"):
        torch.compile(copy.deepcopy(model), backend="solder", options={"cudagraphs": "yes"})(x)


def test_written_inputs_through_lists_and_views():
    """The inputs a graph writes in place, which a CUDA graph's replay must
    not copy: through a foreach op's list (the running statistics' updates)
    and through a view; an input only read is not one."""
    aten = torch.ops.aten
    graph = torch.fx.Graph()
    values = [torch.zeros(4), torch.ones(4), torch.zeros(2, 2)]
    mean, batch_mean, counts = (graph.placeholder(name) for name in ("mean", "batch", "counts"))
    for node, value in zip((mean, batch_mean, counts), values):
        node.meta["val"] = value
    flat = graph.call_function(aten.view.default, (counts, [4]))
    flat.meta["val"] = values[2].view(4)
    graph.call_function(aten._foreach_lerp_.Scalar, ([mean], [batch_mean], 0.1))
    graph.call_function(aten.add_.Tensor, (flat, 1))
    graph.output((batch_mean,))
    assert backend._written_inputs(torch.fx.GraphModule({}, graph)) == {0, 2}


def test_cudagraphs_refuse_an_input_written_in_place():
    """An inference graph that writes its caller's input in place (not a
    parameter or buffer: a replay would write the graph's copy of it) runs
    without a CUDA graph, with the reason, and writes the caller's tensor."""

    class Counted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3)

        def forward(self, x, calls):
            calls.add_(1)
            return torch.relu(self.conv(x))

    torch.manual_seed(2)
    model = Counted()
    x, calls = torch.randn(2, 3, 8, 8), torch.zeros(1)
    compiled = torch.compile(model, backend="solder", options={"cudagraphs": True})
    with warnings.catch_warnings(record=True) as caught, torch.no_grad():
        warnings.simplefilter("always")
        out = compiled(x, calls)
    messages = [str(w.message) for w in caught if "CUDA graph" in str(w.message)]
    assert len(messages) == 1, messages
    assert re.fullmatch(r"solder: graph at test_training\.py:\d+ runs without a CUDA graph: "
                        r"it writes \w*calls\w* in place, not a parameter or buffer",
                        messages[0]), messages[0]
    assert calls.item() == 1
    with torch.no_grad():
        assert_matches(out, torch.relu(model.conv(x)))


def test_cudagraphs_wiring(monkeypatch):
    """What the backend hands PyTorch's graph trees (recorded here in
    their place, on the CPU): a training step's forward with the module's
    parameters and buffers static and the running statistics among the
    inputs it writes, then its backward; a grad-mode graph with no
    gradient to compute, and a call under no_grad, as inference graphs."""
    recorded = []

    def record(api, run, graph, inputs, static, written, device_index, is_backward,
               is_inference):
        recorded.append((len(inputs), set(static), set(written), is_backward, is_inference))
        return run

    from torch._inductor.utils import count_tangents
    monkeypatch.setattr(backend, "_cudagraph_api", lambda: types.SimpleNamespace(
        get_device_index=lambda graph: 0, count_tangents=count_tangents))
    monkeypatch.setattr(backend, "_cudagraph_refusal", lambda api, graph, written: None)
    monkeypatch.setattr(backend, "_cudagraphified", record)
    torch.manual_seed(3)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8),
                                torch.nn.ReLU()).train()
    eager = copy.deepcopy(model)
    x = torch.randn(2, 3, 10, 10)
    compiled = torch.compile(model, backend="solder", options={"cudagraphs": True})
    out, gradients = _step(compiled, x)
    _, eager_gradients = _step(eager, x)
    for name, gradient in gradients.items():
        torch.testing.assert_close(gradient, eager_gradients[name], rtol=1e-4, atol=1e-5)
    (count, static, written, *forward), (_, saved, _, *backward) = recorded
    # conv weight and bias, norm weight and bias, three buffers: static;
    # the running mean, variance and num_batches_tracked written
    assert len(static) == 7 and count == 8 and len(written) == 3 and written <= static
    assert forward == [False, False] and backward == [True, False] and saved
    recorded.clear()
    with torch.no_grad():
        compiled(x)
    ((count, static, written, *inference),) = recorded
    assert (count, len(static), len(written), inference) == (8, 7, 3, [False, True])
    recorded.clear()
    torch._dynamo.reset()
    detached = torch.compile(lambda x: model(x).detach(), backend="solder",
                             options={"cudagraphs": True})
    detached(x.clone().requires_grad_())
    assert [call[3:] for call in recorded] == [(False, True)], recorded
