//===- GpuTarget.cpp - The limits of the GPU a bundle is planned for ------===//

#include "solder/Analysis/GpuTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"

#include <iterator>

using namespace mlir;
using namespace mlir::solder;

namespace {
/// An arch Solder plans for, with its shared memory per SM and the per-block
/// opt-in maximum (CUDA C Programming Guide, "Technical Specifications per
/// Compute Capability") and the SMs of its data-center part: A100 108, A10
/// 72, Jetson AGX Orin 16, L40 142, H100/H200 SXM 132, B200 148, RTX PRO
/// 6000 188.
struct KnownArch {
  StringLiteral arch;
  int capability; // 10 major + minor
  int64_t perSM, perBlock, multiprocessors;
};
/// In the order errors list them.
constexpr KnownArch kKnownArchs[] = {
    {"sm_80", 80, 164 * 1024, 163 * 1024, 108},   {"sm_86", 86, 100 * 1024, 99 * 1024, 72},
    {"sm_87", 87, 164 * 1024, 163 * 1024, 16},    {"sm_89", 89, 100 * 1024, 99 * 1024, 142},
    {"sm_90", 90, 228 * 1024, 227 * 1024, 132},   {"sm_90a", 90, 228 * 1024, 227 * 1024, 132},
    {"sm_100", 100, 228 * 1024, 227 * 1024, 148}, {"sm_120", 120, 100 * 1024, 99 * 1024, 188}};
} // namespace

std::optional<GpuTarget> mlir::solder::getGpuTarget(StringRef arch) {
  const KnownArch *known =
      llvm::find_if(kKnownArchs, [&](const KnownArch &k) { return k.arch == arch; });
  if (known == std::end(kKnownArchs))
    return std::nullopt;
  GpuTarget target;
  target.arch = arch.str();
  target.sharedBytesPerSM = known->perSM;
  target.maxSharedBytesPerBlock = known->perBlock;
  target.multiprocessors = known->multiprocessors;
  target.hasWgmma = arch == "sm_90a";
  return target;
}

StringRef mlir::solder::getKnownGpuArchs() {
  static const std::string list = [] {
    std::string joined;
    for (const KnownArch &known : kKnownArchs)
      joined += (joined.empty() ? "" : ", ") + known.arch.str();
    return joined;
  }();
  return list;
}

SmallVector<StringRef> mlir::solder::getPortableArchs() {
  SmallVector<StringRef> portable;
  for (const KnownArch &known : kKnownArchs)
    if (!known.arch.ends_with("a"))
      portable.push_back(known.arch);
  return portable;
}

std::optional<StringRef> mlir::solder::getNewestPortableArch(int capability) {
  std::optional<StringRef> newest;
  int newestCapability = -1;
  for (const KnownArch &known : kKnownArchs)
    if (!known.arch.ends_with("a") && known.capability <= capability &&
        known.capability > newestCapability) {
      newest = known.arch;
      newestCapability = known.capability;
    }
  return newest;
}
