//===- GpuTarget.h - The limits of the GPU a bundle is planned for -*- C++ -*-===//
//
// What the plan needs to know of the `--arch` a bundle is built for: the
// shared memory and registers an SM gives its blocks. Schedules are sized
// against these, never against constants of one GPU.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_ANALYSIS_GPUTARGET_H
#define SOLDER_ANALYSIS_GPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::solder {

struct GpuTarget {
  /// "sm_90", as nvcc's -arch takes it.
  std::string arch;
  /// Shared memory an SM gives its blocks, and the most one block may ask
  /// for (the opt-in limit).
  int64_t sharedBytesPerSM = 0, maxSharedBytesPerBlock = 0;
  /// Shared memory the driver keeps for each resident block.
  int64_t sharedBytesReservedPerBlock = 1024;
  int64_t registersPerSM = 64 * 1024;
  /// The SMs of the arch's data-center part (H100 and H200 SXM: 132): what
  /// a grid is sized against when it may leave SMs idle. A smaller part of
  /// the arch has fewer, so a grid sized for this one still fills it.
  int64_t multiprocessors = 0;
  /// Warpgroup MMAs (wgmma) and the tensor copies of the Hopper main loop:
  /// sm_90a only (the arch-specific target; plain sm_90 code cannot issue
  /// wgmma, and later GPUs drop it).
  bool hasWgmma = false;
};

/// The target of `arch` (sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100,
/// sm_120); nullopt for others.
std::optional<GpuTarget> getGpuTarget(StringRef arch);
/// The archs getGpuTarget knows, for error messages.
StringRef getKnownGpuArchs();
/// The archs getGpuTarget knows that are not arch-specific (no 'a'), oldest
/// first: those whose PTX newer GPUs run (solder-compile --print-config
/// lists them for the Python package's choice).
SmallVector<StringRef> getPortableArchs();
/// The newest of them that is not arch-specific (no 'a') and runs on a GPU
/// of compute capability `capability` (10 major + minor), from its PTX
/// where newer; nullopt below them all.
std::optional<StringRef> getNewestPortableArch(int capability);

} // namespace mlir::solder

#endif // SOLDER_ANALYSIS_GPUTARGET_H
