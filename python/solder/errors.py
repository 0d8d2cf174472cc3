"""Solder's Python exceptions."""

import os


class SolderError(RuntimeError):
    """A Solder step failed: import, compile, load or run. The message says
    which and why."""


class UnsupportedOperation(SolderError):
    """The module uses an op Solder cannot compile; the message names it and
    the source line that called it. ``node_names`` lists the ATen nodes the
    refusal concerns, where known (the torch.compile backend runs just those
    eagerly)."""

    node_names = ()


def located(message, file, line, code):
    """``message`` with the user's line: ' (model.py:12)' ending its first
    line, then '  at /path/model.py:12: code' on the next."""
    return f"{message} ({os.path.basename(file)}:{line})\n  at {file}:{line}: {code}"


class ToolNotFound(SolderError):
    """A Solder tool or the runtime library was not found."""


class SolderWarning(UserWarning):
    """Part of a model ran in eager PyTorch, not in Solder: the message says
    which ops and why."""
