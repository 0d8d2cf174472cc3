"""Whole models through torch.compile(backend="solder") on the CPU (the
reference interpreter), each subgraph through the CUDA code generator first
(codegen_on_cpu): the catalog's models (test/models/catalog.py) at small
sizes, compared with PyTorch in float64, and exactly the ops the catalog says
the code generator still leaves to eager ran eagerly; every kind of op the
catalog lists for the model (conv, norm, activation, add, pool, permute,
Linear) ran in Solder.
"""

import sys
from pathlib import Path

import pytest
import torch

import solder.backend as backend

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import catalog  # noqa: E402

from test_frontend import assert_matches  # noqa: E402


pytestmark = pytest.mark.usefixtures("fresh_dynamo")


SMALL = [name for name, (_, _, small) in catalog.MODELS.items() if small is not None]


@pytest.mark.parametrize("name", SMALL)
@pytest.mark.filterwarnings("ignore::solder.SolderWarning")
def test_model_through_the_backend(name, codegen_on_cpu):
    model, x = catalog.make(name, "small", seed=3)
    with torch.no_grad():
        out = torch.compile(model, backend="solder")(x)
        expected = __import__("copy").deepcopy(model).double()(x.double())
    assert_matches(out, expected)
    eager, compiled = {}, []
    for _, report in backend.reports:
        eager.update(report.eager_ops)
        compiled += report.compiled_ops
    assert eager == catalog.EAGER[name], eager
    assert catalog.IN_SOLDER[name] <= set(compiled), sorted(compiled)
