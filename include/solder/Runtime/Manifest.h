//===- Manifest.h - The bundle manifest: model and validation ---*- C++ -*-===//
//
// A bundle is a directory holding manifest.json, the cubin for its target, PTX
// for other GPUs and the generated .cu. The manifest says everything the
// runtime needs to run it: inputs, outputs, workspace buffers and the launch
// sequence. Everything read is validated; a bad bundle is a one-line error.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_RUNTIME_MANIFEST_H
#define SOLDER_RUNTIME_MANIFEST_H

#include "solder/conv/wgmma_layout.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace solder {

/// The manifest format this runtime reads and solder-compile writes (2: with
/// the digest of what the kernels were compiled for; 3: with the constants
/// built at load; 4: with the tensor maps encoded at load).
constexpr int kBundleFormatVersion = 4;

/// No tensor of a bundle is larger (2^40 floats: 4 TiB).
constexpr int64_t kMaxTensorElements = int64_t(1) << 40;

struct TensorSpec {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype; // "f32"
  /// An input the caller passes unchanged from call to call (a module's
  /// weights: solder.parameter), as solder-run does.
  bool parameter = false;
  /// Stored channels-last, (N, *spatial, C) in memory ("layout":
  /// "channels_last"); NCDHW otherwise.
  bool channelsLast = false;
  int64_t getNumElements() const;
  int64_t getBytes() const { return getNumElements() * 4; }
};

/// A device buffer the runtime allocates: intermediate tensors and partial
/// reductions. `zeroed` buffers are cleared before every run.
struct BufferSpec {
  std::string name;
  int64_t bytes = 0;
  bool zeroed = false;
};

/// One kernel argument: a pointer to an input, output or buffer.
struct KernelArg {
  enum class Kind { input, output, buffer };
  Kind kind;
  int index;
};

struct Launch {
  std::string kernel;
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0;
  /// Its blocks take grid[0]'s tiles one after another: the runtime
  /// launches at most as many blocks as the GPU holds at once.
  bool persistent = false;
  std::vector<KernelArg> args;
  /// A preparation: it writes workspace buffers computed from these inputs
  /// alone (the weights to KTRSC or TF32 fragments), which stay valid
  /// while those inputs do (solderRunVersioned). Empty: it runs every call.
  std::vector<int> preparedFrom;
};

/// A __constant__ variable of the binary that a kernel builds on the device:
/// when it loads the bundle, the runtime runs `builder` (one thread; its one
/// argument a device buffer of the symbol's size) and copies the buffer to
/// `symbol`.
struct ModuleConstant {
  std::string symbol, builder;
};

/// A tensor map (CUtensorMap) that the runtime encodes over workspace
/// buffer `buffer` when it loads the bundle, and copies to `offset` bytes
/// into the __device__ variable `symbol` (the Hopper main loop's copies
/// read it there).
struct TensorMapEntry {
  std::string symbol;
  int64_t offset = 0;
  int buffer = 0;
  TensorMapSpec spec;
};

struct Manifest {
  int version = 0;
  std::string target; // e.g. "sm_90"
  std::string entry;
  std::vector<TensorSpec> inputs, outputs;
  std::vector<BufferSpec> buffers;
  std::vector<Launch> launches;
  std::vector<ModuleConstant> constants;
  std::vector<TensorMapEntry> tensorMaps;
  std::string cubinFile, ptxFile, sourceFile, sourceIRFile;
  std::string plan;
};

/// A bundle of several archs (solder-compile --arch=sm_80,sm_90a) has a
/// manifest of format "solder-multi-arch" whose "targets" name a bundle
/// folder inside it per arch. `resolved`: `bundleDir` itself for a bundle of
/// one arch; else the bundle for the GPU whose compute capability
/// `deviceCapability` gives (asked only then; false: it set `error`): the one
/// built for it, else the newest portable target below it, run from its
/// PTX. On failure returns false with `error` in one line.
bool resolveBundleTarget(const std::string &bundleDir,
                         const std::function<bool(int &major, int &minor)> &deviceCapability,
                         std::string &resolved, std::string &error);

/// Reads and validates `bundleDir`/manifest.json. On failure returns false
/// with `error` saying what is wrong and where.
bool loadManifest(const std::string &bundleDir, Manifest &manifest,
                  std::string &error);

} // namespace solder

#endif // SOLDER_RUNTIME_MANIFEST_H
