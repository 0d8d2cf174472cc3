//===- Runtime.cpp - libsolder_runtime: load and run bundles --------------===//

#include "solder/Runtime/solder_runtime.h"

#include "CudaDriver.h"
#include "solder/Runtime/Manifest.h"
#include "solder/conv/tensor_map_encode.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <vector>

using namespace solder;

namespace {
thread_local std::string lastError;

SolderStatus fail(SolderStatus status, std::string message) {
  lastError = std::move(message);
  return status;
}

bool readFile(const std::string &path, std::string &contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return false;
  std::stringstream buffer;
  buffer << file.rdbuf();
  contents = buffer.str();
  return true;
}
} // namespace

/// The bundle's launch sequence as one CUDA graph, less the preparations
/// a call skips (`skipped`, a flag a launch): instantiated once, its kernel
/// nodes' pointers updated where the caller's tensors moved since it last
/// ran (`inputs`, `outputs`).
struct LaunchGraph {
  std::vector<bool> skipped;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<CUgraphNode> nodes; // one per launch; null where skipped
  std::vector<const void *> inputs;
  std::vector<void *> outputs;
};

struct SolderBundle {
  Manifest manifest;
  const CudaDriver *driver = nullptr;
  CUmodule module = nullptr;
  std::vector<CUfunction> functions; // one per launch
  /// Each launch's grid: the manifest's, a persistent launch's x shrunk to
  /// the blocks this GPU holds at once.
  std::vector<std::array<unsigned, 3>> grids;
  std::vector<CUdeviceptr> buffers;
  /// One workspace per bundle, so calls take turns: the lock orders calls
  /// from several host threads, and each call's stream waits for the
  /// previous call's kernels (recorded in lastUse), whatever stream they ran
  /// on. Null when the bundle has no workspace.
  std::mutex mutex;
  CUevent lastUse = nullptr;
  /// The launch sequence as CUDA graphs, built at the first call that is
  /// not itself being captured: a call is then one cuGraphLaunch, whatever
  /// the kernel count. One graph for each set of preparations the calls
  /// skipped (every launch; the steady state without the preparations of
  /// unchanged inputs), at most kMaxGraphs. Guarded by `mutex`. Without
  /// (SOLDER_GRAPH=0, or a graph the driver refused: graphRefused), the
  /// kernels launch one by one.
  static constexpr size_t kMaxGraphs = 4;
  std::vector<LaunchGraph> graphs;
  bool graphRefused = false;
  /// Each input's pointer and version (solderRunVersioned; 0: unknown) as of
  /// the last call, whose preparations left the workspace consistent with
  /// them.
  std::vector<const void *> preparedInputs;
  std::vector<uint64_t> preparedVersions;
  /// Whether a call was captured into a caller's graph: its replays rerun
  /// the preparations on the captured inputs, behind the recorded state,
  /// so from then on no call skips them.
  bool captured = false;

  ~SolderBundle() {
    if (!driver)
      return;
    for (LaunchGraph &graph : graphs) {
      if (graph.exec)
        driver->cuGraphExecDestroy(graph.exec);
      if (graph.graph)
        driver->cuGraphDestroy(graph.graph);
    }
    if (lastUse)
      driver->cuEventDestroy(lastUse);
    for (CUdeviceptr buffer : buffers)
      if (buffer)
        driver->cuMemFree(buffer);
    if (module)
      driver->cuModuleUnload(module);
  }
};

/// Makes a context current: the caller's, or device 0's primary context
/// (the one PyTorch and the runtime API use).
static SolderStatus ensureContext(const CudaDriver &driver, CUdevice &device) {
  CUcontext context = nullptr;
  CUresult result = driver.cuCtxGetCurrent(&context);
  if (result == CUDA_SUCCESS && context)
    result = driver.cuCtxGetDevice(&device);
  else {
    result = driver.cuDeviceGet(&device, 0);
    if (result == CUDA_SUCCESS)
      result = driver.cuDevicePrimaryCtxRetain(&context, device);
    if (result == CUDA_SUCCESS)
      result = driver.cuCtxSetCurrent(context);
  }
  if (result != CUDA_SUCCESS)
    return fail(SOLDER_ERROR_CUDA,
                "cannot set up a CUDA context: " + driver.describe(result));
  return SOLDER_OK;
}

