//===- solder-run.cpp - Run a Solder bundle -------------------------------===//
//
//   solder-run BUNDLE [--inputs=a.npy,b.npy | --seed=N] [--output-dir=DIR]
//              [--expected=e.npy,... --rtol=1e-4 --atol=1e-4]
//              [--bench=N --warmup=W --json=FILE] [--backend=gpu|cpu]
//
// Needs no MLIR: it links only libsolder_runtime. --backend=cpu runs the
// reference interpreter (solder-interp, beside this tool) on the bundle's IR.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Runtime/CudaDriver.h"
#include "solder/Runtime/Manifest.h"
#include "solder/Runtime/solder_runtime.h"
#include "solder/Support/Npy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace solder;

namespace {
struct Options {
  std::string bundle;
  std::vector<std::string> inputs, expected;
  std::string outputDir, json, backend = "gpu";
  uint64_t seed = 0;
  double rtol = 1e-4, atol = 1e-4;
  int bench = 0, warmup = 10;
};

[[noreturn]] void die(const std::string &message) {
  std::fprintf(stderr, "solder-run: error: %s\n", message.c_str());
  std::exit(1);
}

std::vector<std::string> splitComma(const std::string &text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    if (end > start)
      parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      size_t length = std::strlen(name);
      if (arg.compare(0, length, name) == 0 && arg.size() > length &&
          arg[length] == '=')
        return argv[i] + length + 1;
      return nullptr;
    };
    if (arg == "-h" || arg == "--help") {
      std::printf(
          "usage: solder-run BUNDLE [options]\n"
          "Runs a bundle that solder-compile wrote, on the GPU or on the CPU reference.\n\n"
          "Inputs and outputs:\n"
          "  --inputs=a.npy,b.npy     one .npy per input, in the manifest's order\n"
          "  --seed=N                 without --inputs: random inputs in [0, 1) from seed N\n"
          "                           (default 0)\n"
          "  --output-dir=DIR         write each output as DIR/output<i>.npy\n"
          "Checking:\n"
          "  --expected=e.npy,...     compare each output with these; exit 1 past tolerance\n"
          "  --rtol=R, --atol=A       tolerances of --expected (default 1e-4 each)\n"
          "Timing (GPU):\n"
          "  --bench=N                time N runs with CUDA events, L2 flushed before each,\n"
          "                           and print the median\n"
          "  --warmup=W               untimed runs before --bench (default 10)\n"
          "  --json=FILE              write the timings as JSON\n"
          "Where:\n"
          "  --backend=gpu|cpu        gpu (default): the cubin through the CUDA driver;\n"
          "                           cpu: the bundle's IR on solder-interp\n"
          "  -h, --help               print this help\n");
      std::exit(0);
    }
    if (const char *v = value("--inputs"))
      options.inputs = splitComma(v);
    else if (const char *v = value("--expected"))
      options.expected = splitComma(v);
    else if (const char *v = value("--output-dir"))
      options.outputDir = v;
    else if (const char *v = value("--json"))
      options.json = v;
    else if (const char *v = value("--backend"))
      options.backend = v;
    else if (const char *v = value("--seed"))
      options.seed = std::strtoull(v, nullptr, 10);
    else if (const char *v = value("--rtol"))
      options.rtol = std::atof(v);
    else if (const char *v = value("--atol"))
      options.atol = std::atof(v);
    else if (const char *v = value("--bench"))
      options.bench = std::atoi(v);
    else if (const char *v = value("--warmup"))
      options.warmup = std::atoi(v);
    else if (arg[0] == '-')
      die("unknown option '" + arg + "' (see --help)");
    else if (options.bundle.empty())
      options.bundle = arg;
    else
      die("more than one bundle given: '" + options.bundle + "' and '" + arg +
          "'");
  }
  if (options.bundle.empty())
    die("no bundle given (usage: solder-run BUNDLE [options], see --help)");
  if (options.backend != "gpu" && options.backend != "cpu")
    die("--backend must be gpu or cpu, got '" + options.backend + "'");
  return options;
}

std::string formatShape(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + ")";
}

