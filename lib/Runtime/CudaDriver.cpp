//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>
#include <mutex>

using namespace solder;

// cuda.h maps names such as cuMemAlloc to versioned symbols (cuMemAlloc_v2);
// stringizing after expansion looks up the symbol the header means.
#define SOLDER_STRINGIZE_EXPANDED(x) SOLDER_STRINGIZE(x)
#define SOLDER_STRINGIZE(x) #x

const CudaDriver *CudaDriver::get(std::string &error) {
  static CudaDriver driver;
  static std::string loadError;
  static std::once_flag once;
  std::call_once(once, [] {
    void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!handle) {
      loadError = "no CUDA driver (libcuda.so.1 not found): this machine has "
                  "no usable NVIDIA GPU";
      return;
    }
#define SOLDER_LOAD(name)                                                      \
  driver.name = reinterpret_cast<decltype(&::name)>(                           \
      dlsym(handle, SOLDER_STRINGIZE_EXPANDED(name)));                         \
  if (!driver.name) {                                                          \
    loadError = std::string("the CUDA driver lacks ") +                        \
                SOLDER_STRINGIZE_EXPANDED(name) + ": driver too old";          \
    return;                                                                    \
  }
    SOLDER_DRIVER_FUNCTIONS(SOLDER_LOAD)
#undef SOLDER_LOAD
#define SOLDER_LOAD_OPTIONAL(name)                                             \
  driver.name = reinterpret_cast<decltype(&::name)>(                           \
      dlsym(handle, SOLDER_STRINGIZE_EXPANDED(name)));
    SOLDER_OPTIONAL_DRIVER_FUNCTIONS(SOLDER_LOAD_OPTIONAL)
#undef SOLDER_LOAD_OPTIONAL
    CUresult result = driver.cuInit(0);
    if (result != CUDA_SUCCESS) {
      loadError = "cuInit failed: " + driver.describe(result) +
                  " (no GPU, or the driver cannot reach it)";
      return;
    }
    int count = 0;
    if (driver.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0)
      loadError = "no CUDA device found";
  });
  if (!loadError.empty()) {
    error = loadError;
    return nullptr;
  }
  return &driver;
}

std::string CudaDriver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return std::string(name ? name : "CUDA_ERROR_UNKNOWN") + ": " +
         (text ? text : "unknown error");
}
