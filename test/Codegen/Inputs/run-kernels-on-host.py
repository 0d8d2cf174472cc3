"""Runs a bundle's generated kernels on the CPU and compares its outputs with
solder-interp's on the same random inputs. CI has no GPU; this executes the
emitted kernels: index math, chunking, bounds checks, block reductions,
the FMA conv main loops and their epilogues, finalize kernels. kernels.cu is
compiled as C++ against host/cuda_host_shim.h, and each launch of the
manifest runs block after block, a block's threads as fibers of one host
thread (barriers for __syncthreads and warp shuffles). Outputs and buffers
start as NaN (zeroed buffers as zeros), so an element no thread writes
shows up, and AddressSanitizer stops an access past a tensor's end.
Tensor-core main loops (inline PTX) stop the run with one line.

    run-kernels-on-host.py --cxx CLANG++ --interp SOLDER-INTERP --src ROOT
        [--positive I,...] [--offset I:V] [--seed S] BUNDLE WORKDIR

Prints one line per output: "ok|FAIL NAME: rel L2 E, max abs D, NaNs N".
"""

import argparse
import json
import math
import os
import random
import re
import struct
import subprocess
import sys

# rel L2 against the interpreter, as the GPU suite's bounds: fp32 accuracy
# for ieee, one TF32 product's for tf32.
TOLERANCE = {"ieee": 1e-5, "tf32": 1e-3}
# Blocks of a persistent launch (the runtime launches as many as the GPU
# holds at once).
PERSISTENT_BLOCKS = 3


def write_npy(path, shape, values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }" % (
        "".join(f"{d}, " for d in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(struct.pack(f"<{len(values)}f", *values))


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise SystemExit(f"run-kernels-on-host: {path} is not a .npy file")
    major = data[6]
    length_format, offset = ("<H", 8) if major == 1 else ("<I", 8)
    (length,) = struct.unpack_from(length_format, data, offset)
    start = offset + struct.calcsize(length_format) + length
    header = data[offset + struct.calcsize(length_format):start].decode("latin1")
    code = "f" if "'<f4'" in header else "d" if "'<f8'" in header else None
    if code is None:
        raise SystemExit(f"run-kernels-on-host: {path} is not float32 or float64")
    count = (len(data) - start) // struct.calcsize(code)
    return list(struct.unpack_from(f"<{count}{code}", data, start))


def read_floats(path, count):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) != 4 * count:
        raise SystemExit(f"run-kernels-on-host: {path} has {len(data)} bytes, "
                         f"expected {4 * count}")
    return list(struct.unpack(f"<{count}f", data))


def elements(spec):
    return math.prod(spec["shape"])


def permute_channels(values, spec, to_channels_last):
    """A tensor's values from (N, C, *spatial) order to the memory of its
    channels-last layout, or back: what the kernels take and store where
    the manifest says "layout": "channels_last"."""
    if spec.get("layout") != "channels_last":
        return values
    shape = spec["shape"]
    channels, volume = shape[1], elements(spec) // (shape[0] * shape[1])
    permuted = [0.0] * len(values)
    for n in range(shape[0]):
        for c in range(channels):
            for p in range(volume):
                first, last = (n * channels + c) * volume + p, (n * volume + p) * channels + c
                if to_channels_last:
                    permuted[last] = values[first]
                else:
                    permuted[first] = values[last]
    return permuted


