"""pip install . into a fresh virtual environment: the package finds its own
tools, runtime, device templates and CUTLASS headers without environment
variables, and torch finds the backend through its entry point.

The fresh environment sees the project's .venv packages (torch, numpy,
scikit-build-core) through a .pth file, so the install builds Solder
(--no-build-isolation) without downloading anything; the build directory
(build-pip) is kept, so a second run rebuilds only what changed, and
ccache gives the first build/'s objects.
"""

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    assert result.returncode == 0, (
        f"{' '.join(map(str, command))} failed ({result.returncode}):\n"
        f"{result.stdout[-4000:]}\n{result.stderr[-4000:]}")
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    venv = tmp_path_factory.mktemp("venv")
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    python = venv / "bin" / "python"
    site = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                     "['purelib'])"]).stdout.strip())
    (site / "solder-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
         "--no-build-isolation", "--no-deps", str(ROOT)], timeout=1800)
    # Nothing of the source tree: another directory, no SOLDER_BIN_DIR, and
    # the tree's build/bin not on PATH.
    env = {k: v for k, v in os.environ.items()
           if k not in ("SOLDER_BIN_DIR", "PYTHONPATH", "SOLDER_CUTLASS_INCLUDE")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if "build" not in p)
    env["SOLDER_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))
    cwd = tmp_path_factory.mktemp("elsewhere")
    return python, site / "solder", env, cwd


def test_package_finds_its_tools(installed):
    python, package, env, cwd = installed
    script = ("import json, solder, solder.tools as t;"
              "print(json.dumps([str(t.find_tool('solder-compile')),"
              " str(t.find_runtime_library()), solder.__file__,"
              " json.loads(t.run_tool('solder-compile', ['--print-config'], 'x').stdout)]))")
    tool, library, module, config = json.loads(
        run([str(python), "-c", script], env=env, cwd=cwd).stdout)
    assert tool == str(package / "bin" / "solder-compile")
    assert library == str(package / "lib" / "libsolder_runtime.so")
    assert module == str(package / "__init__.py")
    assert config["device_include"] == str(package / "share" / "solder" / "device")
    assert config["cutlass_include"] == str(package / "share" / "solder" / "cutlass" /
                                            "include")
    for tool in ("solder-opt", "solder-interp", "solder-translate", "solder-run"):
        assert (package / "bin" / tool).is_file(), tool
    assert not list((package / "lib").glob("*.a")), "MLIR archives in the wheel"


def test_compile_and_backend_from_the_install(installed):
    """solder.compile on the interpreter, and torch.compile(backend="solder")
    in a process that never imports solder itself (the entry point)."""
    python, _, env, cwd = installed
    script = """
import torch, torch.nn as nn
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.norm = nn.GroupNorm(2, 8)
    def forward(self, x):
        return torch.tanh(self.norm(self.conv(x))).mean(dim=(2, 3))
m, x = M().eval(), torch.randn(2, 3, 8, 8)
with torch.no_grad():
    out = torch.compile(m, backend="solder")(x)
    ref = m.double()(x.double())
import sys
assert "solder" in sys.modules, "the entry point did not load solder"
print(((out.double() - ref).norm() / ref.norm()).item())
"""
    error = float(run([str(python), "-c", script], env=env, cwd=cwd).stdout.split()[-1])
    assert error <= 1e-5
