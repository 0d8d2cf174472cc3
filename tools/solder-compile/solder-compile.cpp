//===- solder-compile.cpp - .mlir to a Solder bundle ----------------------===//
//
//   solder-compile chain.mlir -o chain.bundle [--report] [--force=recompute]
//                  [--precision=ieee|tf32] [--mainloop=auto|tensorop|direct|direct_fma|fma]
//                  [--arch=sm_90a] [--emit-cuda-only]
//
// Runs the fusion pipeline, prints each fusion region as CUDA C++, compiles it
// with nvcc to a cubin for --arch and PTX for other GPUs, and writes the
// bundle: manifest.json, kernels.cu, the binaries and the source IR (for
// solder-run --backend=cpu). Needs no GPU.
//
//===----------------------------------------------------------------------===//

#include "solder/Analysis/GpuTarget.h"
#include "solder/Codegen/CUDA/EmitCUDA.h"
#include "solder/Dialect/Solder/Transforms/Passes.h"
#include "solder/InitAllDialects.h"
#include "solder/ParsedSource.h"
#include "solder/Runtime/Manifest.h"
#include "solder/Support/BundleDigest.h"
#include "solder/Support/GpuProbe.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#ifndef SOLDER_DEVICE_INCLUDE_DIR
#define SOLDER_DEVICE_INCLUDE_DIR ""
#endif
#ifndef SOLDER_VERSION
#define SOLDER_VERSION "unknown"
#endif

using namespace mlir;
using namespace mlir::solder;
namespace cl = llvm::cl;

// Only these options show in --help (HideUnrelatedOptions), grouped by
// what they decide; LLVM's backend options are not the user's.
static cl::OptionCategory planCategory("Planning the kernels");
static cl::OptionCategory buildCategory("Building the bundle");

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                                      cl::cat(buildCategory));
static cl::opt<std::string> outputDir("o", cl::desc("bundle directory to write"),
                                      cl::value_desc("dir"), cl::cat(buildCategory));
static cl::opt<bool> report("report", cl::desc("print the fusion plan"), cl::cat(planCategory));
static cl::opt<std::string>
    force("force", cl::init("auto"),
          cl::desc("materialize or recompute shared tensors: auto, "
                   "materialize, recompute"), cl::cat(planCategory));
static cl::opt<std::string> precision(
    "precision", cl::init("ieee"),
    cl::desc("ieee (fp32 accuracy: 3xTF32 tensor cores or FMA) or tf32 (one "
             "TF32 product, like PyTorch's cuDNN default)"), cl::cat(planCategory));
static cl::opt<std::string>
    mainLoop("mainloop", cl::init("auto"),
             cl::desc("conv main loop: auto (the plan's choice), tensorop "
                      "(implicit GEMM on tensor cores), direct (direct conv "
                      "on tensor cores), direct_fma or fma"), cl::cat(planCategory));
static cl::opt<std::string> convTile(
    "conv-tile", cl::init("auto"),
    cl::desc("tensor-core conv tile BMxBNxBK/WMxWN/STAGES instead of the "
             "plan's measured choice (benchmarks, tuning)"), cl::cat(planCategory));
static cl::opt<std::string> cutlassInclude(
    "cutlass-include",
    cl::desc("directory holding cutlass/cutlass.h (default: "
             "$SOLDER_CUTLASS_INCLUDE, else third_party/cutlass/include of the "
             "source tree, else share/solder/cutlass/include of the install)"), cl::cat(buildCategory));
static cl::opt<std::string>
    arch("arch",
         cl::desc("GPU the kernels are planned and the cubin built for: sm_80, sm_86, sm_87, "
                  "sm_89, sm_90, sm_90a, sm_100 or sm_120 (default: the GPU found, else "
                  "sm_90a); several, comma-separated (sm_80,sm_90a), write a bundle each, "
                  "planned for its own, and the runtime loads the one for the GPU"),
         cl::cat(planCategory));
static cl::opt<std::string> nvccPath("nvcc", cl::desc("the nvcc to use"), cl::cat(buildCategory));
static cl::opt<std::string>
    deviceInclude("device-include",
                  cl::desc("directory holding solder/*.cuh (default: the "
                           "source tree's runtime/device, or the one found "
                           "from this executable's folder)"), cl::cat(buildCategory));
static cl::opt<bool> printConfig(
    "print-config",
    cl::desc("print, as JSON, the version and the device templates and nvcc "
             "this tool would use, then exit (the Python package's cache key)"), cl::cat(buildCategory));
