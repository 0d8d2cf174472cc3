//===- GpuProbe.h - The GPU beside the compiler -----------------*- C++ -*-===//
//
// solder-compile targets the GPU it runs beside unless told otherwise. It
// needs no CUDA headers or driver to build or run, so the driver is opened
// with dlopen and asked only for the first device's compute capability; the
// runtime's full driver table lives in lib/Runtime/CudaDriver.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_SUPPORT_GPUPROBE_H
#define SOLDER_SUPPORT_GPUPROBE_H

#include <optional>
#include <string>

namespace solder {

struct FoundGpu {
  /// The arch Solder builds for it: "sm_90a" on 9.0 (the Hopper main loop's
  /// wgmma needs the arch-specific target), "sm_XY" on any other.
  std::string arch;
  int capability;   // 10 major + minor
  std::string name; // "NVIDIA H200"
};

/// The first GPU the CUDA driver sees (CUDA_VISIBLE_DEVICES applies);
/// nullopt where there is no driver, no device, or the driver fails.
std::optional<FoundGpu> findGpu();

} // namespace solder

#endif // SOLDER_SUPPORT_GPUPROBE_H
