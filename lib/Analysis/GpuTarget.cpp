//===- GpuTarget.cpp - The limits of the GPU a bundle is planned for ------===//

#include "solder/Analysis/GpuTarget.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::solder;

std::optional<GpuTarget> mlir::solder::getGpuTarget(StringRef arch) {
  // CUDA C Programming Guide, "Technical Specifications per Compute
  // Capability": shared memory per SM and the per-block opt-in maximum.
  struct Limits {
    int64_t perSM, perBlock;
  };
  std::optional<Limits> limits = llvm::StringSwitch<std::optional<Limits>>(arch)
                                     .Case("sm_80", Limits{164 * 1024, 163 * 1024})
                                     .Case("sm_87", Limits{164 * 1024, 163 * 1024})
                                     .Case("sm_86", Limits{100 * 1024, 99 * 1024})
                                     .Case("sm_89", Limits{100 * 1024, 99 * 1024})
                                     .Case("sm_120", Limits{100 * 1024, 99 * 1024})
                                     .Case("sm_90", Limits{228 * 1024, 227 * 1024})
                                     .Case("sm_90a", Limits{228 * 1024, 227 * 1024})
                                     .Case("sm_100", Limits{228 * 1024, 227 * 1024})
                                     .Default(std::nullopt);
  if (!limits)
    return std::nullopt;
  GpuTarget target;
  target.arch = arch.str();
  target.sharedBytesPerSM = limits->perSM;
  target.maxSharedBytesPerBlock = limits->perBlock;
  return target;
}

StringRef mlir::solder::getKnownGpuArchs() {
  return "sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_120";
}