/// `path`, or for a bundle of several archs the one for this GPU's
/// (resolveBundleTarget): the driver is asked only then.
static SolderStatus resolveForThisGpu(const char *path, std::string &resolved) {
  std::string error;
  SolderStatus status = SOLDER_OK;
  auto capability = [&](int &major, int &minor) {
    const CudaDriver *driver = CudaDriver::get(error);
    if (!driver) {
      status = SOLDER_ERROR_NO_GPU;
      return false;
    }
    CUdevice device;
    if ((status = ensureContext(*driver, device)) != SOLDER_OK) {
      error = solderLastError();
      return false;
    }
    driver->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    driver->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    return true;
  };
  if (!resolveBundleTarget(path, capability, resolved, error))
    return fail(status != SOLDER_OK ? status : SOLDER_ERROR_BUNDLE, error);
  return SOLDER_OK;
}

extern "C" SolderStatus solderResolveBundle(const char *path, char *resolved, size_t size) {
  if (!path || !resolved || size == 0)
    return fail(SOLDER_ERROR_ARGUMENT, "solderResolveBundle: null argument");
  std::string chosen;
  if (SolderStatus status = resolveForThisGpu(path, chosen))
    return status;
  if (chosen.size() >= size)
    return fail(SOLDER_ERROR_ARGUMENT, "solderResolveBundle: the path needs " +
                                           std::to_string(chosen.size() + 1) + " bytes");
  std::memcpy(resolved, chosen.c_str(), chosen.size() + 1);
  return SOLDER_OK;
}

