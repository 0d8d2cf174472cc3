"""Shared fixtures of the Python tests: where the Solder binaries are, and a
random generator seeded per test case."""

import os
import zlib
from pathlib import Path

import numpy as np
import pytest

# ctest sets SOLDER_BIN_DIR; otherwise the binaries of the in-tree build.
BIN_DIR = Path(
    os.environ.get(
        "SOLDER_BIN_DIR",
        Path(__file__).resolve().parent.parent.parent / "build" / "bin",
    )
)


def solder_tool(name):
    path = BIN_DIR / name
    if not path.is_file():
        pytest.fail(f"{path} not found: build Solder or set SOLDER_BIN_DIR")
    return path


@pytest.fixture
def rng(request):
    """A generator seeded from the test's name and parameters: reproducible
    from run to run, different from case to case."""
    key = f"{request.node.module.__name__}::{request.node.name}"
    return np.random.default_rng(zlib.crc32(key.encode()))
