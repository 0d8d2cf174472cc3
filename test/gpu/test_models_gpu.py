"""The model catalog (test/models/catalog.py) at full size on the GPU, through
torch.compile(backend="solder") in both precisions: compared with PyTorch in
float64, two calls bitwise equal, exactly the ops the catalog lists left to
eager, and every kind of op it lists for the model in Solder kernels. Run by
run_gpu_suite.sh's `models` stage (SOLDER_BIN_DIR set).

Tolerances: the relative L2 error against float64 may be at most the larger
of a floor (1e-5 ieee, 2e-3 tf32) and 4x that of eager PyTorch in the same
precision mode, since a 50-conv network's fp32 (or TF32) rounding grows with
its depth whichever library runs it.
"""

import copy
import os
import sys
from pathlib import Path

import pytest
import torch

import solder.backend as backend
from solder.bench import set_precision

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import catalog  # noqa: E402
from compare import rel_l2  # noqa: E402

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")

FLOOR = {"ieee": 1e-5, "tf32": 2e-3}
MODELS = os.environ.get("SOLDER_MODELS", ",".join(
    name for name, (_, full, _) in catalog.MODELS.items() if full is not None)).split(",")


@pytest.mark.parametrize("precision", ["ieee", "tf32"])
@pytest.mark.parametrize("name", MODELS)
@pytest.mark.filterwarnings("ignore::solder.SolderWarning")
def test_model(name, precision):
    torch._dynamo.reset()
    backend.reports.clear()
    set_precision(precision)
    model, x = catalog.make(name, "full", seed=int.from_bytes(os.urandom(2), "little"))
    model, x = model.cuda(), x.cuda()
    with torch.no_grad():
        reference = copy.deepcopy(model).double()(x.double())
        eager = model(x)
        compiled = torch.compile(model, backend="solder", options={"precision": precision})
        first = compiled(x).clone()
        second = compiled(x)
    torch.cuda.synchronize()
    eager_error, error = rel_l2(eager, reference), rel_l2(first, reference)
    bound = max(FLOOR[precision], 4 * eager_error)
    print(f"{name} {precision}: rel L2 {error:.2e} (eager {eager_error:.2e}, bound {bound:.1e})")
    assert torch.isfinite(first).all()
    assert error <= bound, f"rel L2 {error:.2e} > {bound:.2e}"
    assert torch.equal(first, second), "two calls differ"
    eager_ops, compiled = {}, set()
    for _, report in backend.reports:
        eager_ops.update(report.eager_ops)
        compiled.update(report.compiled_ops)
    assert eager_ops == catalog.EAGER[name], eager_ops
    assert catalog.IN_SOLDER[name] <= compiled, sorted(compiled)