extern "C" SolderStatus solderLoadBundle(const char *path,
                                         SolderBundle **bundleOut) {
  if (!path || !bundleOut)
    return fail(SOLDER_ERROR_ARGUMENT, "solderLoadBundle: null argument");
  *bundleOut = nullptr;
  auto bundle = std::make_unique<SolderBundle>();
  std::string error, bundlePath;
  if (SolderStatus status = resolveForThisGpu(path, bundlePath))
    return status;
  if (!loadManifest(bundlePath, bundle->manifest, error))
    return fail(SOLDER_ERROR_BUNDLE, error);
  const Manifest &manifest = bundle->manifest;

  const CudaDriver *driver = CudaDriver::get(error);
  if (!driver)
    return fail(SOLDER_ERROR_NO_GPU, error);
  bundle->driver = driver;
  CUdevice device;
  if (SolderStatus status = ensureContext(*driver, device))
    return status;

  int major = 0, minor = 0;
  driver->cuDeviceGetAttribute(&major,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
  driver->cuDeviceGetAttribute(&minor,
                               CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  std::string deviceTarget = "sm_" + std::to_string(major * 10 + minor);

  // The cubin when it was built for this GPU (sm_90a's for a 9.0 GPU),
  // else PTX for the driver to JIT. An arch-specific target's PTX (sm_90a:
  // wgmma) runs on that GPU alone.
  std::string image, imagePath;
  bool archSpecific = !manifest.target.empty() && manifest.target.back() == 'a';
  bool builtForThisGpu = manifest.target == deviceTarget ||
                         (archSpecific && manifest.target == deviceTarget + "a");
  if (archSpecific && !builtForThisGpu)
    return fail(SOLDER_ERROR_BUNDLE,
                bundlePath + ": built for " + manifest.target +
                    ", whose kernels run on that GPU alone, but the GPU is " + deviceTarget +
                    ": recompile it with --arch=" + deviceTarget);
  if (!manifest.cubinFile.empty() && builtForThisGpu)
    imagePath = manifest.cubinFile;
  else if (!manifest.ptxFile.empty())
    imagePath = manifest.ptxFile;
  else
    return fail(SOLDER_ERROR_BUNDLE,
                bundlePath + ": built for " + manifest.target +
                    " without PTX, but the GPU is " + deviceTarget);
  if (!readFile(imagePath, image))
    return fail(SOLDER_ERROR_BUNDLE, imagePath + ": cannot read");
  if (imagePath == manifest.ptxFile)
    image.push_back('\0'); // PTX is loaded as a C string
  CUresult result = driver->cuModuleLoadData(&bundle->module, image.data());
  if (result != CUDA_SUCCESS)
    return fail(SOLDER_ERROR_BUNDLE, imagePath + ": cannot load on " +
                                         deviceTarget + ": " +
                                         driver->describe(result));

  for (const Launch &launch : manifest.launches) {
    CUfunction function;
    result = driver->cuModuleGetFunction(&function, bundle->module,
                                         launch.kernel.c_str());
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_BUNDLE, bundlePath + ": kernel '" +
                                           launch.kernel +
                                           "' of the launch sequence is not "
                                           "in the binary");
    if (launch.sharedBytes > 48 * 1024) {
      result = driver->cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
          launch.sharedBytes);
      if (result != CUDA_SUCCESS)
        return fail(SOLDER_ERROR_CUDA, "kernel '" + launch.kernel + "': " +
                                           std::to_string(launch.sharedBytes) +
                                           " bytes of shared memory: " +
                                           driver->describe(result));
    }
    bundle->functions.push_back(function);
    std::array<unsigned, 3> grid = {launch.grid[0], launch.grid[1], launch.grid[2]};
    if (launch.persistent) {
      int blocksPerSM = 0, multiprocessors = 0;
      result = driver->cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocksPerSM, function, launch.block[0] * launch.block[1] * launch.block[2],
          launch.sharedBytes);
      if (result == CUDA_SUCCESS)
        result = driver->cuDeviceGetAttribute(
            &multiprocessors, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
      if (result != CUDA_SUCCESS)
        return fail(SOLDER_ERROR_CUDA, "kernel '" + launch.kernel +
                                           "': the blocks this GPU holds at once: " +
                                           driver->describe(result));
      if (blocksPerSM < 1)
        return fail(SOLDER_ERROR_BUNDLE, "kernel '" + launch.kernel + "': no block of " +
                                             std::to_string(launch.sharedBytes) +
                                             " bytes of shared memory fits an SM of " +
                                             deviceTarget);
      grid[0] = static_cast<unsigned>(
          std::min<int64_t>(grid[0], int64_t(blocksPerSM) * multiprocessors));
    }
    bundle->grids.push_back(grid);
  }

  for (const BufferSpec &buffer : manifest.buffers) {
    CUdeviceptr pointer = 0;
    result = driver->cuMemAlloc(&pointer, buffer.bytes);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA, "cannot allocate workspace buffer '" +
                                         buffer.name + "' (" +
                                         std::to_string(buffer.bytes) +
                                         " bytes): " + driver->describe(result));
    bundle->buffers.push_back(pointer);
  }
  // Constants the kernels read from the constant bank, built once here by
  // their builder kernels (TensorOpConv's CUTLASS parameters).
  for (const ModuleConstant &constant : manifest.constants) {
    CUdeviceptr symbol = 0;
    size_t bytes = 0;
    CUfunction builder;
    if (driver->cuModuleGetGlobal(&symbol, &bytes, bundle->module,
                                  constant.symbol.c_str()) != CUDA_SUCCESS ||
        driver->cuModuleGetFunction(&builder, bundle->module,
                                    constant.builder.c_str()) != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_BUNDLE, bundlePath + ": constant '" +
                                           constant.symbol + "' or its builder '" +
                                           constant.builder +
                                           "' is not in the binary");
    CUdeviceptr built = 0;
    result = driver->cuMemAlloc(&built, bytes);
    if (result == CUDA_SUCCESS) {
      void *args[] = {&built};
      result = driver->cuLaunchKernel(builder, 1, 1, 1, 1, 1, 1, 0, nullptr,
                                      args, nullptr);
      if (result == CUDA_SUCCESS)
        result = driver->cuMemcpyDtoD(symbol, built, bytes);
      if (result == CUDA_SUCCESS)
        result = driver->cuStreamSynchronize(nullptr);
      CUresult freed = driver->cuMemFree(built);
      if (result == CUDA_SUCCESS)
        result = freed;
    }
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA, "cannot build constant '" + constant.symbol +
                                         "': " + driver->describe(result));
  }
  // Tensor maps over the workspace buffers, whose addresses hold for the
  // bundle's life: encoded once, into the __device__ variables the copies
  // read them from.
  if (!manifest.tensorMaps.empty() &&
      (!driver->cuTensorMapEncodeIm2col || !driver->cuTensorMapEncodeTiled))
    return fail(SOLDER_ERROR_BUNDLE, bundlePath +
                                         ": its kernels read tensor maps, which this CUDA "
                                         "driver cannot encode (driver too old)");
  for (const TensorMapEntry &map : manifest.tensorMaps) {
    CUdeviceptr symbol = 0;
    size_t bytes = 0;
    if (driver->cuModuleGetGlobal(&symbol, &bytes, bundle->module, map.symbol.c_str()) !=
        CUDA_SUCCESS)
      return fail(SOLDER_ERROR_BUNDLE, bundlePath + ": tensor map variable '" +
                                           map.symbol + "' is not in the binary");
    if (map.offset + sizeof(CUtensorMap) > bytes)
      return fail(SOLDER_ERROR_BUNDLE, bundlePath + ": tensor map at " +
                                           std::to_string(map.offset) + " of '" + map.symbol +
                                           "' (" + std::to_string(bytes) +
                                           " bytes) runs past it");
    CUtensorMap encoded;
    result = encodeTensorMap(&encoded, map.spec,
                             reinterpret_cast<void *>(bundle->buffers[map.buffer]),
                             driver->cuTensorMapEncodeIm2col, driver->cuTensorMapEncodeTiled);
    if (result == CUDA_SUCCESS)
      result = driver->cuMemcpyHtoD(symbol + map.offset, &encoded, sizeof encoded);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_BUNDLE, bundlePath + ": cannot encode tensor map '" +
                                           map.symbol + "'+" + std::to_string(map.offset) +
                                           " over buffer '" +
                                           manifest.buffers[map.buffer].name +
                                           "': " + driver->describe(result));
  }
  // A copy from pageable memory may return before it lands: the maps are
  // in place before any kernel reads them.
  if (!manifest.tensorMaps.empty() && (result = driver->cuCtxSynchronize()) != CUDA_SUCCESS)
    return fail(SOLDER_ERROR_CUDA, "cannot write the tensor maps: " + driver->describe(result));
  if (!bundle->buffers.empty()) {
    result = driver->cuEventCreate(&bundle->lastUse, CU_EVENT_DISABLE_TIMING);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA,
                  "cannot create the workspace's event: " + driver->describe(result));
  }
  *bundleOut = bundle.release();
  lastError.clear();
  return SOLDER_OK;
}