def driver(manifest):
    """main(): reads the inputs, poisons outputs and buffers, runs each
    launch thread by thread, writes the outputs (raw float32)."""
    lines = ["#include <vector>", "#include <string>", "",
             "// Buffers are raw storage: a kernel may hand statistics over in double.",
             "struct AnyPointer {",
             "  void *p;",
             "  template <class T> operator T *() const { return static_cast<T *>(p); }",
             "};", "",
             "static std::vector<float> readRaw(const std::string &path, size_t count) {",
             "  std::vector<float> data(count);",
             "  FILE *file = std::fopen(path.c_str(), \"rb\");",
             "  if (!file || std::fread(data.data(), 4, count, file) != count) {",
             "    std::fprintf(stderr, \"cannot read %s\\n\", path.c_str());",
             "    std::exit(1);",
             "  }",
             "  std::fclose(file);",
             "  return data;",
             "}", "",
             "int main(int argc, char **argv) {",
             "  const std::string dir = argv[1];"]
    for i, spec in enumerate(manifest["inputs"]):
        lines.append(f"  std::vector<float> input{i} = readRaw(dir + \"/input{i}.bin\", "
                     f"{elements(spec)});")
    for i, spec in enumerate(manifest["outputs"]):
        lines.append(f"  std::vector<float> output{i}({elements(spec)}, NAN);")
    for i, spec in enumerate(manifest["buffers"]):
        fill = "0.0f" if spec.get("zeroed") else "NAN"
        lines.append(f"  std::vector<float> buffer{i}(({spec['bytes']} + 3) / 4, {fill});")
    for launch in manifest["launches"]:
        args = ", ".join(f"AnyPointer{{{arg['kind']}{arg['index']}.data()}}"
                         for arg in launch["args"])
        grid, block = list(launch["grid"]), launch["block"]
        # A persistent launch runs as on a GPU that holds three of its
        # blocks at once: each block then takes several tiles.
        if launch.get("persistent"):
            grid[0] = min(grid[0], PERSISTENT_BLOCKS)
        lines.append(f"  hostLaunch({{{grid[0]}u, {grid[1]}u, {grid[2]}u}}, "
                     f"{{{block[0]}u, {block[1]}u, {block[2]}u}}, "
                     f"{launch.get('shared_bytes', 0)}, [&] {{ {launch['kernel']}({args}); }});")
    for i, spec in enumerate(manifest["outputs"]):
        lines += [
            f"  FILE *out{i} = std::fopen((dir + \"/output{i}.bin\").c_str(), \"wb\");",
            f"  std::fwrite(output{i}.data(), 4, output{i}.size(), out{i});",
            f"  std::fclose(out{i});"]
    lines += ["  return 0;", "}", ""]
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--interp", required=True)
    parser.add_argument("--src", required=True, help="the repository root")
    parser.add_argument("--cuda-include", default="/usr/local/cuda/include")
    parser.add_argument("--positive", default="",
                        help="inputs drawn from [0.5, 1.5) (e.g. statistics), by index")
    parser.add_argument("--offset", default="",
                        help="I:V adds V to input I (statistics at a large mean)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("bundle")
    parser.add_argument("workdir")
    args = parser.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    manifest = json.load(open(os.path.join(args.bundle, "manifest.json")))
    positive = {int(i) for i in args.positive.split(",") if i}
    implicit_gemm = [launch["kernel"] for launch in manifest["launches"]
                     if launch.get("mainloop", "").startswith("tensorop")]
    if implicit_gemm:
        raise SystemExit(f"run-kernels-on-host: {manifest['entry']} runs CUTLASS's "
                         f"implicit GEMM ({', '.join(implicit_gemm)}), which needs a GPU")

    offsets = {int(i): float(v) for i, v in
               (item.split(":") for item in args.offset.split(",") if item)}
    generator = random.Random(args.seed)
    input_paths = []
    for i, spec in enumerate(manifest["inputs"]):
        low, high = (0.5, 1.5) if i in positive else (-1.0, 1.0)
        values = [generator.uniform(low, high) + offsets.get(i, 0.0)
                  for _ in range(elements(spec))]
        path = os.path.join(args.workdir, f"input{i}.npy")
        write_npy(path, spec["shape"], values)
        input_paths.append(path)
        stored = permute_channels(values, spec, True)
        with open(os.path.join(args.workdir, f"input{i}.bin"), "wb") as f:
            f.write(struct.pack(f"<{len(stored)}f", *stored))

    kernels = open(os.path.join(args.bundle, "kernels.cu")).read()
    # Dynamic shared memory is the shim's `shared` array.
    kernels = kernels.replace("extern __shared__ __align__(16) char shared[];",
                              "char *const shared = hostShared;")
    source = os.path.join(args.workdir, "host.cpp")
    with open(source, "w") as f:
        f.write('#include "cuda_host_shim.h"\n\n' + kernels + "\n" + driver(manifest))
    binary = os.path.join(args.workdir, "host")
    shim = os.path.join(os.path.dirname(os.path.abspath(__file__)), "host")
    # AddressSanitizer: a read or write past a tensor stops the run.
    # The main loops on arch/sm80.cuh (the direct conv on tensor cores, the
    # depthwise conv's cp.async): CUTLASS's types on the host, the warp's
    # mma.sync emulated and cp.async a copy (host/cuda_host_shim.h).
    cutlass = []
    arch_users = ("solder/conv/mainloop_direct_tensorop.cuh", "solder/conv/mainloop_depthwise.cuh")
    if any(header in kernels for header in arch_users):
        cccl = os.path.join(args.cuda_include, "cccl")
        if not os.path.isdir(cccl):
            raise SystemExit(f"run-kernels-on-host: {manifest['entry']} includes "
                             f"arch/sm80.cuh, which needs CUDA's headers ({cccl})")
        cutlass = ["-DSOLDER_HOST_CUTLASS", f"-I{os.path.join(args.src, 'third_party', 'cutlass', 'include')}",
                   f"-I{cccl}", f"-I{args.cuda_include}"]
    subprocess.run([args.cxx, "-std=c++20", "-O1", "-w", "-fsanitize=address",
                    f"-I{shim}", *cutlass,
                    f"-I{os.path.join(args.src, 'runtime', 'device')}", source,
                    "-o", binary], check=True)
    subprocess.run([binary, args.workdir], check=True)

    reference = os.path.join(args.workdir, "reference")
    subprocess.run([args.interp, os.path.join(args.bundle, "source.mlir"),
                    "--inputs=" + ",".join(input_paths), f"--output-dir={reference}"],
                   check=True, stdout=subprocess.DEVNULL)
    failures = 0
    for i, spec in enumerate(manifest["outputs"]):
        got = permute_channels(
            read_floats(os.path.join(args.workdir, f"output{i}.bin"), elements(spec)), spec, False)
        want = read_npy(os.path.join(reference, f"output{i}.npy"))
        nans = sum(math.isnan(g) != math.isnan(w) for g, w in zip(got, want))
        pairs = [(g, w) for g, w in zip(got, want) if not math.isnan(w)]
        error = math.sqrt(sum((g - w) ** 2 for g, w in pairs))
        norm = math.sqrt(sum(w * w for _, w in pairs)) or 1.0
        worst = max((abs(g - w) for g, w in pairs), default=0.0)
        ok = nans == 0 and error / norm <= TOLERANCE[manifest.get("precision", "ieee")]
        failures += not ok
        print(f"{'ok' if ok else 'FAIL'} {manifest['entry']} output{i}: rel L2 "
              f"{error / norm:.1e}, max abs {worst:.1e}, NaNs {nans}")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except subprocess.CalledProcessError as error:
        # The tool has said why on stderr.
        sys.exit(f"run-kernels-on-host: {os.path.basename(error.cmd[0])} "
                 f"exited with {error.returncode}")
