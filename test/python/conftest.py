"""Shared fixtures of the Python tests: where the Solder binaries are, and a
random generator seeded per test case."""

import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

# The solder Python package of this source tree (python/solder), and the
# models and checks the tests share (test/models).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "models"))

# ctest sets SOLDER_BIN_DIR; otherwise the binaries of the in-tree build.
BIN_DIR = Path(
    os.environ.get(
        "SOLDER_BIN_DIR",
        Path(__file__).resolve().parent.parent.parent / "build" / "bin",
    )
)


def solder_tool(name):
    path = BIN_DIR / name
    if not path.is_file():
        pytest.fail(f"{path} not found: build Solder or set SOLDER_BIN_DIR")
    return path


# Models whose cases the sanitizer build (SOLDER_SANITIZED=1, set by
# test/CMakeLists.txt) leaves to the plain build: ResNet-50 takes Solder
# through the ops, fusions and plans of ResNet-18 and the smaller blocks
# that both builds run, at three times their time under the sanitizers.
PLAIN_BUILD_ONLY = {"resnet50"}


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("SOLDER_SANITIZED"):
        return
    skip = pytest.mark.skip(reason="the plain build runs it (PLAIN_BUILD_ONLY)")
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and callspec.params.get("name") in PLAIN_BUILD_ONLY:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def preservable_ops_collected_once():
    """torch.export's run_decompositions({}) walks the dispatcher for the
    CompositeImplicitAutograd ops it keeps whole on every call: a quarter of
    a one-op module's export (0.52 -> 0.39 s an OpInfo sample), and the
    suites export thousands of them. PyTorch leaves it uncached because a
    custom op may be registered later; no test registers one, so the tests
    collect the set once (Solder itself keeps PyTorch's behavior)."""
    import functools

    import torch.export.exported_program as exported_program

    collect = getattr(exported_program, "_collect_all_valid_cia_ops", None)
    if collect is None:  # another PyTorch: nothing to cache
        yield
        return
    collected = functools.lru_cache(maxsize=1)(lambda: frozenset(collect()))
    with pytest.MonkeyPatch.context() as patch:
        # A fresh set each call: run_decompositions removes from it.
        patch.setattr(exported_program, "_collect_all_valid_cia_ops",
                      lambda: set(collected()))
        yield


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name and parameters: reproducible
    from run to run, different from case to case."""
    key = f"{request.node.module.__name__}::{request.node.name}"
    return np.random.default_rng(zlib.crc32(key.encode()))


class Solder:
    """Runs solder-interp and solder-opt on files under one test's tmp_path."""

    def __init__(self, tmp_path):
        self.tmp_path = tmp_path
        self.count = 0

    def _fresh(self, stem):
        self.count += 1
        return self.tmp_path / f"{stem}{self.count}"

    def write_mlir(self, text, stem="case"):
        path = self._fresh(stem).with_suffix(".mlir")
        path.write_text(text)
        return path

    def save_inputs(self, arrays):
        """Saves each array as float64 .npy; returns the paths."""
        paths = []
        for index, array in enumerate(arrays):
            path = self._fresh(f"input{index}_").with_suffix(".npy")
            np.save(path, np.asarray(array, dtype=np.float64))
            paths.append(path)
        return paths

    def run_interp(self, mlir_path, input_paths, output_dir=None, extra=()):
        command = [str(solder_tool("solder-interp")), str(mlir_path),
                   "--inputs=" + ",".join(str(p) for p in input_paths)]
        if output_dir is not None:
            command.append(f"--output-dir={output_dir}")
        command += list(extra)
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=300)

    def interpret(self, mlir_text, inputs, function=None, extra=()):
        """Runs the first (or the named) function on `inputs`; returns its
        outputs as float64 arrays."""
        mlir_path = self.write_mlir(mlir_text)
        return self.interpret_file(mlir_path, inputs, function, extra)

    def interpret_file(self, mlir_path, inputs, function=None, extra=()):
        output_dir = self._fresh("outputs")
        args = list(extra)
        if function is not None:
            args.append(f"--function={function}")
        result = self.run_interp(mlir_path, self.save_inputs(inputs),
                                 output_dir, args)
        assert result.returncode == 0, (
            f"solder-interp failed ({result.returncode}):\n{result.stderr}")
        outputs = []
        while (output_dir / f"output{len(outputs)}.npy").exists():
            outputs.append(np.load(output_dir / f"output{len(outputs)}.npy"))
        assert outputs, f"solder-interp wrote no output in {output_dir}"
        return outputs

    def pipeline(self, mlir_text):
        """Runs solder-opt --solder-pipeline; returns the output file."""
        source = self.write_mlir(mlir_text, "source")
        target = self._fresh("pipelined").with_suffix(".mlir")
        result = subprocess.run(
            [str(solder_tool("solder-opt")), str(source), "--solder-pipeline",
             "-o", str(target)],
            capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, (
            f"solder-opt --solder-pipeline failed:\n{result.stderr}")
        return target


@pytest.fixture
def solder(tmp_path):
    return Solder(tmp_path)


@pytest.fixture
def codegen_on_cpu(monkeypatch):
    """torch.compile(backend="solder") on CPU tensors runs its subgraphs on
    the reference interpreter; with this fixture each subgraph first goes
    through solder-compile --emit-cuda-only, as a CUDA one would, so the CUDA
    code generator's refusals send their ops to eager here too."""
    import solder.backend as backend
    from compare import through_cuda_codegen
    compile_subgraph = backend._compile_subgraph

    def through_codegen(subgraph, precision, force):
        through_cuda_codegen(subgraph.imported.mlir)
        return compile_subgraph(subgraph, precision, force)

    monkeypatch.setattr(backend, "_compile_subgraph", through_codegen)


@pytest.fixture
def fresh_dynamo(tmp_path, monkeypatch):
    """torch.compile from scratch: dynamo's caches reset, the backend's
    reports cleared, and Solder's compile cache in the test's tmp_path."""
    import torch
    import solder.backend as backend
    monkeypatch.setenv("SOLDER_CACHE_DIR", str(tmp_path / "cache"))
    torch._dynamo.reset()
    backend.reports.clear()
    yield
    torch._dynamo.reset()