extern "C" void solderFreeBundle(SolderBundle *bundle) { delete bundle; }

namespace {
/// Launch `l`'s kernel arguments: the device pointer of each (an input, an
/// output or a workspace buffer), and the parameter array that points at
/// them (CUDA copies both when it launches or sets a node).
struct KernelArguments {
  std::vector<CUdeviceptr> pointers;
  std::vector<void *> params;
  KernelArguments(const SolderBundle &bundle, size_t l, const void *const *inputs,
                  void *const *outputs) {
    for (const KernelArg &arg : bundle.manifest.launches[l].args) {
      switch (arg.kind) {
      case KernelArg::Kind::input:
        pointers.push_back(reinterpret_cast<CUdeviceptr>(inputs[arg.index]));
        break;
      case KernelArg::Kind::output:
        pointers.push_back(reinterpret_cast<CUdeviceptr>(outputs[arg.index]));
        break;
      case KernelArg::Kind::buffer:
        pointers.push_back(bundle.buffers[arg.index]);
        break;
      }
    }
    for (CUdeviceptr &pointer : pointers)
      params.push_back(&pointer);
  }
  /// Launch `l` as a graph kernel node.
  CUDA_KERNEL_NODE_PARAMS node(const SolderBundle &bundle, size_t l) {
    const Launch &launch = bundle.manifest.launches[l];
    CUDA_KERNEL_NODE_PARAMS node = {};
    node.func = bundle.functions[l];
    node.gridDimX = bundle.grids[l][0];
    node.gridDimY = bundle.grids[l][1];
    node.gridDimZ = bundle.grids[l][2];
    node.blockDimX = launch.block[0];
    node.blockDimY = launch.block[1];
    node.blockDimZ = launch.block[2];
    node.sharedMemBytes = launch.sharedBytes;
    node.kernelParams = params.data();
    return node;
  }
};

/// Whether launches go through the bundle's graph: unless SOLDER_GRAPH=0.
bool graphsEnabled() {
  static const bool enabled = [] {
    const char *value = std::getenv("SOLDER_GRAPH");
    return !value || std::string(value) != "0";
  }();
  return enabled;
}

/// Builds and instantiates a graph of `bundle` for these tensors that skips
/// the launches flagged in `skipped`: the zeroed buffers' memsets, then
/// every other launch, each node after the one before (the stream order of
/// a call). Null when the driver refuses it: the bundle then launches
/// kernel by kernel.
LaunchGraph *buildGraph(SolderBundle &bundle, const std::vector<bool> &skipped,
                        const void *const *inputs, void *const *outputs) {
  const CudaDriver &driver = *bundle.driver;
  const Manifest &manifest = bundle.manifest;
  LaunchGraph built;
  built.skipped = skipped;
  built.nodes.assign(manifest.launches.size(), nullptr);
  CUcontext context = nullptr;
  CUresult result = driver.cuCtxGetCurrent(&context);
  if (result == CUDA_SUCCESS)
    result = driver.cuGraphCreate(&built.graph, 0);
  CUgraphNode previous = nullptr;
  auto after = [&] { return previous ? 1 : 0; };
  for (size_t i = 0; i < manifest.buffers.size() && result == CUDA_SUCCESS; ++i)
    if (manifest.buffers[i].zeroed) {
      CUDA_MEMSET_NODE_PARAMS memset = {};
      memset.dst = bundle.buffers[i];
      memset.elementSize = 1;
      memset.width = manifest.buffers[i].bytes;
      memset.height = 1;
      CUgraphNode node;
      result = driver.cuGraphAddMemsetNode(&node, built.graph, &previous, after(), &memset,
                                           context);
      previous = node;
    }
  for (size_t l = 0; l < manifest.launches.size() && result == CUDA_SUCCESS; ++l) {
    if (skipped[l])
      continue;
    KernelArguments arguments(bundle, l, inputs, outputs);
    CUDA_KERNEL_NODE_PARAMS params = arguments.node(bundle, l);
    result = driver.cuGraphAddKernelNode(&built.nodes[l], built.graph, &previous, after(),
                                         &params);
    previous = built.nodes[l];
  }
  if (result == CUDA_SUCCESS)
    result = driver.cuGraphInstantiate(&built.exec, built.graph, 0);
  if (result != CUDA_SUCCESS) {
    if (built.graph)
      driver.cuGraphDestroy(built.graph);
    bundle.graphRefused = true;
    return nullptr;
  }
  built.inputs.assign(inputs, inputs + manifest.inputs.size());
  built.outputs.assign(outputs, outputs + manifest.outputs.size());
  bundle.graphs.push_back(std::move(built));
  return &bundle.graphs.back();
}

/// Points `graph`'s kernel nodes at these tensors: only the launches that
/// take an input or output that moved since the graph last ran.
CUresult updateGraph(SolderBundle &bundle, LaunchGraph &graph, const void *const *inputs,
                     void *const *outputs) {
  const Manifest &manifest = bundle.manifest;
  std::vector<bool> movedInputs(manifest.inputs.size()),
      movedOutputs(manifest.outputs.size());
  bool moved = false;
  for (size_t i = 0; i < movedInputs.size(); ++i)
    moved |= movedInputs[i] = inputs[i] != graph.inputs[i];
  for (size_t i = 0; i < movedOutputs.size(); ++i)
    moved |= movedOutputs[i] = outputs[i] != graph.outputs[i];
  if (!moved)
    return CUDA_SUCCESS;
  for (size_t l = 0; l < manifest.launches.size(); ++l) {
    if (graph.skipped[l])
      continue;
    bool takesMoved = false;
    for (const KernelArg &arg : manifest.launches[l].args)
      takesMoved |= (arg.kind == KernelArg::Kind::input && movedInputs[arg.index]) ||
                    (arg.kind == KernelArg::Kind::output && movedOutputs[arg.index]);
    if (!takesMoved)
      continue;
    KernelArguments arguments(bundle, l, inputs, outputs);
    CUDA_KERNEL_NODE_PARAMS params = arguments.node(bundle, l);
    if (CUresult result = bundle.driver->cuGraphExecKernelNodeSetParams(
            graph.exec, graph.nodes[l], &params);
        result != CUDA_SUCCESS) {
      // Some nodes may hold this call's pointers already: the next call
      // updates every node.
      std::fill(graph.inputs.begin(), graph.inputs.end(), nullptr);
      std::fill(graph.outputs.begin(), graph.outputs.end(), nullptr);
      return result;
    }
  }
  graph.inputs.assign(inputs, inputs + manifest.inputs.size());
  graph.outputs.assign(outputs, outputs + manifest.outputs.size());
  return CUDA_SUCCESS;
}

/// The preparations this call may skip: those whose every input has a
/// known version, and the pointer and version it had at the last call.
std::vector<bool> skippedPreparations(const SolderBundle &bundle, const void *const *inputs,
                                      const uint64_t *versions) {
  const Manifest &manifest = bundle.manifest;
  std::vector<bool> skipped(manifest.launches.size(), false);
  if (!versions || bundle.preparedVersions.empty() || bundle.captured)
    return skipped;
  for (size_t l = 0; l < manifest.launches.size(); ++l) {
    const std::vector<int> &from = manifest.launches[l].preparedFrom;
    skipped[l] = !from.empty() && std::all_of(from.begin(), from.end(), [&](int i) {
      return versions[i] != 0 && versions[i] == bundle.preparedVersions[i] &&
             inputs[i] == bundle.preparedInputs[i];
    });
  }
  return skipped;
}
} // namespace