/// A C-order (N, C, *spatial) array's values in (N, *spatial, C) order (a
/// channels-last tensor's memory), or back from it.
std::vector<double> permuteChannels(const std::vector<double> &values,
                                    const std::vector<int64_t> &shape, bool toChannelsLast) {
  int64_t channels = shape[1], volume = 1;
  for (size_t d = 2; d < shape.size(); ++d)
    volume *= shape[d];
  std::vector<double> permuted(values.size());
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t s = 0; s < volume; ++s) {
        int64_t first = (n * channels + c) * volume + s, last = (n * volume + s) * channels + c;
        permuted[toChannelsLast ? last : first] = values[toChannelsLast ? first : last];
      }
  return permuted;
}

/// The inputs from .npy files (checked against the manifest) or drawn
/// uniformly from [0, 1) like torch.rand.
std::vector<NpyArray> loadInputs(const Options &options,
                                 const Manifest &manifest) {
  std::vector<NpyArray> arrays;
  if (options.inputs.empty()) {
    std::mt19937_64 generator(options.seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    for (const TensorSpec &spec : manifest.inputs) {
      NpyArray array;
      array.shape = spec.shape;
      array.values.resize(spec.getNumElements());
      for (double &value : array.values)
        value = uniform(generator);
      arrays.push_back(std::move(array));
    }
    return arrays;
  }
  if (options.inputs.size() != manifest.inputs.size())
    die("the bundle takes " + std::to_string(manifest.inputs.size()) +
        " inputs, got " + std::to_string(options.inputs.size()) + " .npy files");
  for (size_t i = 0; i < options.inputs.size(); ++i) {
    NpyArray array;
    std::string error;
    if (!readNpy(options.inputs[i], array, error))
      die(error);
    const TensorSpec &spec = manifest.inputs[i];
    if (array.shape != spec.shape)
      die(options.inputs[i] + ": shape " + formatShape(array.shape) +
          " but input '" + spec.name + "' is " + formatShape(spec.shape));
    arrays.push_back(std::move(array));
  }
  return arrays;
}

void writeOutputs(const Options &options, const Manifest &manifest,
                  const std::vector<NpyArray> &outputs) {
  if (options.outputDir.empty())
    return;
  std::string command = "mkdir -p '" + options.outputDir + "'";
  if (std::system(command.c_str()) != 0)
    die("cannot create " + options.outputDir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path = options.outputDir + "/" + manifest.outputs[i].name + ".npy";
    std::string error;
    if (!writeNpy(path, outputs[i], error))
      die(error);
  }
}

/// Compares with the expected arrays; returns whether all are within
/// |a - e| <= atol + rtol * |e| (NaN only where NaN is expected).
bool compare(const Options &options, const Manifest &manifest,
             const std::vector<NpyArray> &outputs) {
  if (options.expected.size() != outputs.size())
    die("the bundle has " + std::to_string(outputs.size()) + " outputs, got " +
        std::to_string(options.expected.size()) + " --expected files");
  bool allPass = true;
  for (size_t i = 0; i < outputs.size(); ++i) {
    NpyArray expected;
    std::string error;
    if (!readNpy(options.expected[i], expected, error))
      die(error);
    if (expected.shape != outputs[i].shape)
      die(options.expected[i] + ": shape " + formatShape(expected.shape) +
          " but output '" + manifest.outputs[i].name + "' is " +
          formatShape(outputs[i].shape));
    double maxAbs = 0, diff2 = 0, ref2 = 0;
    bool pass = true;
    for (size_t k = 0; k < expected.values.size(); ++k) {
      double a = outputs[i].values[k], e = expected.values[k];
      if (std::isnan(a) || std::isnan(e)) {
        pass &= std::isnan(a) && std::isnan(e);
        continue;
      }
      double d = std::fabs(a - e);
      maxAbs = std::max(maxAbs, d);
      diff2 += d * d;
      ref2 += e * e;
      pass &= d <= options.atol + options.rtol * std::fabs(e);
    }
    double relL2 = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
    std::printf("output %s %s: max abs err %.3g, rel L2 err %.3g: %s\n",
                manifest.outputs[i].name.c_str(),
                formatShape(outputs[i].shape).c_str(), maxAbs, relL2,
                pass ? "PASS" : "FAIL");
    allPass &= pass;
  }
  return allPass;
}

/// The CPU backend: the reference interpreter on the bundle's source IR.
int runOnCpu(const Options &options, const Manifest &manifest,
             const char *argv0) {
  if (manifest.sourceIRFile.empty())
    die(options.bundle + ": the manifest names no IR file for --backend=cpu");
  std::string self = argv0;
  std::string dir = self.find('/') == std::string::npos
                        ? std::string(".")
                        : self.substr(0, self.rfind('/'));
  std::string interpreter = dir + "/solder-interp";
  if (access(interpreter.c_str(), X_OK) != 0)
    die("--backend=cpu needs solder-interp beside solder-run (" + interpreter +
        ")");
  std::string tmp = options.outputDir.empty() ? "/tmp/solder-run-cpu-" +
                                                    std::to_string(getpid())
                                              : options.outputDir;
  std::string inputs;
  std::vector<NpyArray> arrays = loadInputs(options, manifest);
  std::system(("mkdir -p '" + tmp + "'").c_str());
  for (size_t i = 0; i < arrays.size(); ++i) {
    std::string path = tmp + "/input" + std::to_string(i) + ".npy";
    std::string error;
    if (!writeNpy(path, arrays[i], error))
      die(error);
    inputs += (i ? "," : "") + path;
  }
  std::string command = "'" + interpreter + "' '" + manifest.sourceIRFile +
                        "' --inputs=" + inputs + " --output-dir='" + tmp + "'";
  return std::system(command.c_str()) == 0 ? 0 : 1;
}

double median(std::vector<float> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}
} // namespace

