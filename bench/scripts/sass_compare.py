"""Compares the SASS of two trees of generated kernels (no GPU needed): for
each NAME.cu present in both (e.g. test/Codegen/golden/expected before and
after a change), compiles both for sm_90 against their own device headers
and prints, per kernel, whether the instructions are the same sequence, the
same multiset in another order, or which opcodes differ, with registers,
stack and local memory. A refactor of the code generator or of the device
templates shows here that the kernels still do the same work.

    python3 bench/scripts/sass_compare.py --old-root OLD_CHECKOUT OLD_DIR NEW_DIR [GLOB...]

OLD_CHECKOUT is a source tree whose runtime/device the old kernels include
(e.g. `git worktree add /tmp/solder-old HEAD`); the new kernels include this
tree's. GLOBs select files relative to the dirs (default: every .cu).
Exit status 1 when any kernel's opcode multiset or resources differ.
"""

import argparse
import collections
import concurrent.futures
import fnmatch
import hashlib
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def tool(name):
    """cuobjdump from the CUDA toolkit, else the copy Triton's wheel ships."""
    for directory in [os.environ.get("CUDA_HOME", "/usr/local/cuda") + "/bin"] + [
        str(p) for p in ROOT.glob(".venv/lib/python*/site-packages/triton/backends/nvidia/bin")
    ]:
        path = pathlib.Path(directory) / name
        if path.exists():
            return str(path)
    sys.exit(f"sass_compare: {name} not found (CUDA toolkit or .venv's triton)")


def tree_digest(root):
    """The device headers' contents: a cached cubin is valid only for them."""
    digest = hashlib.sha256()
    for path in sorted(pathlib.Path(root, "runtime/device").rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def compile_cubin(source, device_root, cache, headers):
    text = pathlib.Path(source).read_bytes()
    key = hashlib.sha256(text + headers.encode()).hexdigest()[:20]
    cubin = cache / f"{key}.cubin"
    if not cubin.exists():
        subprocess.run(
            ["nvcc", "-std=c++17", "-O3", "-I", f"{device_root}/runtime/device",
             "-I", str(ROOT / "third_party/cutlass/include"), "--expt-relaxed-constexpr",
             "-cubin", "-arch", "sm_90", str(source), "-o", str(cubin)],
            check=True)
    return cubin


def kernels(cubin, cuobjdump):
    """{kernel: (instructions, resources)} of a cubin."""
    sass = subprocess.run([cuobjdump, "-sass", str(cubin)], check=True,
                          capture_output=True, text=True).stdout
    usage = subprocess.run([cuobjdump, "-res-usage", str(cubin)], check=True,
                           capture_output=True, text=True).stdout
    result = {}
    for block in re.split(r"^\s+Function : ", sass, flags=re.M)[1:]:
        name, body = block.split("\n", 1)
        instructions = []
        for line in body.splitlines():
            match = re.match(r"\s+/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;", line)
            if match:
                instruction = match.group(1)
                opcode = re.sub(r"^@!?U?P\w+\s+", "", instruction).split()[0]
                if opcode != "NOP":
                    instructions.append(instruction)
        result[name.strip()] = [instructions, {}]
    for name, fields in re.findall(r"Function (\S+):\n\s+(REG:.*)", usage):
        if name in result:
            result[name][1] = dict(re.findall(r"(REG|STACK|LOCAL|SHARED):(\d+)", fields))
    return result


def opcodes(instructions):
    return collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", i).split()[0] for i in instructions)


def strip_registers(instruction):
    return re.sub(r"\bU?R\d+\b|\bU?P\d+\b|0x[0-9a-f]+", "_", instruction)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old-root", required=True)
    parser.add_argument("--cache", default="/tmp/solder-sass-cache")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument("old_dir")
    parser.add_argument("new_dir")
    parser.add_argument("globs", nargs="*", default=["*.cu", "*/*.cu"])
    args = parser.parse_args()
    cache = pathlib.Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    cuobjdump = tool("cuobjdump")
    old_dir, new_dir = pathlib.Path(args.old_dir), pathlib.Path(args.new_dir)
    old_headers, new_headers = tree_digest(args.old_root), tree_digest(ROOT)
    names = sorted({str(p.relative_to(new_dir)) for g in args.globs for p in new_dir.glob(g)
                    if (old_dir / p.relative_to(new_dir)).exists()})
    if not names:
        sys.exit("sass_compare: no file in both trees")
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for name in names:
            jobs.append((name,
                         pool.submit(compile_cubin, old_dir / name, pathlib.Path(args.old_root), cache,
                                     old_headers),
                         pool.submit(compile_cubin, new_dir / name, ROOT, cache, new_headers)))
        differs = 0
        for name, old_job, new_job in jobs:
            old, new = kernels(old_job.result(), cuobjdump), kernels(new_job.result(), cuobjdump)
            for kernel in sorted(set(old) | set(new)):
                if kernel not in old or kernel not in new:
                    print(f"{name} {kernel}: only in {'new' if kernel in new else 'old'}")
                    differs += 1
                    continue
                (a, ra), (b, rb) = old[kernel], new[kernel]
                resources = "" if ra == rb else f"; resources {ra} -> {rb}"
                if a == b:
                    verdict = "same SASS"
                elif [strip_registers(i) for i in a] == [strip_registers(i) for i in b]:
                    verdict = "same instructions, other registers or constants"
                elif opcodes(a) == opcodes(b):
                    verdict = f"same opcodes ({len(a)}), another order"
                else:
                    diff = opcodes(b)
                    diff.subtract(opcodes(a))
                    changed = ", ".join(f"{op} {n:+d}" for op, n in sorted(diff.items()) if n)
                    verdict = f"DIFFERENT: {len(a)} -> {len(b)} instructions ({changed})"
                    differs += 1
                if ra.get("STACK") != rb.get("STACK") or ra.get("LOCAL") != rb.get("LOCAL"):
                    differs += 1
                print(f"{name} {kernel}: {verdict}{resources}")
    sys.exit(1 if differs else 0)


if __name__ == "__main__":
    main()