extern "C" SolderStatus solderRun(SolderBundle *bundle,
                                  const void *const *inputs,
                                  void *const *outputs, void *stream) {
  return solderRunVersioned(bundle, inputs, outputs, stream, nullptr);
}

extern "C" SolderStatus solderRunVersioned(SolderBundle *bundle, const void *const *inputs,
                                           void *const *outputs, void *stream,
                                           const uint64_t *versions) {
  if (!bundle || (!inputs && !bundle->manifest.inputs.empty()) ||
      (!outputs && !bundle->manifest.outputs.empty()))
    return fail(SOLDER_ERROR_ARGUMENT, "solderRun: null argument");
  const CudaDriver &driver = *bundle->driver;
  const Manifest &manifest = bundle->manifest;
  auto cuStream = static_cast<CUstream>(stream);

  // Kernels load and store float4 vectors: every tensor starts on 16 bytes
  // (cudaMalloc and PyTorch's allocator give 256 or more; a view at an odd
  // offset does not).
  auto misaligned = [](const void *pointer) {
    return reinterpret_cast<uintptr_t>(pointer) % 16 != 0;
  };
  for (size_t i = 0; i < manifest.inputs.size(); ++i) {
    if (!inputs[i])
      return fail(SOLDER_ERROR_ARGUMENT,
                  "solderRun: input '" + manifest.inputs[i].name + "' is null");
    if (misaligned(inputs[i]))
      return fail(SOLDER_ERROR_ARGUMENT, "solderRun: input '" +
                                             manifest.inputs[i].name +
                                             "' is not 16-byte aligned");
  }
  for (size_t i = 0; i < manifest.outputs.size(); ++i) {
    if (!outputs[i])
      return fail(SOLDER_ERROR_ARGUMENT, "solderRun: output '" +
                                             manifest.outputs[i].name +
                                             "' is null");
    if (misaligned(outputs[i]))
      return fail(SOLDER_ERROR_ARGUMENT, "solderRun: output '" +
                                             manifest.outputs[i].name +
                                             "' is not 16-byte aligned");
  }
  // A call captured into a CUDA graph (torch.cuda.graph) neither waits on
  // nor records lastUse, an event outside the capture: the capture would
  // fail (CUDA_ERROR_STREAM_CAPTURE_ISOLATION). Its replays are ordered by
  // the stream they replay on, as the graph's other work is.
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (CUresult result = driver.cuStreamIsCapturing(cuStream, &capture);
      result != CUDA_SUCCESS)
    return fail(SOLDER_ERROR_CUDA, "solderRun: cannot query the stream: " +
                                       driver.describe(result));
  const bool capturing = capture != CU_STREAM_CAPTURE_STATUS_NONE;
  const bool ordered = bundle->lastUse && !capturing;
  // The workspace: one call at a time, in stream order (see SolderBundle);
  // the graph's nodes too.
  std::lock_guard<std::mutex> lock(bundle->mutex);
  if (ordered) {
    CUresult result = driver.cuStreamWaitEvent(cuStream, bundle->lastUse, 0);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA, "waiting for the previous call's workspace: " +
                                         driver.describe(result));
  }
  // The preparations whose inputs hold what they held at the last call
  // are skipped: their buffers are still what they computed. Not in or
  // after a capture, whose replays come later, whatever the inputs hold
  // then.
  bundle->captured |= capturing;
  const std::vector<bool> skipped = skippedPreparations(*bundle, inputs, versions);
  // Until this call has run, the workspace matches no versions.
  bundle->preparedVersions.clear();
  // A call being captured (torch.cuda.graph) launches its kernels into the
  // caller's graph one by one.
  const bool viaGraph = !capturing && graphsEnabled() && !bundle->graphRefused;
  LaunchGraph *graph = nullptr;
  if (viaGraph) {
    for (LaunchGraph &built : bundle->graphs)
      if (built.skipped == skipped)
        graph = &built;
    if (!graph && bundle->graphs.size() < SolderBundle::kMaxGraphs)
      graph = buildGraph(*bundle, skipped, inputs, outputs);
  }
  if (graph) {
    CUresult result = updateGraph(*bundle, *graph, inputs, outputs);
    if (result == CUDA_SUCCESS)
      result = driver.cuGraphLaunch(graph->exec, cuStream);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA, "launch of the bundle's graph failed: " +
                                         driver.describe(result));
  } else {
    for (size_t i = 0; i < manifest.buffers.size(); ++i)
      if (manifest.buffers[i].zeroed) {
        CUresult result = driver.cuMemsetD8Async(
            bundle->buffers[i], 0, manifest.buffers[i].bytes, cuStream);
        if (result != CUDA_SUCCESS)
          return fail(SOLDER_ERROR_CUDA, "clearing buffer '" +
                                             manifest.buffers[i].name +
                                             "': " + driver.describe(result));
      }
    for (size_t l = 0; l < manifest.launches.size(); ++l) {
      if (skipped[l])
        continue;
      const Launch &launch = manifest.launches[l];
      KernelArguments arguments(*bundle, l, inputs, outputs);
      CUresult result = driver.cuLaunchKernel(
          bundle->functions[l], bundle->grids[l][0], bundle->grids[l][1],
          bundle->grids[l][2], launch.block[0], launch.block[1], launch.block[2],
          launch.sharedBytes, cuStream, arguments.params.data(), nullptr);
      if (result != CUDA_SUCCESS)
        return fail(SOLDER_ERROR_CUDA, "launch of kernel '" + launch.kernel +
                                           "' failed: " + driver.describe(result));
    }
  }
  if (ordered) {
    CUresult result = driver.cuEventRecord(bundle->lastUse, cuStream);
    if (result != CUDA_SUCCESS)
      return fail(SOLDER_ERROR_CUDA, "recording the workspace's last use: " +
                                         driver.describe(result));
  }
  // The workspace now holds this call's preparations (a capture's run only
  // when it replays).
  if (versions && !capturing) {
    bundle->preparedInputs.assign(inputs, inputs + manifest.inputs.size());
    bundle->preparedVersions.assign(versions, versions + manifest.inputs.size());
  }
  lastError.clear();
  return SOLDER_OK;
}

