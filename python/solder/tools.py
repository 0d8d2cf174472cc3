"""Finding the Solder tools and the runtime library.

Looked up, in order: the folder named by ``SOLDER_BIN_DIR``; the package's
own ``bin`` (``pip install .`` puts the tools there); ``PATH``; the
``build/bin`` of the source tree this package sits in. The runtime library is
``../lib/libsolder_runtime.so`` beside the folder the tools were found in.
"""

import functools
import hashlib
import json
import linecache
import os
import re
import shutil
import subprocess
from pathlib import Path

from .errors import SolderError, ToolNotFound, UnsupportedOperation, located

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
    """Runs a tool; on failure raises tool_error(...) of its diagnostics."""
    command = [str(find_tool(name))] + [str(a) for a in args]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        details = (result.stderr.strip() or result.stdout.strip()
                   or f"exit status {result.returncode}")
        raise tool_error(details, what)
    return result


# 'model.py:12:1: error: ...' as MLIR prints a located diagnostic.
_DIAGNOSTIC = re.compile(r"^(.+?):(\d+):(\d+): (error|note): (.*)$")
_NODES = re.compile(r"in ATen nodes? ((?:'[^']+'(?:, )?)+)$")


def tool_error(details, what):
    """The error for a tool's diagnostics ``details``: the first error's
    reason and the user's file:line on the first line, then the line's code,
    then what ran and all it printed. An error located at ATen nodes (the
    importer's locations) is an UnsupportedOperation whose ``node_names``
    list them, so the torch.compile backend can leave those nodes alone to
    eager."""
    lines = details.splitlines()
    diagnostics = [_DIAGNOSTIC.match(line) for line in lines]
    errors = [m for m in diagnostics if m and m.group(4) == "error"]
    first = errors[0] if errors else None
    nodes = []
    for match in diagnostics:
        found = match and match.group(4) == "note" and _NODES.search(match.group(5))
        if found:
            nodes = re.findall(r"'([^']+)'", found.group(1))
            break
    if first is None:
        reason = next((line.split("error: ", 1)[1] for line in lines
                       if line.startswith("error: ") or ": error: " in line),
                      lines[0] if lines else "no output")
        return SolderError(f"{what} failed: {reason}" +
                           (f"\n{details}" if len(lines) > 1 else ""))
    file, line, reason = first.group(1), int(first.group(2)), first.group(5)
    if file.endswith(".mlir"):  # the IR Solder wrote, not the user's source
        message = f"{what} failed: {reason}"
    else:
        message = located(reason, file, line, linecache.getline(file, line).strip())
    message += f"\n  {what} printed:\n" + "\n".join("    " + text for text in lines)
    if not nodes:
        return SolderError(message)
    error = UnsupportedOperation(message)
    error.node_names = nodes
    return error


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


def compiler_config():
    """solder-compile --print-config of the solder-compile found: its
    device templates, CUTLASS and nvcc, version and the archs it plans for
    ("portable_archs")."""
    compiler = find_tool("solder-compile")
    stat = os.stat(compiler)
    return _compiler_config(str(compiler), stat.st_size, stat.st_mtime_ns,
                            os.environ.get("SOLDER_NVCC"), os.environ.get("PATH"))


def compiler_fingerprint():
    """What, besides the IR and options, decides a bundle's contents: the
    solder-compile binary, the device templates it includes and nvcc. The
    tools run once per process; files are hashed again only when they change."""
    config = compiler_config()
    parts = {"solder-compile": file_digest(find_tool("solder-compile")), "config": config}
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