static cl::opt<bool> emitCudaOnly(
    "emit-cuda-only",
    cl::desc("write kernels.cu and the manifest but do not run nvcc"), cl::cat(buildCategory));

static int fail(const Twine &message) {
  llvm::errs() << "solder-compile: error: " << message << "\n";
  return 1;
}

static std::string findNvcc() {
  if (!nvccPath.empty())
    return nvccPath;
  if (const char *env = std::getenv("SOLDER_NVCC"))
    return env;
  if (auto found = llvm::sys::findProgramByName("nvcc"))
    return *found;
  if (llvm::sys::fs::can_execute("/usr/local/cuda/bin/nvcc"))
    return "/usr/local/cuda/bin/nvcc";
  return "";
}

/// The device templates: --device-include, else relative to the executable
/// (a build tree at <repo>/<build>/bin, or an install at <prefix>/bin with
/// share/solder/device: an install uses its own templates even where the
/// source tree it was built from still exists), else that source tree, so a
/// copied build tree or a relocated install still finds them.
static std::string findDeviceInclude(const char *argv0) {
  if (!deviceInclude.empty())
    return deviceInclude;
  auto hasTemplates = [](StringRef dir) {
    SmallString<256> probe(dir);
    llvm::sys::path::append(probe, "solder", "kernel", "conv_kernel.cuh");
    return llvm::sys::fs::exists(probe);
  };
  std::string executable =
      llvm::sys::fs::getMainExecutable(argv0, (void *)&findDeviceInclude);
  StringRef prefix =
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(executable));
  SmallString<256> buildTree(llvm::sys::path::parent_path(prefix));
  llvm::sys::path::append(buildTree, "runtime", "device");
  SmallString<256> install(prefix);
  llvm::sys::path::append(install, "share", "solder", "device");
  for (StringRef candidate : {StringRef(buildTree), StringRef(install),
                               StringRef(SOLDER_DEVICE_INCLUDE_DIR)})
    if (hasTemplates(candidate))
      return candidate.str();
  return "";
}

/// The CUTLASS headers the tensor-core main loop includes: --cutlass-include,
/// $SOLDER_CUTLASS_INCLUDE, or beside the device templates (the source
/// tree's third_party/cutlass/include, an install's share/solder/cutlass).
static std::string findCutlassInclude(StringRef device) {
  auto hasCutlass = [](StringRef dir) {
    SmallString<256> probe(dir);
    llvm::sys::path::append(probe, "cutlass", "cutlass.h");
    return !dir.empty() && llvm::sys::fs::exists(probe);
  };
  SmallVector<std::string> candidates = {cutlassInclude.getValue()};
  if (const char *env = std::getenv("SOLDER_CUTLASS_INCLUDE"))
    candidates.push_back(env);
  if (!device.empty()) {
    SmallString<256> sourceTree(device);
    llvm::sys::path::append(sourceTree, "..", "..", "third_party");
    llvm::sys::path::append(sourceTree, "cutlass", "include");
    SmallString<256> install(device);
    llvm::sys::path::append(install, "..", "cutlass", "include");
    candidates.push_back(std::string(sourceTree));
    candidates.push_back(std::string(install));
  }
  for (const std::string &candidate : candidates)
    if (hasCutlass(candidate)) {
      SmallString<256> real;
      if (!llvm::sys::fs::real_path(candidate, real))
        return std::string(real);
      return candidate;
    }
  return "";
}

static LogicalResult runNvcc(StringRef nvcc, ArrayRef<StringRef> extraArgs,
                             StringRef what) {
  SmallVector<StringRef> args = {nvcc, "-std=c++17", "-O3", "-I", deviceInclude};
  std::string cutlass = findCutlassInclude(deviceInclude);
  if (!cutlass.empty()) {
    args.append({"-I", cutlass});
    args.push_back("--expt-relaxed-constexpr");
  }
  llvm::append_range(args, extraArgs);
  llvm::outs() << "solder-compile: " << what << "\n";
  std::string error;
  int status = llvm::sys::ExecuteAndWait(nvcc, args, std::nullopt, {}, 0, 0,
                                         &error);
  if (status != 0) {
    llvm::errs() << "solder-compile: error: nvcc failed while " << what
                 << (error.empty() ? "" : ": " + error) << "\n";
    return failure();
  }
  return success();
}

