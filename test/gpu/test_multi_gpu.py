"""Compiled modules on a multi-GPU host (issue #8): a module on the second
GPU while another device is current, and two processes, one per GPU,
compiling the same chain at once into one shared bundle cache. Needs two
GPUs (the device tool's nvidia-h200-x2); skipped with fewer.

    SOLDER_BIN_DIR=build-gpu/bin PYTHONPATH=python python3 -m pytest test/gpu/test_multi_gpu.py
"""

import os
import subprocess
import sys

import pytest
import torch

import solder
from solder import workloads

pytestmark = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")
EAGER_TOL = 1e-4  # allclose against eager float32, TF32 off


@pytest.fixture(autouse=True)
def no_tf32():
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False


@pytest.mark.parametrize("name", ["w2_small", "w3"])
def test_module_on_the_second_gpu(name):
    """Compiled and called on cuda:1 while cuda:0 is the current device: the
    bundle loads and runs in cuda:1's context, the outputs land there."""
    torch.cuda.set_device(0)
    module, (x,) = workloads.make(name, small=True, device="cuda:1")
    compiled = solder.compile(module, (x,), quiet=True)
    assert torch.cuda.current_device() == 0
    with torch.no_grad():  # inference (in grad mode a call would train)
        expected = module(x)
        got = compiled(x)
        assert got.device == torch.device("cuda:1")
        assert torch.allclose(got, expected, atol=EAGER_TOL, rtol=EAGER_TOL)
        with pytest.raises(solder.SolderError,
                           match=r"is on cuda:0; the module was compiled for cuda:1"):
            compiled(x.to("cuda:0"))


WORKER = """
import sys, torch, solder
from solder import workloads
rank = int(sys.argv[1])
torch.backends.cudnn.allow_tf32 = False
torch.manual_seed(0)
device = f"cuda:{rank}"
module, (x,) = workloads.make("w2_small", device=device)
compiled = solder.compile(module, (x,), quiet=True)
with torch.no_grad():
    expected = module(x)
assert torch.allclose(compiled(x), expected, atol=1e-4, rtol=1e-4)
print("bundle", compiled.bundle)
"""


def test_two_processes_share_the_cache(tmp_path):
    """Two processes, one per GPU, compile the same chain at once into one
    fresh cache: both run correctly, from one entry, and no half-written
    entry is left (entries appear by rename; the loser of the race drops
    its copy)."""
    cache = tmp_path / "cache"
    env = dict(os.environ, SOLDER_CACHE_DIR=str(cache))
    processes = [subprocess.Popen([sys.executable, "-c", WORKER, str(rank)], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for rank in (0, 1)]
    outputs = [process.communicate(timeout=600)[0] for process in processes]
    for process, output in zip(processes, outputs):
        assert process.returncode == 0, output[-2000:]
    bundles = {line.split()[-1] for output in outputs for line in output.splitlines()
               if line.startswith("bundle ")}
    assert len(bundles) == 1, bundles
    entries = sorted(path.name for path in (cache / "bundles").iterdir())
    assert len(entries) == 1 and not entries[0].startswith(".tmp-"), entries
