"""Solder's Python front end.

    import solder
    fast = solder.compile(model, example_inputs)   # a drop-in for model
    out = fast(x)

solder.import_module turns an nn.Module into solder IR (torch.export, ATen);
solder.compile builds a bundle (cached) and returns a callable that runs it
on torch's CUDA tensors, or on the reference interpreter with backend='cpu';
solder.export writes a bundle for another machine and solder.load runs it.
The tools are found through SOLDER_BIN_DIR, the installed package's own bin,
PATH, or this source tree's build. torch.compile(model, backend="solder") runs
Solder's subgraphs and leaves the rest to eager (solder.backend).
"""

import torch as _torch

# The importer relies on torch.export's ATen graphs as 2.11 writes them:
# torch 2.6 exports dynamo's graphs not at all and functionalizes aliased
# in-place ops differently (wrong results), so older versions are refused.
MINIMUM_TORCH = (2, 11)
if tuple(int(p) for p in _torch.__version__.split("+")[0].split(".")[:2]) < MINIMUM_TORCH:
    raise ImportError(f"Solder needs PyTorch {'.'.join(map(str, MINIMUM_TORCH))} or "
                      f"newer; this is {_torch.__version__}")

from .api import CompiledModule, cache_dir, compile, export, load  # noqa: E402
from .errors import SolderError, SolderWarning, ToolNotFound, UnsupportedOperation  # noqa: E402
from .importer import ImportedModule, import_module  # noqa: E402

__version__ = "0.1.0"
__all__ = ["compile", "export", "load", "import_module", "CompiledModule",
           "ImportedModule", "SolderError", "SolderWarning", "ToolNotFound",
           "UnsupportedOperation", "cache_dir"]


def _register_dynamo_backend():
    """torch.compile(model, backend="solder"): an installed package is found
    through its torch_dynamo_backends entry point; from a source tree,
    importing solder registers it."""
    from importlib.metadata import entry_points
    if any(ep.name == "solder" for ep in entry_points(group="torch_dynamo_backends")):
        return
    from torch._dynamo import register_backend
    from .backend import solder_backend
    try:
        register_backend(solder_backend, name="solder")
    except AssertionError:  # registered already (a reload)
        pass


_register_dynamo_backend()
