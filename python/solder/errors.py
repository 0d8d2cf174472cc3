"""Solder's Python exceptions."""


class SolderError(RuntimeError):
    """A Solder step failed: import, compile, load or run. The message says
    which and why."""


class UnsupportedOperation(SolderError):
    """The module uses an op the solder dialect does not have; the message
    names it and the source line that called it."""


class ToolNotFound(SolderError):
    """A Solder tool or the runtime library was not found."""


class SolderWarning(UserWarning):
    """Part of a model ran in eager PyTorch, not in Solder: the message says
    which ops and why."""
