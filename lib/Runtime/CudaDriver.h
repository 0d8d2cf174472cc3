//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// libcuda.so.1 is opened with dlopen rather than linked, so that the runtime
// and solder-run start on a machine without a GPU driver and say so in one
// line instead of failing in the dynamic loader.
//
//===----------------------------------------------------------------------===//

#ifndef SOLDER_LIB_RUNTIME_CUDADRIVER_H
#define SOLDER_LIB_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <string>

namespace solder {

struct CudaDriver {
#define SOLDER_DRIVER_FUNCTIONS(X)                                             \
  X(cuInit) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute)         \
  X(cuDeviceGetName) X(cuDevicePrimaryCtxRetain) X(cuCtxGetCurrent)            \
  X(cuCtxSetCurrent) X(cuCtxGetDevice) X(cuModuleLoadData) X(cuModuleUnload)   \
  X(cuModuleGetFunction) X(cuFuncSetAttribute) X(cuLaunchKernel) X(cuMemAlloc) \
  X(cuMemFree) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemsetD8Async)             \
  X(cuMemsetD32) X(cuStreamSynchronize) X(cuCtxSynchronize) X(cuGetErrorName) \
  X(cuGetErrorString) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)      \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuMemGetInfo)                 \
  X(cuStreamWaitEvent) X(cuModuleGetGlobal) X(cuMemcpyDtoD)                 \
  X(cuStreamIsCapturing) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)      \
  X(cuGraphCreate) X(cuGraphDestroy) X(cuGraphAddKernelNode)                 \
  X(cuGraphAddMemsetNode) X(cuGraphInstantiate) X(cuGraphExecDestroy)        \
  X(cuGraphExecKernelNodeSetParams) X(cuGraphLaunch)
/// Entry points only some bundles need (CUDA 12 drivers on: the Hopper main
/// loop's tensor maps); null when the driver lacks them.
#define SOLDER_OPTIONAL_DRIVER_FUNCTIONS(X)                                    \
  X(cuTensorMapEncodeIm2col) X(cuTensorMapEncodeTiled)
#define SOLDER_DECLARE(name) decltype(&::name) name = nullptr;
  SOLDER_DRIVER_FUNCTIONS(SOLDER_DECLARE)
  SOLDER_OPTIONAL_DRIVER_FUNCTIONS(SOLDER_DECLARE)
#undef SOLDER_DECLARE

  /// The process-wide driver, loaded and cuInit-ed on first use; null with
  /// `error` set when there is no usable driver or GPU.
  static const CudaDriver *get(std::string &error);

  /// "CUDA_ERROR_X: description".
  std::string describe(CUresult result) const;
};

} // namespace solder

#endif // SOLDER_LIB_RUNTIME_CUDADRIVER_H