/// The manifest's inputs or outputs; `channelsLast(index)`: whether the
/// function stores that one channels-last (solder.channels_last).
static llvm::json::Array tensorSpecs(TypeRange types, StringRef prefix,
                                     function_ref<bool(unsigned)> channelsLast,
                                     ::solder::BundleDigest &digest) {
  llvm::json::Array specs;
  for (auto [index, type] : llvm::enumerate(types)) {
    auto tensor = cast<RankedTensorType>(type);
    std::string name = (prefix + Twine(index)).str();
    digest.tensor(name, tensor.getShape().data(), tensor.getRank());
    llvm::json::Object spec{
        {"name", name}, {"shape", llvm::json::Array(tensor.getShape())}, {"dtype", "f32"}};
    if (channelsLast(index)) {
      digest.channelsLast();
      spec["layout"] = "channels_last";
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

/// Writes `text` to `dir`/`name`; failure after printing the error.
static LogicalResult writeBundleFile(StringRef dir, StringRef name, StringRef text) {
  SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> output = openOutputFile(path, &error);
  if (!output) {
    fail(error);
    return failure();
  }
  output->os() << text;
  output->keep();
  return success();
}

/// A manifest as the bundle holds it: JSON indented by 2, a newline after.
static std::string manifestText(llvm::json::Value manifest) {
  return llvm::formatv("{0:2}\n", manifest).str();
}

/// Plans `module` for `targetArch` and writes its bundle to `dir`: the
/// kernels, their binaries (unless --emit-cuda-only), the source IR and the
/// manifest. 0, or 1 after printing the error.
static int compileBundle(ModuleOp module, StringRef targetArch, const std::string &dir,
                         StringRef sourceText, const char *argv0) {
  MLIRContext &context = *module.getContext();
  PassManager pm(&context);
  PipelineOptions options;
  options.force = force;
  options.report = report;
  options.precision = precision;
  options.mainLoop = mainLoop;
  options.convTile = convTile;
  options.arch = targetArch.str();
  buildSolderPipeline(pm, options);
  if (failed(pm.run(module)))
    return 1;
  func::FuncOp function = *module.getOps<func::FuncOp>().begin();
  FailureOr<CudaProgram> program = emitCuda(function);
  if (failed(program))
    return 1;

  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return fail("cannot create " + dir + ": " + ec.message());
  if (failed(writeBundleFile(dir, "kernels.cu", program->source)) ||
      failed(writeBundleFile(dir, "source.mlir", sourceText)))
    return 1;

  std::string cubin = ("kernels." + targetArch + ".cubin").str();
  if (!emitCudaOnly) {
    deviceInclude = findDeviceInclude(argv0);
    if (deviceInclude.empty())
      return fail("cannot find the device templates (solder/kernel/conv_kernel.cuh); give "
                  "--device-include=DIR");
    std::string nvcc = findNvcc();
    if (nvcc.empty())
      return fail("nvcc not found (give --nvcc=PATH, set SOLDER_NVCC, or put "
                  "it on PATH); --emit-cuda-only writes the .cu without it");
    std::string source = dir + "/kernels.cu";
    std::string cubinPath = dir + "/" + cubin;
    std::string ptxPath = dir + "/kernels.ptx";
    bool tensorCores =
        program->source.find("solder/conv/mainloop_implicit_gemm_tensorop.cuh") != std::string::npos ||
        program->source.find("solder/conv/mainloop_implicit_gemm_wgmma.cuh") != std::string::npos ||
        program->source.find("solder/conv/mainloop_direct_tensorop.cuh") != std::string::npos;
    if (tensorCores && findCutlassInclude(deviceInclude).empty())
      return fail("cannot find the CUTLASS headers (cutlass/cutlass.h) the "
                  "tensor-core conv needs; run scripts/bootstrap.sh, give "
                  "--cutlass-include=DIR or set SOLDER_CUTLASS_INCLUDE");
    // C++ to PTX once (the slow part), then PTX to the cubin (ptxas).
    std::string computeArch = ("compute_" + targetArch.substr(targetArch.find('_') + 1)).str();
    if (failed(runNvcc(nvcc,
                       {"-ptx", "-arch", computeArch, source, "-o", ptxPath},
                       "compiling kernels.cu to PTX (" + computeArch + ")")) ||
        failed(runNvcc(nvcc, {"-cubin", "-arch", targetArch.str(), ptxPath, "-o", cubinPath},
                       "assembling kernels.ptx to " + cubin)))
      return 1;
  }

  FunctionType type = function.getFunctionType();
  ::solder::BundleDigest digest;
  llvm::json::Array inputs = tensorSpecs(
      type.getInputs(), "input",
      [&](unsigned index) {
        return function.getArgAttr(index, SolderDialect::kChannelsLastAttrName) != nullptr;
      },
      digest);
  // Parameters (solder.parameter): solder-run passes them unchanged from
  // call to call, as a module's weights are.
  for (auto [index, input] : llvm::enumerate(inputs))
    if (function.getArgAttr(index, SolderDialect::kParameterAttrName))
      (*input.getAsObject())["parameter"] = true;
  llvm::json::Array outputs = tensorSpecs(
      type.getResults(), "output",
      [&](unsigned index) {
        return function.getResultAttr(index, SolderDialect::kChannelsLastAttrName) != nullptr;
      },
      digest);
  llvm::json::Array buffers, launches;
  for (const DeviceBuffer &buffer : program->buffers) {
    digest.buffer(buffer.name, buffer.bytes, buffer.zeroed);
    buffers.push_back(llvm::json::Object{{"name", buffer.name},
                                         {"bytes", buffer.bytes},
                                         {"zeroed", buffer.zeroed}});
  }
  for (const KernelLaunch &launch : program->launches) {
    digest.launch(launch.kernel, launch.grid.data(), launch.block.data(),
                  launch.sharedBytes);
    if (launch.persistent)
      digest.persistent();
    llvm::json::Array args;
    for (const KernelArgRef &arg : launch.args) {
      const char *kind = arg.kind == KernelArgRef::Kind::input    ? "input"
                         : arg.kind == KernelArgRef::Kind::output ? "output"
                                                                  : "buffer";
      digest.argument(kind, arg.index);
      args.push_back(llvm::json::Object{{"kind", kind}, {"index", arg.index}});
    }
    if (!launch.preparedFrom.empty())
      digest.preparedFrom(launch.preparedFrom);
    llvm::json::Object entry{{"kernel", launch.kernel},
                             {"grid", llvm::json::Array(launch.grid)},
                             {"block", llvm::json::Array(launch.block)},
                             {"shared_bytes", launch.sharedBytes},
                             {"args", std::move(args)}};
    if (!launch.mainLoop.empty())
      entry["mainloop"] = launch.mainLoop;
    if (launch.persistent)
      entry["persistent"] = true;
    if (!launch.preparedFrom.empty())
      entry["prepared_from"] = llvm::json::Array(launch.preparedFrom);
    launches.push_back(std::move(entry));
  }
  llvm::json::Array constants;
  for (const ModuleConstant &constant : program->constants) {
    digest.constant(constant.symbol, constant.builder);
    constants.push_back(llvm::json::Object{{"symbol", constant.symbol},
                                           {"builder", constant.builder}});
  }
  llvm::json::Array tensorMaps;
  for (const TensorMap &map : program->tensorMaps) {
    const ::solder::TensorMapSpec &spec = map.spec;
    digest.tensorMap(map.symbol, map.offset, map.buffer, spec);
    auto ints = [](const auto *values, int count) {
      llvm::json::Array array;
      for (int i = 0; i < count; ++i)
        array.push_back(static_cast<int64_t>(values[i]));
      return array;
    };
    llvm::json::Object entry{{"symbol", map.symbol},
                             {"offset", map.offset},
                             {"buffer", map.buffer},
                             {"mode", spec.im2col ? "im2col" : "tiled"},
                             {"dims", ints(spec.dims, spec.rank)},
                             {"byte_strides", ints(spec.byteStrides, spec.rank - 1)},
                             {"box", ints(spec.box, spec.boxDims())},
                             {"element_strides", ints(spec.elementStrides, spec.rank)}};
    if (spec.im2col) {
      entry["lower_corner"] = ints(spec.lowerCorner, spec.cornerDims());
      entry["upper_corner"] = ints(spec.upperCorner, spec.cornerDims());
    }
    tensorMaps.push_back(std::move(entry));
  }
  llvm::json::Object files{{"source", "kernels.cu"}, {"ir", "source.mlir"}};
  if (!emitCudaOnly) {
    files["cubin"] = cubin;
    files["ptx"] = "kernels.ptx";
  }
  llvm::json::Object manifest{
      {"format", "solder-bundle"},
      {"version", ::solder::kBundleFormatVersion},
      {"target", targetArch},
      {"precision", precision.getValue()},
      {"entry", function.getName()},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)},
      {"buffers", std::move(buffers)},
      {"launches", std::move(launches)},
      {"constants", std::move(constants)},
      {"tensor_maps", std::move(tensorMaps)},
      {"digest", digest.hex()},
      {"files", std::move(files)}};
  if (failed(writeBundleFile(dir, "manifest.json", manifestText(std::move(manifest)))))
    return 1;
  llvm::outs() << "solder-compile: wrote " << dir << " ("
               << program->launches.size() << " kernel launches)\n";
  return 0;
}

/// The arch(s) to build for: --arch, else the GPU found (on a GPU newer
/// than the archs it plans for, the newest of them below it, whose PTX the
/// driver compiles for it), else sm_90a (the newest this compiler plans
/// for). Sets `defaultedBecause` when not given; "" when the GPU found is
/// older than any.
static std::string targetArchs(std::string &defaultedBecause) {
  if (arch.getNumOccurrences())
    return arch;
  std::optional<::solder::FoundGpu> gpu = ::solder::findGpu();
  if (!gpu) {
    defaultedBecause = "no GPU found";
    return "sm_90a";
  }
  defaultedBecause = "the GPU found: " + gpu->name + ", " + gpu->arch;
  if (getGpuTarget(gpu->arch))
    return gpu->arch;
  std::optional<StringRef> newest = getNewestPortableArch(gpu->capability);
  if (!newest)
    return "";
  defaultedBecause += ", runs " + newest->str() + "'s PTX";
  return newest->str();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "Solder " SOLDER_VERSION "\n";
  });
  cl::HideUnrelatedOptions({&planCategory, &buildCategory});
  cl::ParseCommandLineOptions(argc, argv, "Solder compiler: .mlir to bundle\n");
  if (printConfig) {
    std::string device = findDeviceInclude(argv[0]);
    llvm::outs() << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                                 {"version", SOLDER_VERSION},
                                                 {"device_include", device},
                                                 {"cutlass_include", findCutlassInclude(device)},
                                                 {"nvcc", findNvcc()},
                                                 {"portable_archs", llvm::json::Array(
                                                      getPortableArchs())}}));
    return 0;
  }
  if (inputFile.empty() || outputDir.empty())
    return fail("expected an input .mlir and -o BUNDLE_DIR (see --help)");

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);

  ParsedSource source(inputFile, context);
  if (!source.openError.empty())
    return fail(source.openError);
  OwningOpRef<ModuleOp> &module = source.module;
  if (!module)
    return 1;
  SmallVector<func::FuncOp> functions =
      llvm::to_vector(module->getOps<func::FuncOp>());
  if (functions.size() != 1)
    return fail(Twine("expected one func.func in ") + inputFile + ", found " +
                Twine(functions.size()));
  for (Type type : functions.front().getFunctionType().getInputs())
    if (auto tensor = dyn_cast<RankedTensorType>(type); !tensor || !tensor.getElementType().isF32())
      return fail("only f32 tensors are compiled for now, the function takes " +
                  Twine(llvm::formatv("{0}", type).str()));

  std::string defaultedBecause;
  std::string archList = targetArchs(defaultedBecause);
  // Several archs (--arch=sm_80,sm_90a): a bundle each, planned for its
  // own, in a folder named after it; the manifest names them and the
  // runtime loads the one for the GPU (resolveBundleTarget).
  if (archList.empty())
    return fail("no --arch, and " + defaultedBecause + ", is older than any of " +
                getKnownGpuArchs() + ": give --arch");
  SmallVector<StringRef> archs;
  StringRef(archList).split(archs, ',');
  for (auto [index, target] : llvm::enumerate(archs)) {
    if (target.empty())
      return fail("--arch: an empty entry in '" + archList + "'");
    if (llvm::is_contained(ArrayRef(archs).take_front(index), target))
      return fail("--arch: " + target + " is listed twice");
    if (!getGpuTarget(target))
      return fail("--arch: " + target + " is not one of " + getKnownGpuArchs());
  }
  if (!defaultedBecause.empty())
    llvm::outs() << "solder-compile: --arch=" << archList << " (" << defaultedBecause << ")\n";
  if (archs.size() == 1)
    return compileBundle(*module, archs.front(), outputDir, source.text, argv[0]);
  llvm::json::Array targets;
  for (StringRef target : archs) {
    OwningOpRef<ModuleOp> copy = module->clone();
    if (int status = compileBundle(*copy, target, outputDir + "/" + target.str(), source.text,
                                     argv[0]))
      return status;
    targets.push_back(llvm::json::Object{{"arch", target}, {"bundle", target}});
  }
  llvm::json::Object manifest{{"format", "solder-multi-arch"},
                              {"version", ::solder::kBundleFormatVersion},
                              {"entry", functions.front().getName()},
                              {"precision", precision.getValue()},
                              {"targets", std::move(targets)}};
  if (failed(writeBundleFile(outputDir, "manifest.json", manifestText(std::move(manifest)))))
    return 1;
  llvm::outs() << "solder-compile: wrote " << outputDir << " (" << archs.size()
               << " archs: " << archList << ")\n";
  return 0;
}
