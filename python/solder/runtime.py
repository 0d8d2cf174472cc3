"""libsolder_runtime through ctypes: loads bundles and runs them on torch's
CUDA tensors and current stream."""

import array
import ctypes
import threading

from .errors import SolderError
from .tools import find_runtime_library

_lock = threading.Lock()
_library = None


def library():
    """The runtime library, loaded once."""
    global _library
    with _lock:
        if _library is None:
            path = find_runtime_library()
            try:
                lib = ctypes.CDLL(str(path))
            except OSError as error:
                raise SolderError(f"cannot load {path}: {error}") from error
            lib.solderLoadBundle.argtypes = [ctypes.c_char_p,
                                             ctypes.POINTER(ctypes.c_void_p)]
            lib.solderLoadBundle.restype = ctypes.c_int
            # The pointer arrays go as addresses (array.array buffers):
            # building a ctypes array of a ResNet-50's 268 pointers took
            # 3x as long.
            lib.solderRunVersioned.argtypes = [ctypes.c_void_p, ctypes.c_void_p,
                                               ctypes.c_void_p, ctypes.c_void_p,
                                               ctypes.c_void_p]
            lib.solderRunVersioned.restype = ctypes.c_int
            lib.solderResolveBundle.argtypes = [ctypes.c_char_p, ctypes.c_char_p,
                                                ctypes.c_size_t]
            lib.solderResolveBundle.restype = ctypes.c_int
            lib.solderFreeBundle.argtypes = [ctypes.c_void_p]
            lib.solderFreeBundle.restype = None
            lib.solderLastError.restype = ctypes.c_char_p
            _library = lib
        return _library


class LoadedBundle:
    """A bundle loaded onto the current CUDA context; freed with the object."""

    def __init__(self, path):
        self._lib = library()
        self._handle = None
        # A bundle of several archs: the folder of the one for this GPU,
        # which solderLoadBundle loads too.
        resolved = ctypes.create_string_buffer(4096)
        if self._lib.solderResolveBundle(str(path).encode(), resolved, len(resolved)) != 0:
            raise SolderError(f"loading bundle {path}: {self._last_error()}")
        self.path = resolved.value.decode()
        self._handle = ctypes.c_void_p()
        if self._lib.solderLoadBundle(self.path.encode(), ctypes.byref(self._handle)) != 0:
            self._handle = None
            raise SolderError(f"loading bundle {path}: {self._last_error()}")

    def _last_error(self):
        message = self._lib.solderLastError()
        return message.decode() if message else "unknown error"

    def run(self, inputs, outputs, stream, versions=None):
        """Launches the bundle on ``stream`` (a cudaStream_t as an int) with
        the device pointers of ``inputs`` and ``outputs`` (torch tensors).
        ``versions`` (an ``array.array("Q")`` an input, or None): what each
        input holds, 0 for "may have changed" (solderRunVersioned): the
        bundle's preparations from parameters whose pointer and version are
        those of the last call are skipped."""
        ins = array.array("Q", [t.data_ptr() for t in inputs])
        outs = array.array("Q", [t.data_ptr() for t in outputs])
        status = self._lib.solderRunVersioned(
            self._handle, ins.buffer_info()[0] if ins else None,
            outs.buffer_info()[0] if outs else None, stream,
            versions.buffer_info()[0] if versions else None)
        if status != 0:
            raise SolderError(f"running bundle {self.path}: {self._last_error()}")

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.solderFreeBundle(self._handle)
            self._handle = None