int main(int argc, char **argv) {
  Options options = parseOptions(argc, argv);
  Manifest manifest;
  std::string error, bundlePath;
  // A bundle of several archs: its target for this GPU (the runtime picks
  // the same one); on the CPU backend any target's source IR, all the same.
  if (options.backend == "cpu") {
    auto anyTarget = [](int &major, int &minor) {
      major = 9;
      minor = 0;
      return true;
    };
    if (!resolveBundleTarget(options.bundle, anyTarget, bundlePath, error))
      die(error);
  } else {
    char resolved[4096];
    if (solderResolveBundle(options.bundle.c_str(), resolved, sizeof(resolved)) != SOLDER_OK)
      die(solderLastError());
    bundlePath = resolved;
  }
  if (!loadManifest(bundlePath, manifest, error))
    die(error);
  if (options.backend == "cpu")
    return runOnCpu(options, manifest, argv[0]);

  std::vector<NpyArray> inputs = loadInputs(options, manifest);
  SolderBundle *bundle = nullptr;
  if (solderLoadBundle(options.bundle.c_str(), &bundle) != SOLDER_OK)
    die(solderLastError());
  const CudaDriver &driver = *CudaDriver::get(error);
  auto check = [&](CUresult result, const std::string &what) {
    if (result != CUDA_SUCCESS)
      die(what + ": " + driver.describe(result));
  };

  std::vector<CUdeviceptr> inputPointers, outputPointers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    // The bundle takes each input in its manifest's layout.
    if (manifest.inputs[i].channelsLast)
      inputs[i].values = permuteChannels(inputs[i].values, inputs[i].shape, true);
    std::vector<float> host(inputs[i].values.begin(), inputs[i].values.end());
    CUdeviceptr pointer;
    check(driver.cuMemAlloc(&pointer, host.size() * 4),
          "allocating input '" + manifest.inputs[i].name + "'");
    check(driver.cuMemcpyHtoD(pointer, host.data(), host.size() * 4),
          "copying input '" + manifest.inputs[i].name + "'");
    inputPointers.push_back(pointer);
  }
  for (const TensorSpec &spec : manifest.outputs) {
    CUdeviceptr pointer;
    check(driver.cuMemAlloc(&pointer, spec.getBytes()),
          "allocating output '" + spec.name + "'");
    // Poisoned with NaN: an element the kernels never write shows up.
    check(driver.cuMemsetD32(pointer, 0x7fc00000u, spec.getNumElements()),
          "poisoning output '" + spec.name + "'");
    outputPointers.push_back(pointer);
  }
  std::vector<const void *> inputArgs;
  for (CUdeviceptr pointer : inputPointers)
    inputArgs.push_back(reinterpret_cast<const void *>(pointer));
  std::vector<void *> outputArgs;
  for (CUdeviceptr pointer : outputPointers)
    outputArgs.push_back(reinterpret_cast<void *>(pointer));

  // The parameters (a module's weights) stay what they are from run to
  // run, as a caller's do: their preparations run at the first run only.
  std::vector<uint64_t> versions;
  for (const TensorSpec &spec : manifest.inputs)
    versions.push_back(spec.parameter ? 1 : 0);
  if (solderRunVersioned(bundle, inputArgs.data(), outputArgs.data(), nullptr,
                         versions.data()) != SOLDER_OK)
    die(solderLastError());
  check(driver.cuCtxSynchronize(), "running " + options.bundle);

  std::vector<NpyArray> outputs;
  for (size_t i = 0; i < manifest.outputs.size(); ++i) {
    const TensorSpec &spec = manifest.outputs[i];
    std::vector<float> host(spec.getNumElements());
    check(driver.cuMemcpyDtoH(host.data(), outputPointers[i], spec.getBytes()),
          "copying output '" + spec.name + "'");
    NpyArray array;
    array.shape = spec.shape;
    array.values.assign(host.begin(), host.end());
    if (spec.channelsLast)
      array.values = permuteChannels(array.values, array.shape, false);
    outputs.push_back(std::move(array));
  }
  writeOutputs(options, manifest, outputs);
  bool pass = options.expected.empty() || compare(options, manifest, outputs);

  if (options.bench > 0) {
    // L2 flush: overwrite a buffer twice the L2 size before each timed run.
    int l2Bytes = 0;
    CUdevice device;
    check(driver.cuCtxGetDevice(&device), "querying the device");
    driver.cuDeviceGetAttribute(&l2Bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                                device);
    size_t flushBytes = std::max<size_t>(2 * static_cast<size_t>(l2Bytes), 1 << 20);
    CUdeviceptr flush;
    check(driver.cuMemAlloc(&flush, flushBytes), "allocating the L2 flush buffer");
    CUevent start, stop;
    check(driver.cuEventCreate(&start, CU_EVENT_DEFAULT), "creating an event");
    check(driver.cuEventCreate(&stop, CU_EVENT_DEFAULT), "creating an event");
    std::vector<float> times;
    for (int i = 0; i < options.warmup + options.bench; ++i) {
      check(driver.cuMemsetD8Async(flush, i & 0xff, flushBytes, nullptr),
            "flushing L2");
      check(driver.cuEventRecord(start, nullptr), "recording an event");
      if (solderRunVersioned(bundle, inputArgs.data(), outputArgs.data(), nullptr,
                             versions.data()) != SOLDER_OK)
        die(solderLastError());
      check(driver.cuEventRecord(stop, nullptr), "recording an event");
      check(driver.cuEventSynchronize(stop), "running " + options.bundle);
      float ms = 0;
      check(driver.cuEventElapsedTime(&ms, start, stop), "reading an event");
      if (i >= options.warmup)
        times.push_back(ms);
    }
    double medianMs = median(times);
    std::printf("%s: median %.4f ms over %d runs (min %.4f, max %.4f), "
                "warm-up %d, L2 flushed\n",
                manifest.entry.c_str(), medianMs, options.bench,
                *std::min_element(times.begin(), times.end()),
                *std::max_element(times.begin(), times.end()), options.warmup);
    if (!options.json.empty()) {
      std::ofstream json(options.json);
      json << "{\"bundle\": \"" << options.bundle << "\", \"entry\": \""
           << manifest.entry << "\", \"median_ms\": " << medianMs
           << ", \"runs\": " << options.bench << ", \"times_ms\": [";
      for (size_t i = 0; i < times.size(); ++i)
        json << (i ? ", " : "") << times[i];
      json << "]}\n";
    }
    driver.cuMemFree(flush);
  }

  for (CUdeviceptr pointer : inputPointers)
    driver.cuMemFree(pointer);
  for (CUdeviceptr pointer : outputPointers)
    driver.cuMemFree(pointer);
  solderFreeBundle(bundle);
  return pass ? 0 : 1;
}
