# -*- Python -*-
# lit configuration of Solder's tests.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SOLDER"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.solder_obj_root, "test")
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "gpu", "python"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%solder_src", config.solder_src_root))
config.substitutions.append(("%solder_obj", config.solder_obj_root))
config.substitutions.append(("%python", config.python_executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

tool_dirs = [config.solder_tools_dir, config.llvm_tools_dir]
tools = ["solder-opt", "solder-interp", "solder-run", "solder-compile", "solder-translate"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The sanitizer build (ASan + UBSan tools).
if config.solder_sanitized.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("solder-sanitized")

# Whether a CUDA driver is present: tests of the no-GPU path need its absence.
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# nvcc for the tests that compile generated CUDA (no GPU needed).
import shutil
nvcc = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if os.path.exists("/usr/local/cuda/bin/nvcc") else None)
if nvcc:
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))

# A C++ compiler with AddressSanitizer for the generated kernels run on the
# host (Codegen/host-*.test).
import subprocess
import tempfile
clangxx = shutil.which("clang++", path=config.llvm_tools_dir) or shutil.which("clang++")
if clangxx:
    with tempfile.TemporaryDirectory() as scratch:
        probe = os.path.join(scratch, "probe.cpp")
        with open(probe, "w") as f:
            f.write("#include <barrier>\nint main() { std::barrier b(1); b.arrive_and_wait(); }\n")
        linked = subprocess.run(
            [clangxx, "-std=c++20", "-pthread", "-fsanitize=address", probe,
             "-o", os.path.join(scratch, "probe")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    if linked:
        config.available_features.add("clangxx")
        config.substitutions.append(("%clangxx", clangxx))
