"""Writes the malformed .npy files of bad-npy.test into the folder argv[1]."""
import struct
import sys
from pathlib import Path


def npy(header, data=b"", version=1, length=None):
    header = header.encode()
    size = len(header) if length is None else length
    prefix = b"\x93NUMPY" + bytes([version, 0])
    prefix += struct.pack("<H", size) if version == 1 else struct.pack("<I", size)
    return prefix + header + data


out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
files = {
    # The case: a shape of 10^11 x 10^11 elements in a small file.
    "huge.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
                    b"\0" * 64),
    # A product that overflows 64 bits.
    "overflow.npy": npy("{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (999999999999999999, 999999999999999999, 99), }"),
    "negative.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-3, 2), }"),
    "garbage.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3x, 2), }"),
    "noparen.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': 7, }"),
    # A header length of 4 GB in a file of a few bytes (version 2 header).
    "longheader.npy": npy("{'descr': '<f4'}", version=2, length=0xFFFFFFF0),
    "truncated.npy": npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                         b"\0" * 20),
    "dtype.npy": npy("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", b"\0" * 16),
    "magic.npy": b"PK\x03\x04 not numpy",
    # Found by solder-npy-fuzzer: a newline inside a quoted header value.
    "newline.npy": npy("{'descr': '<f\n4', 'fortran_order': False, 'shape': (2,), }"),
}
for name, content in files.items():
    (out / name).write_bytes(content)
