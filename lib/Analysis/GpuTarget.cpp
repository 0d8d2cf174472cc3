//===- GpuTarget.cpp - The limits of the GPU a bundle is planned for ------===//

#include "solder/Analysis/GpuTarget.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::solder;

std::optional<GpuTarget> mlir::solder::getGpuTarget(StringRef arch) {
  // CUDA C Programming Guide, "Technical Specifications per Compute
  // Capability": shared memory per SM and the per-block opt-in maximum.
  // The SMs: A100 108, A10 72, Jetson AGX Orin 16, L40 142, H100/H200
  // SXM 132, B200 148, RTX PRO 6000 188.
  struct Limits {
    int64_t perSM, perBlock, multiprocessors;
  };
  std::optional<Limits> limits =
      llvm::StringSwitch<std::optional<Limits>>(arch)
          .Case("sm_80", Limits{164 * 1024, 163 * 1024, 108})
          .Case("sm_87", Limits{164 * 1024, 163 * 1024, 16})
          .Case("sm_86", Limits{100 * 1024, 99 * 1024, 72})
          .Case("sm_89", Limits{100 * 1024, 99 * 1024, 142})
          .Case("sm_120", Limits{100 * 1024, 99 * 1024, 188})
          .Case("sm_90", Limits{228 * 1024, 227 * 1024, 132})
          .Case("sm_90a", Limits{228 * 1024, 227 * 1024, 132})
          .Case("sm_100", Limits{228 * 1024, 227 * 1024, 148})
          .Default(std::nullopt);
  if (!limits)
    return std::nullopt;
  GpuTarget target;
  target.arch = arch.str();
  target.sharedBytesPerSM = limits->perSM;
  target.maxSharedBytesPerBlock = limits->perBlock;
  target.multiprocessors = limits->multiprocessors;
  target.hasWgmma = arch == "sm_90a";
  return target;
}

StringRef mlir::solder::getKnownGpuArchs() {
  return "sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a, sm_100, sm_120";
}
