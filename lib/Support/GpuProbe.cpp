//===- GpuProbe.cpp - The GPU beside the compiler -------------------------===//

#include "solder/Support/GpuProbe.h"

#include <dlfcn.h>

using namespace solder;

std::optional<FoundGpu> solder::findGpu() {
  // The driver API's C signatures, with CUresult and CUdevice as int: no
  // cuda.h, so the compiler builds where CUDA is not installed.
  using Init = int (*)(unsigned);
  using DeviceGet = int (*)(int *, int);
  using GetAttribute = int (*)(int *, int, int);
  using GetName = int (*)(char *, int, int);
  constexpr int kCapabilityMajor = 75, kCapabilityMinor = 76; // CUdevice_attribute
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!driver)
    return std::nullopt;
  auto init = reinterpret_cast<Init>(dlsym(driver, "cuInit"));
  auto deviceGet = reinterpret_cast<DeviceGet>(dlsym(driver, "cuDeviceGet"));
  auto getAttribute = reinterpret_cast<GetAttribute>(dlsym(driver, "cuDeviceGetAttribute"));
  auto getName = reinterpret_cast<GetName>(dlsym(driver, "cuDeviceGetName"));
  int device = 0, major = 0, minor = 0;
  char name[256] = {};
  std::optional<FoundGpu> found;
  if (init && deviceGet && getAttribute && getName && init(0) == 0 && deviceGet(&device, 0) == 0 &&
      getAttribute(&major, kCapabilityMajor, device) == 0 &&
      getAttribute(&minor, kCapabilityMinor, device) == 0 &&
      getName(name, sizeof name - 1, device) == 0) {
    // As the Python package's _gpu_arch maps it.
    std::string arch = "sm_" + std::to_string(major) + std::to_string(minor);
    if (major == 9 && minor == 0)
      arch += "a";
    found = FoundGpu{arch, 10 * major + minor, name};
  }
  // The driver stays loaded: it is not meant to be unloaded once initialized.
  return found;
}
