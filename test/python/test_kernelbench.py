"""The KernelBench-style chains (test/models/kernelbench.py) through
torch.compile(backend="solder") on the CPU, each subgraph through the CUDA
code generator first (codegen_on_cpu): every chain matches PyTorch in
float64, its head (conv, conv_transpose or Linear) runs in Solder, and exactly
the ops kernelbench.EAGER names, for the reasons it gives, are left to eager.
"""

import copy
import sys
from pathlib import Path

import pytest
import torch

import solder.backend as backend

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import kernelbench  # noqa: E402

from test_frontend import assert_matches  # noqa: E402


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


HEADS = {"conv1d", "conv2d", "conv3d", "conv_transpose2d", "conv_transpose3d", "linear", "matmul"}


@pytest.mark.parametrize("name", list(kernelbench.CHAINS))
@pytest.mark.filterwarnings("ignore::solder.SolderWarning")
def test_chain_through_the_backend(name, codegen_on_cpu):
    model, inputs = kernelbench.make(name, "small", seed=3)
    with torch.no_grad():
        out = torch.compile(model, backend="solder")(*inputs)
        expected = copy.deepcopy(model).double()(*(x.double() for x in inputs))
    assert_matches(out, expected)
    eager, compiled, whole = {}, [], []
    for _, report in backend.reports:
        eager.update(report.eager_ops)
        compiled += report.compiled_ops
        whole += [what for what, _, _ in report.fallbacks if what.startswith("subgraph")]
    assert not whole, f"subgraphs left to eager: {whole}"
    assert set(eager) == set(kernelbench.EAGER.get(name, {})), eager
    for op, reason in kernelbench.EAGER.get(name, {}).items():
        assert eager[op].startswith(reason), eager[op]
    assert HEADS & set(compiled), sorted(compiled)


def test_catalog_covers_the_kernelbench_families():
    """At least 60 chains, over every head and the tails the issue names."""
    assert len(kernelbench.CHAINS) >= 60
    names = " ".join(kernelbench.CHAINS)
    for family in ("conv1d", "conv2d", "conv3d", "convt2d", "convt3d", "gemm", "matmul", "softmax",
                   "logsumexp", "groupnorm", "batchnorm", "instancenorm", "layernorm",
                   "maxpool", "avgpool", "globalavgpool", "residual", "min", "max"):
        assert family in names, family
    assert any(len(shapes) > 1 for _, shapes, _ in kernelbench.CHAINS.values())
