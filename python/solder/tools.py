"""Finding the Solder tools and the runtime library.

Looked up, in order: the folder named by ``SOLDER_BIN_DIR``; the package's
own ``bin`` (``pip install .`` puts the tools there); ``PATH``; the
``build/bin`` of the source tree this package sits in. The runtime library is
``../lib/libsolder_runtime.so`` beside the folder the tools were found in.
"""

import functools
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

from .errors import SolderError, ToolNotFound

ENV_VAR = "SOLDER_BIN_DIR"
_PACKAGE_BIN = Path(__file__).resolve().parent / "bin"
_SOURCE_BUILD = Path(__file__).resolve().parent.parent.parent / "build" / "bin"


def _candidates(name):
    if os.environ.get(ENV_VAR):
        yield Path(os.environ[ENV_VAR]) / name
        return  # an explicit choice is not second-guessed
    yield _PACKAGE_BIN / name
    found = shutil.which(name)
    if found:
        yield Path(found)
    yield _SOURCE_BUILD / name


def find_tool(name):
    """The path of the Solder tool ``name`` (solder-compile, solder-interp,
    solder-run)."""
    for path in _candidates(name):
        if path.is_file() and os.access(path, os.X_OK):
            return path
    where = (f"{ENV_VAR}={os.environ[ENV_VAR]} has no {name}"
             if os.environ.get(ENV_VAR) else f"{name} is not on PATH")
    raise ToolNotFound(
        f"cannot find the Solder tool '{name}' ({where}): build Solder "
        f"(./scripts/run_main.sh) and set {ENV_VAR} to its build/bin folder")


def find_runtime_library():
    """libsolder_runtime.so, beside the tools."""
    searched = []
    for tool in ("solder-run", "solder-compile"):
        for path in _candidates(tool):
            library = path.resolve().parent.parent / "lib" / "libsolder_runtime.so"
            searched.append(str(library))
            if library.is_file():
                return library
    raise ToolNotFound(
        "cannot find libsolder_runtime.so (looked at "
        + ", ".join(dict.fromkeys(searched)) + f"): build Solder with CUDA and "
        f"set {ENV_VAR} to the bin folder beside its lib folder")


def run_tool(name, args, what):
    """Runs a tool; raises SolderError with its diagnostics on failure."""
    command = [str(find_tool(name))] + [str(a) for a in args]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        details = (result.stderr.strip() or result.stdout.strip()
                   or f"exit status {result.returncode}")
        raise SolderError(f"{what} failed:\n{details}")
    return result


@functools.lru_cache(maxsize=None)
def _file_digest(path, size, mtime):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digest(path):
    stat = os.stat(path)
    return _file_digest(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=None)
def _compiler_config(compiler, size, mtime, nvcc_env, path_env):
    """solder-compile --print-config, run once per binary and environment
    (the nvcc it picks depends on SOLDER_NVCC and PATH)."""
    return json.loads(run_tool("solder-compile", ["--print-config"],
                               "solder-compile --print-config").stdout)


@functools.lru_cache(maxsize=None)
def _nvcc_version(nvcc, size, mtime):
    try:
        return subprocess.run([nvcc, "--version"], capture_output=True,
                              text=True).stdout.strip().splitlines()[-1:]
    except OSError:
        return None


def compiler_fingerprint():
    """What, besides the IR and options, decides a bundle's contents: the
    solder-compile binary, the device templates it includes and nvcc. The
    tools run once per process; files are hashed again only when they change."""
    compiler = find_tool("solder-compile")
    stat = os.stat(compiler)
    config = _compiler_config(str(compiler), stat.st_size, stat.st_mtime_ns,
                              os.environ.get("SOLDER_NVCC"), os.environ.get("PATH"))
    parts = {"solder-compile": file_digest(compiler), "config": config}
    include = Path(config.get("device_include") or "")
    if include.is_dir():
        # Every template, in the folders by role too (conv/, epilogue/, ...).
        parts["device"] = {str(p.relative_to(include)): file_digest(p)
                           for p in sorted((include / "solder").rglob("*")) if p.is_file()}
    nvcc = config.get("nvcc")
    if nvcc:
        try:
            nvcc_stat = os.stat(nvcc)
            parts["nvcc"] = _nvcc_version(nvcc, nvcc_stat.st_size, nvcc_stat.st_mtime_ns)
        except OSError:
            parts["nvcc"] = None
    return parts