/// Input or output `index` of the bundle, or null when out of range.
static const TensorSpec *getTensorSpec(const SolderBundle *bundle, int index,
                                       bool output) {
  if (!bundle)
    return nullptr;
  const auto &list = output ? bundle->manifest.outputs : bundle->manifest.inputs;
  if (index < 0 || static_cast<size_t>(index) >= list.size())
    return nullptr;
  return &list[index];
}

extern "C" int solderNumInputs(const SolderBundle *bundle) {
  return bundle ? static_cast<int>(bundle->manifest.inputs.size()) : -1;
}
extern "C" int solderNumOutputs(const SolderBundle *bundle) {
  return bundle ? static_cast<int>(bundle->manifest.outputs.size()) : -1;
}

#define SOLDER_TENSOR_ACCESSORS(Kind, isOutput)                                \
  extern "C" const char *solder##Kind##Name(const SolderBundle *bundle,        \
                                            int index) {                       \
    const TensorSpec *spec = getTensorSpec(bundle, index, isOutput);           \
    return spec ? spec->name.c_str() : nullptr;                                \
  }                                                                            \
  extern "C" int solder##Kind##Rank(const SolderBundle *bundle, int index) {   \
    const TensorSpec *spec = getTensorSpec(bundle, index, isOutput);           \
    return spec ? static_cast<int>(spec->shape.size()) : -1;                   \
  }                                                                            \
  extern "C" const int64_t *solder##Kind##Shape(const SolderBundle *bundle,    \
                                                int index) {                   \
    const TensorSpec *spec = getTensorSpec(bundle, index, isOutput);           \
    return spec ? spec->shape.data() : nullptr;                                \
  }
SOLDER_TENSOR_ACCESSORS(Input, false)
SOLDER_TENSOR_ACCESSORS(Output, true)
#undef SOLDER_TENSOR_ACCESSORS

extern "C" const char *solderLastError(void) { return lastError.c_str(); }
