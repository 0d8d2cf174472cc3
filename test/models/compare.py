"""What the CPU and GPU tests of the catalogs, the chain generator and the
OpInfo samples share to judge a chain: its error against float64, and a
pass through the CUDA code generator without nvcc."""

import tempfile
from pathlib import Path


def rel_l2(got, reference):
    """Relative L2 error of ``got`` against ``reference`` (on reference's
    device); absolute where the reference is all zeros (a chain such as
    clamp(min(x, 0), 0, 1) is zero everywhere), 0 for no element."""
    if reference.numel() == 0:
        return 0.0
    norm = reference.norm()
    return ((got.double().to(reference.device) - reference).norm()
            / (norm if norm > 0 else 1.0)).item()


def through_cuda_codegen(mlir, precisions=("ieee",)):
    """solder-compile --emit-cuda-only on imported ``mlir`` in each
    precision: what the CUDA code generator refuses raises here, as it
    would on a GPU."""
    from solder.api import _run_on_ir
    with tempfile.TemporaryDirectory() as directory:
        for precision in precisions:
            _run_on_ir(mlir, Path(directory), "solder-compile",
                       ["-o", directory, "--emit-cuda-only", f"--precision={precision}"],
                       "solder-compile")


def error_bound(floor, eager_error):
    """The error a chain may have: ``floor``, or 3x eager float32's own
    where that is larger (an ill-conditioned chain), but never past 1e-2,
    where a bound lifted by eager's error would pass a wrong answer."""
    return min(max(floor, 3 * eager_error), 1e-2)
